import Domain
import Foundation

/// `Notification`: an inbox entry; which ids are set depends on `kind`.
public struct NotificationDTO: Codable, Hashable, Sendable, DomainConvertible {
  /// The notification's identifier.
  public var id: String
  /// What it is about.
  public var kind: NotificationKindDTO
  /// The text to show.
  public var message: String
  /// Whether the user has seen it.
  public var isRead: Bool
  /// When it was created.
  public var createdAt: Date
  /// The post, for post and comment kinds.
  public var postId: String?
  /// The comment, for comment kinds.
  public var commentId: String?
  /// The question, for `new_question`.
  public var questionId: String?
  /// The group, for `group_invite` (and optionally `group_message`).
  public var groupId: String?
  /// The chat room, for `group_message`.
  public var roomId: String?

  /// Creates the DTO.
  public init(
    id: String, kind: NotificationKindDTO, message: String, isRead: Bool, createdAt: Date,
    postId: String? = nil, commentId: String? = nil, questionId: String? = nil,
    groupId: String? = nil, roomId: String? = nil
  ) {
    self.id = id
    self.kind = kind
    self.message = message
    self.isRead = isRead
    self.createdAt = createdAt
    self.postId = postId
    self.commentId = commentId
    self.questionId = questionId
    self.groupId = groupId
    self.roomId = roomId
  }

  /// The wire form of a Domain notification (a group message's group is not known to Domain).
  public init(_ notification: AppNotification) {
    self.init(
      id: notification.id.rawValue, kind: .reportResolved, message: notification.message,
      isRead: notification.isRead, createdAt: notification.createdAt)
    switch notification.kind {
    case .commentOnMyPost(let post, let comment):
      (kind, postId, commentId) = (.commentOnMyPost, post.rawValue, comment.rawValue)
    case .replyToMyComment(let post, let comment):
      (kind, postId, commentId) = (.replyToMyComment, post.rawValue, comment.rawValue)
    case .likeOnMyPost(let post):
      (kind, postId) = (.likeOnMyPost, post.rawValue)
    case .likeOnMyComment(let post, let comment):
      (kind, postId, commentId) = (.likeOnMyComment, post.rawValue, comment.rawValue)
    case .newQuestion(let question): (kind, questionId) = (.newQuestion, question.rawValue)
    case .groupInvite(let group): (kind, groupId) = (.groupInvite, group.rawValue)
    case .groupMessage(let room): (kind, roomId) = (.groupMessage, room.rawValue)
    case .reportResolved: kind = .reportResolved
    case .unknown(let text): kind = .unknown(text)
    }
  }

  /// The Domain notification. Each known kind must carry the ids it links to (see the
  /// contract); an unknown kind is kept as `NotificationKind.unknown` and needs no ids.
  public func toDomain() throws(MappingError) -> AppNotification {
    let kind: NotificationKind
    switch self.kind {
    case .commentOnMyPost:
      kind = .commentOnMyPost(post: try required(postId, "post_id"), comment: try comment())
    case .replyToMyComment:
      kind = .replyToMyComment(post: try required(postId, "post_id"), comment: try comment())
    case .likeOnMyPost:
      kind = .likeOnMyPost(post: try required(postId, "post_id"))
    case .likeOnMyComment:
      kind = .likeOnMyComment(post: try required(postId, "post_id"), comment: try comment())
    case .newQuestion: kind = .newQuestion(try required(questionId, "question_id"))
    case .groupInvite: kind = .groupInvite(try required(groupId, "group_id"))
    case .groupMessage: kind = .groupMessage(try required(roomId, "room_id"))
    case .reportResolved: kind = .reportResolved
    case .unknown(let text): kind = .unknown(text)
    }
    return AppNotification(
      id: try id.id("id"), kind: kind, message: try message.nonEmpty("message"), isRead: isRead,
      createdAt: createdAt)
  }

  private func comment() throws(MappingError) -> Comment.ID {
    try required(commentId, "comment_id")
  }

  private func required<Owner>(
    _ value: String?, _ field: String
  ) throws(MappingError)
    -> Identifier<Owner>
  {
    guard let value else {
      throw MappingError(
        path: field, problem: .missing(requiredBecause: "kind is \(kind.rawValue)"))
    }
    return try value.id(field)
  }

  /// Writes every key; absent values are sent as `null`, as the contract requires.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(id, forKey: .id)
    try container.encode(kind, forKey: .kind)
    try container.encode(message, forKey: .message)
    try container.encode(isRead, forKey: .isRead)
    try container.encode(createdAt, forKey: .createdAt)
    try container.encode(postId, forKey: .postId)
    try container.encode(commentId, forKey: .commentId)
    try container.encode(questionId, forKey: .questionId)
    try container.encode(groupId, forKey: .groupId)
    try container.encode(roomId, forKey: .roomId)
  }

  enum CodingKeys: String, CodingKey {
    case id
    case kind
    case message
    case isRead = "is_read"
    case createdAt = "created_at"
    case postId = "post_id"
    case commentId = "comment_id"
    case questionId = "question_id"
    case groupId = "group_id"
    case roomId = "room_id"
  }
}

/// `UnreadCount`: how many notifications are unread.
public struct UnreadCountDTO: Codable, Hashable, Sendable, DomainConvertible {
  /// The number of unread notifications.
  public var count: Int

  /// Creates the DTO.
  public init(count: Int) { self.count = count }

  /// The count; a negative one is refused.
  public func toDomain() throws(MappingError) -> Int { try count.nonNegative("count") }

  enum CodingKeys: String, CodingKey {
    case count
  }
}
