import Domain
import Observation

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

/// One paged list of a screen: the items loaded so far, where the next page starts, and how the
/// last load went. A reload replaces the items; a response to a load that a newer one replaced
/// (the filter changed meanwhile) is dropped.
@MainActor @Observable
final class Pager<Item: Sendable> {
  /// Fetches one page.
  typealias Fetch = @MainActor (PageRequest) async throws -> Page<Item>

  private(set) var items: [Item] = []
  private(set) var nextCursor: PageCursor?
  private(set) var state: ScreenState = .idle
  private(set) var isLoadingMore = false
  private let firstPage: PageRequest
  @ObservationIgnored private var generation = 0

  /// A list whose first page is `firstPage` (its limit is every page's size).
  init(firstPage: PageRequest) {
    self.firstPage = firstPage
  }

  /// Loads the first page again; the items stay on screen while it runs.
  func reload(_ fetch: Fetch) async {
    generation += 1
    let current = generation
    isLoadingMore = false
    if state != .loaded { state = .loading }
    do {
      let page = try await fetch(firstPage)
      guard current == generation else { return }
      items = page.items
      nextCursor = page.nextCursor
      state = .loaded
    } catch {
      guard current == generation else { return }
      state = ScreenState(failure: error)
    }
  }

  /// Appends the next page, if there is one; returns the failure to show (members' `forbidden`
  /// turns the whole screen to ``ScreenState/forbidden`` instead).
  func loadMore(_ fetch: Fetch) async -> DomainError? {
    guard let cursor = nextCursor, state == .loaded, !isLoadingMore else { return nil }
    let current = generation
    isLoadingMore = true
    defer { if current == generation { isLoadingMore = false } }
    do {
      let page = try await fetch(PageRequest(cursor: cursor, limit: firstPage.limit))
      guard current == generation else { return nil }
      items += page.items
      nextCursor = page.nextCursor
      return nil
    } catch {
      guard current == generation else { return nil }
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

  /// Changes the loaded items in place (a row deleted, saved or resolved on screen).
  func edit(_ change: (inout [Item]) -> Void) {
    change(&items)
  }
}
