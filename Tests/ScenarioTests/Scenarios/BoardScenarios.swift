import Domain
import Foundation
import Repositories
import Testing

/// The bulletin board: posts, search, comments with anonymous labels, likes, deletion, paging.
enum BoardScenarios {
  /// A new post comes first and is found by search; anonymous commenters keep a stable label
  /// per post; likes are idempotent with exact counts; only authors delete; a deleted post is
  /// gone.
  static func board(_ backend: any ScenarioBackend) async throws {
    let alice = try await backend.makeMember(nickname: "alice")
    let bob = try await backend.makeMember(nickname: "bob")
    let carol = try await backend.makeMember(nickname: "carol")

    let older = try await bob.board.createPost(
      PostDraft(content: "Which café near campus has sockets?", isAnonymous: false))
    #expect(older.authorName == "bob")
    let post = try await alice.board.createPost(
      PostDraft(content: "  Looking for a SwiftUI study buddy this week  ", isAnonymous: true))
    #expect(post.content == "Looking for a SwiftUI study buddy this week")
    #expect(post.authorName == "Anonymous")
    #expect(post.isMine)
    #expect(post.likeCount == 0 && post.commentCount == 0 && !post.isLiked)

    let feed = try await carol.board.fetchPosts(.first)
    #expect(feed.items.map(\.id) == [post.id, older.id])
    #expect(feed.items.first?.isMine == false)
    #expect(feed.items.first?.authorName == "Anonymous")

    // Search is a case-insensitive substring match.
    let found = try await carol.board.searchPosts("swiftui STUDY", .first)
    #expect(found.items.map(\.id) == [post.id])
    #expect(try await carol.board.searchPosts("nothing like this", .first).items.isEmpty)
    await expectValidation(field: "q") { try await carol.board.searchPosts("   ", .first) }

    // Anonymous labels: stable per (post, author), in order of first anonymous comment; the
    // post's author gets one too; a named comment shows the nickname.
    let bob1 = try await bob.board.createComment(post.id, CommentDraft(content: "Me!"))
    let carol1 = try await carol.board.createComment(post.id, CommentDraft(content: "Count me in"))
    let bob2 = try await bob.board.createComment(post.id, CommentDraft(content: "Thursday?"))
    let alice1 = try await alice.board.createComment(post.id, CommentDraft(content: "Thursday!"))
    let carolNamed = try await carol.board.createComment(
      post.id, CommentDraft(content: "I'll bring snacks", isAnonymous: false))
    #expect(bob1.authorName == "Anonymous 1")
    #expect(bob1.isMine)
    #expect(carol1.authorName == "Anonymous 2")
    #expect(bob2.authorName == "Anonymous 1")
    #expect(alice1.authorName == "Anonymous 3")
    #expect(carolNamed.authorName == "carol")

    let comments = try await alice.board.fetchComments(post.id, .first)
    #expect(comments.items.map(\.id) == [bob1.id, carol1.id, bob2.id, alice1.id, carolNamed.id])
    #expect(
      comments.items.map(\.authorName) == [
        "Anonymous 1", "Anonymous 2", "Anonymous 1", "Anonymous 3", "carol",
      ])
    #expect(comments.items.map(\.isMine) == [false, false, false, true, false])
    #expect(try await carol.board.fetchPost(post.id).commentCount == 5)
    await expectValidation(field: "content") {
      try await bob.board.createComment(
        post.id, CommentDraft(content: String(repeating: "x", count: 301)))
    }

