import AppFeature
import AuthFeature
import BoardFeature
import ChatFeature
import Dependencies
import Domain
import Foundation
import GroupsFeature
import NotificationsFeature
import ProfileFeature
import QuestionFeature
import Repositories
import RepositoriesTesting
import TestSupport
import Testing

/// The root on the fakes: phases from the session stream, every link and push turned into
/// navigation state, hostile links refused, two members meeting through a notification.
@MainActor
@Suite("AppFeature")
struct AppFeatureTests {
  let backend = FakeBackend(now: { Fixtures.now })
  let configuration = AppModel.Configuration(
    termsVersion: "2026-01", universalLinkHosts: ["qapple.app"])

  /// The root as `client`, following its session stream until the test ends.
  func app(as client: FakeClient) async -> (AppModel, Task<Void, Never>) {
    let app = client.model { AppModel(configuration: configuration) }
    let task = Task { await app.task() }
    await yieldUntil { if case .launching = app.phase { false } else { true } }
    return (app, task)
  }

  /// The signed-in tabs of `app`, waiting for the session stream.
  func main(of app: AppModel) async throws -> MainModel {
    await yieldUntil { app.main != nil }
    return try #require(app.main, "not signed in: \(app.phase)")
  }

  /// Taps `group` on the groups list and returns its screen, loaded; `nil` (an issue recorded)
  /// when the screen was not pushed.
  func openGroup(_ group: StudyGroup.ID, in main: MainModel) async -> GroupDetailModel? {
    main.groups.groupTapped(group)
    guard case .group(let detail) = main[path: .groups].only else {
      Issue.record("groups path: \(main[path: .groups])")
      return nil
    }
    await detail.task()
    return detail
  }

  /// Taps `post` on the board and returns its screen, not loaded yet; `nil` (an issue recorded)
  /// when the screen was not pushed.
  func openPost(_ post: BoardPost.ID, in main: MainModel) -> PostDetailModel? {
    main.board.postTapped(post)
    guard case .post(let detail) = main[path: .board].only else {
      Issue.record("board path: \(main[path: .board])")
      return nil
    }
    return detail
  }

  @Test func theSessionStreamDrivesThePhases() async throws {
    try backend.createUser(nickname: "alice")
    let client = backend.makeClient()
    let (app, task) = await app(as: client)
    defer { task.cancel() }
    guard case .signedOut(let signIn) = app.phase else {
      Issue.record("expected sign-in, got \(app.phase)")
      return
    }
    await signIn.signInButtonTapped(.dev, token: "alice")
    let main = try await main(of: app)
    #expect(main.user.nickname.rawValue == "alice")
    #expect(main.selectedTab == .today)

    try await client.auth.signOut()
    await yieldUntil { if case .signedOut = app.phase { true } else { false } }
    guard case .signedOut = app.phase else {
      Issue.record("still \(app.phase) after signing out")
      return
    }

    _ = try await client.auth.signIn(.dev, "newcomer")
    await yieldUntil { if case .signingUp = app.phase { true } else { false } }
    guard case .signingUp(let signUp) = app.phase else {
      Issue.record("expected sign-up, got \(app.phase)")
      return
    }
    #expect(signUp.termsVersion == "2026-01")
  }

