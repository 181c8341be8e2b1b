import Dependencies
import Domain
import Foundation
import Observation
import Repositories

/// One question and its answers: what `qapple://questions/ID` opens (a past question, or
/// today's from a notification), and the body of the Today screen (``TodayModel``). The
/// answers stay locked until the user answered; answering is offered for any question the
/// user has not answered (a past one too, as the service allows).
///
/// The write sheet's draft lives as long as this model: closing the sheet and opening it again
/// brings the text back; only a submitted answer ends it. A submit the service refuses as a
/// conflict (already answered, e.g. on another device) reloads the question and its answers
/// behind the sheet, which keeps the failure and the draft.
@MainActor @Observable
public final class QuestionDetailModel {
  /// What the screen shows.
  public enum Phase: Hashable, Sendable {
    /// The first load runs.
    case loading
    /// The question (with the user's answer, if any).
    case loaded(Question)
    /// The first load failed (e.g. `notFound` for a question not published);
    /// ``QuestionDetailModel/refreshPulled()`` tries again.
    case failed(DomainError)
  }

  /// What the screen presents on top of itself.
  public enum Destination {
    /// The write-answer sheet.
    case writeAnswer(WriteAnswerModel)
  }

  /// The question shown.
  public let questionID: Question.ID
  /// What the screen shows.
  public private(set) var phase: Phase = .loading
  /// Whether it is today's question (any published question can be answered: `Docs/Rules.md`).
  public private(set) var isToday = false
  /// The answers to the question.
  public let answers: AnswerListModel
  /// What is presented on top, if anything.
  public var destination: Destination?
  /// A refresh that failed while the question is shown, until ``failureDismissed()``.
  public private(set) var failure: DomainError?

  /// Asks the app to open a place outside this screen.
  @ObservationIgnored public var onNavigate: @MainActor (DeepLink) -> Void = { _ in }

  /// The body of the Today screen, which loads it (``task()`` does nothing then).
  @ObservationIgnored private let isShownByToday: Bool
  /// The write sheet kept while this model lives, with its draft.
  @ObservationIgnored private var draft: WriteAnswerModel?
  /// How many times the user's answer changed on this screen (submitted, deleted): a question
  /// read before a change must not put back the answer state from before it.
  @ObservationIgnored private(set) var answerChanges = 0
  /// Numbers the loads (and refreshes from Today): only the newest lands, so a slow older
  /// read cannot show the question unanswered after a newer one showed the answer.
  @ObservationIgnored private var loads = LatestLoad()
  @ObservationIgnored @Dependency(\.questionRepository) private var questions
  @ObservationIgnored @Dependency(\.analyticsRepository) private var analytics
  @ObservationIgnored @Dependency(\.date) private var date

  /// The screen of the question `questionID`; ``task()`` loads it.
  public convenience init(questionID: Question.ID) {
    self.init(questionID: questionID, isShownByToday: false)
  }

  /// Today's question as the Today screen loaded it (its answers still to load); the Today
  /// screen loads it, so its ``task()`` does nothing.
  convenience init(today question: Question) {
    self.init(questionID: question.id, isShownByToday: true)
    phase = .loaded(question)
    isToday = true
  }

  private init(questionID: Question.ID, isShownByToday: Bool) {
    self.questionID = questionID
    self.isShownByToday = isShownByToday
    answers = AnswerListModel(questionID: questionID)
    answers.onMyAnswerDeleted = { [weak self] _ in self?.myAnswerDeleted() }
  }

  /// The question, when loaded.
  public var question: Question? {
    if case .loaded(let question) = phase { question } else { nil }
  }

  /// Whether the user can answer here: a question not answered yet (today's or a past one, as
  /// the service takes either; answering a past one unlocks its answers too).
  public var canWriteAnswer: Bool { question.map { $0.myAnswer == nil } ?? false }

  /// The screen appeared: loads the question and its answers (nothing when it is the body of
  /// the Today screen, which loaded it).
  public func task() async {
    guard !isShownByToday else { return }
    await analytics.screenViewed("question_detail", at: date.now)
    await load()
  }

  /// The screen was pulled down (or "try again" tapped): loads everything again.
  public func refreshPulled() async {
    await load()
  }

  /// "Write an answer" (a question not answered yet): opens the sheet with the draft kept so far.
  public func writeAnswerButtonTapped() {
    guard let question, canWriteAnswer else { return }
    if let draft {
      destination = .writeAnswer(draft)
      return
    }
    let sheet = withDependencies(from: self) { WriteAnswerModel(question: question) }
    sheet.onClose = { [weak self] in self?.destination = nil }
    sheet.onSubmitted = { [weak self] answer in await self?.answerSubmitted(answer) }
    // The screen behind the sheet is stale (e.g. answered on another device): show what is now.
    sheet.onConflict = { [weak self] in await self?.load() }
    draft = sheet
    destination = .writeAnswer(sheet)
  }

  /// The sheet was dismissed (the draft stays for the next time).
  public func destinationDismissed() {
    destination = nil
  }

  /// The failure was read.
  public func failureDismissed() {
    failure = nil
  }

  /// Numbers a refresh of the Today screen among this screen's loads as its read begins: one
  /// of this screen's loads that starts later (a conflict's reload) overtakes it.
  func startRefresh() -> Int { loads.start() }

  /// Shows `question` as loaded again (a refresh of the Today screen that ``startRefresh()``
  /// numbered `load`) and reloads the answers. `question`, read when ``answerChanges`` was
  /// `changes`, lands; read before the user's answer changed (the change already showed its
  /// state), or overtaken by a newer load, it is dropped.
  func refreshed(with question: Question, readAt changes: Int, load: Int) async {
    guard changes == answerChanges, loads.isLatest(load) else { return }
    phase = .loaded(question)
    await answers.load()
  }

  private func load() async {
    failure = nil
    let (number, changes) = (loads.start(), answerChanges)
    do {
      let question = try await questions.fetchQuestion(questionID)
      let today = try await isTodays(question)
      // Read before the user's answer changed (the change already showed its state), or
      // overtaken by a newer load.
      guard changes == answerChanges, loads.isLatest(number) else { return }
      isToday = today
      phase = .loaded(question)
    } catch is CancellationError {
      return  // The screen went away; its next appearance loads again.
    } catch {
      guard loads.isLatest(number) else { return }
      if question == nil {
        phase = .failed(DomainError(error))
      } else {
        failure = DomainError(error)
      }
      return
    }
    await answers.load()
  }

  /// Whether `question` is today's, as the service says (no question today: it is not).
  private func isTodays(_ question: Question) async throws -> Bool {
    do {
      return try await questions.fetchToday().id == question.id
    } catch DomainError.notFound {
      return false
    }
  }

  private func answerSubmitted(_ answer: Answer) async {
    answerChanges += 1
    draft = nil
    destination = nil
    guard var question else { return }
    // A question read after the server took the answer (while its answer was on the way)
    // already counts it.
    if question.myAnswer?.id != answer.id { question.answerCount += 1 }
    question.myAnswer = answer
    phase = .loaded(question)
    await answers.load()
  }

  private func myAnswerDeleted() {
    answerChanges += 1
    // A question read after the deletion (while its answer was on the way) no longer counts it.
    guard var question, question.myAnswer != nil else { return }
    question.myAnswer = nil
    question.answerCount = max(0, question.answerCount - 1)
    phase = .loaded(question)
  }
}
