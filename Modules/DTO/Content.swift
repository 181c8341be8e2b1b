import Domain
import Foundation

/// `Question`: the question of a day.
public struct QuestionDTO: Codable, Hashable, Sendable, DomainConvertible {
  /// The question's identifier.
  public var id: String
  /// The question text.
  public var content: String
  /// The day it is published, `YYYY-MM-DD`.
  public var publishDate: String
  /// How many answers it has.
  public var answerCount: Int
  /// The signed-in user's answer.
  public var myAnswer: AnswerDTO?

  /// Creates the DTO.
  public init(
    id: String, content: String, publishDate: String, answerCount: Int,
    myAnswer: AnswerDTO? = nil
  ) {
    self.id = id
    self.content = content
    self.publishDate = publishDate
    self.answerCount = answerCount
    self.myAnswer = myAnswer
  }

  /// The wire form of a Domain question.
  public init(_ question: Question) {
    self.init(
      id: question.id.rawValue, content: question.content,
      publishDate: question.publishDate.iso8601, answerCount: question.answerCount,
      myAnswer: question.myAnswer.map(AnswerDTO.init))
  }

  /// The Domain question; `publish_date` must be an existing `YYYY-MM-DD` day.
  public func toDomain() throws(MappingError) -> Question {
    let myAnswer: Answer?
    do { myAnswer = try self.myAnswer?.toDomain() } catch { throw error.nested(in: "my_answer") }
    return Question(
      id: try id.id("id"), content: try content.nonEmpty("content"),
      publishDate: try publishDate.calendarDay("publish_date"),
      answerCount: try answerCount.nonNegative("answer_count"), myAnswer: myAnswer)
  }

  /// Writes every key; absent values are sent as `null`, as the contract requires.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(id, forKey: .id)
    try container.encode(content, forKey: .content)
    try container.encode(publishDate, forKey: .publishDate)
    try container.encode(answerCount, forKey: .answerCount)
    try container.encode(myAnswer, forKey: .myAnswer)
  }

  enum CodingKeys: String, CodingKey {
    case id
    case content
    case publishDate = "publish_date"
    case answerCount = "answer_count"
    case myAnswer = "my_answer"
  }
}

/// `Answer`: an answer to a daily question.
public struct AnswerDTO: Codable, Hashable, Sendable, DomainConvertible {
  /// The answer's identifier.
  public var id: String
  /// The question it answers.
  public var questionId: String
  /// The text.
  public var content: String
  /// The nickname shown with it.
  public var authorNickname: String
  /// Whether the signed-in user wrote it.
  public var isMine: Bool
  /// When it was written.
  public var createdAt: Date

  /// Creates the DTO.
  public init(
    id: String, questionId: String, content: String, authorNickname: String, isMine: Bool,
    createdAt: Date
  ) {
    self.id = id
    self.questionId = questionId
    self.content = content
    self.authorNickname = authorNickname
    self.isMine = isMine
    self.createdAt = createdAt
  }

  /// The wire form of a Domain answer.
  public init(_ answer: Answer) {
    self.init(
      id: answer.id.rawValue, questionId: answer.questionID.rawValue, content: answer.content,
      authorNickname: answer.authorNickname, isMine: answer.isMine, createdAt: answer.createdAt)
  }

  /// The Domain answer.
  public func toDomain() throws(MappingError) -> Answer {
    Answer(
      id: try id.id("id"), questionID: try questionId.id("question_id"),
      content: try content.nonEmpty("content"),
      authorNickname: try authorNickname.nonEmpty("author_nickname"), isMine: isMine,
      createdAt: createdAt)
  }

  enum CodingKeys: String, CodingKey {
    case id
    case questionId = "question_id"
    case content
    case authorNickname = "author_nickname"
    case isMine = "is_mine"
    case createdAt = "created_at"
  }
}

/// `Post`: a bulletin-board post.
public struct PostDTO: Codable, Hashable, Sendable, DomainConvertible {
  /// The post's identifier.
  public var id: String
  /// The text.
  public var content: String
  /// Whether the author's nickname is hidden.
  public var isAnonymous: Bool
  /// The display name: the nickname, or "Anonymous".
  public var authorName: String
  /// Whether the signed-in user wrote it.
  public var isMine: Bool
  /// How many likes it has.
  public var likeCount: Int
  /// Whether the signed-in user liked it.
  public var isLiked: Bool
  /// How many comments it has.
  public var commentCount: Int
  /// When it was posted.
  public var createdAt: Date

