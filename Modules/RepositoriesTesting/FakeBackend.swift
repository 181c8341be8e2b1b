import Domain
import Foundation
import Repositories
import ServiceEngine

/// The Qapple service in memory, for tests, previews and demos: the same `ServiceEngine` the
/// local server runs, on an in-memory database, behind the repository interfaces (no HTTP).
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
/// Only transport is simulated here: `isOffline`, and a write limit a test can turn on. Every
/// rule is the engine's, so fakes and server cannot drift.
public final class FakeBackend: Sendable {
  /// The engine every fake client runs against.
  public let engine: ServiceEngine
  private let clock: Locked<MovedClock>
  let clients = Locked<[FakeClient.ID: ClientState]>([:])
  private let clientCounter = Locked(0)
  /// The write limiter, when ``rateLimit`` is set.
  private let limiter = Locked<RateLimiter?>(nil)

  /// One app installation's credentials and state.
  struct ClientState {
    var accessToken: String?
    var refreshToken: String?
    var state: SessionState = .signedOut
    /// Tracked events not uploaded yet, under the user signed in when they were tracked
    /// (`nil`: nobody), like the live uploader's queues.
    var analyticsBuffers: [User.ID?: [AnalyticsEvent]] = [:]
    /// `state` now and after every change: the client's `sessionStates` streams.
    let sessionStates = Broadcaster<SessionState>(replaysLatest: true, initial: .signedOut)
  }

  /// A "now" and how far `advance(by:)` moved it.
  private struct MovedClock {
    var base: @Sendable () -> Date
    var offset: TimeInterval = 0

    var now: @Sendable () -> Date {
      { [base, offset] in base().addingTimeInterval(offset) }
    }
  }

  /// Creates an empty backend whose "now" is `now()` (inject a fixed or movable clock for
  /// deterministic tests; "today" is decided in `timeZone`, Seoul like the service).
  public init(
    now: @escaping @Sendable () -> Date = { Date() }, timeZone: TimeZone = .seoul
  ) {
    let clock = Locked(MovedClock(base: now))
    self.clock = clock
    do {
      engine = try ServiceEngine(
        // Where fake avatar URLs point (nothing serves them).
        configuration: .init(
          storage: .inMemory, timeZone: timeZone,
          publicURL: URL(string: "https://fake.qapple.test")),
        now: { clock.withLock(\.now)() })
    } catch {
      // An in-memory SQLite database only fails to open when the process is out of memory.
      preconditionFailure("FakeBackend could not open its in-memory database: \(error)")
    }
  }

  /// A backend seeded like the local server's demo (an admin, ten members, three weeks of
  /// questions, posts, reports, groups and chat): rich, interactive previews.
  public static func preview(now: @escaping @Sendable () -> Date = { Date() }) -> FakeBackend {
    let backend = FakeBackend(now: now)
    do {
      try DemoSeed.loadIfEmpty(backend.engine)
    } catch {
      preconditionFailure("The demo seed failed on an empty database: \(error)")
    }
    return backend
  }

  // MARK: - Settings

  /// The clock of the backend; replace it to move time.
  public var now: @Sendable () -> Date {
    get { clock.withLock(\.now) }
    set { clock.withLock { $0 = MovedClock(base: newValue) } }
  }

  /// Moves the clock forward by `seconds` (or back when negative).
  public func advance(by seconds: TimeInterval) {
    clock.withLock { $0.offset += seconds }
  }

  /// The service's calendar day on the backend's clock.
  public var today: CalendarDay { engine.today }

  /// When `true`, every repository call throws `DomainError.offline` (nothing changes).
  public var isOffline: Bool {
    get { offlineChanges.current ?? false }
    // Compared and published under the broadcaster's lock, so the chat channels see the
    // changes in the order they happened.
    set { offlineChanges.publishIfChanged(newValue) }
  }

  /// `isOffline` now and after every change: the fake chat channels drop and reconnect by it.
  let offlineChanges = Broadcaster<Bool>(replaysLatest: true, initial: false)

  /// A limit on writes per user; `nil` (the default) means unlimited.
  public var rateLimit: FakeRateLimit? {
    get { limiter.withLock { $0?.limit } }
    set { limiter.withLock { $0 = newValue.map(RateLimiter.init) } }
  }

