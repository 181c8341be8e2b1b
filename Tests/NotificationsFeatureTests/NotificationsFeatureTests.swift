import Dependencies
import Domain
import Foundation
import NotificationsFeature
import Repositories
import RepositoriesTesting
import TestSupport
import Testing

/// The inbox on the fakes: what bob does to alice's post reaches alice's inbox, opens where it
/// is about, and read states roll back when the server cannot be reached.
@MainActor
@Suite("NotificationsFeature")
struct NotificationsFeatureTests {
  let backend = FakeBackend(now: { Fixtures.now })
  let alice: FakeClient
  let bob: FakeClient
  let post: BoardPost

  init() async throws {
    alice = try backend.signedUpClient(nickname: "alice")
    bob = try backend.signedUpClient(nickname: "bob")
    post = try await alice.board.createPost(PostDraft(content: "Anyone for a code review?"))
  }

  /// The inbox as `client`; `override` replaces repository endpoints.
  func inbox(
    as client: FakeClient, _ override: (inout DependencyValues) -> Void = { _ in }
  ) -> NotificationsModel {
    client.model(override) {
      NotificationsModel()
    }
  }

  /// Alice's inbox whose "mark all read" calls are counted in `calls` and each handed, with its
  /// number (from 1), to `answer` along with the real call.
  func inbox(
    countingMarkAllsIn calls: Locked<Int>,
    _ answer: @escaping @Sendable (Int, @Sendable () async throws -> Void) async throws -> Void
  ) -> NotificationsModel {
    inbox(as: alice) { values in
      let markAll = values.notificationRepository.markAllRead
      values.notificationRepository.markAllRead = {
        let call = calls.withLock {
          $0 += 1
          return $0
        }
        try await answer(call, markAll)
      }
    }
  }

  /// Makes `markRead` set `waiting`, wait for `held`, then fail as server trouble.
  func holdMarkRead(
    _ values: inout DependencyValues, waiting: Locked<Bool>, until held: AsyncStream<Void>
  ) {
    values.notificationRepository.markRead = { _ in
      waiting.withLock { $0 = true }
      for await _ in held { break }
      throw DomainError.server("down for a moment")
    }
  }

  @Test("a load given up (the screen went away) shows no failure")
  func aCancelledLoadIsNoFailure() async throws {
    _ = try await bobComments(1)
    let cancels = LockIsolated(true)
    let inbox = inbox(as: alice) { values in
      let fetch = values.notificationRepository.fetchNotifications
      values.notificationRepository.fetchNotifications = { request in
        if cancels.value { throw CancellationError() }
        return try await fetch(request)
      }
    }
    await inbox.task()
    #expect(inbox.failure == nil)
    #expect(!inbox.hasLoaded)
    cancels.setValue(false)
    await inbox.task()
    #expect(inbox.notifications.count == 1)
  }

  /// Bob comments `count` times on alice's post; the comments, oldest first.
  func bobComments(_ count: Int) async throws -> [Domain.Comment] {
    var comments: [Domain.Comment] = []
    for number in 1...count {
      comments.append(
        try await bob.board.createComment(
          post.id, CommentDraft(content: "me! (\(number))", isAnonymous: false)))
    }
    return comments
  }

  /// Alice's inbox whose first pages are read, then held until `released` while `holding`;
  /// `read` is set once a held page was read. `override` replaces more endpoints.
  func inbox(
    holdingPagesWhile holding: Locked<Bool>, read: Locked<Bool>, until released: AsyncStream<Void>,
    _ override: @escaping (inout DependencyValues) -> Void = { _ in }
  ) -> NotificationsModel {
    inbox(as: alice) { values in
      override(&values)
      let fetch = values.notificationRepository.fetchNotifications
      values.notificationRepository.fetchNotifications = { request in
        let page = try await fetch(request)
        if holding.withLock({ $0 }) {
          read.withLock { $0 = true }
          for await _ in released { break }
        }
        return page
      }
    }
  }

