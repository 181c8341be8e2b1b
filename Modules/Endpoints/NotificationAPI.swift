import DTO
import Domain
import Foundation
import NetworkKit

/// The user's notifications and their read state.
public enum NotificationAPI: Sendable, Hashable {
  /// Notifications, newest first.
  case list(page: PageRequest = .first)
  /// How many notifications are unread.
  case unreadCount
  /// Marks one notification read.
  case markRead(AppNotification.ID)
  /// Marks every notification read.
  case markAllRead
}

extension NotificationAPI: DeclaredRoute {
  var declaration: RouteDeclaration {
    switch self {
    case .list(let page):
      RouteDeclaration(.notificationList, task: .query(page.queryItems), sample: SampleData.page)
    case .unreadCount:
      RouteDeclaration(.notificationUnreadCount, sample: SampleData.unreadCount)
    case .markRead(let id):
      RouteDeclaration(.notificationMarkRead, id.rawValue)
    case .markAllRead:
      RouteDeclaration(.notificationMarkAllRead)
    }
  }
}

extension NotificationAPI {
  /// Sample response bodies of the notification operations.
  enum SampleData {
    /// One notification of each kind, so every kind's id fields are exercised.
    static let page = """
      {
        "items": [
          {
            "id": "n_0901",
            "kind": "\(NotificationKind.Code.commentOnMyPost.rawValue)",
            "message": "내 글에 새 댓글이 달렸어요: \\"저요! 저도 TCA 공부 중이에요.\\"",
            "is_read": false,
            "created_at": "2026-11-21T05:10:01.000Z",
            "post_id": "p_0412", "comment_id": "c_2210",
            "question_id": null, "group_id": null, "room_id": null
          },
          {
            "id": "n_0900",
            "kind": "\(NotificationKind.Code.replyToMyComment.rawValue)",
            "message": "Someone replied to your comment.",
            "is_read": false,
            "created_at": "2026-11-21T04:58:30.250Z",
            "post_id": "p_0412", "comment_id": "c_2205",
            "question_id": null, "group_id": null, "room_id": null
          },
          {
            "id": "n_0899",
            "kind": "\(NotificationKind.Code.likeOnMyPost.rawValue)",
            "message": "내 글을 12명이 좋아해요. 12 people like your post.",
            "is_read": true,
            "created_at": "2026-11-21T04:30:00.000Z",
            "post_id": "p_0412", "comment_id": null,
            "question_id": null, "group_id": null, "room_id": null
          },
          {
            "id": "n_0898",
            "kind": "\(NotificationKind.Code.likeOnMyComment.rawValue)",
            "message": "Your comment got a like.",
            "is_read": true,
            "created_at": "2026-11-21T04:12:44.120Z",
            "post_id": "p_0412", "comment_id": "c_2201",
            "question_id": null, "group_id": null, "room_id": null
          },
          {
            "id": "n_0897",
            "kind": "\(NotificationKind.Code.newQuestion.rawValue)",
            "message": "오늘의 질문이 도착했어요! Today's question is here.",
            "is_read": true,
            "created_at": "2026-11-21T00:00:00.000Z",
            "post_id": null, "comment_id": null,
            "question_id": "q_0321", "group_id": null, "room_id": null
          },
          {
            "id": "n_0896",
            "kind": "\(NotificationKind.Code.groupInvite.rawValue)",
            "message": "'알고리즘 아침반'에 초대받았어요. You're invited to a study group.",
            "is_read": true,
            "created_at": "2026-11-20T22:15:09.800Z",
            "post_id": null, "comment_id": null,
            "question_id": null, "group_id": "g_007", "room_id": null
          },
          {
            "id": "n_0895",
            "kind": "\(NotificationKind.Code.groupMessage.rawValue)",
            "message": "알고리즘 아침반: 내일 7시에 만나요!",
            "is_read": true,
            "created_at": "2026-11-20T21:03:40.000Z",
            "post_id": null, "comment_id": null,
            "question_id": null, "group_id": "g_007", "room_id": "room_g_007"
          },
          {
            "id": "n_0894",
            "kind": "\(NotificationKind.Code.reportResolved.rawValue)",
            "message": "신고하신 내용이 처리되었어요. Your report was resolved.",
            "is_read": true,
            "created_at": "2026-11-19T10:00:00.000Z",
            "post_id": null, "comment_id": null,
            "question_id": null, "group_id": null, "room_id": null
          }
        ],
        "next_cursor": "c_n_0894"
      }
      """

    static let unreadCount = """
      { "count": 2 }
      """
  }
}
