import DTO
import Domain
import Foundation
import Hummingbird

extension RouteTable {
  /// BoardAPI and CommentAPI.
  mutating func addBoardRoutes() {
    addPage(.boardPosts, PostDTO.init) { try $0.engine.posts($1, as: $2) }
    addPage(.boardSearch, PostDTO.init) {
      try $0.engine.posts(matching: $0.query("q") ?? "", $1, as: $2)
    }
    add(.boardPost) { call in
      try .json(PostDTO(try call.engine.post(call.id("post_id"), as: try call.me)))
    }
    add(.boardCreate, idempotent: true) { call in
      let body = try call.decode(CreatePostRequest.self)
      let post = try call.engine.createPost(
        PostDraft(content: body.content, isAnonymous: body.isAnonymous), as: try call.me)
      return try .json(PostDTO(post), status: .created)
    }
    addNoContent(.boardDelete) { try $0.engine.deletePost($0.id("post_id"), as: try $0.me) }
    for (operation, liked) in [(APIOperation.boardLike, true), (.boardUnlike, false)] {
      add(operation) { call in
        try .json(
          LikeStateDTO(try call.engine.setPostLike(call.id("post_id"), isLiked: liked, as: call.me))
        )
      }
    }
    addPage(.commentComments, CommentDTO.init) {
      try $0.engine.comments(on: $0.id("post_id"), $1, as: $2)
    }
    add(.commentCreate, idempotent: true) { call in
      let body = try call.decode(CreateCommentRequest.self)
      let comment = try call.engine.createComment(
        on: call.id("post_id"), CommentDraft(content: body.content, isAnonymous: body.isAnonymous),
        as: try call.me)
      return try .json(CommentDTO(comment), status: .created)
    }
    addNoContent(.commentDelete) { try $0.engine.deleteComment($0.id("comment_id"), as: try $0.me) }
    for (operation, liked) in [(APIOperation.commentLike, true), (.commentUnlike, false)] {
      add(operation) { call in
        let state = try call.engine.setCommentLike(
          call.id("comment_id"), isLiked: liked, as: try call.me)
        return try .json(LikeStateDTO(state))
      }
    }
  }

  /// NotificationAPI.
  mutating func addNotificationRoutes() {
    addPage(.notificationList, NotificationDTO.init) { try $0.engine.notifications($1, as: $2) }
    add(.notificationUnreadCount) { call in
      try .json(UnreadCountDTO(count: try call.engine.unreadNotificationCount(as: try call.me)))
    }
    addNoContent(.notificationMarkRead) { call in
      try call.engine.markNotificationRead(call.id("notification_id"), as: try call.me)
    }
    addNoContent(.notificationMarkAllRead) { try $0.engine.markAllNotificationsRead(as: try $0.me) }
  }
}