  /// How long an access token lasts (`AuthSession.expiresAt`); fake clients refresh expired
  /// tokens by themselves, like the live ones.
  public var accessTokenLifetime: TimeInterval {
    get { engine.configuration.accessTokenLifetime }
    set { engine.configuration.accessTokenLifetime = newValue }
  }

  // MARK: - Clients

  /// A new signed-out client: one app installation talking to this backend.
  public func makeClient() -> FakeClient {
    let id = clientCounter.withLock { counter in
      counter += 1
      return FakeClient.ID(rawValue: counter)
    }
    clients.withLock { $0[id] = ClientState() }
    return FakeClient(id: id, backend: self)
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

  /// A new client signed in as an existing user (a second device, or a seeded user).
  public func client(signedInAs userID: User.ID) throws -> FakeClient {
    let session = try engine.startSession(for: try engine.viewer(userID))
    let client = makeClient()
    signedIn(client.id, session)
    return client
  }

  /// Creates an account directly (for seeding); its dev sign-in token is the nickname.
  @discardableResult
  public func createUser(
    nickname: String, role: UserRole = .member, cohort: String? = nil
  ) throws -> User {
    try engine.me(as: try engine.createUser(nickname: nickname, role: role, cohort: cohort))
  }

  // MARK: - Looking inside (for tests)

  /// The last sign-up code sent to `email`, as the server's log would show it.
  public func lastEmailCode(for email: EmailAddress) -> VerificationCode? {
    lastEmailCode(for: email.rawValue)
  }

  /// The last sign-up code sent to `email` (a plain string address).
  public func lastEmailCode(for email: String) -> VerificationCode? {
    (try? engine.lastEmailCode(for: email))?.flatMap { VerificationCode(rawValue: $0) }
  }

  /// A user as the service stores them now (ban and counts included), or `nil` after
  /// withdrawal.
  public func user(_ id: User.ID) -> User? {
    try? engine.user(id)
  }

  /// The user with `nickname` (case-insensitive), if any.
  public func user(named nickname: String) -> User? {
    (try? engine.user(named: nickname)) ?? nil
  }

  /// Every analytics event uploaded so far, in upload order.
  public var analyticsEvents: [RecordedAnalyticsEvent] {
    ((try? engine.storedAnalyticsEvents()) ?? []).compactMap { stored in
      guard let userID = stored.userID,
        let event = try? AnalyticsEvent(
          name: stored.event.name, properties: stored.event.properties,
          occurredAt: stored.event.occurredAt, sessionID: stored.event.sessionID)
      else { return nil }
      return RecordedAnalyticsEvent(userID: userID, event: event)
    }
  }

  /// Whether `target` is hidden by moderation (`false` when it does not exist).
  public func isHidden(_ target: ReportTarget) -> Bool {
    (try? engine.isHidden(target)) ?? false
  }

  /// How many `sessionStates` streams of `client` are open.
  public func sessionStreamCount(of client: FakeClient) -> Int {
    clients.withLock { $0[client.id]?.sessionStates.subscriberCount ?? 0 }
  }

  // MARK: - Running calls

  /// Runs one repository call for `client` as the server's pipeline would: offline, the
  /// caller's token (refreshed once when it expired, like the live client), the write limit;
  /// then `body` with the caller. Every other rule is the engine's. Everything thrown is a
  /// `DomainError` (the engine throws nothing else); closures cannot infer typed throws yet.
  ///
  /// - Parameters:
  ///   - user: The user the call belongs to (a chat engine's), or `nil` for whoever is signed
  ///     in: while anyone else is, the call is `signedOut`, as the live client's calls bound to
  ///     a session are, so an engine that outlives its user's session never calls as the next.
  ///   - bucket: The write limit the call counts against; `nil` for a read.
  ///   - adminOnly: Refuses a member (`forbidden`) before the write limit counts the call.
  func perform<Result>(
    _ client: FakeClient.ID, as user: User.ID? = nil, write bucket: RateLimiter.Bucket? = nil,
    adminOnly: Bool = false, _ body: (Viewer) throws -> Result
  ) throws -> Result {
    let limiter = try transportCheck()
    let viewer = try authenticate(client)
    if let user, viewer.id != user { throw DomainError.signedOut }
    if adminOnly { try viewer.requireAdmin() }
    if let bucket, let limiter {
      try limiter.admit(bucket, user: viewer.id, at: engine.now)
    }
    return try body(viewer)
  }

  /// Runs a call that needs no sign-in (sign-in, sign-up, nickname check); writes among them
  /// are limited per client, as the server limits them per address.
  func performPublic<Result>(
    _ client: FakeClient.ID, write isWrite: Bool = true,
    _ body: () throws -> Result
  ) throws -> Result {
    let limiter = try transportCheck()
    if isWrite, let limiter {
      try limiter.admit(.writes, caller: "client:\(client.rawValue)", at: engine.now)
    }
    return try body()
  }

  /// The write check of `viewer`'s new chat messages over the fakes' link, as the server's
  /// socket applies it; `nil` while no limit is set.
  func chatSendLimit(for viewer: Viewer) -> (() throws(DomainError) -> Void)? {
    let engine = engine
    return limiter.withLock { $0 }?.admitting(viewer.id) { engine.now }
  }

  private func transportCheck() throws(DomainError) -> RateLimiter? {
    guard !isOffline else { throw .offline }
    return limiter.withLock { $0 }
  }

  /// The user a client's access token belongs to. An expired token is refreshed once; a
  /// revoked or missing session signs the client out (its stream yields `.signedOut`).
  private func authenticate(_ client: FakeClient.ID) throws(DomainError) -> Viewer {
    let tokens = clients.withLock { ($0[client]?.accessToken, $0[client]?.refreshToken) }
    guard let access = tokens.0 else { throw .signedOut }
    switch try engine.checkAccessToken(access) {
    case .valid(let viewer):
      return viewer
    case .expired:
      if let refresh = tokens.1, let session = try? engine.refresh(refreshToken: refresh) {
        signedIn(client, session)
        return try engine.authenticate(accessToken: session.accessToken)
      }
    case .refused:
      break
    }
    signOut(client)
    throw .signedOut
  }

  // MARK: - Session state

  /// Stores a new session of `client` and publishes `.signedIn`.
  func signedIn(_ client: FakeClient.ID, _ session: AuthSession) {
    update(client) {
      $0.accessToken = session.accessToken
      $0.refreshToken = session.refreshToken
      $0.state = .signedIn(session.user)
    }
  }

  /// Forgets `client`'s credentials and publishes `state`: `.signedOut`, or `.needsSignUp`
  /// with no `.signedOut` flashing between (like the live session controller).
  func signOut(_ client: FakeClient.ID, to state: SessionState = .signedOut) {
    update(client) {
      $0.accessToken = nil
      $0.refreshToken = nil
      $0.state = state
    }
  }

  /// A fresh own profile: replaces the user in `client`'s state only when that state is
  /// signed in as the same user, like the live session controller; returns `user`.
  @discardableResult
  func userUpdated(_ user: User, on client: FakeClient.ID) -> User {
    update(client) {
      guard case .signedIn(let current) = $0.state, current.id == user.id else { return }
      $0.state = .signedIn(user)
    }
    return user
  }

  /// Changes a client's record and publishes its state when it changed.
  func update(_ client: FakeClient.ID, _ change: (inout ClientState) -> Void) {
    clients.withLock { clients in
      var record = clients[client] ?? ClientState()
      let before = record.state
      change(&record)
      clients[client] = record
      // Published under the lock, so streams see states in the order they happened.
      if record.state != before { record.sessionStates.publish(record.state) }
    }
  }

  /// The client's session state now.
  func state(of client: FakeClient.ID) -> SessionState {
    clients.withLock { $0[client]?.state ?? .signedOut }
  }

  /// A stream of `client`'s states that starts with the current one.
  func sessionStates(of client: FakeClient.ID) -> AsyncStream<SessionState> {
    clients.withLock { $0[client, default: ClientState()].sessionStates.subscribe() }
  }
}

/// An analytics event as the backend received it.
public struct RecordedAnalyticsEvent: Hashable, Sendable {
  /// The signed-in user who uploaded it.
  public var userID: User.ID
  /// The event.
  public var event: AnalyticsEvent

  /// Creates a recorded event (an expected value to compare with).
  public init(userID: User.ID, event: AnalyticsEvent) {
    self.userID = userID
    self.event = event
  }
}
