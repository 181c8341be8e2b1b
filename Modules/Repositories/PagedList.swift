import Domain
import Observation

/// A server list loaded page by page with cursors, for the list screens of feature models:
/// the items so far, whether more follow and which load runs. A screen model keeps one and
/// shows its state; it decides itself what a thrown failure means to its screen.
///
/// A reload supersedes a load still running (its result is dropped when it arrives), so a page
/// of an old list never lands in a refreshed one; a page repeating an item already shown (the
/// list moved between requests) adds only the new ones.
@MainActor @Observable
public final class PagedList<Item: Identifiable & Sendable> {
  /// The items of the pages loaded so far, in the server's order.
  public private(set) var items: [Item] = []
  /// The cursor of the next page; `nil` at the end (or before the first load).
  public private(set) var nextCursor: PageCursor?
  /// The first page is loading (first appearance or refresh).
  public private(set) var isLoading = false
  /// A further page is loading.
  public private(set) var isLoadingMore = false

  /// Counts reloads and clears: a load that finds it changed was superseded.
  @ObservationIgnored private var generation = 0
  @ObservationIgnored private let fetch: @Sendable (PageRequest) async throws -> Page<Item>

  /// A list whose pages come from `fetch`.
  public init(fetch: @escaping @Sendable (PageRequest) async throws -> Page<Item>) {
    self.fetch = fetch
  }

  /// Whether another page follows.
  public var hasMore: Bool { nextCursor != nil }

  /// Loads the first page and replaces the list with it. On failure the list stays as it was
  /// and the error is thrown; a superseded load neither changes nor throws anything.
  public func reload() async throws(DomainError) {
    generation += 1
    let current = generation
    isLoading = true
    isLoadingMore = false
    defer { if generation == current { isLoading = false } }
    let page: Page<Item>
    do {
      page = try await fetch(.first)
    } catch {
      guard generation == current else { return }
      throw DomainError(error)
    }
    guard generation == current else { return }
    items = page.items
    nextCursor = page.nextCursor
  }

  /// Loads the page after the last one; does nothing at the end or while another load runs.
  public func loadMore() async throws(DomainError) {
    guard let cursor = nextCursor, !isLoading, !isLoadingMore else { return }
    let current = generation
    isLoadingMore = true
    defer { if generation == current { isLoadingMore = false } }
    let page: Page<Item>
    do {
      page = try await fetch(PageRequest(cursor: cursor))
    } catch {
      guard generation == current else { return }
      throw DomainError(error)
    }
    guard generation == current else { return }
    let shown = Set(items.map(\.id))
    items += page.items.filter { !shown.contains($0.id) }
    nextCursor = page.nextCursor
  }

  /// Removes an item that no longer exists (deleted from this screen).
  public func remove(_ id: Item.ID) {
    items.removeAll { $0.id == id }
  }

  /// Empties the list and drops any load still running.
  public func clear() {
    generation += 1
    items = []
    nextCursor = nil
    isLoading = false
    isLoadingMore = false
  }
}
