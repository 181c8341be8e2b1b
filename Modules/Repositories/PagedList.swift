import Dependencies
import Domain
import Observation

/// A server list loaded page by page with cursors, for the list screens of feature models:
/// the items so far, whether more follow and which load runs. A screen model keeps one and
/// shows its state; it decides itself what a thrown failure means to its screen.
///
/// A reload supersedes a load still running (its result is dropped when it arrives), so a page
/// of an old list never lands in a refreshed one; a failed reload keeps what was shown; a page
/// repeating an item already shown (the list moved between requests) adds only the new ones.
/// What the screen changed while a page was on its way (``update(_:_:)``, ``remove(_:)``,
/// ``prepend(_:)``, ``edit(_:)``, and ``append(_:)`` when that page ends the list) is applied to
/// that page when it lands, so it never brings back the state from before the change; a further
/// page then drops what the rows shown hold already. Make each change an assignment
/// (`$0 = group`, `$0.likeState = state`) and each ``edit(_:)`` correct on any run of items in
/// the list's order: it runs on the rows shown and again on the page.
///
/// The pages come from the `fetch` given to ``init(pageSize:startingAt:fetch:)``, or from the one given to
/// each ``reload(_:)`` and ``loadMore(_:)`` when the model builds it per call.
@MainActor @Observable
public final class PagedList<Item: Identifiable & Sendable> {
  /// Loads one page.
  public typealias Fetch = @Sendable (PageRequest) async throws -> Page<Item>

  /// The items of the pages loaded so far, in the server's order.
  public private(set) var items: [Item] = []
  /// The cursor of the next page; `nil` at the end (or before the first load).
  public private(set) var nextCursor: PageCursor?
  /// Whether a first page ever arrived (an empty list before that is "not loaded", not
  /// "empty").
  public private(set) var hasLoaded = false
  /// The first page is loading (first appearance or refresh).
  public private(set) var isLoading = false
  /// A further page is loading.
  public private(set) var isLoadingMore = false

  /// How many items a page asks for.
  public let pageSize: Int
  /// Where the first page starts: `nil` for the beginning (a tool's `--cursor` otherwise).
  public let firstCursor: PageCursor?
  /// Counts reloads and clears: a load that finds it changed was superseded.
  @ObservationIgnored private var generation = 0
  /// The changes made since the running load started, to apply to its page when it lands.
  @ObservationIgnored private var changesDuringLoad: [Change] = []
  @ObservationIgnored private let fetch: Fetch?
  /// The fetch of the first page shown: ``loadMore()`` continues that list.
  @ObservationIgnored private var shownFetch: Fetch?

  /// A list of pages of `pageSize` items from `fetch` (or from the fetch each load is given),
  /// whose first page starts at `firstCursor` (the beginning by default).
  public init(
    pageSize: Int = PageRequest.defaultLimit, startingAt firstCursor: PageCursor? = nil,
    fetch: Fetch? = nil
  ) {
    self.pageSize = PageRequest(limit: pageSize).limit
    self.firstCursor = firstCursor
    self.fetch = fetch
  }

  /// Whether another page follows.
  public var hasMore: Bool { nextCursor != nil }

  /// Loads the first page and replaces the list with it. On failure the list stays as it was
  /// and the error is thrown; a superseded or cancelled load neither changes nor throws
  /// anything. Returns whether this load's page is the one shown (`false` when superseded or
  /// cancelled).
  @discardableResult
  public func reload() async throws(DomainError) -> Bool {
    try await reload(storedFetch())
  }

  /// ``reload()`` with the pages from `fetch`.
  @discardableResult
  public func reload(_ fetch: @escaping Fetch) async throws(DomainError) -> Bool {
    generation += 1
    let current = generation
    isLoading = true
    isLoadingMore = false
    changesDuringLoad = []
    defer { if generation == current { (isLoading, changesDuringLoad) = (false, []) } }
    guard
      let page = try await page(from: fetch, after: firstCursor, ifStill: current)
    else { return false }
    // The cursor first: a change may ask whether the list's end is loaded.
    nextCursor = page.nextCursor
    items = replayingChanges(on: page)
    hasLoaded = true
    shownFetch = fetch
    return true
  }

  /// Loads the page after the last one, from the fetch whose first page is shown (the one the
  /// last ``reload(_:)`` that landed was given: a filter or search chosen since, whose reload
  /// did not land, does not mix its pages into the rows of another); does nothing at the end or
  /// while another load runs.
  public func loadMore() async throws(DomainError) {
    if let shownFetch {
      try await loadMore(shownFetch)
    } else {
      try await loadMore(storedFetch())
    }
  }

