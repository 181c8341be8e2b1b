import Dependencies
import Domain
import Foundation
import Observation
import ReportFeature
import Repositories

/// The answers to one question, shown inside the question's screen: locked until the user
/// answered it (the service's rule), paged, with the see-more sheet on every answer (report
/// someone else's, delete one's own).
@MainActor @Observable
public final class AnswerListModel {
  /// What the list presents.
  public enum Destination {
    /// The see-more sheet of an answer (``ReportFeature/SeeMoreModel``).
    case seeMore(SeeMoreModel)
  }

  /// The question whose answers these are.
  public let questionID: Question.ID
  /// Others' answers stay hidden until the user answered: the view shows an invitation to
  /// answer instead of the list.
  public private(set) var isLocked = false
  /// The last failure of a load, shown until ``failureDismissed()``.
  public private(set) var failure: DomainError?
  /// What is presented on top, if anything.
  public var destination: Destination?

  /// Called when the user deleted their own answer here (the list is locked again).
  @ObservationIgnored public var onMyAnswerDeleted: @MainActor (Answer) -> Void = { _ in }

  @ObservationIgnored private let list: PagedList<Answer>
  @ObservationIgnored @Dependency(\.questionRepository) private var questions

  /// The answers of `questionID`; its presenter loads them.
  public init(questionID: Question.ID) {
    self.questionID = questionID
    @Dependency(\.questionRepository) var questions
    list = PagedList { [questions] page in try await questions.fetchAnswers(questionID, page) }
  }

  /// The answers loaded so far, newest first (the user's own among them).
  public var answers: [Answer] { list.items }
  /// Whether more answers follow.
  public var hasMore: Bool { list.hasMore }
  /// The first page is loading.
  public var isLoading: Bool { list.isLoading }
  /// A further page is loading.
  public var isLoadingMore: Bool { list.isLoadingMore }

  /// The list was pulled down: loads the first page again.
  public func refreshPulled() async {
    await load()
  }

  /// The user scrolled to the last answer: loads the next page.
  public func scrolledToBottom() async {
    guard !isLocked else { return }
    do {
      try await list.loadMore()
    } catch {
      failure = DomainError(error)
    }
  }

  /// "More" on an answer: report it (someone else's) or delete it (one's own).
  public func seeMoreTapped(_ answer: Answer) {
    let questions = self.questions
    let sheet = withDependencies(from: self) {
      SeeMoreModel(target: .answer(answer.id), isMine: answer.isMine) {
        try await questions.deleteAnswer(answer.id)
      }
    }
    sheet.onFinish = { [weak self, weak sheet] outcome in
      guard let self else { return }
      // Closed only if it is still the sheet shown (it may have been swiped away and another
      // opened while its request ran); what it did still lands.
      if case .seeMore(let shown) = destination, shown === sheet { destination = nil }
      if case .deleted = outcome { answerDeleted(answer) }
    }
    destination = .seeMore(sheet)
  }

  /// The see-more sheet was dismissed.
  public func destinationDismissed() {
    destination = nil
  }

  /// The failure was read.
  public func failureDismissed() {
    failure = nil
  }

  /// Loads the first page; `answerRequired` locks the list instead of failing.
  func load() async {
    failure = nil
    do {
      // Only a page that lands unlocks: a load superseded meanwhile (the user deleted their
      // own answer, which locks and clears the list) leaves the lock as it is.
      if try await list.reload() { isLocked = false }
    } catch DomainError.answerRequired {
      isLocked = true
      list.clear()
    } catch {
      failure = DomainError(error)
    }
  }

  private func answerDeleted(_ answer: Answer) {
    list.remove(answer.id)
    guard answer.isMine else { return }
    // Without an answer of one's own, others' answers are hidden again.
    isLocked = true
    list.clear()
    onMyAnswerDeleted(answer)
  }
}
