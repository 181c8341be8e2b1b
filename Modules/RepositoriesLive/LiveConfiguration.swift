import ChatCore
import Foundation
import Logging
import NetworkKit

/// Everything the live repositories need to talk to a Qapple server.
///
/// Only `baseURL` is required; the defaults suit an app:
/// ```swift
/// let live = LiveBackend(configuration: LiveConfiguration(baseURL: url))
/// ```
public struct LiveConfiguration: Sendable {
  /// The server, e.g. `https://api.qapple.example` or `http://127.0.0.1:8080`.
  public var baseURL: URL
  /// Where the session survives relaunches: by default the Keychain on Apple platforms, a
  /// `0600` file elsewhere, one per server (``defaultCredentialStore(for:)``, chosen for the
  /// `baseURL` given to `init`). A ``SessionStore`` also keeps the user snapshot; a plain `CredentialStore`
  /// (e.g. NetworkKitTesting's `InMemoryCredentialStore` in tests) makes a relaunch ask `GET /me` first.
  public var credentialStore: any CredentialStore
  /// Moves the bytes: AsyncHTTPClient on Linux, URLSession elsewhere.
  public var transport: any HTTPTransport
  /// How long one attempt of a request may take.
  public var timeout: Duration
  /// Receives the SDK's log entries (requests with secrets redacted, session changes,
  /// storage problems, analytics uploads).
  public var logger: Logger
  /// The level of request/response log entries (failures log higher).
  public var networkLogLevel: Logger.Level
  /// When failed requests are retried (only idempotent ones, or writes with an
  /// `Idempotency-Key`).
  public var retryPolicy: RetryPolicy
  /// Waits between retries and measures the token-refresh window.
  public var clock: any Clock<Duration>
  /// The wall-clock time: token expiry, `Retry-After` dates, ban end dates.
  public var now: @Sendable () -> Date
  /// Refresh the access token when it expires within this interval; NetworkKit's
  /// `Authenticator.defaultLeeway` (60 s) by default.
  public var tokenRefreshLeeway: Duration
  /// How analytics events are batched and when they are uploaded.
  public var analytics: AnalyticsOptions
  /// Whether a session restored from its snapshot is followed by `GET /me`.
  public var refreshesProfileOnRestore: Bool
  /// Extra provider plugins (headers, metrics), run after authentication and before logging.
  public var plugins: [any NetworkPlugin]
  /// The chat engine: where it caches each user's rooms and messages, and its socket.
  public var chat: ChatOptions

  /// The platform's store of the session with the server at `baseURL`: the Keychain item or
  /// file whose account is ``PlatformDirectories/serverName(_:)``, so that sessions with two
  /// servers (staging and production) never overwrite or borrow each other's tokens.
  public static func defaultCredentialStore(for baseURL: URL) -> any CredentialStore {
    PlatformCredentialStore.platformDefault(account: PlatformDirectories.serverName(baseURL))
  }

  /// Creates a configuration.
  public init(
    baseURL: URL,
    credentialStore: (any CredentialStore)? = nil,
    transport: any HTTPTransport = HTTPTransports.platformDefault,
    timeout: Duration = .seconds(30),
    logger: Logger = Logger(label: "Qapple"),
    networkLogLevel: Logger.Level = .debug,
    retryPolicy: RetryPolicy = .default,
    clock: any Clock<Duration> = ContinuousClock(),
    now: @escaping @Sendable () -> Date = { Date() },
    tokenRefreshLeeway: Duration = Authenticator.defaultLeeway,
    analytics: AnalyticsOptions = AnalyticsOptions(),
    refreshesProfileOnRestore: Bool = true,
    plugins: [any NetworkPlugin] = [],
    chat: ChatOptions = ChatOptions()
  ) {
    self.baseURL = baseURL
    self.credentialStore = credentialStore ?? Self.defaultCredentialStore(for: baseURL)
    self.transport = transport
    self.timeout = timeout
    self.logger = logger
    self.networkLogLevel = networkLogLevel
    self.retryPolicy = retryPolicy
    self.clock = clock
    self.now = now
    self.tokenRefreshLeeway = tokenRefreshLeeway
    self.analytics = analytics
    self.refreshesProfileOnRestore = refreshesProfileOnRestore
    self.plugins = plugins
    self.chat = chat
  }
}

/// How the live chat engine (`ChatRepository`'s sync endpoints) stores and connects.
public struct ChatOptions: Sendable {
  /// Where each user's rooms, messages, outbox and queued analytics events live. In memory
  /// unless given (tests, previews, tools); `useLive(baseURL:)` gives an app
  /// `ChatStorage.platformDefault(server:)`, so the cache, unsent messages and events not yet
  /// uploaded survive a relaunch.
  public var storage: ChatStorage
  /// Opens the `/realtime` sockets: HummingbirdWSClient on Linux, `URLSessionWebSocketTask`
  /// elsewhere.
  public var transport: any WebSocketTransport
  /// Measures the socket's heartbeat and the engine's backoffs.
  public var clock: any Clock<Duration>

  /// Creates the options.
  public init(
    storage: ChatStorage = .inMemory,
    transport: any WebSocketTransport = WebSocketTransports.platformDefault,
    clock: any Clock<Duration> = ContinuousClock()
  ) {
    self.storage = storage
    self.transport = transport
    self.clock = clock
  }
}
