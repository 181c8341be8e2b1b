import BoardFeature
import Clocks
import Dependencies
import Domain
import Foundation
import Repositories
import RepositoriesTesting
import TestSupport
import Testing

/// The board list on the fakes: paging, refresh, debounced search, optimistic likes and the
/// "new post" sheet, with several members on the same posts.
@MainActor
@Suite("BoardModel", .timeLimit(.minutes(1)))
struct BoardModelTests {
  let backend = FakeBackend(now: { Fixtures.now })
  let alice: FakeClient
  let bob: FakeClient
  let clock = TestClock()

  init() throws {
    alice = try backend.signedUpClient(nickname: "alice")
    bob = try backend.signedUpClient(nickname: "bob")
  }

  /// A board as `client`, on the test clock; `override` replaces repository endpoints.
  func board(
    as client: FakeClient, _ override: (inout DependencyValues) -> Void = { _ in }
  ) -> BoardModel {
    client.model(clock: clock, override) {
      BoardModel()
    }
  }

  @Test func theLastRowLoadsTheNextPage() async throws {
    let published = try await alice.publishPosts(25)
    let board = board(as: bob)
    #expect(!board.isEmpty)
    await board.task()
    #expect(board.posts.map(\.id) == published.reversed().prefix(20).map(\.id))
    #expect(board.hasMore)
    #expect(!board.isLoading)

    // A row that is not the last loads nothing.
    await board.postAppeared(board.posts[10].id)
    #expect(board.posts.count == 20)

    await board.postAppeared(board.posts[19].id)
    #expect(board.posts.map(\.id) == published.reversed().map(\.id))
    #expect(!board.hasMore)
    #expect(!board.isLoadingMore)
    #expect(board.failure == nil)
    let events = try await bob.uploadedEvents()
    #expect(events.map(\.name) == ["screen_viewed"])
    #expect(events.first?.properties == ["screen": "board"])
  }

  @Test func anEmptyBoardSaysSo() async throws {
    let board = board(as: bob)
    await board.task()
    #expect(board.isEmpty)
    #expect(!board.hasMore)
  }

  @Test func refreshStartsAgainFromTheFirstPage() async throws {
    _ = try await alice.publishPosts(25)
    let board = board(as: bob)
    await board.task()
    await board.postAppeared(board.posts[19].id)
    #expect(board.posts.count == 25)

    let newest = try await alice.board.createPost(PostDraft(content: "fresh news"))
    await board.refreshPulled()
    #expect(board.posts.first?.id == newest.id)
    #expect(board.posts.count == 20)
    #expect(board.hasMore)
    #expect(!board.isRefreshing)
  }

  @Test func aNextPageThatArrivesAfterARefreshIsDropped() async throws {
    _ = try await alice.publishPosts(25)
    let slowPage = Gate()
    let pages = CallLog<Bool>()
    let board = board(as: bob) {
      let fetch = $0.boardRepository.fetchPosts
      $0.boardRepository.fetchPosts = { page in
        await pages.record(page.cursor != nil)
        if page.cursor != nil { await slowPage.wait() }
        return try await fetch(page)
      }
    }
    await board.task()
    let more = Task { await board.postAppeared(board.posts[19].id) }
    try await pages.waitForCalls(2)  // The second page is on its way.
    #expect(board.isLoadingMore)
    let newest = try await alice.board.createPost(PostDraft(content: "newest"))
    await board.refreshPulled()
    await slowPage.open()
    await more.value
    // The old list's second page does not land under the refreshed first page.
    #expect(board.posts.count == 20)
    #expect(board.posts.first?.id == newest.id)
    #expect(board.hasMore)
    #expect(board.failure == nil)
  }

  @Test func aFailedRefreshKeepsTheListAndShowsTheFailure() async throws {
    let published = try await alice.publishPosts(3)
    let board = board(as: bob)
    await board.task()
    backend.isOffline = true
    await board.refreshPulled()
    #expect(board.posts.map(\.id) == published.reversed().map(\.id))
    #expect(board.failure == .offline)
    #expect(!board.isRefreshing)
    board.failureDismissed()
    #expect(board.failure == nil)
  }

