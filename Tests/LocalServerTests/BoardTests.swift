import DTO
import Domain
import Foundation
import Hummingbird
import LocalServer
import Testing

@Suite("Board: posts, comments, likes, search, notifications")
struct BoardTests {
  @Test("anonymous names: posts say Anonymous, commenters get stable numbers per post")
  func anonymity() async throws {
    try await withServer { h in
      let author = try await h.member("Author")
      let first = try await h.member("First")
      let second = try await h.member("Second")
      let post = try await h.post("Anyone up for a study session?", anonymous: true, token: author)
      #expect(post.authorName == "Anonymous")
      #expect(post.isMine)
      let path = "/posts/\(post.id)/comments"
      func comment(
        _ text: String, _ token: String, anonymous: Bool = true
      ) async throws -> CommentDTO {
        try await h.expect(
          .created, CommentDTO.self, .post, path, token: token,
          json: CreateCommentRequest(content: text, isAnonymous: anonymous))
      }
      let a = try await comment("Me!", second)
      let b = try await comment("Me too", first)
      let c = try await comment("Great", second)
      let d = try await comment("Thanks", author)
      let e = try await comment("Signed", first, anonymous: false)
      #expect(
        [a.authorName, b.authorName, c.authorName, d.authorName] == [
          "Anonymous 1", "Anonymous 2", "Anonymous 1", "Anonymous 3",
        ])
      #expect(e.authorName == "First")

      let page = try await h.expect(.ok, PageDTO<CommentDTO>.self, .get, path, token: author)
      #expect(page.items.map(\.id) == [a.id, b.id, c.id, d.id, e.id])
      #expect(page.items.map(\.isMine) == [false, false, false, true, false])
      let reloaded = try await h.expect(.ok, PostDTO.self, .get, "/posts/\(post.id)", token: first)
      #expect(reloaded.commentCount == 5)
      #expect(reloaded.isMine == false)
    }
  }

  @Test("a path's ids are percent-decoded: a post's id written all in escapes names the post")
  func escapedIDs() async throws {
    try await withServer { h in
      let author = try await h.member("Writer")
      let post = try await h.post("Escaped", token: author)
      let escaped = post.id.utf8.map { "%" + String($0, radix: 16, uppercase: true) }.joined()
      let fetched = try await h.expect(.ok, PostDTO.self, .get, "/posts/\(escaped)", token: author)
      #expect(fetched.id == post.id)
    }
  }

  @Test("likes are idempotent, counted and notify the author once per liker")
  func likes() async throws {
    try await withServer { h in
      let author = try await h.member("Writer")
      let fan = try await h.member("Fan")
      let post = try await h.post("Like me", token: author)
      let like = "/posts/\(post.id)/like"
      var state = try await h.expect(.ok, LikeStateDTO.self, .put, like, token: fan)
      #expect(state == LikeStateDTO(liked: true, likeCount: 1))
      state = try await h.expect(.ok, LikeStateDTO.self, .put, like, token: fan)
      #expect(state == LikeStateDTO(liked: true, likeCount: 1))
      state = try await h.expect(.ok, LikeStateDTO.self, .delete, like, token: fan)
      #expect(state == LikeStateDTO(liked: false, likeCount: 0))
      state = try await h.expect(.ok, LikeStateDTO.self, .delete, like, token: fan)
      #expect(state == LikeStateDTO(liked: false, likeCount: 0))
      state = try await h.expect(.ok, LikeStateDTO.self, .put, like, token: fan)
      _ = try await h.expect(.ok, LikeStateDTO.self, .put, like, token: author)

      let seen = try await h.expect(.ok, PostDTO.self, .get, "/posts/\(post.id)", token: fan)
      #expect(seen.likeCount == 2)
      #expect(seen.isLiked)
      let notes = try await h.expect(
        .ok, PageDTO<NotificationDTO>.self, .get, "/notifications", token: author)
      #expect(notes.items.map(\.kind) == [.likeOnMyPost])
      #expect(notes.items.first?.postId == post.id)

      let comment = try await h.expect(
        .created, CommentDTO.self, .post, "/posts/\(post.id)/comments", token: author,
        json: CreateCommentRequest(content: "Thanks!", isAnonymous: false))
      let commentLike = try await h.expect(
        .ok, LikeStateDTO.self, .put, "/comments/\(comment.id)/like", token: fan)
      #expect(commentLike == LikeStateDTO(liked: true, likeCount: 1))
      let after = try await h.expect(
        .ok, PageDTO<NotificationDTO>.self, .get, "/notifications", token: author)
      #expect(after.items.first?.kind == .likeOnMyComment)
      #expect(after.items.first?.commentId == comment.id)
      #expect(after.items.first?.postId == post.id)
      try await h.expectError(.notFound, "not_found", .put, "/posts/p_999/like", token: fan)
    }
  }

  @Test("comments notify the post's author and earlier commenters, never the actor")
  func commentNotifications() async throws {
    try await withServer { h in
      let author = try await h.member("Poster")
      let early = try await h.member("Early")
      let late = try await h.member("Late")
      let post = try await h.post("Question about TCA", token: author)
      let path = "/posts/\(post.id)/comments"
      _ = try await h.expect(
        .created, CommentDTO.self, .post, path, token: early,
        json: CreateCommentRequest(content: "Good question", isAnonymous: true))
      _ = try await h.expect(
        .created, CommentDTO.self, .post, path, token: author,
        json: CreateCommentRequest(content: "Thanks", isAnonymous: false))
      let reply = try await h.expect(
        .created, CommentDTO.self, .post, path, token: late,
        json: CreateCommentRequest(content: "Me too", isAnonymous: true))

      let authorNotes = try await h.expect(
        .ok, PageDTO<NotificationDTO>.self, .get, "/notifications", token: author)
      #expect(authorNotes.items.map(\.kind) == [.commentOnMyPost, .commentOnMyPost])
      #expect(authorNotes.items.first?.commentId == reply.id)
      // The author's reply and the late comment both reach the early commenter.
      let earlyNotes = try await h.expect(
        .ok, PageDTO<NotificationDTO>.self, .get, "/notifications", token: early)
      #expect(earlyNotes.items.map(\.kind) == [.replyToMyComment, .replyToMyComment])
      let lateNotes = try await h.expect(
        .ok, PageDTO<NotificationDTO>.self, .get, "/notifications", token: late)
      #expect(lateNotes.items.isEmpty)

      let unread = try await h.expect(
        .ok, UnreadCountDTO.self, .get, "/notifications/unread-count", token: author)
      #expect(unread.count == 2)
      let first = try #require(authorNotes.items.first)
      #expect(
        try await h.send(.post, "/notifications/\(first.id)/read", token: author).status
          == .noContent)
      try await h.expectError(
        .notFound, "not_found", .post, "/notifications/\(first.id)/read", token: early)
      #expect(
        try await h.expect(
          .ok, UnreadCountDTO.self, .get, "/notifications/unread-count", token: author
        ).count == 1)
      #expect(
        try await h.send(.post, "/notifications/read-all", token: author).status == .noContent)
      #expect(
        try await h.expect(
          .ok, UnreadCountDTO.self, .get, "/notifications/unread-count", token: author
        ).count == 0)
    }
  }

  @Test("only the author or an admin deletes; deleting a post deletes its comments")
  func ownership() async throws {
    try await withServer { h in
      let author = try await h.member("Owner")
      let other = try await h.member("Other")
      let admin = try await h.admin()
      let post = try await h.post("Mine", token: author)
      let comment = try await h.expect(
        .created, CommentDTO.self, .post, "/posts/\(post.id)/comments", token: other,
        json: CreateCommentRequest(content: "Nice", isAnonymous: true))
      try await h.expectError(.forbidden, "forbidden", .delete, "/posts/\(post.id)", token: other)
      try await h.expectError(
        .forbidden, "forbidden", .delete, "/comments/\(comment.id)", token: author)
      #expect(try await h.send(.delete, "/posts/\(post.id)", token: author).status == .noContent)
      try await h.expectError(.notFound, "not_found", .get, "/posts/\(post.id)", token: author)
      try await h.expectError(
        .notFound, "not_found", .get, "/posts/\(post.id)/comments", token: author)
      try await h.expectError(
        .notFound, "not_found", .put, "/comments/\(comment.id)/like", token: author)

      let second = try await h.post("Another", token: author)
      #expect(try await h.send(.delete, "/posts/\(second.id)", token: admin).status == .noContent)
      let list = try await h.expect(.ok, PageDTO<PostDTO>.self, .get, "/posts", token: other)
      #expect(list.items.isEmpty)
    }
  }

  @Test("search is a case-insensitive substring match, newest first, 1-100 characters")
  func search() async throws {
    try await withServer { h in
      let token = try await h.member("Searcher")
      let older = try await h.post("Learning SwiftUI layouts", token: token)
      h.clock.advance(by: .seconds(1))
      _ = try await h.post("점심 메뉴 추천", token: token)
      h.clock.advance(by: .seconds(1))
      let newer = try await h.post("swiftui previews are great", token: token)
      let found = try await h.expect(
        .ok, PageDTO<PostDTO>.self, .get, "/posts/search?q=SWIFTUI", token: token)
      #expect(found.items.map(\.id) == [newer.id, older.id])
      let korean = try await h.expect(
        .ok, PageDTO<PostDTO>.self, .get, "/posts/search?q=%EB%A9%94%EB%89%B4", token: token)
      #expect(korean.items.count == 1)
      try await h.expectError(
        .badRequest, "validation_failed", field: "q", .get, "/posts/search?q=%20", token: token)
      try await h.expectError(
        .badRequest, "validation_failed", field: "q", .get, "/posts/search", token: token)
      try await h.expectError(
        .badRequest, "validation_failed", field: "q", .get,
        "/posts/search?q=\(String(repeating: "a", count: 101))", token: token)
    }
  }

  @Test("a walk over pages never repeats or skips while posts are being added")
  func paginationUnderInserts() async throws {
    try await withServer { h in
      let token = try await h.member("Walker")
      var originals: [String] = []
      for index in 0..<25 {
        originals.append(try await h.post("Post \(index)", token: token).id)
        h.clock.advance(by: .milliseconds(10))
      }
      let writer = h.newClient()
      defer { Task { try? await writer.shutdown() } }
      var seen: [String] = []
      var cursor: String?
      repeat {
        // Someone posts between every page, on another connection.
        _ = try await h.send(
          .post, "/posts", token: token,
          json: CreatePostRequest(content: "Interleaved", isAnonymous: true),
          using: writer)
        let query = cursor.map { "&cursor=\($0)" } ?? ""
        let page = try await h.expect(
          .ok, PageDTO<PostDTO>.self, .get, "/posts?limit=4\(query)", token: token)
        seen += page.items.map(\.id)
        cursor = page.nextCursor
      } while cursor != nil
      #expect(Set(seen).count == seen.count)
      #expect(Set(originals).isSubset(of: Set(seen)))
      // The walk stays in order: newest first.
      let keys = seen.compactMap { Int($0.dropFirst(2)) }
      let originalKeys = keys.filter { $0 <= 25 }
      #expect(originalKeys == originalKeys.sorted(by: >))
    }
  }
}
