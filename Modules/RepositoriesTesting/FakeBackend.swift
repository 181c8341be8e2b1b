import Domain
import Foundation
import Repositories

/// A stateful in-memory Qapple service that follows the server's rules, for tests and demos.
///
/// Every client made by the backend (`makeClient()`, `signedUpClient(nickname:role:)`) is one
/// person's app: its repositories act as that person against the shared state, so a test can
/// have members and an admin acting on the same posts, reports and rooms.
///
/// ```swift
/// let backend = FakeBackend(now: { Fixtures.now })
/// let alice = try backend.signedUpClient(nickname: "alice")
/// let admin = try backend.signedUpClient(nickname: "moderator", role: .admin)
/// let post = try await alice.board.createPost(PostDraft(content: "Hello"))
/// ```
///
/// Calls are synchronous under one lock, so settings (`isOffline`, `rateLimit`, the clock) take
/// effect immediately and every call sees a consistent state.
public final class FakeBackend: Sendable {
  /// The name shown for the author of content whose account was deleted.
  public static let withdrawnName = "(withdrawn)"

  let state: Locked<BackendState>
  private let clock: Locked<@Sendable () -> Date>
  private let clientCounter = Locked(0)
  let hub: SessionHub

  /// Creates an empty backend whose "now" is `now()` (inject a fixed or movable clock for
  /// deterministic tests; "today" is decided in `timeZone`, Seoul like the service).
  public init(
    now: @escaping @Sendable () -> Date = { Date() }, timeZone: TimeZone = .seoul
  ) {
    let hub = SessionHub()
    self.hub = hub
    var initial = BackendState(hub: hub)
    initial.timeZone = timeZone
    state = Locked(initial)
    clock = Locked(now)
  }

  // MARK: - Settings

  /// The clock of the backend; replace it to move time.
  public var now: @Sendable () -> Date {
    get { clock.withLock { $0 } }
    set { clock.withLock { $0 = newValue } }
  }

  /// Moves the clock forward by `seconds` (or back when negative).
  public func advance(by seconds: TimeInterval) {
    clock.withLock { current in
      let previous = current
      current = { previous().addingTimeInterval(seconds) }
    }
  }

  /// Seoul's calendar day on the backend's clock.
  public var today: CalendarDay {
    let date = now()
    return state.withLock { CalendarDay(containing: date, in: $0.timeZone) }
  }

  /// When `true`, every repository call throws `DomainError.offline` (nothing changes).
  public var isOffline: Bool {
    get { state.withLock { $0.isOffline } }
    set { state.withLock { $0.isOffline = newValue } }
  }

  /// A limit on writes per user; `nil` (the default) means unlimited.
  public var rateLimit: FakeRateLimit? {
    get { state.withLock { $0.rateLimit } }
    set { state.withLock { $0.rateLimit = newValue } }
  }

  /// How long an access token is said to last (`AuthSession.expiresAt`); the fake never
  /// expires tokens itself.
  public var accessTokenLifetime: TimeInterval {
    get { state.withLock { $0.accessTokenLifetime } }
    set { state.withLock { $0.accessTokenLifetime = newValue } }
  }

  // MARK: - Clients

  /// A new signed-out client: one app installation talking to this backend.
  public func makeClient() -> FakeClient {
    let id = clientCounter.withLock { counter in
      counter += 1
      return FakeClient.ID(rawValue: counter)
    }
    state.withLock { $0.clients[id] = ClientRecord() }
    return FakeClient(id: id, backend: self)
  }

  /// The repositories of `client`, acting as whoever it is signed in as.
  public func repositories(for client: FakeClient) -> RepositorySet {
    client.repositories
  }

  /// Creates an account (no email round trip) and returns a client signed in to it.
  ///
  /// The account's dev sign-in token is the nickname, so
  /// `auth.signIn(provider: .dev, token: nickname)` on another client signs in to it too.
  public func signedUpClient(
    nickname: String, role: UserRole = .member, cohort: String? = nil
  ) throws -> FakeClient {
    let user = try createUser(nickname: nickname, role: role, cohort: cohort)
    return try client(signedInAs: user.id)
  }

  /// Several signed-up members at once: `let (a, b) = ...` reads well with `let clients`.
  public func signedUpClients(_ nicknames: String...) throws -> [FakeClient] {
    try nicknames.map { try signedUpClient(nickname: $0) }
  }

  /// A new client signed in as an existing user (a second device, or a seeded user).
  public func client(signedInAs userID: User.ID) throws -> FakeClient {
    let client = makeClient()
    let date = now()
    try state.withLock { (state: inout BackendState) throws(DomainError) in
      state.now = date
      guard state.users[userID] != nil else { throw .notFound }
      _ = state.startSession(for: userID, on: client.id)
    }
    return client
  }

  /// Creates an account directly (for seeding); its dev sign-in token is the nickname.
  @discardableResult
  public func createUser(
    nickname: String, role: UserRole = .member, cohort: String? = nil
  ) throws -> User {
    let date = now()
    return try state.withLock { (state: inout BackendState) throws(DomainError) in
      state.now = date
      let valid = try validating { () throws(ValidationError) in
        try Nickname(validating: nickname)
      }
      guard !state.isNicknameTaken(valid.rawValue) else { throw .nicknameTaken }
      let record = state.insertUser(
        nickname: valid.rawValue, role: role, cohort: try BackendState.validCohort(cohort),
        providerKey: BackendState.providerKey(.dev, nickname))
      return state.userView(record)
    }
  }

