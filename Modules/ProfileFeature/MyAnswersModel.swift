import Dependencies
import Domain
import Foundation
import Observation
import Repositories

/// The user's own answers, newest first, paged, shown on the profile; tapping one opens its
/// question (through ``onNavigate``, as `.question(id)`).
@MainActor @Observable
public final class MyAnswersModel {
  /// The last failure of a load, shown until ``failureDismissed()``.
  public private(set) var failure: DomainError?

  /// Asks the app to open a place outside this screen (an answer tapped: its question).
  @ObservationIgnored public var onNavigate: @MainActor (DeepLink) -> Void = { _ in }

  @ObservationIgnored private let list: PagedList<Answer>

  /// The user's answers; the profile loads them.
  public init() {
    @Dependency(\.profileRepository) var profiles
    list = PagedList { [profiles] page in try await profiles.fetchMyAnswers(page) }
  }

  /// The answers loaded so far, newest first.
  public var answers: [Answer] { list.items }
  /// Whether more answers follow.
  public var hasMore: Bool { list.hasMore }
  /// The first page is loading.
  public var isLoading: Bool { list.isLoading }
  /// A further page is loading.
  public var isLoadingMore: Bool { list.isLoadingMore }

  /// The user scrolled to the last answer: loads the next page.
  public func scrolledToBottom() async {
    do {
      try await list.loadMore()
    } catch {
      failure = DomainError(error)
    }
  }

  /// An answer was tapped: the app opens its question.
  public func answerTapped(_ answer: Answer) {
    onNavigate(.question(answer.questionID))
  }

  /// The failure was read.
  public func failureDismissed() {
    failure = nil
  }

  /// Loads the first page (again).
  func load() async {
    failure = nil
    do {
      try await list.reload()
    } catch {
      failure = DomainError(error)
    }
  }
}
