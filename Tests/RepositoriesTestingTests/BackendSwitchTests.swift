import Clocks
import Dependencies
import Domain
import Foundation
import Repositories
import RepositoriesTesting
import TestSupport
import Testing

@testable import ServiceEngine

@Suite("Fake pagination")
struct PaginationTests {
  @Test("walking every page returns each post once, newest first")
  func walkAllPosts() async throws {
    let (backend, alice, bob, _) = try makeCast()
    for index in 1...45 {
      // Several posts share a timestamp: the insertion order must break the tie.
      if index % 3 == 0 { backend.advance(by: 1) }
      _ = try await alice.board.createPost(PostDraft(content: "post \(index)"))
    }
    let all = try await collectAll(limit: 10) { try await bob.board.fetchPosts(page: $0) }
    #expect(all.count == 45)
    #expect(Set(all.map(\.id)).count == 45)
    #expect(all.map(\.content) == (1...45).reversed().map { "post \($0)" })
  }

  @Test("inserts between pages neither duplicate nor skip older items")
  func stableUnderInserts() async throws {
    let (backend, alice, bob, _) = try makeCast()
    for index in 1...6 {
      backend.advance(by: 1)
      _ = try await alice.board.createPost(PostDraft(content: "post \(index)"))
    }
    let first = try await bob.board.fetchPosts(page: PageRequest(limit: 3))
    #expect(first.items.map(\.content) == ["post 6", "post 5", "post 4"])
    backend.advance(by: 1)
    _ = try await alice.board.createPost(PostDraft(content: "newer"))
    let second = try await bob.board.fetchPosts(
      page: PageRequest(cursor: first.nextCursor, limit: 3))
    #expect(second.items.map(\.content) == ["post 3", "post 2", "post 1"])
    #expect(second.nextCursor == nil)
  }

  @Test("comments page oldest first; limits are clamped; bad cursors are refused")
  func limitsAndCursors() async throws {
    let (_, alice, bob, _) = try makeCast()
    let post = try await alice.board.createPost(PostDraft(content: "Busy thread"))
    for index in 1...120 {
      _ = try await bob.board.createComment(on: post.id, draft: CommentDraft(content: "c\(index)"))
    }
    let big = try await alice.board.fetchComments(of: post.id, page: PageRequest(limit: 500))
    #expect(big.items.count == 100)
    #expect(big.items.first?.content == "c1")
    let rest = try await alice.board.fetchComments(
      of: post.id, page: PageRequest(cursor: big.nextCursor, limit: 500))
    #expect(rest.items.map(\.content) == (101...120).map { "c\($0)" })
    #expect(
      try await alice.board.fetchComments(of: post.id, page: PageRequest(limit: 0)).items.count == 1
    )
    #expect(
      await validationField {
        _ = try await alice.board.fetchPosts(page: PageRequest(cursor: "not-a-cursor"))
      } == "cursor")
  }

  @Test("every list walks without duplicates")
  func otherLists() async throws {
    let (backend, alice, bob, admin) = try makeCast()
    for index in 1...7 {
      _ = try await alice.studyGroups.createGroup(StudyGroupDraft(name: "group \(index)"))
      _ = try await admin.admin.createQuestion(
        QuestionDraft(
          content: "Question \(index)?", publishDate: backend.today.adding(days: -index)))
    }
    let post = try await alice.board.createPost(PostDraft(content: "p"))
    for index in 1...7 {
      _ = try await bob.board.createComment(on: post.id, draft: CommentDraft(content: "\(index)"))
    }
    let groups = try await collectAll(limit: 2) { try await bob.studyGroups.fetchGroups(nil, $0) }
    #expect(Set(groups.map(\.id)).count == 7)
    let questions = try await collectAll(limit: 2) {
      try await bob.questions.fetchQuestions(page: $0)
    }
    #expect(questions.map(\.publishDate) == (1...7).map { backend.today.adding(days: -$0) })
    let notifications = try await collectAll(limit: 2) {
      try await alice.notifications.fetchNotifications(page: $0)
    }
    #expect(notifications.count == 7)
    let rooms = try await collectAll(limit: 2) { try await alice.chat.fetchRooms(page: $0) }
    #expect(Set(rooms.map(\.id)).count == 7)
    let users = try await collectAll(limit: 1) { try await admin.admin.fetchUsers(nil, $0) }
    #expect(users.map(\.user.nickname.rawValue) == ["moderator1", "bob", "alice"])
  }
}

