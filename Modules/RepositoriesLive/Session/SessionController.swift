import Domain
import Foundation
import Logging
import NetworkKit

/// Owns the app's ``Domain/SessionState`` and publishes every change to any number of
/// `AsyncStream` subscribers; each new subscriber gets the current state first.
///
/// It is fed by the auth repository (sign-in, sign-up, sign-out, withdrawal), by the
/// ``NetworkKit/Authenticator``'s events (a rejected refresh token signs out) and by requests
/// that find the session gone. On first use it restores the state from the credential store:
/// a stored user snapshot gives `.signedIn(user)` at once, then `GET /me` refreshes the profile
/// in the background; tokens without a snapshot are turned into a user through `GET /me` first.
public actor SessionController {
  private let store: any CredentialStore
  private let authenticator: Authenticator
  private let logger: Logger
  private let refreshesProfileOnRestore: Bool
  private let loadProfile: @Sendable () async throws -> User
  private let now: @Sendable () -> Date
  /// The state (none before the first restore finished) and its subscribers.
  private nonisolated let broadcaster = Broadcaster<SessionState>(replaysLatest: true)

  /// The signed-in user and the authenticator's session their sign-in started; `nil` while
  /// the state is not `.signedIn`.
  private var account: (user: User.ID, session: SessionGeneration)?
  private var restoreTask: Task<Void, Never>?
  /// Whether a sign-in, sign-up or sign-out runs (``exclusively(_:)``), and who waits for it.
  private var isTransitioning = false
  private var waitingTransitions: [CheckedContinuation<Void, Never>] = []
  private var isRestored = false
  /// When the store last could not be read: it is read again once
  /// ``unreadableStoreRetryInterval`` has passed, not on every call.
  private var failedReadAt: Date?
  private var profileRefresh: Task<Void, Never>?

  /// The last problem reading or writing the credential store, for diagnostics: the session
  /// keeps working in memory, but may not survive a relaunch.
  public private(set) var lastStorageProblem: String?

  /// How long a store that could not be read is left alone before a call reads it again.
  static let unreadableStoreRetryInterval: TimeInterval = 5

  init(
    store: any CredentialStore, authenticator: Authenticator, logger: Logger,
    refreshesProfileOnRestore: Bool, now: @escaping @Sendable () -> Date = { Date() },
    loadProfile: @escaping @Sendable () async throws -> User
  ) {
    self.now = now
    self.store = store
    self.authenticator = authenticator
    self.logger = logger
    self.refreshesProfileOnRestore = refreshesProfileOnRestore
    self.loadProfile = loadProfile
    // Subscribe now, so no event published after init is missed.
    let events = authenticator.events()
    Task { [weak self] in
      for await event in events {
        guard let self else { return }
        await self.handle(event)
      }
    }
  }

  // MARK: - Observing

  /// The state now and on every change; restoring from the store starts if it has not yet, and
  /// the first element arrives once it is done.
  public nonisolated func states() -> AsyncStream<SessionState> {
    let stream = broadcaster.subscribe()
    Task { await self.restore() }
    return stream
  }

  /// The state now (after restoring from the store, the first time).
  public func currentState() async -> SessionState {
    await restore()
    return broadcaster.current ?? .signedOut
  }

  /// Who is signed in and the session their calls must run in, read together: a call bound to
  /// that session can never go out with the token of a user who signed in since (it fails
  /// with `NetworkError.sessionEnded` instead). `nil` when nobody is signed in.
  func signedInAccount() async -> (user: User.ID, session: SessionGeneration)? {
    await restore()
    return account
  }

  /// Who is signed in and in which session, as known now: unlike ``signedInAccount()`` it does
  /// not wait for the restore (the token refresh asks, and the restore may wait for a token).
  func knownAccount() -> (user: User.ID, session: SessionGeneration)? {
    account
  }

  /// Restores the state from the credential store; later calls wait for the first one. A store
  /// that could not be read (a Keychain still locked after a reboot, say) leaves the state
  /// signed out, and a call at least five seconds later reads it again, so the session comes
  /// back once it can be; a sign-in, sign-up or sign-out meanwhile settles the state for good.
  public func restore() async {
    if isRestored { return }
    if let restoreTask { return await restoreTask.value }
    // (A clock set back since the failure counts as time passed.)
    if let failedReadAt,
      (0..<Self.unreadableStoreRetryInterval).contains(now().timeIntervalSince(failedReadAt))
    {
      return
    }
    let task = Task { await self.performRestore() }
    restoreTask = task
    await task.value
    if !isRestored { restoreTask = nil }
  }

  /// Waits for the profile refresh that follows a restore, if one is running (for tests and
  /// tools that want the freshest profile before they go on).
  public func waitForProfileRefresh() async {
    await profileRefresh?.value
  }

  // MARK: - Transitions (called by the repositories)

  /// A sign-in or sign-up produced `session`: store it and publish `.signedIn`.
  func signIn(_ session: AuthSession) async {
    await restore()
    isRestored = true
    await exclusively { await self.storeAndPublish(session) }
  }

  private func storeAndPublish(_ session: AuthSession) async {
    let credentials = Credentials(
      accessToken: session.accessToken, refreshToken: session.refreshToken,
      expiresAt: session.expiresAt)
    // Both writes under the store's lock, where it has one: another process's write between
    // them would leave these tokens under its user's snapshot. (Without the lock, after the
    // wait, each write takes its own chance.)
    let release = try? await store.holdRefreshes()
    defer { release?() }
    // The snapshot goes first: a crash between the two writes then leaves a whole session.
    let sessionStore = store as? any SessionStore
    var snapshotSaved = false
    if let sessionStore {
      do {
        try await sessionStore.saveSession(
          StoredSession(credentials: credentials, user: session.user))
        snapshotSaved = true
      } catch {
        noteStorageProblem("saving the session failed", error)
      }
    }
    do {
      try await authenticator.signIn(credentials)
    } catch {
      // The authenticator keeps the credentials in memory even when the store refused them.
      noteStorageProblem("saving the credentials failed", error)
    }
    // The tokens went in under the snapshot the store held, the last user's: this user's goes
    // onto them now, or a later launch would take these tokens for that user.
    if let sessionStore, !snapshotSaved {
      do {
        _ = try await sessionStore.saveUser(session.user, onto: credentials.refreshToken)
      } catch {
        noteStorageProblem("saving the profile snapshot failed", error)
      }
    }
    await publishSignedIn(session.user)
  }

  /// Sign-in found no account: publish `.needsSignUp`, ending any previous session locally.
  func needsSignUp(_ token: SignUpToken) async throws(DomainError) {
    await restore()
    isRestored = true
    try await exclusively { () throws(DomainError) in
      if case .signedIn = self.broadcaster.current { try await self.forgetCredentials() }
      self.publish(.needsSignUp(token))
    }
  }

  /// Forgets the credentials on this device and publishes `.signedOut`.
  func signOut() async throws(DomainError) {
    await restore()
    isRestored = true
    try await exclusively { () throws(DomainError) in
      defer { self.publish(.signedOut) }
      try await self.forgetCredentials()
    }
  }

  /// Signs out after a withdrawal of `session`'s account, only while `session` is still the
  /// current one (never the user who signed in since), and empties the store only while it
  /// holds that session's tokens (another process sharing it may have signed in since).
  func signOutWithdrawn(_ session: SessionGeneration) async throws(DomainError) {
    await restore()
    try await exclusively { () throws(DomainError) in
      guard await self.authenticator.currentSession == session else { return }
      self.isRestored = true
      defer { self.publish(.signedOut) }
      do throws(NetworkError) {
        // The server revoked every token of the account: its tokens are refused from now on.
        try await self.authenticator.signOut(ifCurrent: session, reason: .accountDeleted)
      } catch {
        self.noteStorageProblem("clearing the credentials failed", error)
        throw LiveErrorMapping.domainError(for: error, operation: "signOut")
      }
    }
  }

  /// A fresh profile of the signed-in user arrived: publish it and update the snapshot. In
  /// the transitions' turn: a sign-in under way may already have given the authenticator the
  /// next user's tokens, which this user's snapshot must never be saved onto.
  func userUpdated(_ user: User) async {
    await exclusively {
      guard case .signedIn(let current) = broadcaster.current, current.id == user.id,
        current != user
      else { return }
      publish(.signedIn(user))
      await saveSnapshot(of: user)
    }
  }

  /// Stores `user` as the snapshot of this session's tokens. Only onto them: another process
  /// sharing the store may have signed someone else in since, and their tokens under this
  /// user's snapshot would be taken for this user's (by a later launch, and by this process's
  /// next refresh).
  private func saveSnapshot(of user: User) async {
    guard let sessionStore = store as? any SessionStore else { return }
    do {
      guard let mine = try await authenticator.credentials()?.refreshToken else { return }
      _ = try await sessionStore.saveUser(user, onto: mine)
    } catch {
      noteStorageProblem("saving the profile snapshot failed", error)
    }
  }

  /// A request found the session gone (refresh token revoked, nobody signed in, or a 401 even
  /// after a refresh): make the state say so.
  ///
  /// - Parameter session: The session the failing call started in; a 401 clears the
  ///   credentials only while that session is still current (`nil`: never), so a late failure
  ///   of one user's call cannot sign out the user who signed in since.
  func sessionEnded(by error: NetworkError, in session: SessionGeneration?) async {
    if error == .unauthorized, let session {
      // The server refuses even fresh tokens (e.g. the account was deleted): forget them.
      do {
        try await authenticator.signOut(ifCurrent: session, reason: .accessTokenRejected)
      } catch {
        noteStorageProblem("clearing the refused credentials failed", error)
      }
    }
    await signOutIfCredentialsAreGone()
  }

  // MARK: - Internals

  private func performRestore() async {
    var wasRead = true
    defer { if wasRead { isRestored = true } }
    let stored: StoredSession?
    do {
      if let sessionStore = store as? any SessionStore {
        stored = try await sessionStore.storedSession()
      } else {
        stored = try await store.credentials().map { StoredSession(credentials: $0, user: nil) }
      }
    } catch {
      // The data stays where it is (see FileCredentialStore); sign-in replaces it. The next
      // restore reads it again: the failure may pass (a locked Keychain).
      noteStorageProblem("restoring the session failed; signed out until it can be read", error)
      wasRead = false
      failedReadAt = now()
      publish(.signedOut)
      return
    }
    guard let stored else { return publish(.signedOut) }
    if let user = stored.user {
      await publishSignedIn(user)
      if refreshesProfileOnRestore {
        profileRefresh = Task { await self.refreshProfile() }
      }
      return
    }
    // Tokens without a snapshot (a plain CredentialStore): only the server can say who this is.
    do {
      let user = try await loadProfile()
      await publishSignedIn(user)
      await saveSnapshot(of: user)
    } catch {
      logger.warning(
        """
        The stored tokens could not be turned into a user; starting signed out (the tokens are \
        kept until the next sign-in or sign-out).
        """,
        metadata: ["error": "\(error)"])
      publish(.signedOut)
    }
  }

  private func refreshProfile() async {
    do {
      await userUpdated(try await loadProfile())
    } catch {
      // The snapshot stays; a revoked session reaches the state through the authenticator.
      logger.notice(
        "Refreshing the profile after launch failed; showing the stored snapshot.",
        metadata: ["error": "\(error)"])
    }
  }

  private func handle(_ event: AuthEvent) async {
    guard case .signedOut = event else { return }
    await signOutIfCredentialsAreGone()
  }

  /// Publishes `.signedOut` if the state says signed in but the authenticator has no
  /// credentials. Events arrive asynchronously: a late sign-out event must not undo a newer
  /// sign-in, so the credentials decide, not the event.
  private func signOutIfCredentialsAreGone() async {
    guard case .signedIn = broadcaster.current else { return }
    do {
      if try await authenticator.credentials() == nil { publish(.signedOut) }
    } catch {
      noteStorageProblem("reading the credentials failed", error)
    }
  }

  private func forgetCredentials() async throws(DomainError) {
    do {
      try await authenticator.signOut()
    } catch {
      noteStorageProblem("clearing the credentials failed", error)
      throw LiveErrorMapping.domainError(for: error, operation: "signOut")
    }
  }

  /// Publishes `state`; the account is forgotten unless it is `.signedIn` (a fresh profile of
  /// the same user keeps it).
  private func publish(_ state: SessionState) {
    if case .signedIn(let user) = state, user.id == account?.user {
    } else {
      account = nil
    }
    broadcaster.publishIfChanged(state)
  }

  /// Publishes `.signedIn(user)` with the authenticator's current session as theirs.
  private func publishSignedIn(_ user: User) async {
    let session = await authenticator.currentSession
    publish(.signedIn(user))
    account = (user.id, session)
  }

  /// Runs `body` when no other sign-in, sign-up or sign-out is under way, so each pairs its
  /// user with the authenticator session it started: two sign-ins at once would otherwise let
  /// the first read the second's session (and publish its user over the second's tokens).
  private func exclusively<T, Failure: Error>(
    _ body: () async throws(Failure) -> T
  ) async throws(Failure) -> T {
    while isTransitioning {
      await withCheckedContinuation { waitingTransitions.append($0) }
    }
    isTransitioning = true
    defer {
      isTransitioning = false
      if !waitingTransitions.isEmpty { waitingTransitions.removeFirst().resume() }
    }
    return try await body()
  }

  private func noteStorageProblem(_ what: String, _ error: any Error) {
    let text = "\(what): \(error)"
    lastStorageProblem = text
    logger.error("Credential storage problem: \(text)")
  }
}
