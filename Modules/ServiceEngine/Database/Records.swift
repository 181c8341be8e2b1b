import Domain
import Foundation
import GRDB

// Plain record structs, one per table the server writes through GRDB's persistence methods.
// Columns are snake_case; the records map them with GRDB's snake_case coding strategies.
// Reads that join or count use SQL and `Row` in the services instead.

/// Shared GRDB settings of the records.
protocol ServerRecord: Codable, FetchableRecord, MutablePersistableRecord {}

extension ServerRecord {
  static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy {
    .convertFromSnakeCase
  }
  static var databaseColumnEncodingStrategy: DatabaseColumnEncodingStrategy { .convertToSnakeCase }
}

/// A record whose primary key is SQLite's auto-incremented row id.
protocol RowIDRecord: ServerRecord {
  /// The row id; `nil` until the record is inserted.
  var id: Int64? { get set }
}

extension RowIDRecord {
  /// Keeps the row id SQLite assigned.
  mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
  /// The row id of an inserted record.
  var key: Int64 { id ?? 0 }
}

/// A row of `user`.
struct UserRecord: RowIDRecord, Sendable {
  static let databaseTableName = "user"
  static let withdrawnName = "(withdrawn)"

  var id: Int64?
  var nickname: String
  var nicknameKey: String?
  var role: UserRole
  var cohort: String?
  var joinedAt: Int64
  /// The uploaded picture's path, `/avatars/<user id>?v=<time>` (`Users.user` makes the URL).
  var avatarUrl: String?
  var providerKey: String?
  var email: String?
  var termsVersion: String?
  var banned: Bool
  var bannedUntil: Int64?
  var banReason: String?
  var withdrawnAt: Int64?

  var isAdmin: Bool { role.isAdmin }
  var isWithdrawn: Bool { withdrawnAt != nil }
  /// The name shown on the user's content: the nickname, or "(withdrawn)".
  var displayName: String { isWithdrawn ? Self.withdrawnName : nickname }

  /// Whether the ban (if any) is still running at `now` (``Viewer/isBanned(at:)``).
  func isBanned(at now: Date) -> Bool { Viewer(self).isBanned(at: now) }
}

/// A row of `sign_up`: a provider account on its way to an account.
struct SignUpRecord: ServerRecord, Sendable {
  static let databaseTableName = "sign_up"

  var token: String
  var providerKey: String
  var createdAt: Int64
  var expiresAt: Int64
  var email: String?
  var code: String?
  var codeExpiresAt: Int64?
  var attempts: Int
  var verificationToken: String?
  var verifiedEmail: String?
}

/// What an `auth_token` row is.
enum TokenKind: String, Codable, Sendable, DatabaseValueConvertible {
  case access, refresh
}

/// What a `chat_room` row is.
enum RoomKind: String, Codable, Sendable, DatabaseValueConvertible {
  case group, direct
}

/// A row of `auth_token`: an access or refresh token.
struct AuthTokenRecord: ServerRecord, Sendable {
  static let databaseTableName = "auth_token"

  var token: String
  var kind: TokenKind
  var userId: Int64
  var family: String
  var createdAt: Int64
  var expiresAt: Int64
  var revokedAt: Int64?
  /// For a refresh token: the access token issued with it.
  var pairedWith: String?
  /// For a spent refresh token: the refresh token issued in its place.
  var replacedBy: String?
  /// For an access token: when it was first presented.
  var usedAt: Int64?
}

/// A row of `question`.
struct QuestionRecord: RowIDRecord, Sendable {
  static let databaseTableName = "question"

  var id: Int64?
  var content: String
  var publishDate: String
  var createdAt: Int64

}

/// A row of `answer`.
struct AnswerRecord: RowIDRecord, Sendable {
  static let databaseTableName = "answer"

  var id: Int64?
  var questionId: Int64
  var authorId: Int64
  var content: String
  var createdAt: Int64
  var hidden: Bool = false
  var deletedAt: Int64?

}

/// A row of `post`.
struct PostRecord: RowIDRecord, Sendable {
  static let databaseTableName = "post"