  @Test func everyLinkSelectsItsTabAndBuildsItsPath() async throws {
    let alice = try backend.signedUpClient(nickname: "alice")
    let (app, task) = await app(as: alice)
    defer { task.cancel() }
    let main = try await main(of: app)

    await app.open(URL(string: "qapple://posts/p_9/comments/c_3")!)
    #expect(main.selectedTab == .board)
    guard case .post(let post) = main[path: .board].only else {
      Issue.record("board path: \(main[path: .board])")
      return
    }
    #expect(post.postID == "p_9" && post.focusedCommentID == "c_3")

    await app.open(URL(string: "https://qapple.app/board/posts/p_2")!)
    guard case .post(let other) = main[path: .board].only else {
      Issue.record("board path: \(main[path: .board])")
      return
    }
    #expect(other.postID == "p_2" && other.focusedCommentID == nil)

    await app.open(URL(string: "qapple://questions/q_1")!)
    #expect(main.selectedTab == .today)
    guard case .question(let question) = main[path: .today].only else {
      Issue.record("today path: \(main[path: .today])")
      return
    }
    #expect(question.questionID == "q_1")

    await app.open(URL(string: "qapple://groups/g_1")!)
    #expect(main.selectedTab == .groups)
    guard case .group(let group) = main[path: .groups].only else {
      Issue.record("groups path: \(main[path: .groups])")
      return
    }
    #expect(group.groupID == "g_1")

    await app.open(URL(string: "qapple://chat/r_1")!)
    guard case .chatRoom(let room) = main[path: .groups].only else {
      Issue.record("groups path: \(main[path: .groups])")
      return
    }
    #expect(room.roomID == "r_1")

    await app.open(URL(string: "qapple://notifications")!)
    #expect(main.selectedTab == .today)
    guard case .notifications(let inbox) = main[path: .today].only else {
      Issue.record("today path: \(main[path: .today])")
      return
    }
    #expect(inbox === main.notifications)

    await app.open(URL(string: "qapple://today")!)
    #expect(main.selectedTab == .today && main[path: .today].isEmpty)
    // The other tabs keep their stacks.
    #expect(main[path: .board].count == 1 && main[path: .groups].count == 1)
    #expect(app.linkFailure == nil)

    let events = try await alice.uploadedEvents()
    #expect(events.filter { $0.name == "link_opened" }.count == 7)
    #expect(
      events.first { $0.name == "link_opened" }?.properties == ["source": "url", "tab": "board"])
  }

  @Test func hostileLinksOpenNothingAndSayWhy() async throws {
    let alice = try backend.signedUpClient(nickname: "alice")
    let (app, task) = await app(as: alice)
    defer { task.cancel() }
    let main = try await main(of: app)
    await app.open(URL(string: "qapple://groups/g_1")!)
    let before = main[path: .groups]

    let hostile: [(String, (LinkFailure) -> Bool)] = [
      ("https://evil.example/posts/p_1", { $0 == .link(.unknownHost("evil.example")) }),
      ("qapple://posts/..", { $0 == .link(.invalidIdentifier("..")) }),
      (
        "qapple://posts/%2E%2E%2Fadmin",
        { if case .link(.invalidIdentifier) = $0 { true } else { false } }
      ),
      ("qapple://posts/p_1/../../admin", { if case .link = $0 { true } else { false } }),
      ("qapple://admin/users", { if case .link(.unknownPath) = $0 { true } else { false } }),
      ("javascript://alert(1)", { $0 == .link(.unsupportedScheme("javascript")) }),
      (
        "qapple://posts/" + String(repeating: "a", count: 3_000),
        { if case .link(.tooLong) = $0 { true } else { false } }
      ),
    ]
    for (text, isExpected) in hostile {
      let url = try #require(URL(string: text), "\(text)")
      let opened = await app.open(url)
      #expect(opened == nil, "\(text) opened \(String(describing: opened))")
      let failure = try #require(app.linkFailure, "\(text) gave no reason")
      #expect(isExpected(failure), "\(text): \(failure)")
      #expect(!failure.description.isEmpty)
      #expect(main.selectedTab == .groups && main[path: .groups] == before, "\(text) moved")
      app.linkFailureDismissed()
      #expect(app.linkFailure == nil)
    }
  }

  @Test func aLinkWhileSignedOutOpensAfterSignIn() async throws {
    try backend.createUser(nickname: "alice")
    let client = backend.makeClient()
    let (app, task) = await app(as: client)
    defer { task.cancel() }
    let link = await app.open(URL(string: "qapple://posts/p_4")!)
    #expect(link == .post("p_4"))
    #expect(app.pendingLink == .post("p_4"))
    #expect(app.main == nil)

    guard case .signedOut(let signIn) = app.phase else {
      Issue.record("expected sign-in, got \(app.phase)")
      return
    }
    await signIn.signInButtonTapped(.dev, token: "alice")
    let main = try await main(of: app)
    #expect(app.pendingLink == nil)
    #expect(main.selectedTab == .board)
    guard case .post(let post) = main[path: .board].only else {
      Issue.record("board path: \(main[path: .board])")
      return
    }
    #expect(post.postID == "p_4")
  }

  @Test func aCommentByOneMemberReachesTheOtherThroughTheInbox() async throws {
    let alice = try backend.signedUpClient(nickname: "alice")
    let bob = try backend.signedUpClient(nickname: "bob")
    let post = try await alice.board.createPost(PostDraft(content: "Who reviews my PR?"))
    let comment = try await bob.board.createComment(post.id, CommentDraft(content: "Me!"))

    let (app, task) = await app(as: alice)
    defer { task.cancel() }
    let main = try await main(of: app)
    await main.task()
    #expect(main.unreadCount == 1)

    main.bellButtonTapped()
    guard case .notifications(let inbox) = main[path: .today].last else {
      Issue.record("today path: \(main[path: .today])")
      return
    }
    await inbox.task()
    let notification = try #require(inbox.notifications.first)
    #expect(notification.deepLink == .comment(post: post.id, comment: comment.id))
    await inbox.notificationTapped(notification.id)

    // Pushed on the tab the user is in, above the inbox.
    #expect(main.selectedTab == .today)
    #expect(main[path: .today].count == 2)
    guard case .post(let detail) = main[path: .today].last else {
      Issue.record("today path: \(main[path: .today])")
      return
    }
    #expect(detail.postID == post.id && detail.focusedCommentID == comment.id)
    await detail.task()
    #expect(detail.comments.map(\.id).contains(comment.id))
    #expect(main.unreadCount == 0)
  }

  /// Alice's post, liked by bob: alice's client, the post and her notification of the like.
  func likedPost() async throws -> (FakeClient, BoardPost, AppNotification) {
    let alice = try backend.signedUpClient(nickname: "alice")
    let bob = try backend.signedUpClient(nickname: "bob")
    let post = try await alice.board.createPost(PostDraft(content: "Pair on SwiftData?"))
    _ = try await bob.board.setPostLike(post.id, true)
    let notification = try #require(
      try await alice.notifications.fetchNotifications(.first).items.first)
    return (alice, post, notification)
  }

  @Test func aPushOpensItsLinkAndMarksItsNotificationRead() async throws {
    let (alice, post, notification) = try await likedPost()

    let (app, task) = await app(as: alice)
    defer { task.cancel() }
    let main = try await main(of: app)
    // The inbox was loaded before the push came: its row turns read too.
    await main.notifications.task()
    #expect(main.notifications.notifications.first?.isRead == false)
    let link = await app.open(
      push: [
        "aps": ["alert": "bob liked your post"], "link": notification.deepLink!.url.absoluteString,
        "notification_id": notification.id.rawValue,
      ])
    #expect(link == .post(post.id))
    #expect(main.selectedTab == .board)
    #expect(try await alice.notifications.fetchUnreadCount() == 0)
    #expect(main.unreadCount == 0)
    #expect(main.notifications.notifications.first?.isRead == true)

    #expect(await app.open(push: ["aps": ["alert": "hi"]]) == nil)
    #expect(app.linkFailure == .push(.missingLink))
    #expect(await app.open(push: ["link": "qapple://nowhere/1"]) == nil)
    #expect(app.linkFailure == .link(.unknownPath("nowhere/1")))
  }

  @Test(
    "a push that launches the app opens its link and marks its notification read once the session is known"
  )
  func aPushBeforeTheSessionIsKnownIsMarkedReadWhenItOpens() async throws {
    let (alice, post, notification) = try await likedPost()

    // Tapped before the session stream said anything: the app is still launching.
    let app = alice.model { AppModel(configuration: configuration) }
    let link = await app.open(
      push: [
        "link": notification.deepLink!.url.absoluteString,
        "notification_id": notification.id.rawValue,
      ])
    #expect(link == .post(post.id) && app.pendingLink == .post(post.id))
    #expect(try await alice.notifications.fetchUnreadCount() == 1)

    let task = Task { await app.task() }
    defer { task.cancel() }
    let main = try await main(of: app)
    #expect(main.selectedTab == .board && app.pendingLink == nil)
    try await waitUntil("the pushed notification is read") {
      try await alice.notifications.fetchUnreadCount() == 0
    }
  }

  @Test(
    "popping a tab to its root (tapping it again, a link from outside) closes what its root pushed itself; a sheet stays"
  )
  func poppingToTheRootClosesTheRootsOwnPushes() async throws {
    let alice = try backend.signedUpClient(nickname: "alice")
    let (app, task) = await app(as: alice)
    defer { task.cancel() }
    let main = try await main(of: app)

    main.today.pastQuestionsButtonTapped()
    main.tabTapped(.today)
    #expect(main.today.destination == nil)
    main.today.pastQuestionsButtonTapped()
    _ = await app.open(URL(string: "qapple://questions/q_1")!)
    #expect(main.today.destination == nil)
    guard case .question = main[path: .today].only else {
      Issue.record("today path: \(main[path: .today])")
      return
    }
    // A screen's link to today's question pops the tab too.
    main.today.pastQuestionsButtonTapped()
    main.notifications.onNavigate(.today)
    #expect(main.today.destination == nil && main[path: .today].isEmpty)

    main.tabTapped(.profile)
    main.profile.myReportsButtonTapped()
    main.tabTapped(.profile)
    #expect(main.profile.destination == nil)
    main.profile.withdrawButtonTapped()
    main.tabTapped(.profile)
    guard case .confirmWithdrawal = main.profile.destination else {
      Issue.record("the confirmation went: \(String(describing: main.profile.destination))")
      return
    }
  }

  @Test("a screen popped while its request ran opens nothing; a double tap pushes one screen")
  func poppedScreensOpenNothingAndDoubleTapsPushOnce() async throws {
    let alice = try backend.signedUpClient(nickname: "alice")
    let (app, task) = await app(as: alice)
    defer { task.cancel() }
    let main = try await main(of: app)

    main.tabTapped(.board)
    main.board.onNavigate(.post("p_1"))
    main.board.onNavigate(.post("p_1"))
    #expect(main[path: .board].map(\.link) == [.post("p_1")])
    main.board.onNavigate(.comment(post: "p_1", comment: "c_1"))
    #expect(main[path: .board].count == 2)

    main.tabTapped(.profile)
    main.profile.onNavigate(.question("q_1"))
    guard case .question(let question) = main[path: .profile].only else {
      Issue.record("profile path: \(main[path: .profile])")
      return
    }
    // Back, then the question screen's late request (a tap answered after a slow load).
    main[path: .profile] = []
    question.onNavigate(.post("p_1"))
    #expect(main[path: .profile].isEmpty)
    #expect(main.selectedTab == .profile)
  }

  @Test func screensPushOnTheirTabAndPopWhatTheyDeleted() async throws {
    let alice = try backend.signedUpClient(nickname: "alice")
    let post = try await alice.board.createPost(PostDraft(content: "Delete me later"))
    let (app, task) = await app(as: alice)
    defer { task.cancel() }
    let main = try await main(of: app)

    main.tabTapped(.board)
    await main.board.task()
    #expect(main.board.posts.map(\.id) == [post.id])
    guard let detail = openPost(post.id, in: main) else { return }
    main.profile.onNavigate(.question("q_1"))
    #expect(main.selectedTab == .profile)
    #expect(main[path: .profile].count == 1)

    // Deleting the post from its screen pops it and takes it off the board's list.
    await detail.task()
    detail.seeMoreButtonTapped()
    guard case .seeMore(let sheet) = detail.destination else {
      Issue.record("no see-more sheet: \(String(describing: detail.destination))")
      return
    }
    sheet.deleteButtonTapped()
    await sheet.deletionConfirmed()
    #expect(main[path: .board].isEmpty)
    #expect(main.board.posts.isEmpty)

    main.tabTapped(.profile)
    #expect(main[path: .profile].isEmpty, "tapping the selected tab pops to its root")
  }

  @Test func theInboxIsNeverPushedOnItself() async throws {
    let alice = try backend.signedUpClient(nickname: "alice")
    let (app, task) = await app(as: alice)
    defer { task.cancel() }
    let main = try await main(of: app)

    main.bellButtonTapped()
    main.bellButtonTapped()
    #expect(main[path: .today].count == 1)
    // A link inside the inbox that leads to the inbox (a reviewed report) pops back to it.
    main.notifications.onNavigate(.question("q_1"))
    #expect(main[path: .today].count == 2)
    main.notifications.onNavigate(.notifications)
    guard case .notifications = main[path: .today].only else {
      Issue.record("today path: \(main[path: .today])")
      return
    }
  }

  @Test func likingOrCommentingOnAPostShowsInTheBoardList() async throws {
    let alice = try backend.signedUpClient(nickname: "alice")
    let bob = try backend.signedUpClient(nickname: "bob")
    let post = try await alice.board.createPost(PostDraft(content: "Where do you study?"))
    let (app, task) = await app(as: bob)
    defer { task.cancel() }
    let main = try await main(of: app)

    main.tabTapped(.board)
    await main.board.task()
    // Someone else comments after bob's list was loaded; bob likes and comments on the screen.
    _ = try await alice.board.createComment(post.id, CommentDraft(content: "Library"))
    guard let detail = openPost(post.id, in: main) else { return }
    await detail.task()
    await detail.likeButtonTapped()
    detail.commentText = "Cafe"
    await detail.commentSubmitButtonTapped()
    #expect(detail.failure == nil)
    main.tabTapped(.board)
    // Back on the list, without a refresh, the row shows what the screen showed.
    let row = try #require(main.board.posts.first)
    #expect(row.likeState == LikeState(isLiked: true, likeCount: 1))
    #expect(row.commentCount == 2)
  }

  @Test func joiningOrLeavingAGroupShowsInTheGroupsList() async throws {
    let alice = try backend.signedUpClient(nickname: "alice")
    let bob = try backend.signedUpClient(nickname: "bob")
    let group = try await alice.studyGroups.createGroup(StudyGroupDraft(name: "Swift Study"))
    let (app, task) = await app(as: bob)
    defer { task.cancel() }
    let main = try await main(of: app)

    main.tabTapped(.groups)
    await main.groups.task()
    #expect(main.groups.groups.map(\.isMember) == [false])
    // Opens the group from the list, lets `change` act on its screen, and goes back.
    func onGroupScreen(_ change: (GroupDetailModel) async -> Void) async {
      guard let detail = await openGroup(group.id, in: main) else { return }
      await change(detail)
      #expect(detail.failure == nil)
      main.tabTapped(.groups)
      #expect(main[path: .groups].isEmpty)
    }

    // Back on the list, without a refresh, the new membership shows.
    await onGroupScreen { await $0.joinButtonTapped() }
    #expect(main.groups.groups.map(\.isMember) == [true])
    #expect(main.groups.groups.map(\.memberCount) == [2])
    await onGroupScreen { await $0.leaveButtonTapped() }
    #expect(main.groups.groups.map(\.isMember) == [false])
    #expect(main.groups.groups.map(\.memberCount) == [1])
  }

  @Test func aGroupScreenThatLoadsAChangeMadeElsewhereUpdatesItsRow() async throws {
    let alice = try backend.signedUpClient(nickname: "alice")
    let bob = try backend.signedUpClient(nickname: "bob")
    let carol = try backend.signedUpClient(nickname: "carol")
    let group = try await alice.studyGroups.createGroup(StudyGroupDraft(name: "Swift Study"))
    let (app, task) = await app(as: bob)
    defer { task.cancel() }
    let main = try await main(of: app)
    main.tabTapped(.groups)
    await main.groups.task()
    #expect(main.groups.groups.map(\.memberCount) == [1])

    // Carol joins on her device; bob's list does not know until his group screen loads it.
    _ = try await carol.studyGroups.joinGroup(group.id)
    #expect(main.groups.groups.map(\.memberCount) == [1])
    guard let detail = await openGroup(group.id, in: main) else { return }
    #expect(main.groups.groups.map(\.memberCount) == [2])
    try await carol.studyGroups.leaveGroup(group.id)
    await detail.refreshPulled()
    #expect(main.groups.groups.map(\.memberCount) == [1])
  }

  @Test func aDeletedGroupLeavesTheGroupsList() async throws {
    let alice = try backend.signedUpClient(nickname: "alice")
    let kept = try await alice.studyGroups.createGroup(StudyGroupDraft(name: "Algorithms"))
    let group = try await alice.studyGroups.createGroup(StudyGroupDraft(name: "Swift Study"))
    let (app, task) = await app(as: alice)
    defer { task.cancel() }
    let main = try await main(of: app)

    main.tabTapped(.groups)
    await main.groups.task()
    #expect(Set(main.groups.groups.map(\.id)) == [kept.id, group.id])
    guard let detail = await openGroup(group.id, in: main) else { return }
    detail.deleteButtonTapped()
    await detail.deletionConfirmed()
    #expect(detail.failure == nil)
    // Off the stack and, without a refresh, out of the list.
    #expect(main[path: .groups].isEmpty)
    #expect(main.groups.groups.map(\.id) == [kept.id])
  }

  @Test func aPostOrGroupThatItsScreenFindsGoneLeavesItsList() async throws {
    let alice = try backend.signedUpClient(nickname: "alice")
    let bob = try backend.signedUpClient(nickname: "bob")
    let kept = try await alice.board.createPost(PostDraft(content: "Still here"))
    let post = try await alice.board.createPost(PostDraft(content: "Deleted soon"))
    let keptGroup = try await alice.studyGroups.createGroup(StudyGroupDraft(name: "Algorithms"))
    let group = try await alice.studyGroups.createGroup(StudyGroupDraft(name: "Swift Study"))
    let (app, task) = await app(as: bob)
    defer { task.cancel() }
    let main = try await main(of: app)
    main.tabTapped(.board)
    await main.board.task()
    main.tabTapped(.groups)
    await main.groups.task()

    // Alice deletes both after bob's lists were loaded; bob opens them from the lists.
    try await alice.board.deletePost(post.id)
    try await alice.studyGroups.deleteGroup(group.id)
    main.tabTapped(.board)
    guard let detail = openPost(post.id, in: main) else { return }
    await detail.task()
    #expect(detail.phase == .notFound)
    #expect(main.board.posts.map(\.id) == [kept.id])
    main.tabTapped(.groups)
    guard let groupDetail = await openGroup(group.id, in: main) else { return }
    #expect(groupDetail.failure == .notFound)
    #expect(main.groups.groups.map(\.id) == [keptGroup.id])
  }
}

extension Array {
  /// The one element, or `nil` when there are none or several.
  fileprivate var only: Element? { count == 1 ? first : nil }
}
