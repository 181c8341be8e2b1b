import Dependencies
import Domain
import Foundation
import Observation
import Repositories

/// The Today tab's root: today's question with the user's answer or the way to write one and
/// the answers (locked until answered), shown by a ``QuestionDetailModel``, and the way to
/// past questions.
///
/// The question's model (and so the write sheet's draft) lives as long as this one and today's
/// question stays the same: a refresh keeps it.
@MainActor @Observable
public final class TodayModel {
  /// What the screen shows.
  public enum Phase {
    /// The first load runs.
    case loading
    /// Today's question, its answers and the write sheet.
    case loaded(QuestionDetailModel)
    /// No question is out today.
    case noQuestion
    /// The first load failed; ``TodayModel/refreshPulled()`` tries again.
    case failed(DomainError)
  }

  /// What the screen presents on top of itself.
  public enum Destination {
    /// The past questions (pushed).
    case pastQuestions(PastQuestionsModel)
  }

  /// What the screen shows.
  public private(set) var phase: Phase = .loading
  /// What is presented on top, if anything.
  public var destination: Destination?
  /// A refresh that failed while a question is shown, until ``failureDismissed()``.
  public private(set) var failure: DomainError?

  /// Asks the app to open a place outside this screen (a past question: `.question(id)`).
  @ObservationIgnored public var onNavigate: @MainActor (DeepLink) -> Void = { _ in }
  /// Numbers the loads: only the newest lands (an older one may have read yesterday's
  /// question).
  @ObservationIgnored private var loads = LatestLoad()

  @ObservationIgnored @Dependency(\.questionRepository) private var questions
  @ObservationIgnored @Dependency(\.analyticsRepository) private var analytics
  @ObservationIgnored @Dependency(\.date) private var date

  /// The Today screen; ``task()`` loads it.
  public init() {}

  /// Today's question with its answers and write sheet, when loaded.
  public var today: QuestionDetailModel? {
    if case .loaded(let today) = phase { today } else { nil }
  }

  /// Whether no question is out today.
  public var hasNoQuestion: Bool {
    if case .noQuestion = phase { true } else { false }
  }

  /// The failure of the first load, while nothing else can be shown.
  public var loadFailure: DomainError? {
    if case .failed(let error) = phase { error } else { nil }
  }

  /// The screen appeared: loads today's question and its answers.
  public func task() async {
    await analytics.screenViewed("question_today", at: date.now)
    await load()
  }

  /// The screen was pulled down (or "try again" tapped): loads everything again.
  public func refreshPulled() async {
    await load()
  }

  /// "Past questions": pushes their list.
  public func pastQuestionsButtonTapped() {
    let past = withDependencies(from: self) { PastQuestionsModel(excluding: today?.questionID) }
    past.onNavigate = { [weak self] link in self?.onNavigate(link) }
    destination = .pastQuestions(past)
  }

  /// The pushed screen was dismissed.
  public func destinationDismissed() {
    destination = nil
  }

  /// The failure was read.
  public func failureDismissed() {
    failure = nil
  }

  private func load() async {
    failure = nil
    let number = loads.start()
    let shown = today
    let changes = shown?.answerChanges ?? 0
    let refresh = shown?.startRefresh()
    let question: Question
    do {
      question = try await questions.fetchToday()
      // Overtaken by a newer load (which may have read a newer day's question): it shows
      // what is newer.
      guard loads.isLatest(number) else { return }
    } catch DomainError.notFound {
      if loads.isLatest(number) { phase = .noQuestion }
      return
    } catch is CancellationError {
      return  // The screen went away; its next appearance loads again.
    } catch {
      guard loads.isLatest(number) else { return }
      if today == nil { phase = .failed(DomainError(error)) } else { failure = DomainError(error) }
      return
    }
    if let today, today.questionID == question.id {
      // Only onto the question screen this read began on (a newer load since replaced it).
      if today === shown, let refresh {
        await today.refreshed(with: question, readAt: changes, load: refresh)
      }
      return
    }
    let today = withDependencies(from: self) { QuestionDetailModel(today: question) }
    today.onNavigate = { [weak self] link in self?.onNavigate(link) }
    phase = .loaded(today)
    await today.answers.load()
  }
}