  /// ``loadMore()`` with the page from `fetch`.
  public func loadMore(_ fetch: Fetch) async throws(DomainError) {
    guard let cursor = nextCursor, !isLoading, !isLoadingMore else { return }
    let current = generation
    isLoadingMore = true
    changesDuringLoad = []
    defer { if generation == current { (isLoadingMore, changesDuringLoad) = (false, []) } }
    guard let page = try await page(from: fetch, after: cursor, ifStill: current) else { return }
    let shown = Set(items.map(\.id))
    // The cursor first, as in `reload`. After the changes, an item they put on the rows shown
    // (first, last, moved into place) is dropped from the page as a repeat, like one the list
    // moved between requests.
    nextCursor = page.nextCursor
    items += replayingChanges(on: page).filter { !shown.contains($0.id) }
  }

  /// Whether `id` is the last item loaded (its row appearing asks for the next page).
  public func isLast(_ id: Item.ID) -> Bool {
    items.last?.id == id
  }

  /// The item `id`, if loaded.
  public func item(_ id: Item.ID) -> Item? {
    items.first { $0.id == id }
  }

  /// Changes the item `id` in place, if loaded (a like, a resolved case); also on a page still
  /// on its way.
  public func update(_ id: Item.ID, _ change: @escaping (inout Item) -> Void) {
    make(.update(id, change))
  }

  /// Puts `item` first (a new post on a newest-first list).
  public func prepend(_ item: Item) {
    make(.prepend(item))
  }

  /// Puts `item` last (a new comment on an oldest-first list): on the rows shown when their end
  /// is loaded, and on a page on its way when that page ends the list; otherwise a later page
  /// brings it in its place.
  public func append(_ item: Item) {
    make(.append(item))
  }

  /// Removes an item that no longer exists (deleted from this screen); also from a page still
  /// on its way.
  public func remove(_ id: Item.ID) {
    make(.remove(id))
  }

  /// Changes the loaded items as a whole (a saved row moved to its place by date); also a page
  /// still on its way.
  public func edit(_ change: @escaping (inout [Item]) -> Void) {
    make(.edit(change))
  }

  /// Empties the list and drops any load still running.
  public func clear() {
    generation += 1
    changesDuringLoad = []
    items = []
    nextCursor = nil
    hasLoaded = false
    isLoading = false
    isLoadingMore = false
  }

  /// A change the screen made to the list.
  private enum Change {
    case update(Item.ID, (inout Item) -> Void)
    case remove(Item.ID)
    case prepend(Item)
    case append(Item)
    case edit((inout [Item]) -> Void)

    /// Applies the change to `items`. An item is put last only where the list's end is loaded
    /// (`atEnd`); otherwise a later page brings it in its place.
    func apply(to items: inout [Item], atEnd: Bool) {
      switch self {
      case .update(let id, let change):
        if let index = items.firstIndex(where: { $0.id == id }) { change(&items[index]) }
      case .remove(let id):
        items.removeAll { $0.id == id }
      case .prepend(let item):
        items.removeAll { $0.id == item.id }
        items.insert(item, at: 0)
      case .append(let item):
        // Before the end, the item stays where a page put it (or a later page brings it).
        guard atEnd else { return }
        items.removeAll { $0.id == item.id }
        items.append(item)
      case .edit(let change):
        change(&items)
      }
    }
  }

  /// `page`'s items with the changes made while it loaded applied to them, in order.
  private func replayingChanges(on page: Page<Item>) -> [Item] {
    changesDuringLoad.reduce(into: page.items) { $1.apply(to: &$0, atEnd: page.nextCursor == nil) }
  }

  /// Applies `change` to the items shown and, while a load runs, keeps it for its page.
  private func make(_ change: Change) {
    change.apply(to: &items, atEnd: !hasMore)
    if isLoading || isLoadingMore { changesDuringLoad.append(change) }
  }

  /// The page `fetch` answers from `cursor`; `nil` when a reload or ``clear()`` superseded the
  /// load of generation `current` meanwhile, or when it was cancelled (the screen or a newer
  /// search gave it up): neither lands, and neither shows a failure.
  private func page(
    from fetch: Fetch, after cursor: PageCursor?, ifStill current: Int
  ) async throws(DomainError) -> Page<Item>? {
    do {
      var page = try await fetch(PageRequest(cursor: cursor, limit: pageSize))
      // A page with nothing to show but more after it (every item on it left out, e.g. of a
      // kind this SDK does not know) would stall a list that loads on its last row: the pages
      // after it are read until one has items or the list ends.
      while page.items.isEmpty, let next = page.nextCursor, generation == current {
        page = try await fetch(PageRequest(cursor: next, limit: pageSize))
      }
      return generation == current ? page : nil
    } catch {
      guard generation == current, !(error is CancellationError) else { return nil }
      throw DomainError(error)
    }
  }

  private func storedFetch() throws(DomainError) -> Fetch {
    guard let fetch else {
      // A programming error of the owning model: it must pass a fetch to every load.
      reportIssue("PagedList<\(Item.self)> was loaded without a fetch")
      throw DomainError.server("the list has no source")
    }
    return fetch
  }
}
