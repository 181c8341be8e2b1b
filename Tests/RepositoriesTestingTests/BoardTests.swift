import Domain
import Foundation
import Repositories
import RepositoriesTesting
import Testing

@Suite("Fake board: posts, comments, likes, search")
struct BoardTests {
  @Test("a created post appears first, with isMine per viewer and Anonymous as author")
  func createdPostComesFirst() async throws {
    let (backend, alice, bob, _) = try makeCast()
    _ = try await bob.board.createPost(PostDraft(content: "Older post", isAnonymous: false))
    backend.advance(by: 1)
    let post = try await alice.board.createPost(PostDraft(content: "  Hello board  "))
    #expect(post.content == "Hello board")
    #expect(post.authorName == "Anonymous")
    #expect(post.isMine)

    let bobsView = try await bob.board.fetchPosts(page: .first)
    #expect(bobsView.items.map(\.content) == ["Hello board", "Older post"])
    #expect(bobsView.items.map(\.isMine) == [false, true])
    #expect(bobsView.items.map(\.authorName) == ["Anonymous", "bob"])
  }

  @Test("posts are 1-1000 characters, comments 1-300")
  func lengths() async throws {
    let (_, alice, _, _) = try makeCast()
    #expect(
      await validationField { _ = try await alice.board.createPost(PostDraft(content: " \n ")) }
        == "content")
    #expect(
      await validationField {
        _ = try await alice.board.createPost(
          PostDraft(content: String(repeating: "x", count: 1001)))
      } == "content")
    let post = try await alice.board.createPost(
      PostDraft(content: String(repeating: "x", count: 1000)))
    #expect(
      await validationField {
        _ = try await alice.board.createComment(
          on: post.id, draft: CommentDraft(content: String(repeating: "y", count: 301)))
      } == "content")
  }

  @Test("anonymous comment labels are stable per post and author, the post's author included")
  func anonymousLabels() async throws {
    let (backend, alice, bob, _) = try makeCast()
    let carol = try backend.signedUpClient(nickname: "carol")
    let post = try await alice.board.createPost(PostDraft(content: "Ask me anything"))
    let other = try await alice.board.createPost(PostDraft(content: "Another post"))
    func comment(
      _ client: FakeClient, _ text: String, anonymous: Bool = true, on id: BoardPost.ID? = nil
    ) async throws -> Domain.Comment {
      try await client.board.createComment(
        on: id ?? post.id, draft: CommentDraft(content: text, isAnonymous: anonymous))
    }
    #expect(try await comment(bob, "Q1").authorName == "Anonymous 1")
    #expect(try await comment(carol, "Q2").authorName == "Anonymous 2")
    #expect(try await comment(bob, "Q3").authorName == "Anonymous 1")
    #expect(try await comment(alice, "A1").authorName == "Anonymous 3")
    #expect(try await comment(carol, "Named", anonymous: false).authorName == "carol")
    // Labels restart on another post.
    #expect(try await comment(carol, "Elsewhere", on: other.id).authorName == "Anonymous 1")

    let listed = try await bob.board.fetchComments(of: post.id, page: .first)
    #expect(listed.items.map(\.content) == ["Q1", "Q2", "Q3", "A1", "Named"])
    #expect(
      listed.items.map(\.authorName) == [
        "Anonymous 1", "Anonymous 2", "Anonymous 1", "Anonymous 3", "carol",
      ])
    #expect(listed.items.map(\.isMine) == [true, false, true, false, false])
    #expect(try await bob.board.fetchPost(post.id).commentCount == 5)
  }

  @Test("only the author deletes a comment; admins delete anything; deleted is notFound")
  func deletingComments() async throws {
    let (_, alice, bob, admin) = try makeCast()
    let post = try await alice.board.createPost(PostDraft(content: "Post"))
    let bobs = try await bob.board.createComment(on: post.id, draft: CommentDraft(content: "Bob's"))
    let alices = try await alice.board.createComment(
      on: post.id, draft: CommentDraft(content: "Alice's"))
    await #expect(throws: DomainError.forbidden) { try await alice.board.deleteComment(bobs.id) }
    try await bob.board.deleteComment(bobs.id)
    await #expect(throws: DomainError.notFound) { try await bob.board.deleteComment(bobs.id) }
    try await admin.board.deleteComment(alices.id)
    #expect(try await alice.board.fetchComments(of: post.id, page: .first).items.isEmpty)
    #expect(try await alice.board.fetchPost(post.id).commentCount == 0)
  }

  @Test("deleting a post deletes its comments; others may not delete it")
  func deletingPosts() async throws {
    let (_, alice, bob, _) = try makeCast()
    let post = try await alice.board.createPost(PostDraft(content: "Post"))
    let comment = try await bob.board.createComment(on: post.id, draft: CommentDraft(content: "c"))
    await #expect(throws: DomainError.forbidden) { try await bob.board.deletePost(post.id) }
    try await alice.board.deletePost(post.id)
    await #expect(throws: DomainError.notFound) { _ = try await bob.board.fetchPost(post.id) }
    await #expect(throws: DomainError.notFound) {
      _ = try await bob.board.fetchComments(of: post.id, page: .first)
    }
    await #expect(throws: DomainError.notFound) {
      _ = try await bob.board.setCommentLike(comment.id, true)
    }
    #expect(try await bob.board.fetchPosts(page: .first).items.isEmpty)
  }

  @Test("likes are idempotent and counts stay exact")
  func likes() async throws {
    let (_, alice, bob, admin) = try makeCast()
    let post = try await alice.board.createPost(PostDraft(content: "Like me"))
    #expect(
      try await bob.board.setPostLike(post.id, true) == LikeState(isLiked: true, likeCount: 1))
    #expect(
      try await bob.board.setPostLike(post.id, true) == LikeState(isLiked: true, likeCount: 1))
    #expect(
      try await admin.board.setPostLike(post.id, true) == LikeState(isLiked: true, likeCount: 2))
    #expect(
      try await bob.board.setPostLike(post.id, false) == LikeState(isLiked: false, likeCount: 1))
    #expect(
      try await bob.board.setPostLike(post.id, false) == LikeState(isLiked: false, likeCount: 1))
    let seenByAdmin = try await admin.board.fetchPost(post.id)
    #expect(seenByAdmin.likeState == LikeState(isLiked: true, likeCount: 1))
    #expect(try await bob.board.fetchPost(post.id).isLiked == false)

    let comment = try await bob.board.createComment(on: post.id, draft: CommentDraft(content: "c"))
    #expect(
      try await alice.board.setCommentLike(comment.id, true)
        == LikeState(isLiked: true, likeCount: 1))
    #expect(try await alice.board.setCommentLike(comment.id, true).likeCount == 1)
    await #expect(throws: DomainError.notFound) {
      _ = try await alice.board.setPostLike("p_404", true)
    }
  }

  @Test("search is a case-insensitive substring match, newest first, 1-100 characters")
  func search() async throws {
    let (backend, alice, bob, _) = try makeCast()
    _ = try await alice.board.createPost(PostDraft(content: "SwiftUI study tonight"))
    backend.advance(by: 1)
    _ = try await bob.board.createPost(PostDraft(content: "Who likes swift concurrency?"))
    backend.advance(by: 1)
    _ = try await bob.board.createPost(PostDraft(content: "스터디 카페 추천"))
    let found = try await alice.board.searchPosts(query: " SWIFT ", page: .first)
    #expect(
      found.items.map(\.content) == ["Who likes swift concurrency?", "SwiftUI study tonight"])
    #expect(try await alice.board.searchPosts(query: "카페", page: .first).items.count == 1)
    #expect(
      await validationField { _ = try await alice.board.searchPosts(query: "  ", page: .first) }
        == "q")
    #expect(
      await validationField {
        _ = try await alice.board.searchPosts(
          query: String(repeating: "a", count: 101), page: .first)
      } == "q")
  }
}
