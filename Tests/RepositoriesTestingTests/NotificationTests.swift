import Domain
import Foundation
import Repositories
import RepositoriesTesting
import Testing

@Suite("Fake notifications")
struct NotificationTests {
  func kinds(_ client: FakeClient) async throws -> [NotificationKind] {
    try await client.notifications.fetchNotifications(page: .first).items.map(\.kind)
  }

  @Test("comments notify the post's author and earlier commenters, never the actor")
  func commentNotifications() async throws {
    let (backend, alice, bob, _) = try makeCast()
    let carol = try backend.signedUpClient(nickname: "carol")
    let post = try await alice.board.createPost(PostDraft(content: "Question for everyone"))
    _ = try await alice.board.createComment(on: post.id, draft: CommentDraft(content: "Me first"))
    #expect(try await kinds(alice).isEmpty)

    let bobs = try await bob.board.createComment(
      on: post.id, draft: CommentDraft(content: "Bob here"))
    #expect(try await kinds(alice) == [.commentOnMyPost(post: post.id, comment: bobs.id)])
    #expect(try await kinds(bob).isEmpty)

    let carols = try await carol.board.createComment(
      on: post.id, draft: CommentDraft(content: "Carol too"))
    #expect(
      try await kinds(alice) == [
        .commentOnMyPost(post: post.id, comment: carols.id),
        .commentOnMyPost(post: post.id, comment: bobs.id),
      ])
    #expect(try await kinds(bob) == [.replyToMyComment(post: post.id, comment: carols.id)])
    #expect(try await kinds(carol).isEmpty)

