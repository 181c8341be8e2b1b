import Domain
import Observation

/// A list read page by page through a cursor: the posts of the board, the results of one
/// search, the comments of a post. The owning model decides what a page is (`fetch`).
///
/// A reload replaces the items only when it succeeds, so a failed pull-to-refresh keeps what
/// was shown. Every reload starts a new generation: a page that arrives for an older one
/// (a "load more" overtaken by a refresh, a refresh overtaken by another) is dropped.
@MainActor @Observable
final class PagedList<Item: Identifiable & Sendable> {
  /// Loads one page.
  typealias Fetch = @Sendable (PageRequest) async throws -> Page<Item>

  /// The items loaded so far, in the server's order.
  private(set) var items: [Item] = []
  /// Whether a first page ever arrived.
  private(set) var hasLoaded = false
  /// A reload (first page) is running.
  private(set) var isReloading = false
  /// A further page is being loaded.
  private(set) var isLoadingMore = false
  private var nextCursor: PageCursor?
  @ObservationIgnored private var generation = 0

  /// Whether another page follows the loaded ones.
  var hasMore: Bool { nextCursor != nil }

  /// Loads the first page and replaces the items with it; on failure the items stay and the
  /// error is thrown.
  func reload(_ fetch: Fetch) async throws(DomainError) {
    generation += 1
    let current = generation
    isReloading = true
    defer { if current == generation { isReloading = false } }
    let page: Page<Item>
    do {
      page = try await fetch(.first)
    } catch {
      guard current == generation else { return }
      throw DomainError(error)
    }
    guard current == generation else { return }
    items = page.items
    nextCursor = page.nextCursor
    hasLoaded = true
  }

  /// Appends the next page, if there is one and no load is running; items already shown are
  /// not repeated.
  func loadMore(_ fetch: Fetch) async throws(DomainError) {
    guard let cursor = nextCursor, !isLoadingMore, !isReloading else { return }
    let current = generation
    isLoadingMore = true
    defer { isLoadingMore = false }
    let page: Page<Item>
    do {
      page = try await fetch(PageRequest(cursor: cursor))
    } catch {
      guard current == generation else { return }
      throw DomainError(error)
    }
    guard current == generation else { return }
    let shown = Set(items.map(\.id))
    items += page.items.filter { !shown.contains($0.id) }
    nextCursor = page.nextCursor
  }

  /// Whether `id` is the last item loaded (its row appearing asks for the next page).
  func isLast(_ id: Item.ID) -> Bool {
    items.last?.id == id
  }

  /// The item `id`, if loaded.
  func item(_ id: Item.ID) -> Item? {
    items.first { $0.id == id }
  }

  /// Changes the item `id` in place, if loaded.
  func update(_ id: Item.ID, _ change: (inout Item) -> Void) {
    guard let index = items.firstIndex(where: { $0.id == id }) else { return }
    change(&items[index])
  }

  /// Puts `item` first (a new post on a newest-first list).
  func prepend(_ item: Item) {
    items.removeAll { $0.id == item.id }
    items.insert(item, at: 0)
  }

  /// Puts `item` last (a new comment on an oldest-first list whose end is loaded).
  func append(_ item: Item) {
    items.removeAll { $0.id == item.id }
    items.append(item)
  }

  /// Removes the item `id`.
  func remove(_ id: Item.ID) {
    items.removeAll { $0.id == id }
  }
}