  // MARK: - Looking inside (for tests)

  /// The last sign-up code sent to `email`, as the server's log would show it.
  public func lastEmailCode(for email: EmailAddress) -> VerificationCode? {
    state.withLock { state in
      state.lastCodeByEmail[email.rawValue].flatMap(VerificationCode.init(rawValue:))
    }
  }

  /// The last sign-up code sent to `email` (a plain string address).
  public func lastEmailCode(for email: String) -> VerificationCode? {
    guard let address = EmailAddress(rawValue: email) else { return nil }
    return lastEmailCode(for: address)
  }

  /// A user as the server stores them now (ban and counts included), or `nil` after withdrawal.
  public func user(_ id: User.ID) -> User? {
    let date = now()
    return state.withLock { state in
      state.now = date
      return state.users[id].map(state.userView)
    }
  }

  /// The user with `nickname` (case-insensitive), if any.
  public func user(named nickname: String) -> User? {
    let date = now()
    return state.withLock { state in
      state.now = date
      let folded = nickname.lowercased()
      return state.users.values.first { $0.nickname.lowercased() == folded }.map(state.userView)
    }
  }

  /// Every analytics event uploaded so far, in upload order.
  public var analyticsEvents: [RecordedAnalyticsEvent] {
    state.withLock { $0.analyticsEvents }
  }

  /// Whether `target` is hidden by moderation (`false` when it does not exist).
  public func isHidden(_ target: ReportTarget) -> Bool {
    state.withLock { $0.isHidden(target) }
  }

  /// How many `sessionStates` streams of `client` are open.
  public func sessionStreamCount(of client: FakeClient) -> Int {
    hub.subscriberCount(of: client.id)
  }

  // MARK: - Running calls

  /// What a call needs from its caller, like the server's operation table.
  enum Access {
    /// A signed-in user reading (GET): never rate-limited, allowed while banned.
    case read
    /// A signed-in user changing something the server does not block for banned users
    /// (leaving a group, read cursors, withdrawal, analytics): rate-limited.
    case action
    /// A signed-in user writing content: rate-limited, refused while banned.
    case write
    /// An admin reading.
    case adminRead
    /// An admin writing: rate-limited.
    case adminWrite
  }

  /// Runs one repository call for `client` under the lock, in the server's order: offline,
  /// clock, authentication, admin role, rate limit, ban; then `body` with the caller's id.
  func perform<Result>(
    _ client: FakeClient.ID, _ access: Access,
    _ body: (inout BackendState, User.ID) throws -> Result
  ) throws -> Result {
    let date = now()
    return try state.withLock { state in
      guard !state.isOffline else { throw DomainError.offline }
      state.now = date
      let userID = try state.authenticate(client)
      if access == .adminRead || access == .adminWrite { try state.checkAdmin(userID) }
      if access != .read && access != .adminRead { try state.admitWrite(by: "user:\(userID)") }
      if access == .write, state.users[userID]?.isBanned(at: date) == true {
        throw DomainError.banned
      }
      return try body(&state, userID)
    }
  }

  /// Runs a call that needs no sign-in (sign-in, sign-up, nickname check); writes among them
  /// are rate-limited per client, as the server limits them per address.
  ///
  /// Bodies throw only `DomainError`; the signature is untyped because closures cannot yet
  /// infer a typed `throws` from context.
  func performPublic<Result>(
    _ client: FakeClient.ID, isWrite: Bool = true, _ body: (inout BackendState) throws -> Result
  ) throws -> Result {
    let date = now()
    return try state.withLock { state in
      guard !state.isOffline else { throw DomainError.offline }
      state.now = date
      if isWrite { try state.admitWrite(by: "client:\(client.rawValue)") }
      return try body(&state)
    }
  }
}

extension BackendState {
  /// The user a client's access token belongs to; a revoked or missing session signs the
  /// client out (its stream yields `.signedOut`) and throws `DomainError.signedOut`.
  mutating func authenticate(_ client: FakeClient.ID) throws(DomainError) -> User.ID {
    if let token = clients[client]?.accessToken, let session = sessions[token],
      users[session.userID] != nil
    {
      return session.userID
    }
    if clients[client]?.accessToken != nil {
      clients[client]?.accessToken = nil
      setState(.signedOut, of: client)
    }
    throw .signedOut
  }

  /// Applies the optional rate limit to one write of `key` (a user or an anonymous client):
  /// a sliding window; the refusal says when the oldest write leaves it, in whole seconds.
  mutating func admitWrite(by key: String) throws(DomainError) {
    guard let rateLimit else { return }
    let window = rateLimit.windowSeconds
    var log = writeLog[key, default: []].filter { now.timeIntervalSince($0) < window && $0 <= now }
    defer { writeLog[key] = log.isEmpty ? nil : log }
    if log.count >= rateLimit.maximumWrites, let oldest = log.first {
      let wait = window - now.timeIntervalSince(oldest)
      throw .rateLimited(retryAfter: .seconds(max(1, Int64(wait.rounded(.up)))))
    }
    log.append(now)
  }

  /// Refuses members on admin routes.
  func checkAdmin(_ userID: User.ID) throws(DomainError) {
    guard users[userID]?.role.isAdmin == true else { throw .forbidden }
  }
}
