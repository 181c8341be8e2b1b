import Dependencies
import Domain
import Foundation
import Repositories
import TestSupport
import Testing

/// Cursor paging for screen models: pages append, a refresh supersedes a page still loading,
/// failures are thrown and leave the list as it was.
@MainActor
@Suite("PagedList", .timeLimit(.minutes(1)))
struct PagedListTests {
  struct Item: Identifiable, Hashable, Sendable {
    let id: Int
    var label = ""
  }

  /// A server whose answers the test hands out one request at a time.
  final class Server: Sendable {
    let waiting = LockIsolated<[PageCursor?: CheckedContinuation<Page<Item>, any Error>]>([:])

    func fetch(_ request: PageRequest) async throws -> Page<Item> {
      try await withCheckedThrowingContinuation { continuation in
        waiting.withValue { $0[request.cursor] = continuation }
      }
    }

    /// Waits until a request for `cursor` arrived; throws when none did, so the test stops
    /// instead of awaiting a request that would then wait forever.
    func request(_ cursor: PageCursor?) async throws {
      try await waitUntil("a request for \(String(describing: cursor)) arrives") {
        waiting.value[cursor] != nil
      }
    }

    /// Waits until a request for `cursor` arrived (``request(_:)``), then answers it.
    func answer(_ cursor: PageCursor?, with result: Result<Page<Item>, any Error>) async throws {
      try await request(cursor)
      waiting.withValue { $0.removeValue(forKey: cursor) }?.resume(with: result)
    }
  }

  let server = Server()

  /// A list on ``server`` whose first page, `ids`, has arrived.
  func listShowing(_ ids: [Int], next: PageCursor? = nil) async throws -> PagedList<Item> {
    let list = PagedList { [server] in try await server.fetch($0) }
    let first = Task { try await list.reload() }
    try await server.answer(nil, with: page(ids, next: next))
    _ = try await first.value
    return list
  }

  func page(_ ids: [Int], next: PageCursor? = nil) -> Result<Page<Item>, any Error> {
    .success(Page(items: ids.map { Item(id: $0) }, nextCursor: next))
  }

