import Dependencies
import Domain
import Foundation
import Observation
import Repositories

/// The Today tab's root: today's question, the user's answer or the way to write one, the
/// answers (locked until answered) and the way to past questions.
///
/// The write sheet's draft lives as long as this model: closing the sheet and opening it again
/// brings the text back; only a submitted answer ends it.
@MainActor @Observable
public final class TodayModel {
  /// What the screen shows.
  public enum Phase: Hashable, Sendable {
    /// The first load runs.
    case loading
    /// Today's question (with the user's answer, if any).
    case loaded(Question)
    /// No question is out today.
    case noQuestion
    /// The first load failed; ``TodayModel/refreshPulled()`` tries again.
    case failed(DomainError)
  }

  /// What the screen presents on top of itself.
  public enum Destination {
    /// The write-answer sheet.
    case writeAnswer(WriteAnswerModel)
    /// The past questions (pushed).
    case pastQuestions(PastQuestionsModel)
  }

  /// What the screen shows.
  public private(set) var phase: Phase = .loading
  /// The answers to today's question, once it is known.
  public private(set) var answers: AnswerListModel?
  /// What is presented on top, if anything.
  public var destination: Destination?
  /// A refresh that failed while a question is shown, until ``failureDismissed()``.
  public private(set) var failure: DomainError?

  /// Asks the app to open a place outside this screen (a past question: `.question(id)`).
  @ObservationIgnored public var onNavigate: @MainActor (DeepLink) -> Void = { _ in }

  @ObservationIgnored private var draft = DraftKeeper()
  @ObservationIgnored @Dependency(\.questionRepository) private var questions
  @ObservationIgnored @Dependency(\.analyticsRepository) private var analytics
  @ObservationIgnored @Dependency(\.date) private var date

  /// The Today screen; ``task()`` loads it.
  public init() {}

  /// Today's question, when loaded.
  public var question: Question? {
    if case .loaded(let question) = phase { question } else { nil }
  }

  /// Whether the user can still answer today's question.
  public var canWriteAnswer: Bool { question.map { $0.myAnswer == nil } ?? false }

  /// The screen appeared: loads today's question and its answers.
  public func task() async {
    await analytics.screenViewed("question_today", at: date.now)
    await load()
  }

  /// The screen was pulled down (or "try again" tapped): loads everything again.
  public func refreshPulled() async {
    await load()
  }

  /// "Write an answer": opens the sheet with the draft kept so far.
  public func writeAnswerButtonTapped() {
    guard let question, canWriteAnswer else { return }
    let sheet = draft.sheet(
      for: question, from: self, onClose: { [weak self] in self?.destination = nil },
      onSubmitted: { [weak self] answer in await self?.answerSubmitted(answer) })
    destination = .writeAnswer(sheet)
  }

  /// "Past questions": pushes their list.
  public func pastQuestionsButtonTapped() {
    let past = withDependencies(from: self) { PastQuestionsModel(excluding: question?.id) }
    past.onNavigate = { [weak self] link in self?.onNavigate(link) }
    destination = .pastQuestions(past)
  }

  /// The sheet or pushed screen was dismissed (a draft stays for the next time).
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
      show(try await questions.fetchToday())
    } catch DomainError.notFound {
      phase = .noQuestion
      answers = nil
      return
    } catch {
      if question == nil {
        phase = .failed(DomainError(error))
      } else {
        failure = DomainError(error)
      }
      return
    }
    await answers?.load()
  }

  private func show(_ question: Question) {
    phase = .loaded(question)
    guard answers?.questionID != question.id else { return }
    let answers = withDependencies(from: self) { AnswerListModel(questionID: question.id) }
    answers.onMyAnswerDeleted = { [weak self] _ in self?.myAnswerDeleted() }
    self.answers = answers
  }

  private func answerSubmitted(_ answer: Answer) async {
    draft.discard()
    destination = nil
    guard let question, question.id == answer.questionID else { return }
    phase = .loaded(question.answered(with: answer))
    await answers?.load()
  }

  private func myAnswerDeleted() {
    guard let question else { return }
    phase = .loaded(question.withoutMyAnswer())
  }
}
