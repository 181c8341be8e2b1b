import DTO
import Domain
import Foundation
import Hummingbird

extension RouteTable {
  /// BoardAPI and CommentAPI.
  mutating func addBoardRoutes() {
    add(.boardPosts) { call in
      try .json(
        PageDTO(try call.engine.posts(try call.pageRequest(), as: try call.me), PostDTO.init))
    }
    add(.boardSearch) { call in
      let page = try call.engine.posts(
        matching: call.query("q") ?? "", try call.pageRequest(), as: try call.me)
      return try .json(PageDTO(page, PostDTO.init))
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
    add(.commentComments) { call in
      let page = try call.engine.comments(
        on: call.id("post_id"), try call.pageRequest(), as: try call.me)
      return try .json(PageDTO(page, CommentDTO.init))
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
    add(.notificationList) { call in
      let page = try call.engine.notifications(try call.pageRequest(), as: try call.me)
      return try .json(PageDTO(page, NotificationDTO.init))
    }
    add(.notificationUnreadCount) { call in
      try .json(UnreadCountDTO(count: try call.engine.unreadNotificationCount(as: try call.me)))
    }
    addNoContent(.notificationMarkRead) { call in
      try call.engine.markNotificationRead(call.id("notification_id"), as: try call.me)
    }
    addNoContent(.notificationMarkAllRead) { try $0.engine.markAllNotificationsRead(as: try $0.me) }
  }
}