  @Test func aFailedFirstLoadIsShownAndPullingAgainLoads() async throws {
    _ = try await alice.publishPosts(2)
    backend.isOffline = true
    let board = board(as: bob)
    await board.task()
    #expect(board.failure == .offline)
    #expect(board.posts.isEmpty)
    #expect(!board.isEmpty)  // Not "no posts yet": nothing was loaded.
    backend.isOffline = false
    await board.refreshPulled()
    #expect(board.posts.count == 2)
  }

  @Test func aFailedNextPageIsShownAndTheRowTriesAgain() async throws {
    _ = try await alice.publishPosts(21)
    let board = board(as: bob)
    await board.task()
    backend.isOffline = true
    await board.postAppeared(board.posts[19].id)
    #expect(board.failure == .offline)
    #expect(board.posts.count == 20)
    backend.isOffline = false
    await board.postAppeared(board.posts[19].id)
    #expect(board.posts.count == 21)
  }

  @Test func tappingARowOpensThePost() async throws {
    let post = try await alice.board.createPost(PostDraft(content: "hello"))
    let board = board(as: bob)
    var opened: [DeepLink] = []
    board.onNavigate = { opened.append($0) }
    await board.task()
    board.postTapped(post.id)
    #expect(opened == [.post(post.id)])
  }

  // MARK: - Search

  @Test func onlyTheSearchAfterTypingRestsHitsTheRepository() async throws {
    _ = try await alice.board.createPost(PostDraft(content: "swift concurrency tips"))
    _ = try await alice.board.createPost(PostDraft(content: "swimming club"))
    _ = try await alice.board.createPost(PostDraft(content: "kotlin corner"))
    let searched = CallLog<String>()
    let board = board(as: bob) { $0.logSearches(in: searched) }
    await board.task()

    let first = Task { await board.searchTextChanged("sw") }
    try await clock.waitForSleeper()
    await clock.advance(by: .milliseconds(200))
    let second = Task { await board.searchTextChanged("swift") }
    // The newer keystroke ends the older wait (its task returns) and starts its own.
    await first.value
    try await clock.waitForSleeper()
    await clock.advance(by: .milliseconds(299))
    #expect(await searched.calls.isEmpty)
    #expect(board.isSearching)
    #expect(board.isSearchActive)
    await clock.advance(by: .milliseconds(1))
    await second.value

    #expect(await searched.calls == ["swift"])
    #expect(board.searchQuery == "swift")
    #expect(board.searchResults.map(\.content) == ["swift concurrency tips"])
    #expect(board.visiblePosts == board.searchResults)
    #expect(!board.isSearching)
    // Refreshing the results is no new search.
    await board.refreshPulled()
    #expect(board.searchResults.map(\.content) == ["swift concurrency tips"])
    let events = try await bob.uploadedEvents()
    #expect(events.map(\.name) == ["screen_viewed", "board_searched"])
    #expect(events.last?.properties == ["result_count": "1"])
  }

  @Test func aRefreshWhileNewTextWaitsSearchesThatTextAtOnceAndOnlyOnce() async throws {
    _ = try await alice.board.createPost(PostDraft(content: "swift tips"))
    _ = try await alice.board.createPost(PostDraft(content: "kotlin corner"))
    let searched = CallLog<String>()
    let board = board(as: bob) { $0.logSearches(in: searched) }
    await board.task()
    let first = Task { await board.searchTextChanged("swift") }
    try await clock.waitForSleeper()
    await clock.advance(by: .milliseconds(300))
    await first.value
    #expect(board.searchResults.map(\.content) == ["swift tips"])

    // New text waits for its pause; pulling to refresh searches it now, never the old text.
    let waiting = Task { await board.searchTextChanged("kotlin") }
    try await clock.waitForSleeper()
    await board.refreshPulled()
    #expect(board.searchResults.map(\.content) == ["kotlin corner"])
    #expect(!board.isSearching)
    await clock.advance(by: .seconds(1))
    await waiting.value
    #expect(await searched.calls == ["swift", "kotlin"])
    let events = try await bob.uploadedEvents()
    #expect(events.map(\.name) == ["screen_viewed", "board_searched", "board_searched"])
  }