  var id: Int64?
  var authorId: Int64
  var content: String
  var isAnonymous: Bool
  var createdAt: Int64
  var hidden: Bool = false
  var deletedAt: Int64?

}

/// A row of `comment`.
struct CommentRecord: RowIDRecord, Sendable {
  static let databaseTableName = "comment"

  var id: Int64?
  var postId: Int64
  var authorId: Int64
  var content: String
  var isAnonymous: Bool
  var createdAt: Int64
  var hidden: Bool = false
  var deletedAt: Int64?

}

/// A row of `report_case`: every report of one target.
struct ReportCaseRecord: RowIDRecord, Sendable {
  static let databaseTableName = "report_case"

  var id: Int64?
  var targetType: ReportTarget.Kind
  var targetId: String
  var authorId: Int64?
  var status: ReportStatus
  var resolution: ReportResolution?
  var note: String?
  var firstReportedAt: Int64
  var lastReportedAt: Int64
  var resolvedAt: Int64?
  /// When the case was opened: its first report, or the report that reopened it.
  var openedAt: Int64

}

/// A row of `report`.
struct ReportRecord: RowIDRecord, Sendable {
  static let databaseTableName = "report"

  var id: Int64?
  var caseId: Int64
  var reporterId: Int64
  var targetType: ReportTarget.Kind
  var targetId: String
  var reason: ReportReason.Code
  var detail: String?
  var status: ReportStatus
  var createdAt: Int64

}

/// A row of `notification`.
struct NotificationRecord: RowIDRecord, Sendable {
  static let databaseTableName = "notification"

  var id: Int64?
  var userId: Int64
  var kind: NotificationKind.Code
  var message: String
  var isRead: Bool = false
  var createdAt: Int64
  var postId: String?
  var commentId: String?
  var questionId: String?
  var groupId: String?
  var roomId: String?
  var actorId: Int64?

}

/// A row of `study_group`.
struct GroupRecord: RowIDRecord, Sendable {
  static let databaseTableName = "study_group"

  var id: Int64?
  var name: String
  var description: String
  var ownerId: Int64
  var createdAt: Int64

}

/// A row of `chat_room`.
struct RoomRecord: RowIDRecord, Sendable {
  static let databaseTableName = "chat_room"

  var id: Int64?
  var kind: RoomKind
  var groupId: Int64?
  var userA: Int64?
  var userB: Int64?
  var createdAt: Int64
  var lastSeq: Int64 = 0

}

extension RoomRecord {
  /// Reads the columns by name: every chat send and read loads its room, and GRDB's `Decodable`
  /// path (with the snake_case key conversion) was most of that load's time in P6.
  init(row: Row) throws {
    id = try row.decode(forColumn: "id")
    kind = try row.decode(forColumn: "kind")
    groupId = try row.decode(forColumn: "group_id")
    userA = try row.decode(forColumn: "user_a")
    userB = try row.decode(forColumn: "user_b")
    createdAt = try row.decode(forColumn: "created_at")
    lastSeq = try row.decode(forColumn: "last_seq")
  }
}

/// A row of `chat_message`.
struct MessageRecord: RowIDRecord, Sendable {
  static let databaseTableName = "chat_message"

  var id: Int64?
  var roomId: Int64
  var seq: Int64
  var clientMessageId: String
  var senderId: Int64
  var text: String
  var createdAt: Int64
  var hidden: Bool = false

}

extension MessageRecord {
  /// Reads the columns by name (see ``RoomRecord/init(row:)``): replays and history pages load
  /// many messages at once.
  init(row: Row) throws {
    id = try row.decode(forColumn: "id")
    roomId = try row.decode(forColumn: "room_id")
    seq = try row.decode(forColumn: "seq")
    clientMessageId = try row.decode(forColumn: "client_message_id")
    senderId = try row.decode(forColumn: "sender_id")
    text = try row.decode(forColumn: "text")
    createdAt = try row.decode(forColumn: "created_at")
    hidden = try row.decode(forColumn: "hidden")
  }
}
