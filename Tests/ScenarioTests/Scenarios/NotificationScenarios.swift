import Domain
import Foundation
import Repositories
import Testing

/// Notifications are made by other people's actions only, counted and marked read.
enum NotificationScenarios {
  /// A comment and a like on my post notify me, never the actor; unlike + like does not notify
  /// twice; an earlier commenter hears of a later comment; unread count and mark read.
  static func notifications(_ backend: any ScenarioBackend) async throws {
    let alice = try await backend.makeMember(nickname: "alice")
    let bob = try await backend.makeMember(nickname: "bob")

    let post = try await alice.board.createPost(PostDraft(content: "Pair programming tonight?"))
    let comment = try await bob.board.createComment(post.id, CommentDraft(content: "Yes!"))
    _ = try await bob.board.setPostLike(post.id, true)
    _ = try await bob.board.setPostLike(post.id, false)
    _ = try await bob.board.setPostLike(post.id, true)
    // Own actions never notify: alice liking her own post, bob liking his own comment.
    _ = try await alice.board.setPostLike(post.id, true)
    _ = try await bob.board.setCommentLike(comment.id, true)

    let inbox = try await alice.notifications.fetchNotifications(.first)
    #expect(
      inbox.items.map(\.kind) == [
        .likeOnMyPost(post: post.id), .commentOnMyPost(post: post.id, comment: comment.id),
      ])
    #expect(inbox.items.allSatisfy { !$0.isRead })
    #expect(inbox.items.first?.deepLink == .post(post.id))
    #expect(try await alice.notifications.fetchUnreadCount() == 2)
    #expect(try await bob.notifications.fetchNotifications(.first).items.isEmpty)
    #expect(try await bob.notifications.fetchUnreadCount() == 0)

    // The post's author comments: bob, who commented before, hears of it; alice does not.
    let reply = try await alice.board.createComment(post.id, CommentDraft(content: "8 pm?"))
    let bobsInbox = try await bob.notifications.fetchNotifications(.first)
    #expect(bobsInbox.items.map(\.kind) == [.replyToMyComment(post: post.id, comment: reply.id)])
    #expect(try await alice.notifications.fetchUnreadCount() == 2)

    // Someone else's notification is not found; marking mine read.
    let alicesFirst = try #require(inbox.items.first)
    await #expect(throws: DomainError.notFound) {
      try await bob.notifications.markRead(alicesFirst.id)
    }
    try await alice.notifications.markRead(alicesFirst.id)
    #expect(try await alice.notifications.fetchUnreadCount() == 1)
    try await alice.notifications.markAllRead()
    #expect(try await alice.notifications.fetchUnreadCount() == 0)
    let read = try await alice.notifications.fetchNotifications(.first)
    #expect(read.items.count == 2)
    #expect(read.items.allSatisfy { $0.isRead })
    #expect(try await bob.notifications.fetchUnreadCount() == 1)
  }
}