  @Test(
    "a notification read (one, or all) while a page read before it was on its way stays read, and the badge matches the service",
    arguments: [false, true])
  func aReadMarkOutlivesAReloadReadBeforeIt(markAll: Bool) async throws {
    _ = try await bobComments(2)
    let holding = Locked(false)
    let read = Locked(false)
    let (released, release) = AsyncStream<Void>.makeStream()
    let inbox = inbox(holdingPagesWhile: holding, read: read, until: released)
    await inbox.task()
    #expect(inbox.unreadCount == 2)
    holding.withLock { $0 = true }
    let refresh = Task { await inbox.refreshPulled() }
    try await waitUntil("the page is read") { read.withLock { $0 } }
    if markAll {
      await inbox.markAllReadButtonTapped()
    } else {
      await inbox.notificationTapped(inbox.notifications[0].id)
    }
    holding.withLock { $0 = false }
    release.finish()
    await refresh.value
    let service = try await alice.notifications.fetchUnreadCount()
    #expect(service == (markAll ? 0 : 1))
    #expect(inbox.unreadCount == service)
    #expect(inbox.notifications.filter { !$0.isRead }.count == service)
    // A second tap on the row read changes nothing.
    await inbox.notificationTapped(inbox.notifications[0].id)
    #expect(inbox.unreadCount == service)
  }

  @Test("a mark still on its way when a reload lands keeps its row read and the badge right")
  func aMarkOnItsWayOutlivesAReloadAndItsCount() async throws {
    _ = try await bobComments(2)
    let holding = Locked(false)
    let read = Locked(false)
    let (released, release) = AsyncStream<Void>.makeStream()
    let (markGate, openMark) = AsyncStream<Void>.makeStream()
    let marking = Locked(false)
    let inbox = inbox(holdingPagesWhile: holding, read: read, until: released) { values in
      let mark = values.notificationRepository.markRead
      values.notificationRepository.markRead = { id in
        marking.withLock { $0 = true }
        for await _ in markGate { break }
        try await mark(id)
      }
    }
    await inbox.task()
    holding.withLock { $0 = true }
    let refresh = Task { await inbox.refreshPulled() }
    try await waitUntil("the page is read") { read.withLock { $0 } }
    let tap = Task { await inbox.notificationTapped(inbox.notifications[0].id) }
    try await waitUntil("the mark is on its way") { marking.withLock { $0 } }
    holding.withLock { $0 = false }
    release.finish()
    await refresh.value
    // The page and its count were read before the mark reached the service.
    #expect(inbox.notifications.filter { !$0.isRead }.count == 1)
    openMark.finish()
    await tap.value
    let service = try await alice.notifications.fetchUnreadCount()
    #expect(service == 1)
    #expect(inbox.unreadCount == service)
  }

  @Test func bobsCommentReachesAlicesInboxAndOpensTheComment() async throws {
    let comment = try await bobComments(1)[0]
    let inbox = inbox(as: alice)
    var opened: [DeepLink] = []
    inbox.onNavigate = { opened.append($0) }
    await inbox.task()
    #expect(inbox.unreadCount == 1)
    let notification = try #require(inbox.notifications.first)
    #expect(notification.kind == .commentOnMyPost(post: post.id, comment: comment.id))
    #expect(notification.message == "bob commented on your post.")
    #expect(!notification.isRead)

    await inbox.notificationTapped(notification.id)
    #expect(opened == [.comment(post: post.id, comment: comment.id)])
    #expect(inbox.notifications[0].isRead)
    #expect(inbox.unreadCount == 0)
    #expect(inbox.failure == nil)
    #expect(try await alice.notifications.fetchUnreadCount() == 0)
    let events = try await alice.uploadedEvents()
    #expect(events.map(\.name) == ["screen_viewed", "notification_opened"])
    #expect(events[0].properties == ["screen": "notifications"])
    #expect(events[1].properties == ["kind": "comment_on_my_post", "has_link": "true"])
  }

  @Test func aLikeOpensThePost() async throws {
    _ = try await bob.board.setPostLike(post.id, true)
    let inbox = inbox(as: alice)
    var opened: [DeepLink] = []
    inbox.onNavigate = { opened.append($0) }
    await inbox.task()
    let notification = try #require(inbox.notifications.first)
    #expect(notification.kind == .likeOnMyPost(post: post.id))
    await inbox.notificationTapped(notification.id)
    #expect(opened == [.post(post.id)])
    // Tapping a read one opens it again and changes nothing else.
    await inbox.notificationTapped(notification.id)
    #expect(opened == [.post(post.id), .post(post.id)])
    #expect(inbox.unreadCount == 0)
  }