  @Test func aRefreshGivenUpBeforeItsSearchLandedEndsTheSpinnerAndSearchesOnReturn() async throws {
    _ = try await alice.board.createPost(PostDraft(content: "swift tips"))
    _ = try await alice.board.createPost(PostDraft(content: "kotlin corner"))
    let slow = Gate()
    let searched = CallLog<String>()
    // "kotlin" answers once the gate opens, as a request does: given up when its task was
    // cancelled meanwhile.
    let board = board(as: bob) {
      $0.logSearches(in: searched) { _, query in
        guard query == "kotlin" else { return }
        await slow.wait()
        try Task.checkCancellation()
      }
    }
    await board.task()
    let first = Task { await board.searchTextChanged("swift") }
    try await clock.waitForSleeper()
    await clock.advance(by: .milliseconds(300))
    await first.value
    // New text waits for its pause; a refresh searches it now, and the screen goes away.
    let waiting = Task { await board.searchTextChanged("kotlin") }
    try await clock.waitForSleeper()
    let refresh = Task { await board.refreshPulled() }
    try await searched.waitForCalls(2)
    refresh.cancel()
    await slow.open()
    await refresh.value
    await waiting.value
    #expect(!board.isSearching)
    #expect(board.searchResults.map(\.content) == ["swift tips"])
    // Back on screen: the field's search runs again and lands.
    await board.task()
    #expect(board.searchQuery == "kotlin")
    #expect(board.searchResults.map(\.content) == ["kotlin corner"])
    #expect(!board.isSearching)
  }

  @Test func aTypedSearchGivenUpForARefreshLeavesTheSpinnerToTheRefresh() async throws {
    _ = try await alice.board.createPost(PostDraft(content: "kotlin corner"))
    let slow = Gate()
    let searched = CallLog<String>()
    // The typed search waits until cancelled, as a request does; the refresh's waits for the
    // gate.
    let board = board(as: bob) {
      $0.logSearches(in: searched) { call, _ in
        if call == 1 { try await Task.sleep(for: .seconds(600)) } else { await slow.wait() }
      }
    }
    await board.task()
    let typed = Task { await board.searchTextChanged("kotlin") }
    try await clock.waitForSleeper()
    await clock.advance(by: .milliseconds(300))
    try await searched.waitForCalls(1)
    let refresh = Task { await board.refreshPulled() }
    try await searched.waitForCalls(2)
    await typed.value
    #expect(board.isSearching)
    await slow.open()
    await refresh.value
    #expect(!board.isSearching)
    #expect(board.searchResults.map(\.content) == ["kotlin corner"])
  }

  @Test func anOlderSearchNeverOverwritesANewerOne() async throws {
    _ = try await alice.board.createPost(PostDraft(content: "old style"))
    _ = try await alice.board.createPost(PostDraft(content: "new style"))
    let slowOld = Gate()
    let searched = CallLog<String>()
    let board = board(as: bob) { $0.logSearches(in: searched, holding: "old", until: slowOld) }
    let old = Task { await board.searchTextChanged("old") }
    try await clock.waitForSleeper()
    await clock.advance(by: .milliseconds(300))
    try await searched.waitForCalls(1)  // "old" is at the server now.

    let new = Task { await board.searchTextChanged("new") }
    try await clock.waitForSleeper()
    await clock.advance(by: .milliseconds(300))
    await new.value
    #expect(board.searchResults.map(\.content) == ["new style"])

    await slowOld.open()
    await old.value
    #expect(await searched.calls == ["old", "new"])
    #expect(board.searchQuery == "new")
    #expect(board.searchResults.map(\.content) == ["new style"])
    #expect(!board.isSearching)
  }