@Suite("Fake backend switches: offline, rate limit, analytics")
struct BackendSwitchTests {
  @Test("offline: every call throws offline and changes nothing but sign-out on the device")
  func offline() async throws {
    let (backend, alice, _, _) = try makeCast()
    backend.isOffline = true
    await #expect(throws: DomainError.offline) {
      _ = try await alice.board.createPost(PostDraft(content: "x"))
    }
    await #expect(throws: DomainError.offline) {
      _ = try await alice.board.fetchPosts(page: .first)
    }
    await #expect(throws: DomainError.offline) {
      _ = try await alice.auth.signIn(provider: .dev, token: "alice")
    }
    backend.isOffline = false
    #expect(try await alice.board.fetchPosts(page: .first).items.isEmpty)
    // Like the live client: signed out on the device, and told the server was not reached.
    backend.isOffline = true
    await #expect(throws: DomainError.offline) { try await alice.auth.signOut() }
    #expect(alice.sessionState == .signedOut)
  }

  @Test("advancing the clock many times costs nothing when reading it")
  func manyAdvances() {
    let backend = FakeBackend(now: { Fixtures.now })
    // Each advance once wrapped the clock in one more closure: reading it then recursed once
    // per advance and overflowed the stack.
    for _ in 0..<100_000 { backend.advance(by: 1) }
    #expect(backend.now() == Fixtures.now.addingTimeInterval(100_000))
    backend.now = { Fixtures.now }
    #expect(backend.now() == Fixtures.now)
  }

  @Test("the fake's default write limit is the server's")
  func defaultRateLimit() {
    #expect(FakeRateLimit() == .standard)
    #expect(
      FakeRateLimit(maximumWrites: 3, per: .seconds(5)) == .init(count: 3, window: .seconds(5)))
  }

  @Test("the optional rate limit refuses writes over the window and says when to retry")
  func rateLimit() async throws {
    let (backend, alice, bob, _) = try makeCast()
    backend.rateLimit = FakeRateLimit(maximumWrites: 3, per: .seconds(10))
    for index in 1...3 {
      _ = try await alice.board.createPost(PostDraft(content: "post \(index)"))
      backend.advance(by: 1)
    }
    await #expect(throws: DomainError.rateLimited(retryAfter: .seconds(7))) {
      _ = try await alice.board.createPost(PostDraft(content: "one too many"))
    }
    // Reads and other users are not affected.
    #expect(try await alice.board.fetchPosts(page: .first).items.count == 3)
    _ = try await bob.board.createPost(PostDraft(content: "bob's"))
    backend.advance(by: 7)
    _ = try await alice.board.createPost(PostDraft(content: "after the window"))
    backend.rateLimit = nil
    for index in 1...5 { _ = try await alice.board.createPost(PostDraft(content: "free \(index)")) }
  }

  @Test("analytics uploads count against a limit of their own, not the member's writes")
  func analyticsRateLimit() async throws {
    let (backend, alice, _, _) = try makeCast()
    backend.rateLimit = FakeRateLimit(maximumWrites: 2, per: .seconds(10))
    let event = try AnalyticsEvent(name: "screen_viewed", occurredAt: Fixtures.now)
    for _ in 1...2 {
      await alice.analytics.track(event)
      #expect(try await alice.analytics.flush() == 1)
    }
    await alice.analytics.track(event)
    await #expect(throws: DomainError.rateLimited(retryAfter: .seconds(10))) {
      _ = try await alice.analytics.flush()
    }
    for index in 1...2 { _ = try await alice.board.createPost(PostDraft(content: "post \(index)")) }
  }

  @Test("analytics buffer on the client and upload on flush, in batches, as the signed-in user")
  func analytics() async throws {
    let (backend, alice, _, _) = try makeCast()
    try await track(0..<250, on: alice)
    #expect(backend.analyticsEvents.isEmpty)
    backend.isOffline = true
    await #expect(throws: DomainError.offline) { _ = try await alice.analytics.flush() }
    backend.isOffline = false
    #expect(try await alice.analytics.flush() == 250)
    #expect(try await alice.analytics.flush() == 0)
    let events = backend.analyticsEvents
    #expect(events.count == 250)
    #expect(events.allSatisfy { $0.userID == (try? alice.userID) })
    #expect(events.last?.event.properties["index"] == "249")
  }

  @Test(
    "a batch the server fails for now stays queued with the ones after it, in order, for the next flush"
  )
  func analyticsBatchFailedForNow() async throws {
    let (backend, alice, _, _) = try makeCast()
    try await track(0..<250, on: alice)
    // The second batch (100-199) fails in the database.
    try failInserts(
      into: "analytics_event", when: "NEW.properties LIKE '%\"index\":\"150\"%'",
      in: backend.engine.writer)
    await #expect(throws: DomainError.self) { _ = try await alice.analytics.flush() }
    #expect(backend.analyticsEvents.count == 100)
    try await track(250..<251, on: alice)
    try allowInserts(into: "analytics_event", in: backend.engine.writer)
    #expect(try await alice.analytics.flush() == 151)
    #expect(
      backend.analyticsEvents.map { $0.event.properties["index"] } == (0...250).map { "\($0)" })
  }
}