  @Test func theInboxIsNewestFirstAndLoadsPageByPage() async throws {
    let comments = try await bobComments(25)
    let inbox = inbox(as: alice)
    await inbox.task()
    #expect(inbox.unreadCount == 25)
    #expect(inbox.notifications.count == 20)
    #expect(inbox.hasMore)
    let cursor = try #require(inbox.nextCursor)
    let rest = try await alice.notifications.fetchNotifications(PageRequest(cursor: cursor))
    #expect(rest.items.count == 5)
    #expect(
      inbox.notifications.first?.deepLink == .comment(post: post.id, comment: comments[24].id))
    await inbox.notificationAppeared(inbox.notifications[3].id)
    #expect(inbox.notifications.count == 20)
    await inbox.notificationAppeared(inbox.notifications[19].id)
    #expect(inbox.notifications.count == 25)
    #expect(!inbox.hasMore)
    #expect(!inbox.isLoadingMore)
    let links = inbox.notifications.map(\.deepLink)
    #expect(links == comments.reversed().map { .comment(post: post.id, comment: $0.id) })
  }

  @Test func anEmptyInboxSaysSo() async throws {
    let inbox = inbox(as: bob)
    #expect(!inbox.isEmpty)
    await inbox.task()
    #expect(inbox.isEmpty)
    #expect(inbox.unreadCount == 0)
  }

  @Test func aFailedTapOpensTheLinkButRollsTheReadStateBack() async throws {
    _ = try await bobComments(1)
    let inbox = inbox(as: alice)
    var opened: [DeepLink] = []
    inbox.onNavigate = { opened.append($0) }
    await inbox.task()
    backend.isOffline = true
    await inbox.notificationTapped(inbox.notifications[0].id)
    #expect(opened.count == 1)
    #expect(!inbox.notifications[0].isRead)
    #expect(inbox.unreadCount == 1)
    #expect(inbox.failure == .offline)
    inbox.failureDismissed()
    #expect(inbox.failure == nil)
    backend.isOffline = false
    #expect(try await alice.notifications.fetchUnreadCount() == 1)
  }

  @Test func aMarkReadFailingAfterMarkAllReadSucceededKeepsEverythingRead() async throws {
    _ = try await bobComments(2)
    let (held, release) = AsyncStream<Void>.makeStream()
    let waiting = Locked(false)
    let inbox = inbox(as: alice) { holdMarkRead(&$0, waiting: waiting, until: held) }
    await inbox.task()
    let tap = Task { await inbox.markReadButtonTapped(inbox.notifications[1].id) }
    try await waitUntil("the first tap reaches the repository") { waiting.withLock { $0 } }
    await inbox.markAllReadButtonTapped()
    release.yield()
    await tap.value
    #expect(inbox.notifications.allSatisfy { $0.isRead })
    #expect(inbox.unreadCount == 0)
    #expect(try await alice.notifications.fetchUnreadCount() == 0)
  }

  @Test func aMarkReadAndAMarkAllReadThatBothFailLeaveBothUnread() async throws {
    _ = try await bobComments(2)
    let (held, release) = AsyncStream<Void>.makeStream()
    let waiting = Locked(false)
    let inbox = inbox(as: alice) { values in
      holdMarkRead(&values, waiting: waiting, until: held)
      values.notificationRepository.markAllRead = { throw DomainError.offline }
    }
    await inbox.task()
    let tap = Task { await inbox.markReadButtonTapped(inbox.notifications[1].id) }
    try await waitUntil("the first tap reaches the repository") { waiting.withLock { $0 } }
    await inbox.markAllReadButtonTapped()
    #expect(inbox.failure == .offline)
    release.yield()
    await tap.value
    #expect(inbox.notifications.map(\.isRead) == [false, false])
    #expect(inbox.unreadCount == 2)
    #expect(try await alice.notifications.fetchUnreadCount() == 2)
  }

  @Test func aMarkReadFailingWhileMarkAllReadIsOnItsWayEndsReadWhenThatSucceeds() async throws {
    _ = try await bobComments(2)
    let (heldOne, releaseOne) = AsyncStream<Void>.makeStream()
    let (heldAll, releaseAll) = AsyncStream<Void>.makeStream()
    let waiting = Locked<Set<String>>([])
    let inbox = inbox(as: alice) { values in
      let markAll = values.notificationRepository.markAllRead
      values.notificationRepository.markRead = { _ in
        waiting.withLock { _ = $0.insert("one") }
        for await _ in heldOne { break }
        throw DomainError.server("down for a moment")
      }
      values.notificationRepository.markAllRead = {
        waiting.withLock { _ = $0.insert("all") }
        for await _ in heldAll { break }
        try await markAll()
      }
    }
    await inbox.task()
    let tap = Task { await inbox.markReadButtonTapped(inbox.notifications[1].id) }
    try await waitUntil("the tap reaches the repository") { waiting.withLock { $0 } == ["one"] }
    let all = Task { await inbox.markAllReadButtonTapped() }
    try await waitUntil("mark all reaches it") { waiting.withLock { $0 }.count == 2 }
    releaseOne.yield()
    await tap.value
    releaseAll.yield()
    await all.value
    #expect(inbox.notifications.map(\.isRead) == [true, true])
    #expect(inbox.unreadCount == 0)
    #expect(try await alice.notifications.fetchUnreadCount() == 0)
  }

  @Test func aMarkAllReadFailingAfterALaterOneSucceededUndoesNothing() async throws {
    _ = try await bobComments(2)
    let (held, release) = AsyncStream<Void>.makeStream()
    let calls = Locked(0)
    let inbox = inbox(countingMarkAllsIn: calls) { call, markAll in
      guard call == 1 else { return try await markAll() }
      for await _ in held { break }
      throw DomainError.offline
    }
    await inbox.task()
    let first = Task { await inbox.markAllReadButtonTapped() }
    try await waitUntil("the first mark-all reaches the repository") { calls.withLock { $0 } == 1 }
    // A refresh meanwhile brings the rows back unread; a second mark-all succeeds.
    await inbox.refreshPulled()
    #expect(inbox.notifications.map(\.isRead) == [false, false])
    await inbox.markAllReadButtonTapped()
    release.yield()
    await first.value
    #expect(inbox.notifications.map(\.isRead) == [true, true])
    #expect(inbox.unreadCount == 0)
  }

  @Test func aMarkAllReadFailingAfterAnEarlierOneSucceededStillUndoesItsOwnRows() async throws {
    _ = try await bobComments(1)
    let (firstAnswer, releaseFirst) = AsyncStream<Void>.makeStream()
    let (secondAnswer, releaseSecond) = AsyncStream<Void>.makeStream()
    let calls = Locked(0)
    let inbox = inbox(countingMarkAllsIn: calls) { call, markAll in
      if call == 1 {
        // Done on the server at once; its answer comes late.
        try await markAll()
        for await _ in firstAnswer { break }
      } else {
        for await _ in secondAnswer { break }
        throw DomainError.offline
      }
    }
    await inbox.task()
    let first = Task { await inbox.markAllReadButtonTapped() }
    try await waitUntil("the first mark-all is done on the server") { calls.withLock { $0 } == 1 }
    // A new comment after it: unread on the server; a second mark-all for it will fail.
    _ = try await bobComments(1)
    await inbox.refreshPulled()
    #expect(inbox.notifications.map(\.isRead) == [false, true])
    let second = Task { await inbox.markAllReadButtonTapped() }
    try await waitUntil("the second mark-all is on its way") { calls.withLock { $0 } == 2 }
    releaseFirst.yield()
    await first.value
    releaseSecond.yield()
    await second.value
    // The earlier success covers what it listed, not the row the failed one marked.
    #expect(inbox.notifications.map(\.isRead) == [false, true])
    #expect(inbox.unreadCount == 1)
  }

  @Test func aMarkAllReadWhileARefreshsCountIsOnItsWayLeavesTheBadgeAtTheServicesCount()
    async throws
  {
    _ = try await bobComments(2)
    let holding = Locked(false)
    let countRead = Locked(false)
    let (released, release) = AsyncStream<Void>.makeStream()
    let inbox = inbox(as: alice) { values in
      let count = values.notificationRepository.fetchUnreadCount
      values.notificationRepository.fetchUnreadCount = {
        let answer = try await count()
        if holding.withLock({ $0 }) {
          countRead.withLock { $0 = true }
          for await _ in released { break }
        }
        return answer
      }
    }
    await inbox.task()
    #expect(inbox.unreadCount == 2)
    holding.withLock { $0 = true }
    let refresh = Task { await inbox.refreshPulled() }
    // The refresh's count (2) was read on the service; its answer is late.
    try await waitUntil("the refresh read the count") { countRead.withLock { $0 } }
    holding.withLock { $0 = false }
    await inbox.markAllReadButtonTapped()
    #expect(inbox.unreadCount == 0)
    release.finish()
    await refresh.value
    let service = try await alice.notifications.fetchUnreadCount()
    #expect(service == 0)
    #expect(inbox.unreadCount == service)
    #expect(inbox.notifications.map(\.isRead) == [true, true])
  }

  @Test func aMarkAllReadCoversANewNotificationThatAPageReadBeforeItBrings() async throws {
    _ = try await bobComments(2)
    let holding = Locked(false)
    let read = Locked(false)
    let (released, release) = AsyncStream<Void>.makeStream()
    let inbox = inbox(holdingPagesWhile: holding, read: read, until: released)
    await inbox.task()
    // A third one comes; the refresh reads it, its page is late.
    _ = try await bobComments(1)
    holding.withLock { $0 = true }
    let refresh = Task { await inbox.refreshPulled() }
    try await waitUntil("the page is read") { read.withLock { $0 } }
    holding.withLock { $0 = false }
    // Listed at the tap: two. The service marks all three.
    await inbox.markAllReadButtonTapped()
    release.finish()
    await refresh.value
    #expect(try await alice.notifications.fetchUnreadCount() == 0)
    #expect(inbox.notifications.map(\.isRead) == [true, true, true])
    #expect(inbox.unreadCount == 0)
  }

  @Test func aMarkAllReadCoversANewNotificationThatARefreshShowedWhileItWasOnItsWay()
    async throws
  {
    _ = try await bobComments(2)
    let (held, release) = AsyncStream<Void>.makeStream()
    let calls = Locked(0)
    let inbox = inbox(countingMarkAllsIn: calls) { _, markAll in
      for await _ in held { break }
      try await markAll()
    }
    await inbox.task()
    let markAll = Task { await inbox.markAllReadButtonTapped() }
    try await waitUntil("the mark-all reaches the repository") { calls.withLock { $0 } == 1 }
    // A third one comes, and a refresh shows it before the mark reaches the service.
    _ = try await bobComments(1)
    await inbox.refreshPulled()
    #expect(inbox.notifications.count == 3)
    release.yield()
    await markAll.value
    #expect(try await alice.notifications.fetchUnreadCount() == 0)
    #expect(inbox.notifications.map(\.isRead) == [true, true, true])
    #expect(inbox.unreadCount == 0)
  }

  @Test func aMarkAllReadFailingAfterARefreshLandedLeavesTheRefreshedReadStates() async throws {
    _ = try await bobComments(2)
    let (held, release) = AsyncStream<Void>.makeStream()
    let calls = Locked(0)
    let inbox = inbox(countingMarkAllsIn: calls) { _, _ in
      for await _ in held { break }
      throw DomainError.offline
    }
    await inbox.task()
    let older = inbox.notifications[1].id
    let markAll = Task { await inbox.markAllReadButtonTapped() }
    try await waitUntil("the mark-all reaches the repository") { calls.withLock { $0 } == 1 }
    // The older one is read on another device; a refresh shows it so.
    try await alice.notifications.markRead(older)
    await inbox.refreshPulled()
    #expect(inbox.notifications.map(\.isRead) == [false, true])
    release.yield()
    await markAll.value
    #expect(inbox.failure == .offline)
    #expect(inbox.notifications.map(\.isRead) == [false, true])
    #expect(inbox.unreadCount == 1)
  }

  @Test func markingOneReadWithoutOpeningIt() async throws {
    _ = try await bobComments(2)
    let inbox = inbox(as: alice)
    var opened: [DeepLink] = []
    inbox.onNavigate = { opened.append($0) }
    await inbox.task()
    await inbox.markReadButtonTapped(inbox.notifications[1].id)
    #expect(opened.isEmpty)
    #expect(inbox.notifications.map(\.isRead) == [false, true])
    #expect(inbox.unreadCount == 1)
    #expect(try await alice.notifications.fetchUnreadCount() == 1)
  }

  @Test func markAllReadIsOptimisticAndRollsBackOnFailure() async throws {
    _ = try await bobComments(3)
    _ = try await bob.board.setPostLike(post.id, true)
    let inbox = inbox(as: alice)
    await inbox.task()
    await inbox.markReadButtonTapped(inbox.notifications[0].id)
    #expect(inbox.unreadCount == 3)

    backend.isOffline = true
    await inbox.markAllReadButtonTapped()
    #expect(inbox.failure == .offline)
    #expect(inbox.unreadCount == 3)
    #expect(inbox.notifications.map(\.isRead) == [true, false, false, false])

    backend.isOffline = false
    inbox.failureDismissed()
    await inbox.markAllReadButtonTapped()
    #expect(inbox.failure == nil)
    #expect(inbox.unreadCount == 0)
    #expect(inbox.notifications.allSatisfy { $0.isRead })
    #expect(try await alice.notifications.fetchUnreadCount() == 0)
    let events = try await alice.uploadedEvents()
    #expect(events.map(\.name) == ["screen_viewed", "notifications_all_read"])
    #expect(events[1].properties == ["count": "3"])
  }

  @Test func markAllReadCoversPagesNotLoadedYet() async throws {
    _ = try await bobComments(22)
    let inbox = inbox(as: alice)
    await inbox.task()
    #expect(inbox.unreadCount == 22)
    await inbox.markAllReadButtonTapped()
    #expect(inbox.unreadCount == 0)
    await inbox.notificationAppeared(inbox.notifications[19].id)
    #expect(inbox.notifications.count == 22)
    #expect(inbox.notifications.allSatisfy { $0.isRead })
  }

  @Test("a next page read before a mark-all succeeded, landing after it, shows its rows read")
  func markAllReadCoversAPageOnItsWay() async throws {
    _ = try await bobComments(22)
    // The first page passes; the next one is read at once and answers when the gate opens.
    let gate = Gate(letThrough: 1, holding: 1)
    let inbox = inbox(as: alice) { values in
      values.notificationRepository.fetchNotifications = gate.answering(
        values.notificationRepository.fetchNotifications)
    }
    await inbox.task()
    try await gate.whileHeld {
      await inbox.notificationAppeared(inbox.notifications[19].id)
    } meanwhile: {
      await inbox.markAllReadButtonTapped()
      #expect(inbox.unreadCount == 0)
    }
    #expect(inbox.notifications.count == 22)
    #expect(inbox.notifications.allSatisfy { $0.isRead })
    #expect(inbox.unreadCount == 0)
  }

  @Test("a notification read elsewhere (a tapped push) turns read here, and the badge follows")
  func aNotificationReadElsewhereTurnsReadHere() async throws {
    _ = try await bobComments(2)
    let inbox = inbox(as: alice)
    await inbox.task()
    #expect(inbox.unreadCount == 2)
    let pushed = inbox.notifications[0].id
    try await alice.notifications.markRead(pushed)
    await inbox.notificationReadElsewhere(pushed)
    #expect(inbox.notifications.first { $0.id == pushed }?.isRead == true)
    #expect(inbox.unreadCount == 1)
    // Tapping it then changes nothing: the other one is still counted.
    await inbox.notificationTapped(pushed)
    #expect(inbox.unreadCount == 1)
  }

  @Test func theBadgeFollowsNewNotificationsAndKeepsItsCountWhenOffline() async throws {
    let badge = inbox(as: alice)
    await badge.refreshUnreadCount()
    #expect(badge.unreadCount == 0)
    _ = try await bobComments(2)
    await badge.refreshUnreadCount()
    #expect(badge.unreadCount == 2)
    backend.isOffline = true
    await badge.refreshUnreadCount()
    #expect(badge.unreadCount == 2)
    // A badge hiccup is not the inbox's failure.
    #expect(badge.failure == nil)
    backend.isOffline = false
    // The badge alone sends no screen view.
    #expect(try await alice.uploadedEvents().isEmpty)
  }

  @Test func aBadgeFailureKeepsTheLastCountAndNeverFailsTheInbox() async throws {
    _ = try await bobComments(2)
    let badgeFails = LockIsolated(true)
    let inbox = inbox(as: alice) {
      let count = $0.notificationRepository.fetchUnreadCount
      $0.notificationRepository.fetchUnreadCount = {
        if badgeFails.value { throw DomainError.timeout }
        return try await count()
      }
    }
    // The list loads although its badge cannot be read.
    await inbox.task()
    #expect(inbox.notifications.count == 2)
    #expect(inbox.hasLoaded)
    #expect(inbox.failure == nil)
    #expect(inbox.unreadCount == 0)
    badgeFails.setValue(false)
    await inbox.refreshUnreadCount()
    #expect(inbox.unreadCount == 2)

    badgeFails.setValue(true)
    _ = try await bobComments(1)
    await inbox.refreshUnreadCount()
    #expect(inbox.unreadCount == 2)
    #expect(inbox.failure == nil)
    await inbox.refreshPulled()
    #expect(inbox.notifications.count == 3)
    #expect(inbox.unreadCount == 2)
    #expect(inbox.failure == nil)
    // The list's own failure is still shown.
    backend.isOffline = true
    await inbox.refreshPulled()
    #expect(inbox.failure == .offline)
    #expect(inbox.notifications.count == 3)
    backend.isOffline = false
    badgeFails.setValue(false)
    await inbox.refreshUnreadCount()
    #expect(inbox.unreadCount == 3)
  }

  @Test func aFailedRefreshKeepsTheInbox() async throws {
    _ = try await bobComments(2)
    let inbox = inbox(as: alice)
    await inbox.task()
    backend.isOffline = true
    await inbox.refreshPulled()
    #expect(inbox.notifications.count == 2)
    #expect(inbox.failure == .offline)
    #expect(!inbox.isReloading)
    backend.isOffline = false
    _ = try await bobComments(1)
    await inbox.refreshPulled()
    #expect(inbox.notifications.count == 3)
    #expect(inbox.unreadCount == 3)
  }

  @Test func aFailedFirstLoadIsShown() async throws {
    _ = try await bobComments(1)
    backend.isOffline = true
    let inbox = inbox(as: alice)
    await inbox.task()
    #expect(inbox.failure == .offline)
    #expect(inbox.notifications.isEmpty)
    #expect(!inbox.isEmpty)
    #expect(!inbox.isLoading)
  }

  @Test func aKindThisVersionDoesNotKnowOpensNothingAndTurnsRead() async throws {
    let unknown = AppNotification(
      id: "n_future", kind: .unknown("party_invite"), message: "You are invited to a party.",
      isRead: false, createdAt: Fixtures.now)
    let marked = Marked()
    let inbox = inbox(as: alice) {
      $0.notificationRepository.fetchNotifications = { _ in Page(items: [unknown]) }
      $0.notificationRepository.fetchUnreadCount = { 1 }
      $0.notificationRepository.markRead = { id in await marked.add(id) }
    }
    var opened: [DeepLink] = []
    inbox.onNavigate = { opened.append($0) }
    await inbox.task()
    await inbox.notificationTapped(unknown.id)
    #expect(opened.isEmpty)
    #expect(inbox.notifications[0].isRead)
    #expect(inbox.unreadCount == 0)
    #expect(await marked.ids == [unknown.id])
    let events = try await alice.uploadedEvents()
    #expect(events.last?.properties == ["kind": "unknown", "has_link": "false"])
  }

  @Test func aResolvedReportOpensTheInboxItself() async throws {
    let moderator = try backend.signedUpClient(nickname: "minji", role: .admin)
    _ = try await bob.reports.report(.post(post.id), .spam)
    let reportCase = try #require(
      try await moderator.admin.fetchReportCases(.open, .first).items.first)
    _ = try await moderator.admin.resolveReportCase(reportCase.id, .dismiss, nil)
    let inbox = inbox(as: bob)
    var opened: [DeepLink] = []
    inbox.onNavigate = { opened.append($0) }
    await inbox.task()
    let resolved = try #require(inbox.notifications.first { $0.kind == .reportResolved })
    await inbox.notificationTapped(resolved.id)
    #expect(opened == [.notifications])
  }
}

/// The notifications an overridden `markRead` received.
actor Marked {
  private(set) var ids: [AppNotification.ID] = []

  func add(_ id: AppNotification.ID) {
    ids.append(id)
  }
}
