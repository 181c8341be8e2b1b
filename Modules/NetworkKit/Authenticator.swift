import Foundation
import Primitives

/// A change of the signed-in state, published by ``Authenticator/events()``.
public enum AuthEvent: Sendable, Hashable {
  /// New credentials were stored by ``Authenticator/signIn(_:)``.
  case signedIn
  /// The access token was refreshed.
  case refreshed
  /// The credentials were cleared.
  case signedOut(SignOutReason)
}

/// Why the user was signed out.
public enum SignOutReason: Sendable, Hashable {
  /// The app called ``Authenticator/signOut()``.
  case requested
  /// The server rejected the refresh token (revoked, expired or unknown).
  case refreshTokenRejected
  /// The server refused the access token even after a refresh (the account was deleted, or
  /// its sessions ended): ``Authenticator/signOut(ifCurrent:reason:)`` with this reason.
  case accessTokenRejected
  /// The app deleted the user's account (the server revoked its tokens):
  /// ``Authenticator/signOut(ifCurrent:reason:)`` with this reason.
  case accountDeleted
}

/// One signed-in session of an ``Authenticator``: every sign-in and sign-out starts a new one,
/// and a token refresh stays in the same one. A request captures it when it takes its first
/// token, so its retries and refreshes can never use another session's token.
public struct SessionGeneration: Sendable, Hashable, CustomStringConvertible {
  let rawValue: Int

  /// `session #<n>`, for logs.
  public var description: String { "session #\(rawValue)" }
}

/// An access token together with the session it belongs to, from
/// ``Authenticator/sessionToken(in:)``. Its description never prints the token.
public struct SessionToken: Sendable, Hashable, CustomStringConvertible,
  CustomDebugStringConvertible
{
  /// The token to send as `Authorization: Bearer <token>`.
  public let accessToken: String
  /// The session the token belongs to.
  public let session: SessionGeneration

  /// The session, without the token.
  public var description: String { "SessionToken(\(session), accessToken: <redacted>)" }
  /// The session, without the token.
  public var debugDescription: String { description }
}

