import DTO
import Domain
import Foundation
import NetworkKit

/// Comments on board posts and comment likes.
public enum CommentAPI: Sendable, Hashable {
  /// The comments of a post, oldest first.
  case comments(postID: BoardPost.ID, page: PageRequest = .first)
  /// Comments on a post. A retry with the same `idempotencyKey` answers the first result.
  case create(postID: BoardPost.ID, body: CreateCommentRequest, idempotencyKey: String? = nil)
  /// Deletes one of the user's comments.
  case delete(Comment.ID)
  /// Likes a comment; liking twice changes nothing.
  case like(Comment.ID)
  /// Takes a like back; unliking twice changes nothing.
  case unlike(Comment.ID)
}

extension CommentAPI: DeclaredRoute {
  var declaration: RouteDeclaration {
    switch self {
    case .comments(let postID, let page):
      RouteDeclaration(
        .commentComments, postID.rawValue, task: .query(page.queryItems), sample: SampleData.page)
    case .create(let postID, let body, let key):
      RouteDeclaration(
        .commentCreate, postID.rawValue, task: .json(body), headers: Header.idempotencyKey(key),
        sample: SampleData.createdComment)
    case .delete(let id):
      RouteDeclaration(.commentDelete, id.rawValue)
    case .like(let id):
      RouteDeclaration(.commentLike, id.rawValue, sample: SampleData.liked)
    case .unlike(let id):
      RouteDeclaration(.commentUnlike, id.rawValue, sample: SampleData.unliked)
    }
  }
}

extension CommentAPI {
  /// Sample response bodies of the comment operations.
  enum SampleData {
    static let createdComment = """
      {
        "id": "c_2210",
        "post_id": "p_0412",
        "content": "저요! 저도 TCA 공부 중이에요. Count me in.",
        "is_anonymous": true,
        "author_name": "Anonymous 2",
        "is_mine": true,
        "like_count": 0,
        "is_liked": false,
        "created_at": "2026-11-21T05:10:00.123Z"
      }
      """

    static let page = """
      {
        "items": [
          {
            "id": "c_2201",
            "post_id": "p_0412",
            "content": "캘린더 앱 재밌겠네요. What's the deadline?",
            "is_anonymous": true,
            "author_name": "Anonymous 1",
            "is_mine": false,
            "like_count": 3,
            "is_liked": false,
            "created_at": "2026-11-21T03:40:02.310Z"
          },
          {
            "id": "c_2205",
            "post_id": "p_0412",
            "content": "다음 주 금요일까지예요! Friday next week.",
            "is_anonymous": false,
            "author_name": "swiftie",
            "is_mine": false,
            "like_count": 1,
            "is_liked": true,
            "created_at": "2026-11-21T04:02:55.000Z"
          }
        ],
        "next_cursor": "c_c_2205"
      }
      """

    static let liked = """
      { "liked": true, "like_count": 4 }
      """

    static let unliked = """
      { "liked": false, "like_count": 3 }
      """
  }
}
