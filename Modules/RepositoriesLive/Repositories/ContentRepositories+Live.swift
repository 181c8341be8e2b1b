import DTO
import Domain
import Endpoints
import Foundation
import Repositories

/// A fresh key per logical write: the provider's retries of that write reuse it, so the server
/// does it once.
func newIdempotencyKey() -> String { UUID().lowercasedText }

extension QuestionRepository {
  /// Today's question, past questions and answers over `/questions` and `/answers`.
  static func live(client: APIClient) -> QuestionRepository {
    QuestionRepository(
      fetchToday: {
        try await client.fetch(QuestionAPI.today, as: QuestionDTO.self)
      },
      fetchQuestions: { page in
        try await client.fetchPage(QuestionAPI.list(page: page), of: QuestionDTO.self)
      },
      fetchQuestion: { id in
        try id.requireNonEmpty(field: "question_id")
        return try await client.fetch(QuestionAPI.question(id), as: QuestionDTO.self)
      },
      fetchAnswers: { questionID, page in
        try questionID.requireNonEmpty(field: "question_id")
        return try await client.fetchPage(
          AnswerAPI.answers(questionID: questionID, page: page), of: AnswerDTO.self)
      },
      submitAnswer: { questionID, content in
        try questionID.requireNonEmpty(field: "question_id")
        let text = try validate { () throws(ValidationError) in
          try Answer.validate(content: content)
        }
        return try await client.fetch(
          AnswerAPI.create(
            questionID: questionID, body: CreateAnswerRequest(content: text),
            idempotencyKey: newIdempotencyKey()),
          as: AnswerDTO.self)
      },
      deleteAnswer: { id in
        try id.requireNonEmpty(field: "answer_id")
        try await client.send(AnswerAPI.delete(id))
      })
  }
}

extension BoardRepository {
  /// Posts, search, comments and likes over `/posts` and `/comments`.
  static func live(client: APIClient) -> BoardRepository {
    BoardRepository(
      fetchPosts: { page in
        try await client.fetchPage(BoardAPI.posts(page: page), of: PostDTO.self)
      },
      searchPosts: { query, page in
        let text = try validate { () throws(ValidationError) in
          try TextRule.search.validate(query)
        }
        return try await client.fetchPage(
          BoardAPI.search(query: text, page: page), of: PostDTO.self)
      },
      fetchPost: { id in
        try id.requireNonEmpty(field: "post_id")
        return try await client.fetch(BoardAPI.post(id), as: PostDTO.self)
      },
      createPost: { draft in
        let draft = try validate { () throws(ValidationError) in try draft.validated() }
        return try await client.fetch(
          BoardAPI.create(CreatePostRequest(draft), idempotencyKey: newIdempotencyKey()),
          as: PostDTO.self)
      },
      deletePost: { id in
        try id.requireNonEmpty(field: "post_id")
        try await client.send(BoardAPI.delete(id))
      },
      setPostLike: { id, isLiked in
        try id.requireNonEmpty(field: "post_id")
        return try await client.fetch(
          isLiked ? BoardAPI.like(id) : BoardAPI.unlike(id), as: LikeStateDTO.self)
      },
      fetchComments: { postID, page in
        try postID.requireNonEmpty(field: "post_id")
        return try await client.fetchPage(
          CommentAPI.comments(postID: postID, page: page), of: CommentDTO.self)
      },
      createComment: { postID, draft in
        try postID.requireNonEmpty(field: "post_id")
        let draft = try validate { () throws(ValidationError) in try draft.validated() }
        return try await client.fetch(
          CommentAPI.create(
            postID: postID, body: CreateCommentRequest(draft), idempotencyKey: newIdempotencyKey()),
          as: CommentDTO.self)
      },
      deleteComment: { id in
        try id.requireNonEmpty(field: "comment_id")
        try await client.send(CommentAPI.delete(id))
      },
      setCommentLike: { id, isLiked in
        try id.requireNonEmpty(field: "comment_id")
        return try await client.fetch(
          isLiked ? CommentAPI.like(id) : CommentAPI.unlike(id), as: LikeStateDTO.self)
      })
  }
}

extension ReportRepository {
  /// Reports over `/reports`.
  static func live(client: APIClient) -> ReportRepository {
    ReportRepository(
      report: { target, reason in
        if target.rawID.isEmpty { throw DomainError.validation(.empty(field: "target")) }
        let reason = try validate { () throws(ValidationError) in try reason.validated() }
        return try await client.fetch(
          ReportAPI.create(
            CreateReportRequest(target: target, reason: reason),
            idempotencyKey: newIdempotencyKey()),
          as: ReportDTO.self)
      },
      fetchMyReports: { page in
        try await client.fetchPage(ReportAPI.mine(page: page), of: ReportDTO.self)
      })
  }
}

extension NotificationRepository {
  /// The inbox over `/notifications`.
  static func live(client: APIClient) -> NotificationRepository {
    NotificationRepository(
      fetchNotifications: { page in
        try await client.fetchPage(NotificationAPI.list(page: page), of: NotificationDTO.self)
      },
      fetchUnreadCount: {
        try await client.fetch(NotificationAPI.unreadCount, as: UnreadCountDTO.self)
      },
      markRead: { id in
        try id.requireNonEmpty(field: "notification_id")
        try await client.send(NotificationAPI.markRead(id))
      },
      markAllRead: {
        try await client.send(NotificationAPI.markAllRead)
      })
  }
}
