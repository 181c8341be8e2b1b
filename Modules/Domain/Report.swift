import Foundation

/// Anything a user can report. One type for answers, posts, comments, chat messages and users,
/// so one report screen serves them all (it replaces the source app's `DataType`).
public enum ReportTarget: Hashable, Sendable, CustomStringConvertible {
  /// An answer to a daily question.
  case answer(Answer.ID)
  /// A bulletin-board post.
  case post(BoardPost.ID)
  /// A comment on a post.
  case comment(Comment.ID)
  /// A chat message.
  case chatMessage(ChatMessage.ID)
  /// A user (e.g. from their profile or a DM).
  case user(User.ID)

  /// The kind of target, as named on the wire.
  public enum Kind: String, CaseIterable, Hashable, Sendable {
    /// `answer`
    case answer
    /// `post`
    case post
    /// `comment`
    case comment
    /// `chat_message`
    case chatMessage = "chat_message"
    /// `user`
    case user
  }

  /// Rebuilds a target from its wire kind and identifier.
  public init(kind: Kind, id: String) {
    switch kind {
    case .answer: self = .answer(.init(id))
    case .post: self = .post(.init(id))
    case .comment: self = .comment(.init(id))
    case .chatMessage: self = .chatMessage(.init(id))
    case .user: self = .user(.init(id))
    }
  }

  /// The kind of target.
  public var kind: Kind {
    switch self {
    case .answer: .answer
    case .post: .post
    case .comment: .comment
    case .chatMessage: .chatMessage
    case .user: .user
    }
  }

  /// The identifier text of the target.
  public var rawID: String {
    switch self {
    case .answer(let id): id.rawValue
    case .post(let id): id.rawValue
    case .comment(let id): id.rawValue
    case .chatMessage(let id): id.rawValue
    case .user(let id): id.rawValue
    }
  }

  /// `kind:id`, e.g. `post:p_12`.
  public var description: String { "\(kind.rawValue):\(rawID)" }
}

/// Why something is reported.
public enum ReportReason: Hashable, Sendable, CustomStringConvertible {
  /// Advertising or repeated junk.
  case spam
  /// Insults, harassment or hate.
  case abuse
  /// Sexual or obscene content.
  case obscene
  /// Someone's personal information.
  case privacy
  /// Pretending to be someone else.
  case impersonation
  /// Illegal content.
  case illegal
  /// Anything else, explained in 1-500 characters.
  case other(String)

  /// The wire codes of the reasons.
  public enum Code: String, CaseIterable, Hashable, Sendable {
    /// `spam`
    case spam
    /// `abuse`
    case abuse
    /// `obscene`
    case obscene
    /// `privacy`
    case privacy
    /// `impersonation`
    case impersonation
    /// `illegal`
    case illegal
    /// `other`
    case other
  }

  /// The reasons offered on the report screen, in display order (other last, with empty text).
  public static let choices: [ReportReason] = [
    .spam, .abuse, .obscene, .privacy, .impersonation, .illegal, .other(""),
  ]

  /// A reason from its wire code and detail text: the one rule for a report's text. `other`
  /// needs its explanation (1-500 characters, trimmed); the other codes take none (blank counts
  /// as none), and text sent with them is refused rather than dropped unseen
  /// (`invalidFormat(field: "detail")`).
  public init(code: Code, detail: String?) throws(ValidationError) {
    if code != .other, detail?.trimmedOrNil != nil {
      throw .invalidFormat(
        field: TextRule.reportDetail.field,
        expected: "left out: only the reason other takes an explanation")
    }
    switch code {
    case .spam: self = .spam
    case .abuse: self = .abuse
    case .obscene: self = .obscene
    case .privacy: self = .privacy
    case .impersonation: self = .impersonation
    case .illegal: self = .illegal
    case .other: self = .other(try TextRule.reportDetail.validate(detail ?? ""))
    }
  }

  /// The wire code.
  public var code: Code {
    switch self {
    case .spam: .spam
    case .abuse: .abuse
    case .obscene: .obscene
    case .privacy: .privacy
    case .impersonation: .impersonation
    case .illegal: .illegal
    case .other: .other
    }
  }

  /// The free text of `.other`, else `nil`.
  public var detail: String? {
    if case .other(let text) = self { return text }
    return nil
  }

  /// The reason with its text checked: `.other` needs 1-500 characters.
  public func validated() throws(ValidationError) -> ReportReason {
    try ReportReason(code: code, detail: detail)
  }

  /// A short English title for menus.
  public var title: String {
    switch self {
    case .spam: "Spam or advertising"
    case .abuse: "Abuse or harassment"
    case .obscene: "Obscene content"
    case .privacy: "Exposes personal information"
    case .impersonation: "Impersonation"
    case .illegal: "Illegal content"
    case .other: "Something else"
    }
  }

  /// The wire code.
  public var description: String { code.rawValue }
}

/// Where a report stands.
public enum ReportStatus: String, Hashable, Sendable, CaseIterable {
  /// Waiting for a moderator.
  case open
  /// A moderator decided.
  case resolved
}

/// A report the signed-in user filed.
public struct Report: Identifiable, Hashable, Sendable {
  /// The typed identifier of a report.
  public typealias ID = Identifier<Report>

  /// The report's identifier.
  public var id: ID
  /// What was reported.
  public var target: ReportTarget
  /// Why.
  public var reason: ReportReason
  /// Open or resolved.
  public var status: ReportStatus
  /// When it was filed.
  public var createdAt: Date

  /// Creates a report.
  public init(
    id: ID, target: ReportTarget, reason: ReportReason, status: ReportStatus, createdAt: Date
  ) {
    self.id = id
    self.target = target
    self.reason = reason
    self.status = status
    self.createdAt = createdAt
  }
}
