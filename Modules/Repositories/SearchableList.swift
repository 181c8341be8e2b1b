import Domain
import Observation

/// A paged list with a search field over it, for the list screens that search as the user
/// types: the list of no search, the results of the search shown in its place, and the first
/// page of a search still on its way. It holds the rules such screens share, once:
///
/// - A text change (``textChanged()``) supersedes the search before it: that search lands
///   nothing and shows no failure, and neither does a load that a newer load of the same text
///   replaced (a refresh that ran the search at once).
/// - What the screen changes (``update(_:_:)``, ``remove(_:)``) reaches every list that holds or
///   may soon show the item, a search on its way included, so a page that lands never brings
///   back the state from before the change (``PagedList`` applies it again).
/// - A refresh reloads the rows shown when they answer the field's text (``answers(_:)``);
///   otherwise the screen runs that text's search at once, in place of its pause.
///
/// The screen model keeps the field's text, its pause (``searches``), what it shows while a
/// search runs, and its analytics. The pages come from the `fetch` given to
/// ``init(pageSize:fetch:)``.
@MainActor @Observable
public final class SearchableList<Item: Identifiable & Sendable> {
  /// Loads one page of the items matching `query` (all of them for `nil`).
  public typealias Fetch = @Sendable (_ query: String?, PageRequest) async throws -> Page<Item>

  /// The items of no search.
  public let list: PagedList<Item>
  /// The results of the search shown instead of ``list``; `nil` shows ``list``.
  public private(set) var results: PagedList<Item>?
  /// The query ``results`` answer (the field's text may have changed since).
  public private(set) var resultsQuery: String?
  /// The first page of a search on its way: shown once it lands, unless it was superseded.
  public private(set) var incoming: PagedList<Item>?
  /// The field's text changes, and the pause before each search.
  @ObservationIgnored public let searches = LatestSearch()
  @ObservationIgnored private let pageSize: Int
  @ObservationIgnored private let fetch: Fetch
  /// Loads started so far, and the one that set ``incoming``: two loads of the same list (the
  /// whole list, searched again by a refresh) must not take each other's place.
  @ObservationIgnored private var loads = (started: 0, incoming: 0)

  /// A list whose pages of `pageSize` items, and those of each search, come from `fetch`.
  public init(pageSize: Int = PageRequest.defaultLimit, fetch: @escaping Fetch) {
    self.pageSize = pageSize
    self.fetch = fetch
    list = PagedList(pageSize: pageSize) { try await fetch(nil, $0) }
  }

  /// The rows shown: the results while a search is shown, the list otherwise.
  public var shown: PagedList<Item> { results ?? list }
  /// The first page of the rows shown, or of a search about to replace them, is loading.
  public var isLoading: Bool { shown.isLoading || incoming?.isLoading == true }

  /// Whether the rows shown answer `query` (`nil`: the whole list).
  public func answers(_ query: String?) -> Bool {
    (results == nil ? nil : resultsQuery) == query
  }

  /// The item `id` as the rows shown hold it (what the user sees and acts on), or else as the
  /// list holds it.
  public func item(_ id: Item.ID) -> Item? {
    shown.item(id) ?? list.item(id)
  }

  /// Changes the item `id` in every list that holds or may soon show it (``PagedList/update(_:_:)``).
  public func update(_ id: Item.ID, _ change: @escaping (inout Item) -> Void) {
    for target in lists { target.update(id, change) }
  }

  /// Removes the item `id` from every list that holds or may soon show it.
  public func remove(_ id: Item.ID) {
    for target in lists { target.remove(id) }
  }

  /// The field's text changed: the search before it is superseded (its page on its way is
  /// dropped). Returns this change's number, for ``search(_:run:)``.
  @discardableResult
  public func textChanged() -> Int {
    incoming = nil
    return searches.supersede()
  }

  /// Shows the list again at once, as it was, without loading it.
  public func showList() {
    (results, resultsQuery, incoming) = (nil, nil, nil)
  }

  /// Loads the first page of `query`'s items (the whole list for `nil`) and shows them once
  /// they land, unless the text change `run` was superseded or a newer load replaced this one.
  /// Returns whether they were shown; throws the failure of a load that was not superseded.
  @discardableResult
  public func search(_ query: String?, run: Int) async throws(DomainError) -> Bool {
    let target =
      query.map { query in
        PagedList<Item>(pageSize: pageSize) { [fetch] in try await fetch(query, $0) }
      } ?? list
    return try await load(target, of: query, run: run)
  }

  /// Reloads the rows shown (a refresh of rows that answer the field's text), as
  /// ``search(_:run:)`` loads a search.
  @discardableResult
  public func reloadShown(run: Int) async throws(DomainError) -> Bool {
    try await load(shown, of: results == nil ? nil : resultsQuery, run: run)
  }

  /// Every list that holds or may soon show items.
  private var lists: [PagedList<Item>] { [list] + [results, incoming].compactMap { $0 } }

  private func load(
    _ target: PagedList<Item>, of query: String?, run: Int
  ) async throws(DomainError) -> Bool {
    loads.started += 1
    let number = loads.started
    if target !== shown { (incoming, loads.incoming) = (target, number) }
    // Whether this load still owns `incoming` (a newer load of the same list may hold it).
    func ownsIncoming() -> Bool { incoming === target && loads.incoming == number }
    defer { if ownsIncoming() { incoming = nil } }
    // Whether `target` is still the load to show: a newer text change, or a newer load of the
    // same text (a refresh that started another search while this one ran), came first.
    func isLatest() -> Bool {
      searches.isCurrent(run) && (target === shown || ownsIncoming())
    }
    do {
      guard try await target.reload(), isLatest() else { return false }
    } catch {
      guard isLatest() else { return false }
      throw error
    }
    (results, resultsQuery) = target === list ? (nil, nil) : (target, query)
    return true
  }
}
