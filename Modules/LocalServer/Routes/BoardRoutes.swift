import DTO
import Domain
import Foundation
import Hummingbird

extension RouteTable {
  /// BoardAPI and CommentAPI.
  mutating func addBoardRoutes() {
    add("BoardAPI.posts", .get, "/posts") { call in
      let (me, page) = (try call.me, try call.pageRequest())
      return try .json(
        try await call.core.read { db in try Board.posts(db, viewer: me, query: nil, page) })
    }
    add("BoardAPI.search", .get, "/posts/search") { call in
      let (me, page) = (try call.me, try call.pageRequest())
      let query = try validate { () throws(ValidationError) in
        try TextRule(field: "q", length: 1...100).validate(call.query("q") ?? "")
      }
      return try .json(
        try await call.core.read { db in try Board.posts(db, viewer: me, query: query, page) })
    }
    add("BoardAPI.post", .get, "/posts/:post_id") { call in
      let me = try call.me
      let key = try call.key("post_id", .post, what: "post")
      return try .json(try await call.core.read { db in try Board.post(db, key, viewer: me) })
    }
    add("BoardAPI.create", .post, "/posts", blockedWhenBanned: true, idempotent: true) { call in
      let me = try call.me
      let body = try call.decode(CreatePostRequest.self)
      let content = try validate { () throws(ValidationError) in
        try TextRule.post.validate(body.content)
      }
      let now = call.now
      return try .json(
        try await call.core.write { db in
          try Board.createPost(
            db, content: content, anonymous: body.isAnonymous, viewer: me, now: now)
        }, status: .created)
    }
    add("BoardAPI.delete", .delete, "/posts/:post_id", blockedWhenBanned: true) { call in
      let me = try call.me
      let key = try call.key("post_id", .post, what: "post")
      let now = call.now
      try await call.core.write { db in try Board.deletePost(db, key, viewer: me, now: now) }
      return .noContent
    }
    for (id, method, liked) in [
      ("BoardAPI.like", HTTPRequest.Method.put, true), ("BoardAPI.unlike", .delete, false),
    ] {
      add(id, method, "/posts/:post_id/like", blockedWhenBanned: true) { call in
        let me = try call.me
        let key = try call.key("post_id", .post, what: "post")
        let now = call.now
        return try .json(
          try await call.core.write { db in
            try Board.setPostLike(db, key, liked: liked, viewer: me, now: now)
          })
      }
    }

    add("CommentAPI.comments", .get, "/posts/:post_id/comments") { call in
      let (me, page) = (try call.me, try call.pageRequest())
      let key = try call.key("post_id", .post, what: "post")
      return try .json(
        try await call.core.read { db in try Board.comments(db, postKey: key, viewer: me, page) })
    }
    add(
      "CommentAPI.create", .post, "/posts/:post_id/comments", blockedWhenBanned: true,
      idempotent: true
    ) { call in
      let me = try call.me
      let key = try call.key("post_id", .post, what: "post")
      let body = try call.decode(CreateCommentRequest.self)
      let content = try validate { () throws(ValidationError) in
        try TextRule.comment.validate(body.content)
      }
      let now = call.now
      return try .json(
        try await call.core.write { db in
          try Board.createComment(
            db, postKey: key, content: content, anonymous: body.isAnonymous, viewer: me, now: now)
        }, status: .created)
    }
    add("CommentAPI.delete", .delete, "/comments/:comment_id", blockedWhenBanned: true) { call in
      let me = try call.me
      let key = try call.key("comment_id", .comment, what: "comment")
      let now = call.now
      try await call.core.write { db in try Board.deleteComment(db, key, viewer: me, now: now) }
      return .noContent
    }
    for (id, method, liked) in [
      ("CommentAPI.like", HTTPRequest.Method.put, true), ("CommentAPI.unlike", .delete, false),
    ] {
      add(id, method, "/comments/:comment_id/like", blockedWhenBanned: true) { call in
        let me = try call.me
        let key = try call.key("comment_id", .comment, what: "comment")
        let now = call.now
        return try .json(
          try await call.core.write { db in
            try Board.setCommentLike(db, key, liked: liked, viewer: me, now: now)
          })
      }
    }
  }

  /// NotificationAPI.
  mutating func addNotificationRoutes() {
    add("NotificationAPI.list", .get, "/notifications") { call in
      let (me, page) = (try call.me, try call.pageRequest())
      return try .json(
        try await call.core.read { db in try Notifications.list(db, viewer: me, page) })
    }
    add("NotificationAPI.unreadCount", .get, "/notifications/unread-count") { call in
      let me = try call.me
      return try .json(
        try await call.core.read { db in try Notifications.unreadCount(db, viewer: me) })
    }
    add("NotificationAPI.markRead", .post, "/notifications/:notification_id/read") { call in
      let me = try call.me
      let key = try call.key("notification_id", .notification, what: "notification")
      try await call.core.write { db in try Notifications.markRead(db, key, viewer: me) }
      return .noContent
    }
    add("NotificationAPI.markAllRead", .post, "/notifications/read-all") { call in
      let me = try call.me
      try await call.core.write { db in try Notifications.markAllRead(db, viewer: me) }
      return .noContent
    }
  }
}