  @Test(
    "further pages come from the fetch whose first page is shown, not from a reload that did not land"
  )
  func furtherPagesContinueTheListShown() async throws {
    let asked = LockIsolated<[String]>([])
    func fetch(_ filter: String, failing: Bool = false) -> PagedList<Item>.Fetch {
      { request in
        asked.withValue { $0.append("\(filter) \(request.cursor?.rawValue ?? "first")") }
        if failing { throw DomainError.offline }
        let base = filter == "open" ? 0 : 100
        let ids = request.cursor == nil ? [base + 1, base + 2] : [base + 3]
        return Page(items: ids.map { Item(id: $0) }, nextCursor: request.cursor == nil ? "2" : nil)
      }
    }
    let list = PagedList<Item>(pageSize: 2)
    #expect(try await list.reload(fetch("open")))
    // Another filter is chosen; its first page fails: the open cases stay shown.
    await #expect(throws: DomainError.offline) {
      try await list.reload(fetch("resolved", failing: true))
    }
    try await list.loadMore()
    #expect(list.items.map(\.id) == [1, 2, 3])
    #expect(asked.value == ["open first", "resolved first", "open 2"])
  }

  @Test func pagesAppendWithoutRepeatingItems() async throws {
    let list = try await listShowing([1, 2], next: "2")
    #expect(list.items.map(\.id) == [1, 2])
    #expect(list.hasMore)

    let more = Task { try await list.loadMore() }
    try await server.answer("2", with: page([2, 3]))
    try await more.value
    #expect(list.items.map(\.id) == [1, 2, 3])
    #expect(!list.hasMore)
    #expect(!list.isLoadingMore)
  }

  @Test("a page with nothing to show but more after it reads on, so the list does not stall")
  func emptyPagesAreReadThrough() async throws {
    let list = try await listShowing([1, 2], next: "2")
    let more = Task { try await list.loadMore() }
    try await server.answer("2", with: page([], next: "4"))
    try await server.answer("4", with: page([5], next: "5"))
    try await more.value
    #expect(list.items.map(\.id) == [1, 2, 5])
    #expect(list.hasMore)
    // The same on a first page.
    let fresh = Task { try await list.reload() }
    try await server.answer(nil, with: page([], next: "x"))
    try await server.answer("x", with: page([], next: nil))
    _ = try await fresh.value
    #expect(list.items.isEmpty)
    #expect(!list.hasMore)
  }

  @Test func aRefreshSupersedesAPageStillLoading() async throws {
    let list = try await listShowing([1, 2], next: "2")

    let more = Task { try await list.loadMore() }
    let refresh = Task { try await list.reload() }
    try await server.answer(nil, with: page([10, 11]))
    _ = try await refresh.value
    // The old list's next page arrives late: it changes nothing.
    try await server.answer("2", with: page([3, 4], next: "4"))
    try await more.value
    #expect(list.items.map(\.id) == [10, 11])
    #expect(!list.hasMore)
    #expect(!list.isLoading)
    #expect(!list.isLoadingMore)
  }

  @Test func aReloadSaysWhetherItsPageIsTheOneShown() async throws {
    let list = PagedList { [server] in try await server.fetch($0) }
    let superseded = Task { try await list.reload() }
    // The reload is under way (a clear before it started would supersede nothing).
    try await server.request(nil)
    list.clear()
    try await server.answer(nil, with: page([1, 2]))
    #expect(try await superseded.value == false)
    #expect(list.items.isEmpty)
    let shown = Task { try await list.reload() }
    try await server.answer(nil, with: page([3]))
    #expect(try await shown.value == true)
    #expect(list.items.map(\.id) == [3])
  }

  @Test func aFailureIsThrownAndTheListStays() async throws {
    let list = try await listShowing([1], next: "1")

    let more = Task { try await list.loadMore() }
    try await server.answer("1", with: .failure(DomainError.offline))
    #expect(await more.result.failureValue as? DomainError == .offline)
    #expect(list.items.map(\.id) == [1])
    #expect(list.hasMore)
    #expect(!list.isLoadingMore)
  }

  @Test func aCancelledLoadLandsNothingAndShowsNoFailure() async throws {
    // The live repositories throw CancellationError when the screen or a newer search gives a
    // load up: that is not a server failure.
    let list = try await listShowing([1], next: "1")
    let cancelled: PagedList<Item>.Fetch = { _ in throw CancellationError() }
    #expect(try await list.reload(cancelled) == false)
    #expect(!list.isLoading)
    try await list.loadMore(cancelled)
    #expect(!list.isLoadingMore)
    #expect(list.items.map(\.id) == [1])
  }

  @Test func aFetchPerCallThePageSizeAndEditsInPlace() async throws {
    let requests = LockIsolated<[PageRequest]>([])
    let list = PagedList<Item>(pageSize: 2)
    let fetch: PagedList<Item>.Fetch = { request in
      requests.withValue { $0.append(request) }
      return request.cursor == nil
        ? Page(items: [Item(id: 1), Item(id: 2)], nextCursor: "2")
        : Page(items: [Item(id: 3)], nextCursor: nil)
    }
    #expect(!list.hasLoaded)
    try await list.reload(fetch)
    #expect(list.hasLoaded && list.isLast(2) && !list.isLast(1))
    try await list.loadMore(fetch)
    #expect(list.items.map(\.id) == [1, 2, 3] && !list.hasMore)
    #expect(requests.value.map(\.limit) == [2, 2])
    #expect(requests.value.map(\.cursor) == [nil, "2"])

    list.prepend(Item(id: 3))
    list.append(Item(id: 4))
    list.remove(1)
    #expect(list.items.map(\.id) == [3, 2, 4])
    #expect(list.item(2) != nil && list.item(1) == nil)
    list.edit { $0.removeAll { $0.id > 3 } }
    #expect(list.items.map(\.id) == [3, 2])
    list.clear()
    #expect(list.items.isEmpty && !list.hasLoaded && !list.hasMore)
  }

  @Test("what the screen changes while a reload is on its way is applied to its page")
  func changesDuringAReloadLandOnItsPage() async throws {
    let list = try await listShowing([1, 2, 3])

    let refresh = Task { try await list.reload() }
    try await server.request(nil)
    // The page left the server before these changes (a join, a delete, a new item).
    list.update(1) { $0.label = "joined" }
    list.remove(2)
    list.prepend(Item(id: 9, label: "new"))
    list.update(7) { $0.label = "not loaded yet" }
    try await server.answer(nil, with: page([1, 2, 3, 7]))
    _ = try await refresh.value
    #expect(list.items.map(\.id) == [9, 1, 3, 7])
    #expect(list.items.map(\.label) == ["new", "joined", "", "not loaded yet"])

    // The load is over: a later reload's page is taken as the server sends it.
    let again = Task { try await list.reload() }
    try await server.answer(nil, with: page([1, 2]))
    _ = try await again.value
    #expect(list.items.map(\.id) == [1, 2] && list.items.allSatisfy { $0.label.isEmpty })
  }

  @Test("an item put last while a reload loads stays last only when that page ends the list")
  func anItemPutLastWaitsForTheEnd() async throws {
    let list = PagedList { [server] in try await server.fetch($0) }
    let partial = Task { try await list.reload() }
    try await server.request(nil)
    list.append(Item(id: 9))
    try await server.answer(nil, with: page([1, 2], next: "2"))
    _ = try await partial.value
    #expect(list.items.map(\.id) == [1, 2])

    let whole = Task { try await list.reload() }
    try await server.request(nil)
    list.append(Item(id: 9))
    try await server.answer(nil, with: page([1, 2]))
    _ = try await whole.value
    #expect(list.items.map(\.id) == [1, 2, 9])
  }

  @Test(
    "an item put last while the last page loads lands after it; before the end is loaded, a later page brings it"
  )
  func anItemPutLastWhileTheLastPageLoads() async throws {
    let list = try await listShowing([1, 2], next: "2")
    list.append(Item(id: 9))
    #expect(list.items.map(\.id) == [1, 2], "the end is not loaded: not shown yet")

    let more = Task { try await list.loadMore() }
    try await server.request("2")
    // The page left the server before item 9 was added.
    list.append(Item(id: 9))
    #expect(list.items.map(\.id) == [1, 2])
    try await server.answer("2", with: page([3, 4]))
    try await more.value
    #expect(list.items.map(\.id) == [1, 2, 3, 4, 9])
    #expect(!list.hasMore)
  }

  @Test("an item put last that a page already brought stays in its place while more follow")
  func anItemPutLastThatAPageBroughtStays() async throws {
    let list = try await listShowing([1, 2, 9], next: "3")
    list.append(Item(id: 9))
    #expect(list.items.map(\.id) == [1, 2, 9])

    let more = Task { try await list.loadMore() }
    try await server.request("3")
    list.append(Item(id: 12))
    try await server.answer("3", with: page([10, 12], next: "5"))
    try await more.value
    #expect(list.items.map(\.id) == [1, 2, 9, 10, 12])
  }

  @Test("an edit made while a further page loaded puts an item in its place on that page")
  func anEditReachesAFurtherPage() async throws {
    let list = try await listShowing([1, 2], next: "2")

    let more = Task { try await list.loadMore() }
    try await server.request("2")
    // Item 4 is saved: it goes before the first item after it, or last once the end is loaded.
    let saved = Item(id: 4, label: "saved")
    list.edit { [weak list] items in
      items.removeAll { $0.id == saved.id }
      if let index = items.firstIndex(where: { $0.id > saved.id }) {
        items.insert(saved, at: index)
      } else if list?.hasMore == false {
        items.append(saved)
      }
    }
    #expect(list.items.map(\.id) == [1, 2])
    try await server.answer("2", with: page([3, 4, 5]))
    try await more.value
    #expect(list.items.map(\.id) == [1, 2, 3, 4, 5])
    #expect(list.items.map(\.label) == ["", "", "", "saved", ""])
  }

  @Test("a further page gets the changes made while it loaded, and no repeats")
  func changesDuringAFurtherPageLandOnIt() async throws {
    let list = try await listShowing([1, 2], next: "2")

    let more = Task { try await list.loadMore() }
    try await server.request("2")
    list.update(3) { $0.label = "joined" }
    list.remove(4)
    list.prepend(Item(id: 5, label: "new"))
    list.update(1) { $0.label = "liked" }
    try await server.answer("2", with: page([3, 4, 5, 6]))
    try await more.value
    #expect(list.items.map(\.id) == [5, 1, 2, 3, 6])
    #expect(list.items.map(\.label) == ["new", "liked", "", "joined", ""])
  }

  @Test("changes made while a superseded load ran do not reach the page that replaced it")
  func aClearForgetsTheChanges() async throws {
    let list = PagedList { [server] in try await server.fetch($0) }
    let stale = Task { try await list.reload() }
    try await server.request(nil)
    list.prepend(Item(id: 9))
    list.clear()
    try await server.answer(nil, with: page([1]))
    #expect(try await stale.value == false)
    let fresh = Task { try await list.reload() }
    try await server.answer(nil, with: page([1, 2]))
    _ = try await fresh.value
    #expect(list.items.map(\.id) == [1, 2])
  }

  @Test func loadingWithoutAnyFetchIsAProgrammingError() async {
    let list = PagedList<Item>()
    var thrown: (any Error)?
    await withKnownIssue {
      do { try await list.reload() } catch { thrown = error }
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("was loaded without a fetch") }
    }
    // Checked outside the block, where a failure is not taken for the known issue.
    #expect(thrown as? DomainError == .server("the list has no source"))
    #expect(!list.hasLoaded)
  }
}

extension Result {
  fileprivate var failureValue: Failure? {
    if case .failure(let error) = self { error } else { nil }
  }
}
