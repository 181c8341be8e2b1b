import Domain
import Foundation
import LocalServer
import NetworkKit
import Repositories
import RepositoriesLive

/// The scenarios over real HTTP: an in-process `LocalServer` on 127.0.0.1 (random port,
/// in-memory database, no seed, a stopped clock) and one `LiveBackend` per app installation,
/// each with its own in-memory credential store.
final class LiveScenarioBackend: ScenarioBackend {
  let server: QappleServer
  let baseURL: URL
  private let stopped = LockedFlag()

  private init(server: QappleServer, baseURL: URL) {
    self.server = server
    self.baseURL = baseURL
  }

  /// Starts a server; the shared scenarios use no rate limit, no faults and an in-memory
  /// database (the live-only suites set them).
  static func start(
    rateLimit: ServerConfiguration.RateLimit? = nil,
    accessTokenLifetime: Duration = .seconds(15 * 60),
    faults: [FaultRule] = [],
    socketFaults: SocketFaults = SocketFaults(),
    database: ServerConfiguration.Database = .inMemory
  ) async throws -> LiveScenarioBackend {
    let configuration = ServerConfiguration(
      host: "127.0.0.1", port: 0, database: database, seed: .none,
      devMode: !faults.isEmpty || !socketFaults.isEmpty,
      accessTokenLifetime: accessTokenLifetime, rateLimit: rateLimit, logLevel: .critical,
      faults: faults, clock: ServerClock(fixed: scenarioEpoch), realtimeFrameLimit: nil,
      socketFaults: socketFaults)
    let server = try QappleServer(configuration: configuration)
    let baseURL = try await server.start()
    return LiveScenarioBackend(server: server, baseURL: baseURL)
  }

  var kind: BackendKind { .live }

  /// The server's clock: the scenarios move it instead of sleeping.
  var clock: ServerClock { server.clock }

  var today: CalendarDay { CalendarDay(containing: clock.now, in: .seoul) }

  func makeClient() async throws -> RepositorySet {
    makeLiveClient().repositories
  }

  /// A new app installation with everything reachable: its authenticator, session controller
  /// and credential store.
  ///
  /// - Parameters:
  ///   - store: Where its tokens live (a fresh, empty store by default).
  ///   - baseURL: Where it connects (this server by default).
  ///   - now: The client's wall clock (the server's clock by default, so both agree on when a
  ///     token expires).
  ///   - retryClock: Measures the waits between retries (by default they return at once; a
  ///     client with a chat socket needs a real clock for its heartbeat).
  ///   - transport: How it reaches the server (the platform's transport by default).
  func makeLiveClient(
    store: any CredentialStore = RecordingCredentialStore(), baseURL: URL? = nil,
    now: (@Sendable () -> Date)? = nil, retryClock: any Clock<Duration> = ImmediateClock(),
    transport: any HTTPTransport = HTTPTransports.platformDefault
  ) -> LiveBackend {
    let serverClock = clock
    var configuration = LiveConfiguration(
      baseURL: baseURL ?? self.baseURL, credentialStore: store, transport: transport,
      timeout: .seconds(30), clock: retryClock, now: now ?? { serverClock.now })
    configuration.logger.logLevel = .critical
    // The fakes upload analytics only on `flush()`; background uploads of full batches are
    // RepositoriesLive's own policy (its tests cover it) and would make `flush()` counts racy.
    configuration.analytics = AnalyticsOptions(flushPolicy: .manual)
    return LiveBackend(configuration: configuration)
  }

  func lastEmailCode(for email: EmailAddress) async throws -> VerificationCode? {
    try server.engine.lastEmailCode(for: email.rawValue).flatMap(VerificationCode.init(rawValue:))
  }

  func makeAdmin(nickname: String) async throws -> RepositorySet {
    let client = try await makeMember(nickname: nickname)
    try server.engine.promoteToAdmin(nickname: nickname)
    // A fresh sign-in, so the session's user snapshot carries the new role too.
    _ = try await signIn(client, token: nickname, expecting: .admin)
    return client
  }

  func advanceClock(by duration: Duration) {
    clock.advance(by: duration)
  }

  /// Stops the server once (a test may stop it early to go offline).
  func shutdown() async {
    if stopped.set() { await server.stop() }
  }
}

/// An in-memory credential store that counts what the authenticator writes: one save per
/// sign-in and one per token refresh, so a test can tell exactly how many refreshes happened.
actor RecordingCredentialStore: CredentialStore {
  private var stored: Credentials?
  /// Every credential pair saved, oldest first.
  private(set) var saved: [Credentials] = []

  init(_ credentials: Credentials? = nil) {
    stored = credentials
  }

  func credentials() -> Credentials? { stored }

  func save(_ credentials: Credentials) {
    stored = credentials
    saved.append(credentials)
  }

  func clear() {
    stored = nil
  }
}

/// A clock whose sleeps return at once (time jumps to the deadline), so the live client's
/// retry back-off costs nothing in tests while the retry logic itself still runs.
final class ImmediateClock: Clock, @unchecked Sendable {
  /// A point on the clock: the time slept so far.
  struct Instant: InstantProtocol {
    var offset: Duration

    func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
    func duration(to other: Instant) -> Duration { other.offset - offset }
    static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
  }

  // Guarded by `lock`.
  private let lock = NSLock()
  private var current = Instant(offset: .zero)

  var now: Instant { lock.withLock { current } }

  var minimumResolution: Duration { .zero }

  func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    try Task.checkCancellation()
    lock.withLock {
      if current < deadline { current = deadline }
    }
    await Task.yield()
  }
}

/// A flag that is set once; `set()` tells the one caller that set it.
final class LockedFlag: @unchecked Sendable {
  // Guarded by `lock`.
  private let lock = NSLock()
  private var isSet = false

  /// Sets the flag; `true` for the call that set it, `false` if it was set already.
  func set() -> Bool {
    lock.withLock {
      defer { isSet = true }
      return !isSet
    }
  }
}