    // Likes are idempotent and the counts exact.
    #expect(
      try await bob.board.setPostLike(post.id, true) == LikeState(isLiked: true, likeCount: 1))
    #expect(
      try await bob.board.setPostLike(post.id, true) == LikeState(isLiked: true, likeCount: 1))
    #expect(
      try await carol.board.setPostLike(post.id, true) == LikeState(isLiked: true, likeCount: 2))
    #expect(
      try await bob.board.setPostLike(post.id, false) == LikeState(isLiked: false, likeCount: 1))
    #expect(
      try await bob.board.setPostLike(post.id, false) == LikeState(isLiked: false, likeCount: 1))
    let seenByCarol = try await carol.board.fetchPost(post.id)
    #expect(seenByCarol.likeState == LikeState(isLiked: true, likeCount: 1))
    #expect(
      try await bob.board.fetchPost(post.id).likeState == LikeState(isLiked: false, likeCount: 1))
    #expect(
      try await alice.board.setCommentLike(bob1.id, true) == LikeState(isLiked: true, likeCount: 1))
    #expect(
      try await alice.board.setCommentLike(bob1.id, true) == LikeState(isLiked: true, likeCount: 1))
    let likedComment = try await bob.board.fetchComments(post.id, .first).items.first
    #expect(likedComment?.likeState == LikeState(isLiked: false, likeCount: 1))

    // Only the author deletes (the post's author is not the comment's author).
    await #expect(throws: DomainError.forbidden) { try await alice.board.deleteComment(bob1.id) }
    await #expect(throws: DomainError.forbidden) { try await bob.board.deletePost(post.id) }
    try await bob.board.deleteComment(bob1.id)
    #expect(try await carol.board.fetchPost(post.id).commentCount == 4)
    await #expect(throws: DomainError.notFound) { try await bob.board.deleteComment(bob1.id) }

    try await alice.board.deletePost(post.id)
    await #expect(throws: DomainError.notFound) { try await bob.board.fetchPost(post.id) }
    await #expect(throws: DomainError.notFound) {
      try await bob.board.fetchComments(post.id, .first)
    }
    await #expect(throws: DomainError.notFound) { try await carol.board.setPostLike(post.id, true) }
    #expect(try await bob.board.fetchPosts(.first).items.map(\.id) == [older.id])
    #expect(try await bob.board.searchPosts("SwiftUI", .first).items.isEmpty)
  }

  /// 45 posts walked with pages of 20: 20 + 20 + 5, every post once, newest first, and a post
  /// written during the walk neither shifts nor repeats anything.
  static func pagination(_ backend: any ScenarioBackend) async throws {
    let alice = try await backend.makeMember(nickname: "alice")
    let bob = try await backend.makeMember(nickname: "bob")
    var created: [BoardPost.ID] = []
    for number in 1...45 {
      created.append(
        try await alice.board.createPost(PostDraft(content: "Post number \(number)")).id)
    }
    let newestFirst = Array(created.reversed())

    let pages = try await collectPages(limit: 20) { try await bob.board.fetchPosts($0) }
    #expect(pages.map(\.items.count) == [20, 20, 5])
    let walked = pages.flatMap(\.items).map(\.id)
    #expect(walked == newestFirst)
    #expect(Set(walked).count == 45)

    // Keyset paging: a post written after the first page does not show up again or push an
    // older one onto the next page twice.
    let first = try await bob.board.fetchPosts(PageRequest(limit: 20))
    let interloper = try await alice.board.createPost(PostDraft(content: "Written mid-walk"))
    var rest: [BoardPost.ID] = []
    var cursor = first.nextCursor
    while let next = cursor, rest.count < 100 {
      let page = try await bob.board.fetchPosts(PageRequest(cursor: next, limit: 20))
      rest += page.items.map(\.id)
      cursor = page.nextCursor
    }
    #expect(first.items.map(\.id) + rest == newestFirst)
    #expect(!rest.contains(interloper.id))
    #expect(
      try await bob.board.fetchPosts(PageRequest(limit: 1)).items.map(\.id) == [interloper.id])

    // Search pages the same way.
    let searchPages = try await collectPages(limit: 20) {
      try await bob.board.searchPosts("post number", $0)
    }
    #expect(searchPages.flatMap(\.items).map(\.id) == newestFirst)
  }
}
