import Dependencies
import Domain
import Foundation
import Observation
import Repositories

/// One question and its answers: what `qapple://questions/ID` opens (a past question, or
/// today's from a notification). The answers stay locked until the user answered; answering
/// from here is offered only for today's question.
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
  /// Whether it is today's question (only today's can be answered here).
  public private(set) var isToday = false
  /// The answers to the question.
  public let answers: AnswerListModel
  /// What is presented on top, if anything.
  public var destination: Destination?
  /// A refresh that failed while the question is shown, until ``failureDismissed()``.
  public private(set) var failure: DomainError?

  /// Asks the app to open a place outside this screen.
  @ObservationIgnored public var onNavigate: @MainActor (DeepLink) -> Void = { _ in }

  @ObservationIgnored private var draft = DraftKeeper()
  @ObservationIgnored @Dependency(\.questionRepository) private var questions
  @ObservationIgnored @Dependency(\.analyticsRepository) private var analytics
  @ObservationIgnored @Dependency(\.date) private var date

  /// The screen of the question `questionID`; ``task()`` loads it.
  public init(questionID: Question.ID) {
    self.questionID = questionID
    answers = AnswerListModel(questionID: questionID)
    answers.onMyAnswerDeleted = { [weak self] _ in self?.myAnswerDeleted() }
  }

  /// The question, when loaded.
  public var question: Question? {
    if case .loaded(let question) = phase { question } else { nil }
  }

  /// Whether the user can answer here: today's question, not answered yet.
  public var canWriteAnswer: Bool { isToday && question.map { $0.myAnswer == nil } ?? false }

  /// The screen appeared: loads the question and its answers.
  public func task() async {
    await analytics.screenViewed("question_detail", at: date.now)
    await load()
  }

  /// The screen was pulled down (or "try again" tapped): loads everything again.
  public func refreshPulled() async {
    await load()
  }

  /// "Write an answer" (today's question only): opens the sheet with the draft kept so far.
  public func writeAnswerButtonTapped() {
    guard let question, canWriteAnswer else { return }
    let sheet = draft.sheet(
      for: question, from: self, onClose: { [weak self] in self?.destination = nil },
      onSubmitted: { [weak self] answer in await self?.answerSubmitted(answer) })
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

  private func load() async {
    failure = nil
    do {
      let question = try await questions.fetchQuestion(questionID)
      isToday = try await isTodays(question)
      phase = .loaded(question)
    } catch {
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
    draft.discard()
    destination = nil
    guard let question, question.id == answer.questionID else { return }
    phase = .loaded(question.answered(with: answer))
    await answers.load()
  }

  private func myAnswerDeleted() {
    guard let question else { return }
    phase = .loaded(question.withoutMyAnswer())
  }
}