/// Owns the user's credentials and keeps the access token fresh.
///
/// - Injects the access token into requests for `.bearer` targets; without credentials those
///   fail fast with ``NetworkError/notSignedIn``.
/// - Refreshes proactively when the token expires within ``leeway``, unless it arrived that way
///   (the device clock runs ahead of the server's, or the token lives shorter than the leeway):
///   such a token is sent, and refreshed when the server refuses it, not before every request.
/// - After a 401, refreshes once for any number of concurrent requests: they all await the same
///   refresh (single flight) and then retry with the new token.
/// - A refresh the server rejects (400 or 401 by default) clears the credentials and publishes
///   `.signedOut(.refreshTokenRejected)`; transient failures (offline, 5xx) keep the user signed in.
/// - Every request is bound to the session (``SessionGeneration``) it started in: once that
///   session ended (sign-out, or sign-in of someone else), its retries and refreshes fail with
///   ``NetworkError/sessionEnded`` instead of borrowing the new session's token. A refresh only
///   joins a refresh of the same session, a refresh whose session ended reports
///   ``NetworkError/sessionEnded`` (never the old pair), and sign-in and sign-out fail the
///   callers still waiting for a refresh of the old session at once.
/// - At most ``refreshLimit`` refreshes start within ``refreshWindow`` (a sliding window on the
///   injected clock); further attempts fail with ``NetworkError/refreshRateLimited``.
/// - A refreshed pair the store fails to save is used all the same (the server already spent
///   the old refresh token), and saved again before each later token until the store takes it.
/// - Processes that share one store (two command-line tools, an app and its extension) can
///   each hold the same pair. A refresh holds the others' refreshes off while it runs
///   (``CredentialStore/holdRefreshes()``, where the store has a lock), and before it
///   refreshes, the authenticator asks `replacement` for a
///   pair that already replaced its own elsewhere for the same account, and uses that instead
///   of sending the spent refresh token again (which the server takes for a replay, ending the
///   session everywhere). A rejected refresh clears the store only while it still holds this
///   session's pair, not a session signed in meanwhile by another process.
///
/// The refresh itself is supplied by the app, typically a call to its refresh endpoint through a
/// provider. That endpoint must use `AuthorizationRequirement.none`.
public actor Authenticator {
  /// Exchanges a refresh token for new credentials; supplied by the app.
  public typealias Refresh = @Sendable (_ refreshToken: String) async throws -> Credentials

  /// Before a refresh of `session` from `current`: the pair another process sharing the store
  /// already refreshed `current` into for the same account, to use instead of spending
  /// `current`'s refresh token twice; `nil` to refresh. Only the caller can tell the account a
  /// stored pair belongs to (`RepositoriesLive` compares the stored user with the signed-in one).
  public typealias Replacement =
    @Sendable (_ current: Credentials, _ session: SessionGeneration) async -> Credentials?

  /// How long before expiry the token is refreshed proactively.
  public nonisolated let leeway: Duration
  /// The leeway an authenticator starts with: 60 s.
  public static let defaultLeeway: Duration = .seconds(60)
  /// How many refreshes may start within ``refreshWindow``.
  public nonisolated let refreshLimit: Int
  /// The sliding window for ``refreshLimit``.
  public nonisolated let refreshWindow: Duration

  private let store: any CredentialStore
  private let refresh: Refresh
  private let replacement: Replacement?
  private let isRevocation: @Sendable (any Error) -> Bool
  private let now: @Sendable () -> Date
  private let elapsed: @Sendable () -> Duration
  private let broadcaster = Broadcaster<AuthEvent>()

  private var cached: Credentials?
  private var isLoaded = false
  // Bumped on sign-in and sign-out so a refresh that finishes afterwards cannot resurrect or
  // clear the wrong session.
  private var generation = 0
  // The refresh in flight and the session it refreshes; a refresh of an ended session keeps
  // running (its answer is discarded) but is no longer the one new callers join.
  private var inFlight: (generation: Int, task: Task<Void, Never>)?
  // Callers waiting for the in-flight refresh and the session each waits in; each can leave
  // early when its task is cancelled, and all leave when their session ends.
  private var waiters: [UUID: Waiter] = [:]
  private var refreshStarts: [Duration] = []
  // The access token that was already within the leeway by the device clock when it arrived
  // (sign-in or refresh): the clock is not to be trusted for it, only the server's 401.
  private var expiringOnArrival: String?
  // A refreshed pair not saved yet and the refresh token it replaced: it is in use (the server
  // already spent the old refresh token), and saved again before each later token until the
  // store takes it, so the next launch does not start from the spent refresh token.
  private var unsaved: (pair: Credentials, replacing: String)?
  // The session's sign-in could not be saved: an empty store is then this session's to fill,
  // not one another process signed out of.
  private var signInUnsaved = false

  @TaskLocal private static var isRefreshing = false

  /// Creates an authenticator.
  ///
  /// - Parameters:
  ///   - store: Where the credentials persist.
  ///   - leeway: Refresh before sending when the token expires within this interval;
  ///     ``defaultLeeway`` (60 s) by default.
  ///   - refreshLimit: The most refreshes allowed within `refreshWindow`.
  ///   - refreshWindow: The sliding window of the refresh limit.
  ///   - clock: The clock that measures the refresh window.
  ///   - now: The wall-clock time, compared with `Credentials.expiresAt`.
  ///   - isRevocation: Whether an error thrown by `refresh` means the refresh token is dead
  ///     (sign out) rather than a transient failure; by default 400 and 401 answers.
  ///   - replacement: Before each refresh, a pair that replaced the current one in the store
  ///     for the same account (``Replacement``); by default none is looked for.
  ///   - refresh: Exchanges a refresh token for new credentials.
  public init(
    store: any CredentialStore,
    leeway: Duration = Authenticator.defaultLeeway,
    refreshLimit: Int = 5,
    refreshWindow: Duration = .seconds(30),
    clock: any Clock<Duration> = ContinuousClock(),
    now: @escaping @Sendable () -> Date = { Date() },
    isRevocation: @escaping @Sendable (any Error) -> Bool = Authenticator.isRejectedRefresh,
    replacement: Replacement? = nil,
    refresh: @escaping Refresh
  ) {
    self.store = store
    self.leeway = leeway
    self.refreshLimit = refreshLimit
    self.refreshWindow = refreshWindow
    self.elapsed = Self.stopwatch(clock)
    self.now = now
    self.isRevocation = isRevocation
    self.replacement = replacement
    self.refresh = refresh
  }

  /// The default revocation test: the refresh endpoint answered 400 or 401.
  public static func isRejectedRefresh(_ error: any Error) -> Bool {
    guard let error = error as? NetworkError, let code = error.statusCode else { return false }
    return code == 400 || code == 401
  }

  // MARK: - Session

  /// A new stream of sign-in, refresh and sign-out events; each subscriber gets its own stream.
  public nonisolated func events() -> AsyncStream<AuthEvent> {
    broadcaster.subscribe()
  }

  /// The current credentials, or `nil` when nobody is signed in.
  public func credentials() async throws(NetworkError) -> Credentials? {
    try await loadCredentials()
  }

  /// Whether credentials are present.
  public var isSignedIn: Bool {
    get async throws(NetworkError) { try await loadCredentials() != nil }
  }

  /// Stores credentials obtained from sign-in and publishes `.signedIn`. When the store
  /// refuses them the session still goes on in memory (it is signed in: `.signedIn` is
  /// published all the same), and the error says they were not saved.
  public func signIn(_ credentials: Credentials) async throws(NetworkError) {
    endSession()
    cached = credentials
    noteArrival(of: credentials)
    isLoaded = true
    // Signed in once the store answered, whatever it answered.
    defer { broadcaster.publish(.signedIn) }
    do {
      try await store.save(credentials)
    } catch {
      // The session goes on in memory; its next refreshed pair may fill the empty store.
      signInUnsaved = true
      throw .credentialStorage("saving the credentials failed: \(error)")
    }
  }

  /// Clears the credentials and publishes `.signedOut(.requested)`.
  public func signOut() async throws(NetworkError) {
    try await clear(reason: .requested)
  }

  /// Signs out like ``signOut()``, but only while `session` is still the current session: a
  /// failure of a request sent in an earlier session must not sign out whoever is signed in
  /// now. Publishes `.signedOut(reason)`. Returns whether it signed out. For any `reason` but
  /// `.requested`, the store is emptied only while it holds this session's pair (another
  /// process sharing it may have signed in since).
  @discardableResult
  public func signOut(
    ifCurrent session: SessionGeneration, reason: SignOutReason = .requested
  ) async throws(NetworkError) -> Bool {
    guard session.rawValue == generation else { return false }
    // A refused token or a deleted account ends this session only: a store another process
    // has signed in to since keeps that session. A requested sign-out empties it.
    try await clear(reason: reason, onlyOwn: reason != .requested)
    return true
  }

  /// The current session (it changes on every sign-in and sign-out).
  public var currentSession: SessionGeneration { SessionGeneration(rawValue: generation) }

  /// The current session if someone is signed in in it, `nil` when nobody is.
  public func signedInSession() async throws(NetworkError) -> SessionGeneration? {
    try await loadCredentials() == nil ? nil : currentSession
  }

  // MARK: - Tokens for requests

  /// The access token to send now, refreshed first if it expires within ``leeway``.
  public func validAccessToken() async throws(NetworkError) -> String {
    try await sessionToken().accessToken
  }

  /// The access token to send now and the session it belongs to, refreshed first if it
  /// expires within ``leeway``.
  ///
  /// - Parameter session: The session the caller is bound to (the one a request captured at
  ///   its first attempt), or `nil` for the current one.
  /// - Throws: ``NetworkError/sessionEnded`` when `session` is no longer current (or ends
  ///   while the token is refreshed), ``NetworkError/notSignedIn`` without credentials.
  public func sessionToken(
    in session: SessionGeneration? = nil
  ) async throws(NetworkError) -> SessionToken {
    try rejectCallsFromRefresh()
    guard let credentials = try await loadCredentials() else {
      if let session, session.rawValue != generation { throw .sessionEnded }
      throw .notSignedIn
    }
    let generation = session?.rawValue ?? self.generation
    try requireCurrent(generation)
    let token = SessionToken(
      accessToken: credentials.accessToken, session: SessionGeneration(rawValue: generation))
    guard credentials.accessToken != expiringOnArrival, let expiresAt = credentials.expiresAt,
      isWithinLeeway(expiresAt)
    else { return token }
    do {
      let refreshed = try await refreshOnce(from: credentials, generation: generation)
      return SessionToken(accessToken: refreshed.accessToken, session: token.session)
    } catch .sessionRevoked {
      throw .sessionRevoked
    } catch .sessionEnded {
      throw .sessionEnded
    } catch .cancelled where Task.isCancelled {
      // The caller gave up waiting for the shared refresh: it sends nothing. (A refresh whose
      // own request was cancelled is a failure like any other, below.)
      throw .cancelled
    } catch {
      // A token that has not expired yet is still worth sending when the refresh failed for a
      // transient reason or the rate limit (as long as its session is still the current one).
      try requireCurrent(generation)
      if expiresAt > now() { return token }
      throw error
    }
  }

  /// The token to retry with after the server rejected `rejectedToken` with 401: the current
  /// token if another request already refreshed, otherwise the result of one shared refresh.
  /// It stays in the current session; a request should name its own with
  /// ``accessToken(afterRejecting:in:)``.
  public func accessToken(
    afterRejecting rejectedToken: String
  ) async throws(NetworkError)
    -> String
  {
    try await accessToken(afterRejecting: rejectedToken, in: currentSession)
  }

  /// The token to retry with after the server rejected `rejectedToken`, sent in `session`,
  /// with 401: the session's current token if another request already refreshed it, otherwise
  /// the result of one refresh shared with the other callers of the same session.
  ///
  /// - Throws: ``NetworkError/sessionEnded`` when `session` ended before or during the
  ///   refresh: the request must not be sent again with another session's token.
  public func accessToken(
    afterRejecting rejectedToken: String, in session: SessionGeneration
  ) async throws(NetworkError)
    -> String
  {
    try rejectCallsFromRefresh()
    let credentials = try await loadCredentials()
    try requireCurrent(session.rawValue)
    guard let credentials else { throw .notSignedIn }
    if credentials.accessToken != rejectedToken { return credentials.accessToken }
    return try await refreshOnce(from: credentials, generation: session.rawValue).accessToken
  }

  // MARK: - Refresh

  /// One refresh of session `generation`, shared by all its callers (single flight per session).
  private func refreshOnce(
    from credentials: Credentials, generation: Int
  ) async throws(NetworkError)
    -> Credentials
  {
    try requireCurrent(generation)
    if inFlight?.generation != generation {
      let start = elapsed()
      refreshStarts.removeAll { start - $0 >= refreshWindow }
      guard refreshStarts.count < refreshLimit else { throw .refreshRateLimited }
      refreshStarts.append(start)
      // Unstructured, so cancelling the caller that started it does not cancel the refresh the
      // other callers are waiting for.
      let task = Task {
        let result = await self.performRefresh(from: credentials, generation: generation)
        self.finishRefresh(of: generation, with: result)
      }
      inFlight = (generation, task)
    }
    return try await awaitRefresh(of: generation).get()
  }

  private func awaitRefresh(of generation: Int) async -> Result<Credentials, NetworkError> {
    let id = UUID()
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        if Task.isCancelled {
          continuation.resume(returning: .failure(.cancelled))
        } else if generation != self.generation {
          continuation.resume(returning: .failure(.sessionEnded))
        } else {
          waiters[id] = Waiter(generation: generation, continuation: continuation)
        }
      }
    } onCancel: {
      Task { await self.cancelWaiter(id) }
    }
  }

  private func cancelWaiter(_ id: UUID) {
    waiters.removeValue(forKey: id)?.continuation.resume(returning: .failure(.cancelled))
  }

  private func finishRefresh(of generation: Int, with result: Result<Credentials, NetworkError>) {
    if inFlight?.generation == generation { inFlight = nil }
    let waiting = waiters.filter { $0.value.generation == generation }
    for id in waiting.keys { waiters[id] = nil }
    for waiter in waiting.values { waiter.continuation.resume(returning: result) }
  }

  /// Starts a new session: the old session's refresh no longer counts as in flight and its
  /// waiting callers fail at once with `error` (`.sessionRevoked` when the refresh they wait
  /// for was rejected, `.sessionEnded` otherwise).
  private func endSession(failingWaitersWith error: NetworkError = .sessionEnded) {
    generation += 1
    inFlight = nil
    unsaved = nil
    signInUnsaved = false
    let waiting = waiters
    waiters = [:]
    for waiter in waiting.values { waiter.continuation.resume(returning: .failure(error)) }
  }

  private func requireCurrent(_ generation: Int) throws(NetworkError) {
    if generation != self.generation { throw .sessionEnded }
  }

  private func performRefresh(
    from current: Credentials, generation: Int
  ) async
    -> Result<Credentials, NetworkError>
  {
    // Other processes on the same store wait until this refresh has saved its pair (or failed).
    let release: (@Sendable () -> Void)?
    do {
      release = try await store.holdRefreshes()
    } catch {
      return .failure(.timeout)
    }
    defer { release?() }
    // The session ended while another process held the lock: its token is not to be spent.
    guard generation == self.generation else { return .failure(.sessionEnded) }
    var refreshToken = current.refreshToken
    // Not while a pair of our own waits to be saved: the store's is older than it then.
    if unsaved == nil, let replacement,
      let replaced = await replacement(current, SessionGeneration(rawValue: generation)),
      replaced.refreshToken != current.refreshToken
    {
      guard generation == self.generation else { return .failure(.sessionEnded) }
      cached = replaced
      noteArrival(of: replaced)
      // A replacement that is itself about to expire is refreshed in turn, from its token.
      guard replaced.accessToken != expiringOnArrival else {
        refreshToken = replaced.refreshToken
        return await exchange(refreshToken, generation: generation)
      }
      broadcaster.publish(.refreshed)
      return .success(replaced)
    }
    return await exchange(refreshToken, generation: generation)
  }

  /// Sends `refreshToken` to the server and keeps what comes back.
  private func exchange(
    _ refreshToken: String, generation: Int
  ) async
    -> Result<Credentials, NetworkError>
  {
    let refresh = self.refresh
    let outcome: Result<Credentials, any Error>
    do {
      outcome = .success(
        try await Self.$isRefreshing.withValue(true) { try await refresh(refreshToken) })
    } catch {
      outcome = .failure(error)
    }
    let isCurrentSession = generation == self.generation
    switch outcome {
    case .success(let credentials):
      // The pair belongs to a session that ended: nobody may use it.
      guard isCurrentSession else { return .failure(.sessionEnded) }
      cached = credentials
      noteArrival(of: credentials)
      // Replacing what the store holds: the last pair saved, when an earlier one is unsaved too.
      unsaved = (credentials, unsaved?.replacing ?? refreshToken)
      await saveUnsaved()
      broadcaster.publish(.refreshed)
      return .success(credentials)
    case .failure(let error) where isRevocation(error):
      if isCurrentSession {
        do {
          try await clear(reason: .refreshTokenRejected, onlyOwn: true)
        } catch {
          return .failure(error)
        }
        return .failure(.sessionRevoked)
      }
      return .failure(.sessionEnded)
    case .failure(let error as NetworkError):
      return .failure(error)
    case .failure(let error):
      return .failure(.transport("refreshing the access token failed: \(error)"))
    }
  }

  // MARK: - Helpers

  private func isWithinLeeway(_ expiresAt: Date) -> Bool {
    expiresAt.timeIntervalSince(now()) <= leeway.timeInterval
  }

  /// Remembers `credentials`' access token if the device clock already puts it within the
  /// leeway: refreshing it before each request would only fetch another token like it.
  private func noteArrival(of credentials: Credentials) {
    let isExpiring = credentials.expiresAt.map(isWithinLeeway) ?? false
    expiringOnArrival = isExpiring ? credentials.accessToken : nil
  }

  /// Ends the session and clears the store; with `onlyOwn`, only a store that still holds this
  /// session's pair (or nothing, or what cannot be read) is cleared: another process sharing
  /// the store may have signed in since, and its session is not this one's to remove.
  private func clear(reason: SignOutReason, onlyOwn: Bool = false) async throws(NetworkError) {
    // The refresh tokens the store may hold for this session: the one in use, and while a
    // refreshed pair waits to be saved, the one it replaced.
    let own = Set([cached?.refreshToken, unsaved?.replacing].compactMap { $0 })
    endSession(
      failingWaitersWith: reason == .refreshTokenRejected ? .sessionRevoked : .sessionEnded)
    let ended = generation
    cached = nil
    isLoaded = true
    // Signed out in memory from here: told so even when the store cannot be cleared (the
    // caller hears that failure), or the app would go on showing a session that ended; unless
    // someone signed in while the store was read (their `.signedIn` is the news).
    defer { if generation == ended { broadcaster.publish(.signedOut(reason)) } }
    do {
      if onlyOwn {
        // Another pair (a sign-in, here or in another process, since) is left as it is.
        _ = try await store.swapCredentials(nil) { stored in
          stored.map { own.contains($0.refreshToken) } ?? true
        }
      } else {
        try await store.clear()
      }
    } catch {
      throw .credentialStorage("clearing the credentials failed: \(error)")
    }
  }

  private func loadCredentials() async throws(NetworkError) -> Credentials? {
    if isLoaded {
      await saveUnsaved()
      return cached
    }
    let generation = self.generation
    let stored: Credentials?
    do {
      stored = try await store.credentials()
    } catch {
      throw .credentialStorage("reading the credentials failed: \(error)")
    }
    // A sign-in or sign-out while the store was read wins over what was read.
    if !isLoaded && generation == self.generation {
      cached = stored
      isLoaded = true
    }
    return cached
  }

  /// Saves the refreshed pair not saved yet, if any, over the pair it replaced; a failure keeps
  /// it for the next call (the pair stays in use meanwhile). A store that holds another pair,
  /// or none, is left as it is: another process sharing it signed in (perhaps as someone else)
  /// or out since, and this session's tokens must not take that one's place. The pair then
  /// lives in this process only.
  private func saveUnsaved() async {
    guard let pending = unsaved else { return }
    let session = generation
    let replacing = pending.replacing
    // An empty store is filled only while a sign-in's own save is still owed.
    let fillsEmpty = signInUnsaved
    do {
      let saved = try await store.swapCredentials(pending.pair) { stored in
        stored?.refreshToken == replacing || (stored == nil && fillsEmpty)
      }
      guard session == generation else {
        // The session ended while the store wrote (a sign-out may have emptied it first):
        // its pair must not outlive it there.
        if saved { _ = try? await store.swapCredentials(nil) { $0 == pending.pair } }
        return
      }
      // Unless a newer pair replaced it while the store wrote.
      if unsaved?.pair == pending.pair {
        unsaved = nil
        if saved { signInUnsaved = false }
      }
    } catch {
      // Tried again before the next token.
    }
  }

  /// A bearer target used inside the refresh would wait for the refresh itself forever.
  private func rejectCallsFromRefresh() throws(NetworkError) {
    if Self.isRefreshing {
      throw .invalidRequest(
        "a request made by the token refresh asked for a bearer token; the refresh endpoint's "
          + "target must use AuthorizationRequirement.none")
    }
  }

  private struct Waiter {
    let generation: Int
    let continuation: CheckedContinuation<Result<Credentials, NetworkError>, Never>
  }

  private static func stopwatch<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> Duration {
    let origin = clock.now
    return { origin.duration(to: clock.now) }
  }
}
