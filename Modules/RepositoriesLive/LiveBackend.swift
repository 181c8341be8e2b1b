import ChatCore
import DTO
import Dependencies
import Domain
import Endpoints
import Foundation
import Logging
import NetworkKit
import Persistence
import Repositories

/// The live repositories of one server and their shared machinery: one
/// `NetworkProvider` for the server, one ``NetworkKit/Authenticator`` (its refresh calls
/// `AuthAPI.refresh` through a provider without an authenticator, so a refresh can never wait
/// for itself), one ``SessionController`` and one analytics queue.
///
/// Create one per server for the life of the app, then install its ``repositories``:
/// ```swift
/// prepareDependencies { $0.useLive(baseURL: url) }
/// ```
public final class LiveBackend: Sendable {
  /// The configuration it was made with.
  public let configuration: LiveConfiguration
  /// Owns the tokens and refreshes them.
  public let authenticator: Authenticator
  /// Owns the session state stream.
  public let session: SessionController
  /// Every repository, ready to install.
  public let repositories: RepositorySet
  /// Runs the chat engine of the signed-in user behind `ChatRepository`'s sync endpoints.
  public let chat: ChatHost

  let client: APIClient
  let analytics: AnalyticsUploader

  /// Builds the live repositories; restoring the session from the store starts at once.
  public init(configuration: LiveConfiguration) {
    self.configuration = configuration
    let logger = configuration.logger
    let encoder = QappleCoding.makeEncoder()
    let plugins: [any NetworkPlugin] =
      configuration.plugins + [
        LoggingPlugin(logger: logger, level: configuration.networkLogLevel)
      ]
    // Every provider of the backend: one server, transport, plugins, timeout and clock; they
    // differ in the authenticator and the retry policy.
    func makeProvider(
      authenticator: Authenticator?, retryPolicy: RetryPolicy,
      timeout: Duration = configuration.timeout
    ) -> NetworkProvider {
      NetworkProvider(
        baseURL: configuration.baseURL, errorBody: .qappleEnvelope,
        transport: configuration.transport, authenticator: authenticator, plugins: plugins,
        retryPolicy: retryPolicy, timeout: timeout, encoder: encoder,
        clock: configuration.clock, now: configuration.now)
    }

    // The refresh goes through its own provider, without an authenticator (it would wait for
    // itself), on a schedule of its own (``refreshSchedule(retryPolicy:timeout:)``).
    let refresh = Self.refreshSchedule(
      retryPolicy: configuration.retryPolicy, timeout: configuration.timeout)
    let refreshProvider = makeProvider(
      authenticator: nil, retryPolicy: refresh.retryPolicy, timeout: refresh.timeout)
    // The refresh throws NetworkKit's errors as they are: the authenticator tells a rejected
    // refresh token (400/401: sign out) from a transient failure (keep the session) by them.
    let link = SessionLink()
    let authenticator = Authenticator(
      store: configuration.credentialStore, leeway: configuration.tokenRefreshLeeway,
      clock: configuration.clock, now: configuration.now,
      replacement: Self.replacement(in: configuration.credentialStore, link: link)
    ) { refreshToken in
      let route = AuthAPI.refresh(RefreshRequest(refreshToken: refreshToken))
      let response = try await refreshProvider.response(route)
      // Only the tokens are kept, so only they are mapped (the server has rotated the pair).
      let (session, tokens) = try LiveErrorMapping.decodingFailure(as: SessionDTO.self) {
        let session = try DTODecoding.decode(SessionDTO.self, from: response.body)
        return (session, try session.tokens())
      }
      return Credentials(
        accessToken: tokens.access, refreshToken: tokens.refresh, expiresAt: session.expiresAt)
    }

    let provider = makeProvider(
      authenticator: authenticator, retryPolicy: configuration.retryPolicy)
    let onSessionEnded: @Sendable (NetworkError, SessionGeneration?) async -> Void = {
      error, session in
      await link.controller?.sessionEnded(by: error, in: session)
    }
    let client = APIClient(
      provider: provider, logger: logger, now: configuration.now, onSessionEnded: onSessionEnded)
    // Withdrawal is never repeated on its own: a repeat of a withdrawal that went through finds
    // the account's tokens revoked (401), which cannot be told from a session that ended for
    // another reason. Its failure says so instead (e.g. `.timeout`), and the caller decides.
    var withdrawalPolicy = configuration.retryPolicy
    withdrawalPolicy.idempotentMethods.remove(.delete)
    let withdrawalClient = APIClient(
      provider: makeProvider(authenticator: authenticator, retryPolicy: withdrawalPolicy),
      logger: logger, now: configuration.now, onSessionEnded: onSessionEnded)
    let session = SessionController(
      store: configuration.credentialStore, authenticator: authenticator, logger: logger,
      refreshesProfileOnRestore: configuration.refreshesProfileOnRestore, now: configuration.now,
      loadProfile: { try await client.fetch(MeAPI.me, as: UserDTO.self) })
    link.controller = session

    let analytics = AnalyticsUploader(
      options: configuration.analytics, logger: logger,
      currentAccount: { await session.signedInAccount() },
      openStore: { user throws(PersistenceError) in
        try configuration.chat.storage.open(for: user, logger: logger)
      }
    ) { events, key, session in
      try await client.fetch(
        AnalyticsAPI.track(AnalyticsBatchRequest(events), idempotencyKey: key),
        as: AnalyticsBatchResultDTO.self, in: session)
    }

    let chatServer = ChatRepository.live(client: client)
    // Each user's engine runs in that user's session only: its socket and its server calls.
    let binding: @Sendable (User.ID) -> SessionBinding = { SessionBinding(user: $0, in: session) }
    let chat = ChatHost(
      ChatHost.Environment(
        sessionStates: { session.states() }, storage: configuration.chat.storage,
        makeChannel: { user in
          SocketChatChannel(
            baseURL: configuration.baseURL, authenticator: authenticator,
            binding: binding(user), logger: logger, transport: configuration.chat.transport,
            clock: configuration.chat.clock)
        },
        server: chatServer,
        options: .live(configuration, clock: configuration.chat.clock),
        makeServer: { user in ChatRepository.live(client: client.bound(to: binding(user))) }))

    self.authenticator = authenticator
    self.session = session
    self.client = client
    self.analytics = analytics
    self.chat = chat
    self.repositories = RepositorySet(
      auth: .live(
        client: client, withdrawalClient: withdrawalClient, session: session,
        authenticator: authenticator,
        forget: { user in
          // A withdrawn account's messages, outbox and queued events leave the device.
          await analytics.forget(user)
          await chat.removeStore(of: user)
        }),
      profile: .live(client: client, session: session),
      questions: .live(client: client),
      board: .live(client: client),
      reports: .live(client: client),
      notifications: .live(client: client),
      studyGroups: .live(client: client),
      chat: .synced(server: chatServer, host: chat),
      analytics: .live(analytics),
      admin: .live(client: client))
    Task { await session.restore() }
  }
}