    let notification = try #require(
      try await alice.notifications.fetchNotifications(page: .first).items.first)
    #expect(notification.message.contains("Anonymous 3"))
    #expect(notification.deepLink == .comment(post: post.id, comment: carols.id))
  }

  @Test("likes notify once per liker and target, and never for one's own content")
  func likeNotifications() async throws {
    let (_, alice, bob, _) = try makeCast()
    let post = try await alice.board.createPost(PostDraft(content: "Like me"))
    let comment = try await alice.board.createComment(
      on: post.id, draft: CommentDraft(content: "Mine"))
    _ = try await alice.board.setPostLike(post.id, true)
    #expect(try await kinds(alice).isEmpty)

    _ = try await bob.board.setPostLike(post.id, true)
    _ = try await bob.board.setPostLike(post.id, false)
    _ = try await bob.board.setPostLike(post.id, true)
    _ = try await bob.board.setCommentLike(comment.id, true)
    #expect(
      try await kinds(alice) == [
        .likeOnMyComment(post: post.id, comment: comment.id), .likeOnMyPost(post: post.id),
      ])
    #expect(try await kinds(bob).isEmpty)
  }

  @Test("unread count, mark one (own only), mark all")
  func readState() async throws {
    let (_, alice, bob, _) = try makeCast()
    let post = try await alice.board.createPost(PostDraft(content: "Post"))
    for index in 1...3 {
      _ = try await bob.board.createComment(on: post.id, draft: CommentDraft(content: "c\(index)"))
    }
    #expect(try await alice.notifications.fetchUnreadCount() == 3)
    let first = try #require(
      try await alice.notifications.fetchNotifications(page: .first).items.first)
    await #expect(throws: DomainError.notFound) { try await bob.notifications.markRead(first.id) }
    try await alice.notifications.markRead(first.id)
    #expect(try await alice.notifications.fetchUnreadCount() == 2)
    #expect(
      try await alice.notifications.fetchNotifications(page: .first).items.map(\.isRead) == [
        true, false, false,
      ])
    try await alice.notifications.markAllRead()
    #expect(try await alice.notifications.fetchUnreadCount() == 0)
  }

  @Test("a new question for today reaches every account, the admin who wrote it included")
  func newQuestion() async throws {
    let (backend, alice, bob, admin) = try makeCast()
    let questionID = try await publishTodayQuestion(admin)
    #expect(try await kinds(alice) == [.newQuestion(questionID)])
    #expect(try await kinds(bob) == [.newQuestion(questionID)])
    #expect(try await kinds(admin) == [.newQuestion(questionID)])
    // A question for another day is not announced now, but once its day comes (once).
    let tomorrow = try await admin.admin.createQuestion(
      QuestionDraft(content: "Tomorrow's question", publishDate: backend.today.next))
    #expect(try await kinds(alice) == [.newQuestion(questionID)])
    backend.advance(by: 86_400)
    #expect(try await kinds(alice) == [.newQuestion(tomorrow.id), .newQuestion(questionID)])
    #expect(try await kinds(bob) == [.newQuestion(tomorrow.id), .newQuestion(questionID)])
  }

  @Test("a question whose text is corrected rewords its announcements")
  func correctedQuestion() async throws {
    let (backend, alice, _, admin) = try makeCast()
    let questionID = try await publishTodayQuestion(admin)
    let before = try #require(
      try await alice.notifications.fetchNotifications(page: .first).items.first)
    _ = try await admin.admin.updateQuestion(
      questionID,
      QuestionDraft(content: "Corrected: what did you build today?", publishDate: backend.today))
    let after = try #require(
      try await alice.notifications.fetchNotifications(page: .first).items.first)
    #expect(after.id == before.id)
    #expect(after.message == "Today's question is out: Corrected: what did you build today?")
    #expect(after.isRead == before.isRead && after.createdAt == before.createdAt)
  }

  @Test("renaming a group rewords its invitations and its room's message notices")
  func renamedGroup() async throws {
    let (backend, alice, bob, _) = try makeCast()
    let carol = try backend.signedUpClient(nickname: "carol")
    let group = try await alice.studyGroups.createGroup(StudyGroupDraft(name: "Swift Study"))
    _ = try await bob.studyGroups.joinGroup(group.id)
    try await alice.studyGroups.invite(carol.userID, group.id)
    let room = try #require(
      try await alice.chat.fetchRooms(.first).items.first { $0.kind == .group(group.id) })
    _ = try await alice.chat.sendMessage("Welcome!", room.id, UUID())
    _ = try await alice.studyGroups.updateGroup(
      group.id, StudyGroupDraft(name: "Swift Concurrency Study"))
    #expect(
      try await carol.notifications.fetchNotifications(page: .first).items.map(\.message) == [
        "You were invited to the study group Swift Concurrency Study."
      ])
    #expect(
      try await bob.notifications.fetchNotifications(page: .first).items.map(\.message) == [
        "New messages in Swift Concurrency Study."
      ])
  }

  @Test("a question moved to another day or deleted takes back its announcement")
  func movedOrDeletedQuestions() async throws {
    let (backend, alice, bob, admin) = try makeCast()
    let moved = try await admin.admin.createQuestion(
      QuestionDraft(content: "Moved before anyone answered", publishDate: backend.today))
    #expect(try await kinds(alice) == [.newQuestion(moved.id)])
    _ = try await admin.admin.updateQuestion(
      moved.id, QuestionDraft(content: moved.content, publishDate: backend.today.adding(days: 2)))
    // Its text is not shown before its day, and the badge no longer counts it.
    #expect(try await kinds(alice).isEmpty)
    #expect(try await bob.notifications.fetchUnreadCount() == 0)
    let dropped = try await admin.admin.createQuestion(
      QuestionDraft(content: "Dropped the same day", publishDate: backend.today))
    #expect(try await kinds(alice) == [.newQuestion(dropped.id)])
    try await admin.admin.deleteQuestion(dropped.id)
    #expect(try await kinds(alice).isEmpty)
    // The moved one is announced on its new day, once.
    backend.advance(by: 2 * 86_400)
    #expect(try await kinds(alice) == [.newQuestion(moved.id)])
    #expect(try await kinds(bob) == [.newQuestion(moved.id)])
  }

  @Test("leaving a group, or its deletion, takes back the unread notices of its messages")
  func groupMessagesOfAGroupLeft() async throws {
    let (backend, alice, bob, _) = try makeCast()
    let carol = try backend.signedUpClient(nickname: "carol")
    let group = try await alice.studyGroups.createGroup(StudyGroupDraft(name: "Swift Study"))
    _ = try await bob.studyGroups.joinGroup(group.id)
    _ = try await carol.studyGroups.joinGroup(group.id)
    let room = try #require(
      try await alice.chat.fetchRooms(.first).items.first { $0.kind == .group(group.id) })
    _ = try await alice.chat.sendMessage("Welcome!", room.id, UUID())
    #expect(try await kinds(bob) == [.groupMessage(room.id)])
    #expect(try await bob.notifications.fetchUnreadCount() == 1)
    try await bob.studyGroups.leaveGroup(group.id)
    #expect(try await kinds(bob).isEmpty)
    #expect(try await bob.notifications.fetchUnreadCount() == 0)
    // Rejoining starts with the history read: nothing unread comes back.
    _ = try await bob.studyGroups.joinGroup(group.id)
    #expect(try await bob.notifications.fetchUnreadCount() == 0)
    #expect(try await kinds(carol) == [.groupMessage(room.id)])
    try await alice.studyGroups.deleteGroup(group.id)
    #expect(try await kinds(carol).isEmpty)
    #expect(try await carol.notifications.fetchUnreadCount() == 0)
  }

  @Test("a reply notice skips an earlier commenter whose comment moderation hid")
  func noReplyNoticeForAHiddenComment() async throws {
    let (backend, alice, bob, admin) = try makeCast()
    let carol = try backend.signedUpClient(nickname: "carol")
    let post = try await alice.board.createPost(PostDraft(content: "Question for everyone"))
    let bobs = try await bob.board.createComment(
      on: post.id, draft: CommentDraft(content: "Buy followers here"))
    _ = try await alice.reports.report(.comment(bobs.id), .spam)
    let caseID = try #require(
      try await admin.admin.fetchReportCases(.open, .first).items.first?.id)
    _ = try await admin.admin.resolveReportCase(caseID, .hideContent, nil)
    _ = try await carol.board.createComment(on: post.id, draft: CommentDraft(content: "Carol"))
    #expect(try await kinds(bob).isEmpty)
  }
}