  @Test func aPostChangedWhileASearchLoadsShowsAsChangedWhenItLands() async throws {
    let posts = try await alice.publishPosts(2, prefix: "match")
    let slow = Gate()
    let searched = CallLog<String>()
    let board = board(as: bob) {
      let search = $0.boardRepository.searchPosts
      $0.boardRepository.searchPosts = { query, page in
        // The page is read before the changes below, and arrives after them.
        let answer = try await search(query, page)
        await searched.record(query)
        await slow.wait()
        return answer
      }
    }
    let typing = Task { await board.searchTextChanged("match") }
    try await clock.waitForSleeper()
    await clock.advance(by: .milliseconds(300))
    try await searched.waitForCalls(1)
    // The posts' screens: one liked, the other deleted.
    var liked = posts[0]
    liked.likeState = liked.likeState.toggled()
    board.postChanged(liked)
    board.postDeleted(posts[1].id)
    await slow.open()
    await typing.value
    #expect(board.searchResults.map(\.id) == [posts[0].id])
    #expect(board.searchResults.first?.isLiked == true)
  }

  @Test func clearingTheTextReturnsToTheListAndDropsTheWaitingSearch() async throws {
    let published = try await alice.publishPosts(3)
    let searched = CallLog<String>()
    let board = board(as: bob) { $0.logSearches(in: searched) }
    await board.task()
    let typing = Task { await board.searchTextChanged("post 2") }
    try await clock.waitForSleeper()
    await clock.advance(by: .milliseconds(300))
    await typing.value
    #expect(board.visiblePosts.map(\.id) == [published[1].id])

    let waiting = Task { await board.searchTextChanged("post 3") }
    try await clock.waitForSleeper()
    await clock.advance(by: .milliseconds(100))
    await board.searchTextChanged("   ")
    await waiting.value
    await clock.advance(by: .seconds(1))
    #expect(await searched.calls == ["post 2"])
    #expect(!board.isSearchActive)
    #expect(!board.isSearching)
    #expect(board.searchResults.isEmpty)
    #expect(board.visiblePosts.map(\.id) == published.reversed().map(\.id))
  }

  @Test func aFailedSearchIsShown() async throws {
    let board = board(as: bob)
    backend.isOffline = true
    let typing = Task { await board.searchTextChanged("anything") }
    try await clock.waitForSleeper()
    await clock.advance(by: .milliseconds(300))
    await typing.value
    #expect(board.failure == .offline)
    #expect(!board.isSearching)
    #expect(board.searchResults.isEmpty)
  }

  @Test func searchResultsPageAndLikeLikeTheList() async throws {
    _ = try await alice.publishPosts(22, prefix: "match")
    _ = try await alice.publishPosts(3, prefix: "other")
    let board = board(as: bob)
    await board.task()
    let typing = Task { await board.searchTextChanged("match") }
    try await clock.waitForSleeper()
    await clock.advance(by: .milliseconds(300))
    await typing.value
    #expect(board.searchResults.count == 20)
    #expect(board.hasMore)
    await board.postAppeared(board.searchResults[19].id)
    #expect(board.searchResults.count == 22)
    #expect(!board.hasMore)

    // A post both in the list and in the results flips in both.
    let shared = board.searchResults[3]
    #expect(board.posts.contains { $0.id == shared.id })
    await board.likeButtonTapped(shared.id)
    #expect(board.searchResults[3].isLiked)
    #expect(board.posts.first { $0.id == shared.id }?.likeCount == 1)
  }

  @Test func moreResultsWhileANewSearchWaitsComeFromTheSearchShown() async throws {
    _ = try await alice.publishPosts(22, prefix: "match")
    let searched = CallLog<String>()
    let board = board(as: bob) { $0.logSearches(in: searched) }
    await board.task()
    let typing = Task { await board.searchTextChanged("match") }
    try await clock.waitForSleeper()
    await clock.advance(by: .milliseconds(300))
    await typing.value
    #expect(board.hasMore)
    // New text is waiting for its pause; the user scrolls to the end of the shown results.
    let retyping = Task { await board.searchTextChanged("match 1") }
    try await clock.waitForSleeper()
    await board.postAppeared(board.searchResults[19].id)
    #expect(await searched.calls == ["match", "match"])
    #expect(board.searchResults.count == 22)
    await clock.advance(by: .milliseconds(300))
    await retyping.value
    #expect(await searched.calls == ["match", "match", "match 1"])
  }

  // MARK: - Likes