extension LiveBackend {
  /// A binding of calls to `user`'s session with this backend.
  func binding(for user: User.ID) -> SessionBinding {
    SessionBinding(user: user, in: session)
  }

  /// How a token refresh is retried: like an idempotent request (the server answers a spent
  /// refresh token sent again with the pair it issued for it, as long as that pair is unused,
  /// so a lost answer or a 503 does not fail the refresh), but with every attempt sent within
  /// ``Domain/AuthSession/refreshRetryWindow`` of the first, since a repeat after it is a replay
  /// that ends the session everywhere. Each attempt waits at most 15 s (or `timeout`, if
  /// shorter), a wait between attempts at most 5 s (a longer `Retry-After` is not waited out),
  /// and there are as many attempts as the policy allows and still start within the window,
  /// with a second to spare for the clocks: three with the defaults.
  static func refreshSchedule(
    retryPolicy: RetryPolicy, timeout: Duration
  ) -> (retryPolicy: RetryPolicy, timeout: Duration) {
    var policy = retryPolicy
    policy.idempotentMethods.insert(.post)
    let attemptTimeout = min(timeout, .seconds(15))
    policy.maxDelay = min(policy.maxDelay, .seconds(5))
    // Attempt n (0-based) starts at most n * (attempt + wait) after the first.
    let step = attemptTimeout + policy.maxDelay
    let fitting = step > .zero ? Int((AuthSession.refreshRetryWindow - .seconds(1)) / step) : 0
    policy.maxAttempts = max(1, min(policy.maxAttempts, 1 + fitting))
    return (policy, attemptTimeout)
  }