  /// Creates the DTO.
  public init(
    id: String, content: String, isAnonymous: Bool, authorName: String, isMine: Bool,
    likeCount: Int, isLiked: Bool, commentCount: Int, createdAt: Date
  ) {
    self.id = id
    self.content = content
    self.isAnonymous = isAnonymous
    self.authorName = authorName
    self.isMine = isMine
    self.likeCount = likeCount
    self.isLiked = isLiked
    self.commentCount = commentCount
    self.createdAt = createdAt
  }

  /// The wire form of a Domain post.
  public init(_ post: BoardPost) {
    self.init(
      id: post.id.rawValue, content: post.content, isAnonymous: post.isAnonymous,
      authorName: post.authorName, isMine: post.isMine, likeCount: post.likeCount,
      isLiked: post.isLiked, commentCount: post.commentCount, createdAt: post.createdAt)
  }

  /// The Domain post; empty strings and negative counts are refused.
  public func toDomain() throws(MappingError) -> BoardPost {
    BoardPost(
      id: try id.id("id"), content: try content.nonEmpty("content"), isAnonymous: isAnonymous,
      authorName: try authorName.nonEmpty("author_name"), isMine: isMine,
      likeCount: try likeCount.nonNegative("like_count"), isLiked: isLiked,
      commentCount: try commentCount.nonNegative("comment_count"), createdAt: createdAt)
  }

  enum CodingKeys: String, CodingKey {
    case id
    case content
    case isAnonymous = "is_anonymous"
    case authorName = "author_name"
    case isMine = "is_mine"
    case likeCount = "like_count"
    case isLiked = "is_liked"
    case commentCount = "comment_count"
    case createdAt = "created_at"
  }
}

/// `Comment`: a comment on a post.
public struct CommentDTO: Codable, Hashable, Sendable, DomainConvertible {
  /// The comment's identifier.
  public var id: String
  /// The post it belongs to.
  public var postId: String
  /// The text.
  public var content: String
  /// Whether the author's nickname is hidden.
  public var isAnonymous: Bool
  /// The nickname, or a per-post label such as "Anonymous 1".
  public var authorName: String
  /// Whether the signed-in user wrote it.
  public var isMine: Bool
  /// How many likes it has.
  public var likeCount: Int
  /// Whether the signed-in user liked it.
  public var isLiked: Bool
  /// When it was written.
  public var createdAt: Date

  /// Creates the DTO.
  public init(
    id: String, postId: String, content: String, isAnonymous: Bool, authorName: String,
    isMine: Bool, likeCount: Int, isLiked: Bool, createdAt: Date
  ) {
    self.id = id
    self.postId = postId
    self.content = content
    self.isAnonymous = isAnonymous
    self.authorName = authorName
    self.isMine = isMine
    self.likeCount = likeCount
    self.isLiked = isLiked
    self.createdAt = createdAt
  }

  /// The wire form of a Domain comment.
  public init(_ comment: Comment) {
    self.init(
      id: comment.id.rawValue, postId: comment.postID.rawValue, content: comment.content,
      isAnonymous: comment.isAnonymous, authorName: comment.authorName, isMine: comment.isMine,
      likeCount: comment.likeCount, isLiked: comment.isLiked, createdAt: comment.createdAt)
  }

  /// The Domain comment; empty strings and negative counts are refused.
  public func toDomain() throws(MappingError) -> Comment {
    Comment(
      id: try id.id("id"), postID: try postId.id("post_id"),
      content: try content.nonEmpty("content"), isAnonymous: isAnonymous,
      authorName: try authorName.nonEmpty("author_name"), isMine: isMine,
      likeCount: try likeCount.nonNegative("like_count"), isLiked: isLiked, createdAt: createdAt)
  }

  enum CodingKeys: String, CodingKey {
    case id
    case postId = "post_id"
    case content
    case isAnonymous = "is_anonymous"
    case authorName = "author_name"
    case isMine = "is_mine"
    case likeCount = "like_count"
    case isLiked = "is_liked"
    case createdAt = "created_at"
  }
}

/// `LikeState`: whether something is liked and by how many.
public struct LikeStateDTO: Codable, Hashable, Sendable, DomainConvertible {
  /// Whether the signed-in user likes it.
  public var liked: Bool
  /// The total number of likes.
  public var likeCount: Int

  /// Creates the DTO.
  public init(liked: Bool, likeCount: Int) {
    self.liked = liked
    self.likeCount = likeCount
  }

  /// The wire form of a Domain like state.
  public init(_ state: LikeState) { self.init(liked: state.isLiked, likeCount: state.likeCount) }

  /// The Domain like state.
  public func toDomain() throws(MappingError) -> LikeState {
    LikeState(isLiked: liked, likeCount: try likeCount.nonNegative("like_count"))
  }

  enum CodingKeys: String, CodingKey {
    case liked
    case likeCount = "like_count"
  }
}
