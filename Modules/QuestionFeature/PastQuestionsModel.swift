import Dependencies
import Domain
import Foundation
import Observation
import Repositories

/// The questions of earlier days, newest first, paged; tapping one opens it (through
/// ``onNavigate``, as `.question(id)`).
@MainActor @Observable
public final class PastQuestionsModel {
  /// The question left out of the list (today's, shown on the screen that opened this one).
  public let excludedID: Question.ID?
  /// The last failure of a load, shown until ``failureDismissed()``.
  public private(set) var failure: DomainError?

  /// Asks the app to open a place outside this screen (a question tapped: `.question(id)`).
  @ObservationIgnored public var onNavigate: @MainActor (DeepLink) -> Void = { _ in }

  @ObservationIgnored private let list: PagedList<Question>
  @ObservationIgnored @Dependency(\.analyticsRepository) private var analytics
  @ObservationIgnored @Dependency(\.date) private var date

  /// The published questions except `excludedID` (today's, when the Today screen opens it).
  public init(excluding excludedID: Question.ID? = nil) {
    self.excludedID = excludedID
    @Dependency(\.questionRepository) var questions
    list = PagedList { [questions] page in try await questions.fetchQuestions(page) }
  }

  /// The questions loaded so far, newest day first.
  public var questions: [Question] { list.items.filter { $0.id != excludedID } }
  /// Whether more questions follow.
  public var hasMore: Bool { list.hasMore }
  /// The first page is loading.
  public var isLoading: Bool { list.isLoading }
  /// A further page is loading.
  public var isLoadingMore: Bool { list.isLoadingMore }

  /// The screen appeared: loads the first page.
  public func task() async {
    await analytics.screenViewed("question_past", at: date.now)
    await load()
  }

  /// The list was pulled down: loads the first page again.
  public func refreshPulled() async {
    await load()
  }

  /// The user scrolled to the last question: loads the next page.
  public func scrolledToBottom() async {
    do {
      try await list.loadMore()
    } catch {
      failure = DomainError(error)
    }
  }

  /// A question was tapped: the app opens it.
  public func questionTapped(_ question: Question) {
    onNavigate(.question(question.id))
  }

  /// The failure was read.
  public func failureDismissed() {
    failure = nil
  }

  private func load() async {
    failure = nil
    do {
      try await list.reload()
    } catch {
      failure = DomainError(error)
    }
  }
}
