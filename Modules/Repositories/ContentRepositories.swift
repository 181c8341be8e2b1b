import Dependencies
import DependenciesMacros
import Domain
import Foundation

/// Today's question, past questions and their anonymous answers.
@DependencyClient
public struct QuestionRepository: Sendable {
  /// The question of the day, with the user's answer if any.
  public var fetchToday: @Sendable () async throws -> Question
  /// Past questions, newest first.
  public var fetchQuestions: @Sendable (_ page: PageRequest) async throws -> Page<Question>
  /// One question.
  public var fetchQuestion: @Sendable (_ id: Question.ID) async throws -> Question
  /// Others' answers; throws `DomainError.answerRequired` until the user answered.
  public var fetchAnswers:
    @Sendable (_ of: Question.ID, _ page: PageRequest) async throws -> Page<Answer>
  /// Answers a question (1-250 characters, once per question).
  public var submitAnswer: @Sendable (_ to: Question.ID, _ content: String) async throws -> Answer
  /// Deletes one's own answer.
  public var deleteAnswer: @Sendable (_ id: Answer.ID) async throws -> Void
}

/// The bulletin board: posts, search, comments and likes.
@DependencyClient
public struct BoardRepository: Sendable {
  /// Posts, newest first.
  public var fetchPosts: @Sendable (_ page: PageRequest) async throws -> Page<BoardPost>
  /// Posts whose text contains the query.
  public var searchPosts:
    @Sendable (_ query: String, _ page: PageRequest) async throws -> Page<BoardPost>
  /// One post.
  public var fetchPost: @Sendable (_ id: BoardPost.ID) async throws -> BoardPost
  /// Publishes a post.
  public var createPost: @Sendable (_ draft: PostDraft) async throws -> BoardPost
  /// Deletes one's own post.
  public var deletePost: @Sendable (_ id: BoardPost.ID) async throws -> Void
  /// Likes (`true`) or unlikes (`false`) a post; returns the new state.
  public var setPostLike: @Sendable (_ id: BoardPost.ID, _ isLiked: Bool) async throws -> LikeState
  /// Comments of a post, oldest first.
  public var fetchComments:
    @Sendable (_ of: BoardPost.ID, _ page: PageRequest) async throws -> Page<Comment>
  /// Comments on a post.
  public var createComment:
    @Sendable (_ on: BoardPost.ID, _ draft: CommentDraft) async throws -> Comment
  /// Deletes one's own comment.
  public var deleteComment: @Sendable (_ id: Comment.ID) async throws -> Void
  /// Likes or unlikes a comment; returns the new state.
  public var setCommentLike: @Sendable (_ id: Comment.ID, _ isLiked: Bool) async throws -> LikeState
}

/// Reporting anything reportable, through one ``Domain/ReportTarget``.
@DependencyClient
public struct ReportRepository: Sendable {
  /// Files a report; a second report of the same target throws `DomainError.alreadyReported`.
  public var report:
    @Sendable (_ target: ReportTarget, _ reason: ReportReason) async throws -> Report
  /// The reports the user filed, newest first.
  public var fetchMyReports: @Sendable (_ page: PageRequest) async throws -> Page<Report>
}

/// The notification inbox.
@DependencyClient
public struct NotificationRepository: Sendable {
  /// Notifications, newest first.
  public var fetchNotifications:
    @Sendable (_ page: PageRequest) async throws -> Page<AppNotification>
  /// How many are unread.
  public var fetchUnreadCount: @Sendable () async throws -> Int
  /// Marks one as read.
  public var markRead: @Sendable (_ id: AppNotification.ID) async throws -> Void
  /// Marks all as read.
  public var markAllRead: @Sendable () async throws -> Void
}

/// Product analytics: events are buffered and uploaded in batches.
@DependencyClient
public struct AnalyticsRepository: Sendable {
  /// Records an event; it is uploaded with the next batch.
  public var track: @Sendable (_ event: AnalyticsEvent) async -> Void
  /// Uploads what is buffered; returns how many events the server accepted.
  public var flush: @Sendable () async throws -> Int
}
