import Domain
import Foundation

// The fake backend's tables. Records hold author ids; the views built from them (`BoardPost`,
// `Answer`, ...) expose only what the server would expose to a given viewer.

/// An account, with its provider key and ban.
struct UserRecord: Sendable {
  struct Ban: Sendable {
    var reason: String
    var until: Date?
  }

  var id: User.ID
  var nickname: String
  var role: UserRole
  var cohort: String?
  var joinedAt: Date
  var avatarURL: URL?
  var avatarData: Data?
  var providerKey: String?
  var email: String?
  var ban: Ban?
  var order: Int

  /// Whether the ban is in force at `now` (a ban with `until` ends by itself).
  func isBanned(at now: Date) -> Bool {
    guard let ban else { return false }
    guard let until = ban.until else { return true }
    return until > now
  }
}

/// A signed-in session: one access token and its refresh token.
struct SessionRecord: Sendable {
  var userID: User.ID
  var accessToken: String
  var refreshToken: String
  var expiresAt: Date
}

/// One `FakeClient`: its tokens, its session state and its analytics buffer.
struct ClientRecord: Sendable {
  var accessToken: String?
  var state: SessionState = .signedOut
  var analyticsBuffer: [AnalyticsEvent] = []
}

/// A provider account waiting for sign-up.
struct SignUpRecord: Sendable {
  var providerKey: String
  var expiresAt: Date
}

/// A code sent to an email address during sign-up.
struct EmailCodeRecord: Sendable {
  var code: String
  var signUpToken: String
  var email: String
  var expiresAt: Date
  var failedAttempts = 0
  var isUsed = false
}

/// Proof that an address was verified for a sign-up token.
struct VerificationRecord: Sendable {
  var signUpToken: String
  var email: String
}

struct QuestionRecord: Sendable {
  var id: Question.ID
  var content: String
  var publishDate: CalendarDay
  var createdAt: Date
  var order: Int
}

struct AnswerRecord: Sendable {
  var id: Answer.ID
  var questionID: Question.ID
  var authorID: User.ID
  var content: String
  var createdAt: Date
  var order: Int
  var isHidden = false
}

struct PostRecord: Sendable {
  var id: BoardPost.ID
  var authorID: User.ID
  var content: String
  var isAnonymous: Bool
  var createdAt: Date
  var order: Int
  var likes: Set<User.ID> = []
  var isHidden = false
  /// "Anonymous N" numbers of this post's anonymous commenters, in order of first comment.
  var anonymousOrdinals: [User.ID: Int] = [:]
}

struct CommentRecord: Sendable {
  var id: Comment.ID
  var postID: BoardPost.ID
  var authorID: User.ID
  var content: String
  var isAnonymous: Bool
  var createdAt: Date
  var order: Int
  var likes: Set<User.ID> = []
  var isHidden = false
}

struct ReportRecord: Sendable {
  var id: Report.ID
  var reporterID: User.ID
  var target: ReportTarget
  var reason: ReportReason
  var status: ReportStatus
  var createdAt: Date
  var caseID: ReportCase.ID
  var order: Int
}

struct CaseRecord: Sendable {
  var id: ReportCase.ID
  var target: ReportTarget
  var status: ReportStatus = .open
  var resolution: ReportResolution?
  var firstReportedAt: Date
  var lastReportedAt: Date
  /// The reported text when the first report came in, kept if the content is deleted.
  var excerpt: String?
  var authorID: User.ID?
  var order: Int
}

struct NotificationRecord: Sendable {
  var id: AppNotification.ID
  var recipientID: User.ID
  var kind: NotificationKind
  var message: String
  var isRead = false
  var createdAt: Date
  var order: Int
}

struct GroupRecord: Sendable {
  var id: StudyGroup.ID
  var name: String
  var description: String
  var ownerID: User.ID
  var createdAt: Date
  var order: Int
  var roomID: ChatRoom.ID
  /// Members with the time they joined, the owner included.
  var members: [User.ID: (joinedAt: Date, order: Int)] = [:]
}

struct RoomRecord: Sendable {
  enum Kind: Sendable {
    case group(StudyGroup.ID)
    case direct(User.ID, User.ID)
  }

  var id: ChatRoom.ID
  var kind: Kind
  var createdAt: Date
  var order: Int
  var lastSeq: Int64 = 0
  var readSeq: [User.ID: Int64] = [:]
  var messages: [MessageRecord] = []

}

struct MessageRecord: Sendable {
  var id: ChatMessage.ID
  var roomID: ChatRoom.ID
  var seq: Int64
  var clientMessageID: UUID
  var senderID: User.ID
  var text: String
  var createdAt: Date
  var isHidden = false
}

/// An analytics event as the fake backend received it.
public struct RecordedAnalyticsEvent: Hashable, Sendable {
  /// The signed-in user who uploaded it.
  public var userID: User.ID
  /// The event.
  public var event: AnalyticsEvent

  /// Creates a recorded event.
  public init(userID: User.ID, event: AnalyticsEvent) {
    self.userID = userID
    self.event = event
  }
}
