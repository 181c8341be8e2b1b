import DTO
import Domain
import Foundation
import NetworkKit

/// The bulletin board: posts, search and post likes.
public enum BoardAPI: Sendable, Hashable {
  /// Posts, newest first.
  case posts(page: PageRequest = .first)
  /// Posts whose text contains `query`, newest first.
  case search(query: String, page: PageRequest = .first)
  /// One post.
  case post(BoardPost.ID)
  /// Writes a post. A retry with the same `idempotencyKey` answers the first result.
  case create(CreatePostRequest, idempotencyKey: String? = nil)
  /// Deletes one of the user's posts.
  case delete(BoardPost.ID)
  /// Likes a post; liking twice changes nothing.
  case like(BoardPost.ID)
  /// Takes a like back; unliking twice changes nothing.
  case unlike(BoardPost.ID)
}

extension BoardAPI: DeclaredRoute {
  var declaration: RouteDeclaration {
    switch self {
    case .posts(let page):
      RouteDeclaration(.boardPosts, task: .query(page.queryItems), sample: SampleData.page)
    case .search(let query, let page):
      RouteDeclaration(
        .boardSearch, task: .query([URLQueryItem(name: "q", value: query)] + page.queryItems),
        sample: SampleData.searchPage)
    case .post(let id):
      RouteDeclaration(.boardPost, id.rawValue, sample: SampleData.post)
    case .create(let body, let key):
      RouteDeclaration(
        .boardCreate, task: .json(body), headers: Header.idempotencyKey(key),
        sample: SampleData.createdPost)
    case .delete(let id):
      RouteDeclaration(.boardDelete, id.rawValue)
    case .like(let id):
      RouteDeclaration(.boardLike, id.rawValue, sample: SampleData.liked)
    case .unlike(let id):
      RouteDeclaration(.boardUnlike, id.rawValue, sample: SampleData.unliked)
    }
  }
}

extension BoardAPI {
  /// Sample response bodies of the board operations.
  enum SampleData {
    static let post = """
      {
        "id": "p_0412",
        "content": "이번 챌린지 팀원 구해요! SwiftUI + TCA로 캘린더 앱 만들 분? Looking for a teammate.",
        "is_anonymous": false,
        "author_name": "swiftie",
        "is_mine": false,
        "like_count": 12,
        "is_liked": true,
        "comment_count": 4,
        "created_at": "2026-11-21T03:22:10.512Z"
      }
      """

    static let createdPost = """
      {
        "id": "p_0415",
        "content": "발표 전날인데 너무 떨려요. Any tips for a calm demo day?",
        "is_anonymous": true,
        "author_name": "Anonymous",
        "is_mine": true,
        "like_count": 0,
        "is_liked": false,
        "comment_count": 0,
        "created_at": "2026-11-21T05:10:00.123Z"
      }
      """

    static let page = """
      {
        "items": [
          \(createdPost),
          \(post)
        ],
        "next_cursor": "c_p_0412"
      }
      """

    static let searchPage = """
      {
        "items": [
          \(post)
        ],
        "next_cursor": null
      }
      """

    static let liked = """
      { "liked": true, "like_count": 13 }
      """

    static let unliked = """
      { "liked": false, "like_count": 12 }
      """
  }
}