/// Tracks a screen view numbered by its `index` property for each of `indexes` on `client`.
private func track(_ indexes: Range<Int>, on client: FakeClient) async throws {
  for index in indexes {
    await client.analytics.track(
      try AnalyticsEvent(
        name: "screen_viewed", properties: ["index": "\(index)"], occurredAt: Fixtures.now))
  }
}

@Suite("Installing a fake client")
struct InstallFakeClientTests {
  @Test("installs the client's repositories and the backend's clock as \\.date")
  func installsRepositoriesAndDate() async throws {
    let backend = FakeBackend(now: { Fixtures.now })
    let alice = try backend.signedUpClient(nickname: "alice")
    let (me, now) = try await withDependencies {
      $0.install(alice)
    } operation: {
      @Dependency(\.profileRepository) var profile
      @Dependency(\.date.now) var now
      return (try await profile.fetchMe(), now)
    }
    #expect(me.id == (try alice.userID))
    #expect(now == Fixtures.now)
    backend.advance(by: 60)
    let later = withDependencies {
      $0.install(alice)
    } operation: {
      @Dependency(\.date.now) var now
      return now
    }
    #expect(later == Fixtures.now.addingTimeInterval(60))
  }

  @Test("model(clock:_:_:) builds with the client's dependencies, the clock and overrides")
  func modelInstallsClientClockAndOverrides() async throws {
    let backend = FakeBackend(now: { Fixtures.now })
    let alice = try backend.signedUpClient(nickname: "alice")
    let clock = TestClock()
    struct Probe {
      @Dependency(\.profileRepository) var profile
      @Dependency(\.continuousClock) var clock
      @Dependency(\.date.now) var now
      @Dependency(\.boardRepository) var board
    }
    let probe = alice.model(
      clock: clock, { $0.boardRepository.deletePost = { _ in throw DomainError.forbidden } }
    ) {
      Probe()
    }
    #expect(try await probe.profile.fetchMe().id == (try alice.userID))
    #expect(probe.now == Fixtures.now)
    #expect(probe.clock as? TestClock<Duration> === clock)
    await #expect(throws: DomainError.forbidden) { try await probe.board.deletePost("p_1") }
  }

  @Test("uploadedEvents flushes the client and returns its own user's events only")
  func uploadedEventsAreTheUsersOwn() async throws {
    let backend = FakeBackend(now: { Fixtures.now })
    let alice = try backend.signedUpClient(nickname: "alice")
    let bob = try backend.signedUpClient(nickname: "bob")
    await bob.analytics.track("post_created", at: Fixtures.now)
    _ = try await bob.analytics.flush()
    await alice.analytics.track("screen_viewed", ["screen": "board"], at: Fixtures.now)
    await alice.analytics.track("post_liked", at: Fixtures.now)
    let events = try await alice.uploadedEvents()
    #expect(events.map(\.name) == ["screen_viewed", "post_liked"])
    #expect(events[0].properties == ["screen": "board"])
    #expect(try await bob.uploadedEvents().map(\.name) == ["post_created"])
  }
}

@MainActor
@Suite("yieldUntil")
struct YieldUntilTests {
  @Test func returnsOnceAnotherTaskMadeTheConditionTrueAndGivesUpOtherwise() async {
    var done = false
    Task { @MainActor in done = true }
    await yieldUntil { done }
    #expect(done)
    var turns = 0
    await yieldUntil(turns: 5) {
      turns += 1
      return false
    }
    #expect(turns == 5, "checked before each of the 5 yields, then given up")
  }
}