  /// The list was read before the post was liked elsewhere, the search after: the search's
  /// row shows it liked, so its tap unlikes.
  @Test func aTapOnASearchRowFlipsWhatThatRowShows() async throws {
    let post = try await alice.board.createPost(PostDraft(content: "swift tips"))
    let gate = Gate()
    let sent = CallLog<Bool>()
    let board = board(as: bob) { $0.holdPostLikes(at: gate, loggingIn: sent) }
    await board.task()
    _ = try await bob.board.setPostLike(post.id, true)
    let search = Task { await board.searchTextChanged("swift") }
    try await clock.waitForSleeper()
    await clock.advance(by: .milliseconds(300))
    await search.value
    #expect(board.searchResults.map(\.likeState) == [LikeState(isLiked: true, likeCount: 1)])
    await gate.open()
    await board.likeButtonTapped(post.id)
    #expect(await sent.calls == [false])
    #expect(board.searchResults.map(\.likeState) == [LikeState(isLiked: false, likeCount: 0)])
  }

  @Test func aLikeFlipsAtOnceAndTheServersCountWins() async throws {
    let post = try await alice.board.createPost(PostDraft(content: "like me"))
    let carol = try backend.signedUpClient(nickname: "carol")
    let gate = Gate()
    let sent = CallLog<Bool>()
    let board = board(as: bob) { $0.holdPostLikes(at: gate, loggingIn: sent) }
    await board.task()
    // Carol likes after bob's list was loaded: bob's row still says 0.
    _ = try await carol.board.setPostLike(post.id, true)

    let tap = Task { await board.likeButtonTapped(post.id) }
    try await sent.waitForCalls(1)
    #expect(board.posts[0].likeState == LikeState(isLiked: true, likeCount: 1))
    await gate.open()
    await tap.value
    #expect(board.posts[0].likeState == LikeState(isLiked: true, likeCount: 2))
    // Alice sees both likes.
    #expect(try await alice.board.fetchPost(post.id).likeCount == 2)
    let events = try await bob.uploadedEvents()
    #expect(events.map(\.name) == ["screen_viewed", "post_liked"])
    #expect(events.last?.properties == ["is_liked": "true", "screen": "board"])
  }

  @Test func aReloadLandingDuringALikeIsNotTakenForATap() async throws {
    let post = try await alice.board.createPost(PostDraft(content: "like me"))
    let gate = Gate()
    let sent = CallLog<Bool>()
    let reload = Gate()
    let reloads = CallLog<Int>()
    let board = board(as: bob) { values in
      values.holdPostLikes(at: gate, loggingIn: sent)
      let fetch = values.boardRepository.fetchPosts
      values.boardRepository.fetchPosts = { request in
        // The pull-to-refresh reads the server before the like, then answers late.
        let page = try await fetch(request)
        await reloads.record(1)
        if await reloads.calls.count > 1 { await reload.wait() }
        return page
      }
    }
    await board.task()
    let refresh = Task { await board.refreshPulled() }
    try await reloads.waitForCalls(2)
    let like = Task { await board.likeButtonTapped(post.id) }
    try await sent.waitForCalls(1)
    await reload.open()
    await refresh.value
    await gate.open()
    await like.value
    #expect(await sent.calls == [true])
    #expect(board.posts[0].likeState == LikeState(isLiked: true, likeCount: 1))
    #expect(try await alice.board.fetchPost(post.id).likeCount == 1)
  }

  @Test func aFailedLikeRollsBackAndIsShown() async throws {
    let post = try await alice.board.createPost(PostDraft(content: "like me"))
    let board = board(as: bob)
    await board.task()
    backend.isOffline = true
    await board.likeButtonTapped(post.id)
    #expect(board.posts[0].likeState == LikeState(isLiked: false, likeCount: 0))
    #expect(board.failure == .offline)
    backend.isOffline = false
    #expect(try await alice.board.fetchPost(post.id).likeCount == 0)
  }

