import Domain
import Foundation
import Logging
import ServiceEngine

/// How a ``QappleServer`` runs: where it listens, where it stores data, which rules it bends.
public struct ServerConfiguration: Sendable {
  /// Where the server keeps its SQLite database: `.inMemory` (gone when the server stops) or
  /// `.file(path:)` (WAL mode; data survives restarts; created when missing).
  public typealias Database = ServiceEngine.Configuration.Storage

  /// Which data set an empty database starts with.
  public enum Seed: String, Sendable, Hashable, CaseIterable {
    /// Nothing: no users, no questions.
    case none
    /// A realistic demo community (see ``DemoSeed``), loaded only into an empty database.
    case demo
  }

  /// How many writes one caller may make per window before getting 429 `rate_limited`
  /// (``RateLimiter/Limit/standard`` by default).
  public typealias RateLimit = RateLimiter.Limit

  /// How many frames one WebSocket connection may send per window before it gets
  /// `too_many_frames` and close code 1008 (`nil`: no limit).
  public var realtimeFrameLimit: RateLimit?
  /// How many frames one WebSocket connection may have waiting to be written (live events,
  /// replayed messages and answers to its own frames: its client reads slower than its rooms
  /// talk or than it sends, or not at all) before it gets `slow_consumer` and close 1013; the
  /// frames still waiting are not written (the client catches up after reconnecting), and a
  /// client that takes not even the close is dropped 5 s later.
  public var realtimeBacklog: Int
  /// How many bytes of frames one WebSocket connection may have waiting to be written before
  /// it is cut off as for ``realtimeBacklog``: 64 MiB by default (10,000 chat messages of the
  /// longest text take about 35 MB; answers that echo what the client sent count too).
  public var realtimeBacklogBytes: Int
  /// How long a WebSocket connection may send nothing before the server closes it with 1001
  /// (`nil`: never), on ``clock`` (looked at every second). A live client sends at least its heartbeat's `ping` (every 25 s); a
  /// client gone without closing (a phone that lost its network) is found this way, and its
  /// connection dropped 5 s after the close if it takes not even that. 60 s by default.
  public var realtimeIdleTimeout: Duration?
  /// Faults injected into WebSocket frames (dev mode only).
  public var socketFaults: SocketFaults

  /// The interface to bind, `127.0.0.1` by default (loopback only).
  public var host: String
  /// The port to bind; 0 picks a free port (read it from ``QappleServer/start()``).
  public var port: Int
  /// The address clients reach the server at, which avatar URLs start with; `nil` (the
  /// default): the address it listens on, `http://<host>:<bound port>`. Set it when clients
  /// come through another name (a phone on the LAN, a proxy); a request's `Host` header never
  /// goes into a URL that others load.
  public var publicURL: URL?
  /// Where data lives.
  public var database: Database
  /// What an empty database is filled with.
  public var seed: Seed
  /// Enables fault injection and the `/_dev/*` endpoints; off, `/_dev/*` answers 404.
  public var devMode: Bool
  /// How long an access token works (by default the engine's: 15 minutes).
  public var accessTokenLifetime: Duration
  /// How long an unused refresh token works (by default the engine's: 30 days).
  public var refreshTokenLifetime: Duration
  /// The write rate limit per user (or per address for public writes); `nil` turns it off.
  public var rateLimit: RateLimit?
  /// The largest request body accepted; larger ones get 413 `payload_too_large` (default 1 MiB).
  public var maxBodySize: Int
  /// The log level of the server's logger.
  public var logLevel: Logger.Level
  /// Faults to inject from the start (dev mode only; change them at runtime via `/_dev/faults`).
  public var faults: [FaultRule]
  /// The seed of the random source that decides which requests get a fault, so runs repeat.
  public var faultSeed: UInt64
  /// The server's notion of "now": tokens, bans, rate windows and "today" all read it.
  public var clock: ServerClock

  /// Creates a configuration; every parameter has the development default.
  public init(
    host: String = "127.0.0.1",
    port: Int = 0,
    database: Database = .inMemory,
    seed: Seed = .none,
    devMode: Bool = false,
    accessTokenLifetime: Duration = .seconds(ServiceEngine.Configuration().accessTokenLifetime),
    refreshTokenLifetime: Duration = .seconds(ServiceEngine.Configuration().refreshTokenLifetime),
    rateLimit: RateLimit? = .standard,
    maxBodySize: Int = 1 << 20,
    logLevel: Logger.Level = .info,
    faults: [FaultRule] = [],
    faultSeed: UInt64 = 0x5EED,
    clock: ServerClock = ServerClock(),
    realtimeFrameLimit: RateLimit? = RateLimit(count: 200, window: .seconds(10)),
    socketFaults: SocketFaults = SocketFaults(),
    publicURL: URL? = nil,
    realtimeBacklog: Int = 10_000,
    realtimeBacklogBytes: Int = 64 << 20,
    realtimeIdleTimeout: Duration? = .seconds(60)
  ) {
    self.realtimeBacklog = realtimeBacklog
    self.realtimeBacklogBytes = realtimeBacklogBytes
    self.realtimeIdleTimeout = realtimeIdleTimeout
    self.host = host
    self.port = port
    self.publicURL = publicURL
    self.database = database
    self.seed = seed
    self.devMode = devMode
    self.accessTokenLifetime = accessTokenLifetime
    self.refreshTokenLifetime = refreshTokenLifetime
    self.rateLimit = rateLimit
    self.maxBodySize = maxBodySize
    self.logLevel = logLevel
    self.faults = faults
    self.faultSeed = faultSeed
    self.clock = clock
    self.realtimeFrameLimit = realtimeFrameLimit
    self.socketFaults = socketFaults
  }
}

/// The server's clock: real time plus an offset, or a fixed instant that tests move by hand.
///
/// Every rule that depends on time (token expiry, bans with `until`, rate-limit windows, code
/// expiry, which question is "today") reads ``now``, so a test can jump ahead without sleeping.
public final class ServerClock: Sendable {
  private let state: Locked<(fixed: Date?, offset: TimeInterval)>

  /// A clock that follows the system time.
  public init() { state = Locked((fixed: nil, offset: 0)) }

  /// A clock stopped at `date`; it moves only through ``advance(by:)`` and ``set(to:)``.
  public init(fixed date: Date) { state = Locked((fixed: date, offset: 0)) }

  /// The current instant as the server sees it.
  public var now: Date {
    state.withLock { ($0.fixed ?? Date()).addingTimeInterval($0.offset) }
  }

  /// Moves the clock forward (or backward, with a negative duration).
  public func advance(by duration: Duration) {
    let seconds = duration.timeInterval
    state.withLock { $0.offset += seconds }
  }

  /// Jumps to `date` and stops there.
  public func set(to date: Date) {
    state.withLock { $0 = (fixed: date, offset: 0) }
  }
}
