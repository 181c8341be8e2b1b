import Dependencies
import Domain
import Foundation
import Repositories
import TestSupport
import Testing

/// The search-as-you-type rules the board and the groups tab share: a search lands in place of
/// the list unless superseded, changes reach a search on its way, a refresh reloads what
/// answers the text.
@MainActor
@Suite("SearchableList", .timeLimit(.minutes(1)))
struct SearchableListTests {
  struct Item: Identifiable, Hashable, Sendable {
    let id: Int
    var label = ""
  }

  /// A server whose answers the test hands out one request at a time, oldest first per query
  /// (`""` for the list).
  final class Server: Sendable {
    let waiting = LockIsolated<[String: [CheckedContinuation<Page<Item>, any Error>]]>([:])

    func fetch(_ query: String?, _ request: PageRequest) async throws -> Page<Item> {
      try await withCheckedThrowingContinuation { continuation in
        waiting.withValue { $0[query ?? "", default: []].append(continuation) }
      }
    }

    /// Waits until a request for `query` arrived, then answers the oldest with `ids` (or
    /// `failure`).
    func answer(_ query: String?, _ ids: [Int], failure: DomainError? = nil) async throws {
      try await waitUntil("a request for \(query ?? "the list") arrives") {
        waiting.value[query ?? "", default: []].isEmpty == false
      }
      let continuation = waiting.withValue { $0[query ?? ""]?.removeFirst() }
      if let failure {
        continuation?.resume(throwing: failure)
      } else {
        continuation?.resume(returning: Page(items: ids.map { Item(id: $0) }))
      }
    }
  }

  let server = Server()

  /// A searchable list on ``server`` whose list, `ids`, has arrived.
  func listShowing(_ ids: [Int]) async throws -> SearchableList<Item> {
    let lists = SearchableList<Item> { [server] in try await server.fetch($0, $1) }
    let first = Task { try await lists.reloadShown(run: lists.searches.current) }
    try await server.answer(nil, ids)
    #expect(try await first.value)
    return lists
  }

  @Test func aSearchShowsItsResultsOnceTheyLandAndTheListComesBackAsItWas() async throws {
    let lists = try await listShowing([1, 2, 3])

    let run = lists.textChanged()
    let search = Task { try await lists.search("two", run: run) }
    try await waitUntil("the search is on its way") { lists.incoming != nil }
    #expect(lists.shown === lists.list)
    #expect(lists.isLoading)
    try await server.answer("two", [2])
    #expect(try await search.value)

    #expect(lists.shown.items.map(\.id) == [2])
    #expect(lists.resultsQuery == "two")
    #expect(lists.answers("two"))
    #expect(!lists.answers(nil))
    #expect(lists.incoming == nil)

    lists.textChanged()
    lists.showList()
    #expect(lists.shown === lists.list)
    #expect(lists.shown.items.map(\.id) == [1, 2, 3])
    #expect(lists.answers(nil))
  }

  @Test func aSupersededSearchLandsNothingAndShowsNoFailure() async throws {
    let lists = try await listShowing([1, 2])

    let stale = Task { try await lists.search("old", run: lists.textChanged()) }
    try await waitUntil("the old search is on its way") { lists.incoming != nil }
    let run = lists.textChanged()
    #expect(lists.incoming == nil)
    try await server.answer("old", [], failure: .offline)
    #expect(try await stale.value == false)
    #expect(lists.shown === lists.list)

    // Also a reload of the rows shown (the list again, for cleared text) that a later change
    // superseded.
    let reload = Task { try await lists.search(nil, run: run) }
    try await waitUntil("the list reloads") { lists.list.isLoading }
    let latest = lists.textChanged()
    try await server.answer(nil, [], failure: .offline)
    #expect(try await reload.value == false)
    #expect(lists.list.items.map(\.id) == [1, 2])

    let current = Task { try await lists.search("new", run: latest) }
    try await server.answer("new", [], failure: .offline)
    await #expect(throws: DomainError.offline) { try await current.value }
    #expect(lists.shown === lists.list)
    #expect(lists.incoming == nil)
  }

  @Test func aNewerLoadOfTheSameTextReplacesAnOlderOne() async throws {
    let lists = try await listShowing([1])
    let run = lists.textChanged()

    let older = Task { try await lists.search("q", run: run) }
    try await waitUntil("the first search asked the server") {
      server.waiting.value["q"]?.count == 1
    }
    let newer = Task { try await lists.search("q", run: run) }
    try await waitUntil("the second search asked the server") {
      server.waiting.value["q"]?.count == 2
    }
    // The first request's answer goes to the first list.
    try await server.answer("q", [7])
    try await server.answer("q", [8])
    let results = try await [older.value, newer.value]
    #expect(results == [false, true])
    #expect(lists.shown.items.map(\.id) == [8])
  }

  @Test func changesReachTheListTheResultsAndASearchOnItsWay() async throws {
    let lists = try await listShowing([1, 2])
    let run = lists.textChanged()
    let search = Task { try await lists.search("q", run: run) }
    try await waitUntil("the search is on its way") { lists.incoming != nil }

    lists.update(1) { $0.label = "changed" }
    lists.remove(2)
    try await server.answer("q", [1, 2, 3])
    #expect(try await search.value)

    #expect(lists.shown.items == [Item(id: 1, label: "changed"), Item(id: 3)])
    #expect(lists.list.items == [Item(id: 1, label: "changed")])
    #expect(lists.item(3) == Item(id: 3))
    #expect(lists.item(2) == nil)
  }

  @Test func aRefreshReloadsTheRowsShownAndSearchingNothingReadsTheListAgain() async throws {
    let lists = try await listShowing([1])
    let run = lists.textChanged()
    let search = Task { try await lists.search("q", run: run) }
    try await server.answer("q", [5])
    _ = try await search.value

    let refresh = Task { try await lists.reloadShown(run: run) }
    try await server.answer("q", [5, 6])
    #expect(try await refresh.value)
    #expect(lists.shown.items.map(\.id) == [5, 6])
    #expect(lists.resultsQuery == "q")

    let cleared = lists.textChanged()
    let all = Task { try await lists.search(nil, run: cleared) }
    try await waitUntil("the list is on its way") { lists.incoming === lists.list }
    #expect(lists.isLoading)
    try await server.answer(nil, [1, 2])
    #expect(try await all.value)
    #expect(lists.shown === lists.list)
    #expect(lists.shown.items.map(\.id) == [1, 2])
    #expect(lists.answers(nil))
  }
}
