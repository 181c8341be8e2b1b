import Dependencies
import Domain
import Foundation
import Observation
import Repositories

/// The write-answer sheet: the question, the text with its live counter and font size, submit.
///
/// The limit is the engine's (``Domain/TextRule/answer``), counted as users see characters
/// (Swift `Character`s, so a Hangul syllable or an emoji with modifiers is one). Text past the
/// limit is cut at a character boundary, and how much was cut is said
/// (``droppedCharacterCount``); the font size follows the text actually kept. The presenter keeps
/// this model while its screen lives, so closing and reopening the sheet keeps the draft.
@MainActor @Observable
public final class WriteAnswerModel: Identifiable {
  /// The font sizes, largest first: the text steps down one size at each threshold.
  public static let fontSizes = [48, 40, 32, 24, 17]
  /// The shares of the limit, in percent, at which the next smaller size starts.
  public static let fontSizeThresholds = [20, 40, 60, 80]
  /// The most characters an answer may have (the engine's rule).
  public static var limit: Int { TextRule.answer.length.upperBound }

  /// The question answered.
  public let question: Question
  /// The text as kept (never longer than the rule allows).
  public private(set) var text = ""
  /// How many characters the last change could not keep (0 when everything fit), so the view
  /// can say the text was shortened instead of losing it silently.
  public private(set) var droppedCharacterCount = 0
  /// The answer is being sent: the button shows progress and ignores taps.
  public private(set) var isSubmitting = false
  /// The last failure, shown until ``failureDismissed()`` or the next submit.
  public private(set) var failure: DomainError?

  /// Called when the server accepted the answer (awaited before the submit ends, so the
  /// presenter can show the unlocked answers).
  @ObservationIgnored public var onSubmitted: @MainActor (Answer) async -> Void = { _ in }
  /// Called when the service refused the answer as conflicting with its current state (e.g.
  /// the user already answered on another device), awaited before the submit ends, so the
  /// presenter can reload what it shows; the failure stays on the sheet, the draft in it.
  @ObservationIgnored public var onConflict: @MainActor () async -> Void = {}
  /// Called when the user closed the sheet without submitting (the draft stays in this model).
  @ObservationIgnored public var onClose: @MainActor () -> Void = {}

  @ObservationIgnored @Dependency(\.questionRepository) private var questions
  @ObservationIgnored @Dependency(\.analyticsRepository) private var analytics
  @ObservationIgnored @Dependency(\.date) private var date

  /// Creates the sheet for `question` with an empty draft.
  public init(question: Question) {
    self.question = question
  }

  /// The identity of the sheet: its question.
  public nonisolated var id: Question.ID { question.id }

  /// How many more characters fit, as the engine counts them.
  public var remainingCount: Int { TextRule.answer.remaining(in: text) }

  /// The font size for the text kept: ``fontSizes`` stepped down at each of
  /// ``fontSizeThresholds`` percent of ``limit``.
  public var fontSize: Int {
    let percent = (Self.limit - remainingCount) * 100 / Self.limit
    return Self.fontSizes[Self.fontSizeThresholds.filter { percent >= $0 }.count]
  }

  /// Whether submit is enabled: text the rule accepts, nothing being sent.
  public var canSubmit: Bool {
    !isSubmitting && (try? Answer.validate(content: text)) != nil
  }

  /// The sheet appeared.
  public func task() async {
    await analytics.screenViewed("answer_write", at: date.now)
  }

  /// The user typed or pasted: keeps what fits and says how much did not.
  public func textChanged(_ newText: String) {
    let kept = Self.kept(newText)
    droppedCharacterCount = newText.count - kept.count
    text = kept
  }

  /// Submit was tapped: checks the text, sends it, and hands the answer to the presenter.
  public func submitButtonTapped() async {
    guard !isSubmitting else { return }
    let content: String
    do {
      content = try Answer.validate(content: text)
    } catch {
      failure = .validation(error)
      return
    }
    // Submitting until the presenter has the answer: the sheet stays open meanwhile, and a
    // second tap must not send it again.
    isSubmitting = true
    defer { isSubmitting = false }
    failure = nil
    let answer: Answer
    do {
      answer = try await questions.submitAnswer(question.id, content)
    } catch {
      let failure = DomainError(error)
      self.failure = failure
      if case .conflict = failure { await onConflict() }
      return
    }
    await analytics.track(
      "answer_submitted", ["characters": String(content.count)], at: date.now)
    await onSubmitted(answer)
  }

  /// The sheet was closed; the draft stays for the next time it opens.
  public func closeButtonTapped() {
    onClose()
  }

  /// The failure was read.
  public func failureDismissed() {
    failure = nil
  }

  /// The longest start of `text` the rule accepts: whole characters, at most ``limit`` once
  /// surrounding whitespace is trimmed (leading whitespace does not count, as for the engine).
  static func kept(_ text: String) -> String {
    let leading = text.prefix(while: \.isWhitespace).count
    return String(text.prefix(leading + limit))
  }
}
