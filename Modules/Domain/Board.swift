import Foundation

/// A bulletin-board post.
public struct BoardPost: Identifiable, Hashable, Sendable {
  /// The typed identifier of a post.
  public typealias ID = Identifier<BoardPost>

  /// The name an anonymous post shows for its author ("Anonymous"); anonymous commenters are
  /// numbered (`Comment.anonymousLabel(ordinal:)`).
  public static let anonymousAuthorName = "Anonymous"

  /// The post's identifier.
  public var id: ID
  /// The text, 1-1000 characters.
  public var content: String
  /// Whether the author's nickname is hidden.
  public var isAnonymous: Bool
  /// The name shown: the nickname, or "Anonymous".
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

  /// Creates a post.
  public init(
    id: ID, content: String, isAnonymous: Bool, authorName: String, isMine: Bool,
    likeCount: Int = 0, isLiked: Bool = false, commentCount: Int = 0, createdAt: Date
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

  /// The like state, for optimistic updates.
  public var likeState: LikeState {
    get { LikeState(isLiked: isLiked, likeCount: likeCount) }
    set {
      isLiked = newValue.isLiked
      likeCount = newValue.likeCount
    }
  }

  /// Checks a post draft (1-1000 characters) and returns the text to send.
  public static func validate(content: String) throws(ValidationError) -> String {
    try TextRule.post.validate(content)
  }
}

/// A comment on a post.
public struct Comment: Identifiable, Hashable, Sendable {
  /// The typed identifier of a comment.
  public typealias ID = Identifier<Comment>

  /// The comment's identifier.
  public var id: ID
  /// The post it belongs to.
  public var postID: BoardPost.ID
  /// The text, 1-300 characters.
  public var content: String
  /// Whether the author's nickname is hidden.
  public var isAnonymous: Bool
  /// The nickname, or a per-post stable label such as "Anonymous 1".
  public var authorName: String
  /// Whether the signed-in user wrote it.
  public var isMine: Bool
  /// How many likes it has.
  public var likeCount: Int
  /// Whether the signed-in user liked it.
  public var isLiked: Bool
  /// When it was written.
  public var createdAt: Date

  /// Creates a comment.
  public init(
    id: ID, postID: BoardPost.ID, content: String, isAnonymous: Bool, authorName: String,
    isMine: Bool, likeCount: Int = 0, isLiked: Bool = false, createdAt: Date
  ) {
    self.id = id
    self.postID = postID
    self.content = content
    self.isAnonymous = isAnonymous
    self.authorName = authorName
    self.isMine = isMine
    self.likeCount = likeCount
    self.isLiked = isLiked
    self.createdAt = createdAt
  }

  /// The like state, for optimistic updates.
  public var likeState: LikeState {
    get { LikeState(isLiked: isLiked, likeCount: likeCount) }
    set {
      isLiked = newValue.isLiked
      likeCount = newValue.likeCount
    }
  }

  /// Checks a comment draft (1-300 characters) and returns the text to send.
  public static func validate(content: String) throws(ValidationError) -> String {
    try TextRule.comment.validate(content)
  }

  /// The label of the `ordinal`-th anonymous commenter of a post ("Anonymous 1", ...); the
  /// same person keeps the same label throughout one post.
  public static func anonymousLabel(ordinal: Int) -> String { "Anonymous \(ordinal)" }
}

/// Whether something is liked and by how many.
public struct LikeState: Hashable, Sendable {
  /// Whether the signed-in user likes it.
  public var isLiked: Bool
  /// The total number of likes.
  public var likeCount: Int

  /// Creates a like state.
  public init(isLiked: Bool, likeCount: Int) {
    self.isLiked = isLiked
    self.likeCount = likeCount
  }

  /// The state after the user taps like (or unlike), before the server confirms.
  public func toggled() -> LikeState {
    LikeState(isLiked: !isLiked, likeCount: max(0, likeCount + (isLiked ? -1 : 1)))
  }
}

/// A new post as the user wrote it.
public struct PostDraft: Hashable, Sendable {
  /// The text.
  public var content: String
  /// Whether to hide the nickname.
  public var isAnonymous: Bool

  /// Creates a draft.
  public init(content: String, isAnonymous: Bool = true) {
    self.content = content
    self.isAnonymous = isAnonymous
  }

  /// The draft with its text checked and trimmed.
  public func validated() throws(ValidationError) -> PostDraft {
    PostDraft(content: try BoardPost.validate(content: content), isAnonymous: isAnonymous)
  }
}

/// A new comment as the user wrote it.
public struct CommentDraft: Hashable, Sendable {
  /// The text.
  public var content: String
  /// Whether to hide the nickname.
  public var isAnonymous: Bool

  /// Creates a draft.
  public init(content: String, isAnonymous: Bool = true) {
    self.content = content
    self.isAnonymous = isAnonymous
  }

  /// The draft with its text checked and trimmed.
  public func validated() throws(ValidationError) -> CommentDraft {
    CommentDraft(content: try Comment.validate(content: content), isAnonymous: isAnonymous)
  }
}