  @Test func tapsWhileALikeIsInFlightEndWithTheLastTap() async throws {
    let post = try await alice.board.createPost(PostDraft(content: "like me"))
    let gate = Gate()
    let sent = CallLog<Bool>()
    let board = board(as: bob) { $0.holdPostLikes(at: gate, loggingIn: sent) }
    await board.task()
    let like = Task { await board.likeButtonTapped(post.id) }
    try await sent.waitForCalls(1)
    // Unlike while the like is on its way: shown at once, sent after the like returns.
    await board.likeButtonTapped(post.id)
    #expect(board.posts[0].likeState == LikeState(isLiked: false, likeCount: 0))
    await gate.open()
    await like.value
    #expect(await sent.calls == [true, false])
    #expect(board.posts[0].likeState == LikeState(isLiked: false, likeCount: 0))
    #expect(try await alice.board.fetchPost(post.id).likeCount == 0)
  }

  @Test func aLikeOfAPostThatWasHiddenMeanwhileRollsBack() async throws {
    let post = try await alice.board.createPost(PostDraft(content: "soon gone"))
    let board = board(as: bob)
    await board.task()
    try await alice.board.deletePost(post.id)
    await board.likeButtonTapped(post.id)
    #expect(board.failure == .notFound)
    #expect(board.posts[0].likeState == LikeState(isLiked: false, likeCount: 0))
    board.postDeleted(post.id)
    #expect(board.posts.isEmpty)
  }

  // MARK: - New post

  @Test func aNewPostIsCheckedPublishedAndShownFirst() async throws {
    _ = try await alice.publishPosts(2)
    let board = board(as: bob)
    await board.task()
    board.composeButtonTapped()
    let compose = try #require(board.composeSheet)
    await compose.task()
    #expect(!compose.canSubmit)
    await compose.submitButtonTapped()
    #expect(compose.failure == .validation(.empty(field: "content")))

    compose.content = String(repeating: "가", count: 1001)
    #expect(compose.remainingCount == -1)
    await compose.submitButtonTapped()
    #expect(
      compose.failure == .validation(.tooLong(field: "content", maximum: 1000, actual: 1001)))

    compose.failureDismissed()
    compose.content = "  Study group tonight?  "
    compose.isAnonymous = false
    #expect(compose.canSubmit)
    await compose.submitButtonTapped()
    #expect(board.destination == nil)
    #expect(board.posts.count == 3)
    #expect(board.posts[0].content == "Study group tonight?")
    #expect(board.posts[0].authorName == "bob")
    #expect(try await alice.board.fetchPosts(.first).items.first?.id == board.posts[0].id)
    let events = try await bob.uploadedEvents()
    #expect(events.map(\.name) == ["screen_viewed", "screen_viewed", "post_created"])
    #expect(events[1].properties == ["screen": "board_compose"])
    #expect(events[2].properties == ["is_anonymous": "false"])
  }

  @Test func aFailedPostKeepsTheText() async throws {
    let board = board(as: bob)
    board.composeButtonTapped()
    let compose = try #require(board.composeSheet)
    compose.content = "Please do not lose me"
    backend.isOffline = true
    await compose.submitButtonTapped()
    #expect(compose.failure == .offline)
    #expect(compose.content == "Please do not lose me")
    #expect(!compose.isSubmitting)
    #expect(board.destination != nil)

    backend.isOffline = false
    await compose.submitButtonTapped()
    #expect(board.destination == nil)
    #expect(board.posts.map(\.content) == ["Please do not lose me"])
  }

  @Test func aRateLimitedPostKeepsTheTextAndSaysWhy() async throws {
    backend.rateLimit = FakeRateLimit(maximumWrites: 1, per: .seconds(60))
    let board = board(as: bob)
    board.composeButtonTapped()
    let compose = try #require(board.composeSheet)
    compose.content = "first"
    await compose.submitButtonTapped()
    board.composeButtonTapped()
    let second = try #require(board.composeSheet)
    second.content = "second"
    await second.submitButtonTapped()
    guard case .rateLimited = second.failure else {
      Issue.record("expected a rate limit, got \(String(describing: second.failure))")
      return
    }
    #expect(second.content == "second")
    second.cancelButtonTapped()
    #expect(board.destination == nil)
    #expect(board.posts.map(\.content) == ["first"])
  }
}

extension BoardModel {
  /// The "new post" sheet presented, if any.
  var composeSheet: ComposePostModel? {
    guard case .compose(let sheet) = destination else { return nil }
    return sheet
  }
}
