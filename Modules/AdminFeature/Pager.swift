import Domain
import Observation
import Repositories

/// How an admin screen's content stands; a view shows one layout per case.
public enum ScreenState: Hashable, Sendable {
  /// Nothing loaded yet (before `task()`).
  case idle
  /// The first load is running.
  case loading
  /// The content is on screen.
  case loaded
  /// The account is not an admin: the screen says so instead of showing content.
  case forbidden
  /// The load failed; pulling to refresh tries again.
  case failed(DomainError)

  /// The state after a load threw `error`: `forbidden` for members, `failed` otherwise.
  init(failure error: any Error) {
    let error = DomainError(error)
    self = error == .forbidden ? .forbidden : .failed(error)
  }
}

/// One paged list of an admin screen: ``Repositories/PagedList`` plus how its content stands
/// as a ``ScreenState`` (a member's `forbidden` is the screen's state, not a failure beside it).
@MainActor @Observable
final class Pager<Item: Identifiable & Sendable> {
  /// The items, cursor and loads.
  let list: PagedList<Item>
  /// How the content stands.
  private(set) var state: ScreenState = .idle

  /// A list whose first page is `firstPage` (its limit is every page's size).
  init(firstPage: PageRequest) {
    list = PagedList(pageSize: firstPage.limit, startingAt: firstPage.cursor)
  }

  /// The items loaded so far.
  var items: [Item] { list.items }
  /// Where the next page starts.
  var nextCursor: PageCursor? { list.nextCursor }
  /// A further page is loading.
  var isLoadingMore: Bool { list.isLoadingMore }

  /// Loads the first page again; the items stay on screen while it runs. Returns whether its
  /// page is the one shown (not when it failed or a newer reload superseded it).
  @discardableResult
  func reload(_ fetch: @escaping PagedList<Item>.Fetch) async -> Bool {
    if state != .loaded { state = .loading }
    do {
      let shown = try await list.reload(fetch)
      // A reload superseded by a newer one leaves the state to that one.
      if shown { state = .loaded }
      return shown
    } catch {
      state = ScreenState(failure: error)
      return false
    }
  }

  /// Appends the next page of the list shown (of the filter or search whose reload landed),
  /// if there is one; returns the failure to show (members' `forbidden` turns the whole screen
  /// to ``ScreenState/forbidden`` instead).
  func loadMore() async -> DomainError? {
    guard state == .loaded else { return nil }
    do {
      try await list.loadMore()
      return nil
    } catch {
      return shown(error)
    }
  }

  /// `error` as the screen shows it: `forbidden` becomes the screen's state (nothing to show
  /// beside it), anything else is returned for the model's `failure`.
  func shown(_ error: any Error) -> DomainError? {
    let error = DomainError(error)
    guard error != .forbidden else {
      state = .forbidden
      return nil
    }
    return error
  }
}