  /// The authenticator's ``NetworkKit/Authenticator/Replacement``: before a refresh, the pair
  /// `store` now holds when another process sharing it (a second `qapple` command, say)
  /// refreshed the same session or signed in again as the same user, read from the stored
  /// session's user snapshot. A store that is not a ``SessionStore`` (no user to compare), or
  /// one holding another user's session, gives none: the refresh goes ahead as before.
  static func replacement(
    in store: any CredentialStore, link: SessionLink
  ) -> Authenticator.Replacement? {
    guard let store = store as? any SessionStore else { return nil }
    return { current, session in
      guard let account = await link.controller?.knownAccount(), account.session == session,
        let stored = try? await store.storedSession(), stored.user?.id == account.user,
        stored.credentials.refreshToken != current.refreshToken
      else { return nil }
      return stored.credentials
    }
  }
}

/// Lets the API client reach the session controller that is created after it.
final class SessionLink: Sendable {
  private struct Weak { weak var controller: SessionController? }
  /// Set once during `LiveBackend.init`.
  private let stored = Locked(Weak())

  var controller: SessionController? {
    get { stored.withLock(\.controller) }
    set { stored.withLock { $0.controller = newValue } }
  }
}

extension RepositorySet {
  /// The live repositories for `configuration` (see ``LiveBackend``).
  public static func live(configuration: LiveConfiguration) -> RepositorySet {
    LiveBackend(configuration: configuration).repositories
  }
}

extension DependencyValues {
  /// Installs the live repositories of the server at `baseURL`:
  /// `prepareDependencies { $0.useLive(baseURL: url) }`.
  ///
  /// - Parameters:
  ///   - baseURL: The server.
  ///   - credentialStore: Where the session survives relaunches; the platform's store for this
  ///     server (Keychain, or a `0600` file:
  ///     ``LiveConfiguration/defaultCredentialStore(for:)``) unless given.
  ///   - storage: Where each user's chat cache, outbox and analytics queue survive relaunches;
  ///     the platform's folder for app data unless given
  ///     (``ChatCore/ChatStorage/platformDefault(server:service:)``).
  ///   - configure: Changes the rest of the ``LiveConfiguration``.
  /// - Returns: The backend, for access to its session controller and authenticator.
  @discardableResult
  public mutating func useLive(
    baseURL: URL,
    credentialStore: (any CredentialStore)? = nil,
    storage: ChatStorage? = nil,
    configure: (inout LiveConfiguration) -> Void = { _ in }
  ) -> LiveBackend {
    var configuration = LiveConfiguration(
      baseURL: baseURL, credentialStore: credentialStore,
      chat: ChatOptions(storage: storage ?? .platformDefault(server: baseURL)))
    configure(&configuration)
    return useLive(configuration)
  }

  /// Installs the live repositories of `configuration`.
  @discardableResult
  public mutating func useLive(_ configuration: LiveConfiguration) -> LiveBackend {
    let backend = LiveBackend(configuration: configuration)
    install(backend.repositories)
    return backend
  }
}
