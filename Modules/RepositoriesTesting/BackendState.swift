import Domain
import Foundation

/// Everything the fake backend knows, mutated only under its lock.
struct BackendState: Sendable {
  /// Broadcasts session-state changes to the streams of each client.
  let hub: SessionHub

  // Settings.
  var isOffline = false
  var rateLimit: FakeRateLimit?
  var accessTokenLifetime: TimeInterval = 15 * 60
  var timeZone: TimeZone = .seoul

  /// The time of the call being handled.
  var now = Date(timeIntervalSince1970: 0)

  // Tables.
  var users: [User.ID: UserRecord] = [:]
  var sessions: [String: SessionRecord] = [:]
  var clients: [FakeClient.ID: ClientRecord] = [:]
  var signUps: [String: SignUpRecord] = [:]
  var emailCodes: [String: EmailCodeRecord] = [:]
  var lastCodeByEmail: [String: String] = [:]
  var verifications: [String: VerificationRecord] = [:]
  var questions: [Question.ID: QuestionRecord] = [:]
  var answers: [Answer.ID: AnswerRecord] = [:]
  var posts: [BoardPost.ID: PostRecord] = [:]
  var comments: [Comment.ID: CommentRecord] = [:]
  var reports: [Report.ID: ReportRecord] = [:]
  var cases: [ReportCase.ID: CaseRecord] = [:]
  var caseByTarget: [ReportTarget: ReportCase.ID] = [:]
  var notifications: [AppNotification.ID: NotificationRecord] = [:]
  /// Likes that already notified someone (`post:<id>:<user>`), so unlike + like stays quiet.
  var notifiedLikes: Set<String> = []
  var groups: [StudyGroup.ID: GroupRecord] = [:]
  var rooms: [ChatRoom.ID: RoomRecord] = [:]
  var directRooms: [Set<User.ID>: ChatRoom.ID] = [:]
  var analyticsEvents: [RecordedAnalyticsEvent] = []
  /// Write times per user (`user:<id>`) or signed-out client (`client:<n>`), for the optional
  /// rate limiter.
  var writeLog: [String: [Date]] = [:]

  // Counters.
  private var counters: [String: Int] = [:]
  private var orderCounter = 0

  init(hub: SessionHub) {
    self.hub = hub
  }

  // MARK: - Identifiers and ordering

  /// The next identifier with `prefix`, e.g. `p_3`.
  mutating func makeID<Owner>(_ prefix: String) -> Identifier<Owner> {
    counters[prefix, default: 0] += 1
    return Identifier("\(prefix)_\(counters[prefix]!)")
  }

  /// A random-looking opaque token, unique within this backend.
  mutating func makeToken(_ prefix: String) -> String {
    counters["token", default: 0] += 1
    let random = UInt64.random(in: 0...UInt64.max)
    return "\(prefix)_\(counters["token"]!)_\(String(random, radix: 36))"
  }

  /// A strictly increasing number: the tie-breaker of every list order.
  mutating func nextOrder() -> Int {
    orderCounter += 1
    return orderCounter
  }

  /// Seoul's calendar day of the call being handled.
  var today: CalendarDay { CalendarDay(containing: now, in: timeZone) }

  // MARK: - People

  /// The nickname shown for a user, or "(withdrawn)" once the account is gone.
  func nickname(of id: User.ID) -> String {
    users[id]?.nickname ?? FakeBackend.withdrawnName
  }

  /// The short form of a user, kept readable after withdrawal.
  func summary(of id: User.ID) -> UserSummary {
    UserSummary(id: id, nickname: nickname(of: id))
  }

  /// The public `User` of a record.
  func userView(_ record: UserRecord) -> User {
    User(
      id: record.id, nickname: Nickname(trusted: record.nickname), role: record.role,
      cohort: record.cohort, joinedAt: record.joinedAt,
      answerCount: answers.values.count(where: { $0.authorID == record.id }),
      avatarURL: record.avatarURL, isBanned: record.isBanned(at: now))
  }

  /// Whether `nickname` is held by someone other than `except` (case-insensitive).
  func isNicknameTaken(_ nickname: String, except: User.ID? = nil) -> Bool {
    let folded = nickname.lowercased()
    return users.values.contains { $0.nickname.lowercased() == folded && $0.id != except }
  }

  // MARK: - Session state

  /// Changes a client's session state and tells its subscribers; like the live session
  /// controller, a state equal to the current one is not published again.
  mutating func setState(_ state: SessionState, of client: FakeClient.ID) {
    guard clients[client, default: ClientRecord()].state != state else { return }
    clients[client, default: ClientRecord()].state = state
    hub.yield(state, to: client)
  }

  /// A fresh own profile (from `GET /me`, `PATCH /me` or an avatar upload): like the live
  /// session controller, it replaces the user in `client`'s state only when that state is
  /// signed in as the same user and the profile changed.
  mutating func userUpdated(_ user: User, on client: FakeClient.ID) {
    guard case .signedIn(let current) = clients[client]?.state, current.id == user.id else {
      return
    }
    setState(.signedIn(user), of: client)
  }

  /// Revokes every session of `user` (withdrawal): their clients find out on the next call.
  mutating func revokeSessions(of user: User.ID) {
    sessions = sessions.filter { $0.value.userID != user }
  }
}

/// Validation failures of Domain rules become `DomainError.validation`.
func validating<T>(_ body: () throws(ValidationError) -> T) throws(DomainError) -> T {
  do {
    return try body()
  } catch {
    throw .validation(error)
  }
}
