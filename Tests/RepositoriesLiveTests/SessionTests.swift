import DTO
import Domain
import Endpoints
import Foundation
import HTTPTypes
import NetworkKit
import NetworkKitTesting
import TestSupport
import Testing

@testable import RepositoriesLive

@Suite("Session state")
struct SessionTests {
  /// The unread count answers 2 to the access token `token` and `token_expired` to any other.
  static func stubUnreadCount(_ harness: Harness, acceptingOnly token: String) {
    harness.transport.stub(.get, "/notifications/unread-count") { request, _ in
      request.headerFields[.authorization] == "Bearer \(token)"
        ? .response(status: .ok, body: Data(#"{"count": 2}"#.utf8))
        : .response(
          status: .unauthorized,
          body: Data(Fixtures.error(code: "token_expired", message: "expired").utf8))
    }
  }

  @Test func startsSignedOutWithAnEmptyStore() async {
    let harness = Harness()
    var states = harness.repositories.auth.sessionStates().makeAsyncIterator()
    #expect(await states.next() == .signedOut)
    #expect(await harness.repositories.auth.currentState() == .signedOut)
    #expect(harness.transport.receivedRequests.isEmpty)
  }

  @Test func signInPublishesSignedInAndStoresTheTokens() async throws {
    let harness = Harness()
    var states = harness.repositories.auth.sessionStates().makeAsyncIterator()
    #expect(await states.next() == .signedOut)

    let user = try await harness.signIn(accessToken: "a-1", refreshToken: "r-1")

    #expect(user == Fixtures.domainUser())
    #expect(await states.next() == .signedIn(user))
    #expect(await harness.repositories.auth.currentState() == .signedIn(user))
    let stored = try await harness.store.credentials()
    #expect(stored?.accessToken == "a-1")
    #expect(stored?.refreshToken == "r-1")
    let request = try #require(harness.transport.receivedRequests.first)
    #expect(request.request.headerFields[.authorization] == nil)
    let body = try Harness.jsonBody(request)
    #expect(body["provider"] as? String == "dev")
    #expect(body["token"] as? String == "dev-u_01")
  }

  @Test func bearerRequestsCarryTheAccessToken() async throws {
    let harness = Harness()
    try await harness.signIn(accessToken: "token-xyz")
    harness.stub(.get, "/notifications/unread-count", json: #"{"count": 4}"#)
    #expect(try await harness.repositories.notifications.fetchUnreadCount() == 4)
    let sent = try #require(harness.sentRequests.first)
    #expect(sent.request.headerFields[.authorization] == "Bearer token-xyz")
  }

  @Test func unknownAccountLeadsToNeedsSignUpThenSignUpSignsIn() async throws {
    let harness = Harness()
    var states = harness.repositories.auth.sessionStates().makeAsyncIterator()
    #expect(await states.next() == .signedOut)
    harness.stub(.post, "/auth/sign-in", json: Fixtures.needsSignUp("sut_1"))

    let result = try await harness.repositories.auth.signIn(.dev, "newcomer")

    let token = SignUpToken(rawValue: "sut_1")
    #expect(result == .needsSignUp(token))
    #expect(await states.next() == .needsSignUp(token))

    harness.stub(
      .post, "/auth/sign-up", status: .created,
      json: Fixtures.session(user: Fixtures.user(id: "u_9", nickname: "newbie")))
    let form = SignUpForm(
      signUpToken: token, verificationToken: EmailVerificationToken(rawValue: "vt_1"),
      nickname: try Nickname(validating: "newbie"), agreedTermsVersion: "2026-01")
    let user = try await harness.repositories.auth.signUp(form)

    #expect(user.id == "u_9")
    #expect(await states.next() == .signedIn(user))
    let body = try Harness.jsonBody(try #require(harness.transport.receivedRequests.last))
    #expect(body["nickname"] as? String == "newbie")
    #expect(body["agreed_terms_version"] as? String == "2026-01")
    #expect(body.keys.contains("cohort"))
  }

  @Test func signOutRevokesTheRefreshTokenAndPublishesSignedOut() async throws {
    let harness = Harness()
    var states = harness.repositories.auth.sessionStates().makeAsyncIterator()
    #expect(await states.next() == .signedOut)
    let user = try await harness.signIn(refreshToken: "r-42")
    #expect(await states.next() == .signedIn(user))
    harness.stub(.post, "/auth/sign-out", status: .noContent, json: "")

    try await harness.repositories.auth.signOut()

    #expect(await states.next() == .signedOut)
    #expect(try await harness.store.credentials() == nil)
    let revoke = try #require(harness.sentRequests.last)
    #expect(revoke.request.path == "/auth/sign-out")
    #expect(try Harness.jsonBody(revoke)["refresh_token"] as? String == "r-42")
  }

  @Test func signOutWhileOfflineStillSignsOutHereAndSaysSo() async throws {
    let harness = Harness()
    try await harness.signIn()
    harness.transport.stub(.post, "/auth/sign-out", with: .failure(.offline))

    let error = await domainError { try await harness.repositories.auth.signOut() }

    #expect(error == .offline)
    #expect(await harness.repositories.auth.currentState() == .signedOut)
    #expect(try await harness.store.credentials() == nil)
  }

  @Test func signOutForgetsCredentialsThatCannotBeRead() async throws {
    let store = UnreadableCredentialStore()
    let harness = Harness(store: store)

    // The server could not be told (no token could be read): the caller hears it.
    let error = await domainError { try await harness.repositories.auth.signOut() }

    #expect(error.map { "\($0)" }?.contains("session.json") == true, "\(String(describing: error))")
    #expect(await store.clears == 1)
    #expect(await harness.repositories.auth.currentState() == .signedOut)
    #expect(harness.sentRequests.isEmpty)
  }

  @Test func withdrawDeletesTheAccountAndSignsOut() async throws {
    let harness = Harness()
    try await harness.signIn()
    harness.stub(.delete, "/me", status: .noContent, json: "")
    var events = harness.backend.authenticator.events().makeAsyncIterator()
    try await harness.repositories.auth.withdraw()
    #expect(await harness.repositories.auth.currentState() == .signedOut)
    #expect(try await harness.store.credentials() == nil)
    #expect(harness.sentRequests.map(\.request.method) == [.delete])
    // Told apart from a refused token and from a sign-out the user asked for.
    #expect(await events.next() == .signedOut(.accountDeleted))
  }

  @Test func withdrawalDeletesTheAccountsLocalStore() async throws {
    let folder = try TemporaryDirectory("withdraw")
    defer { folder.remove() }
    let harness = Harness(storage: .directory(folder.url))
    try await harness.signIn(as: "u_gone")
    await harness.repositories.analytics.track(
      try AnalyticsEvent(name: "screen_viewed", occurredAt: Date()))
    let file = folder.path("u_gone.sqlite")
    #expect(FileManager.default.fileExists(atPath: file))
    #expect(await harness.backend.analytics.pendingCount() == 1)
    // Damaged copies: one kept aside, one still waiting to be carried over.
    for aside in [".broken", ".broken-\(UUID().uuidString)", ".broken-wal"] {
      try Data("old".utf8).write(to: URL(fileURLWithPath: file + aside))
    }

    harness.stub(.delete, "/me", status: .noContent, json: "")
    try await harness.repositories.auth.withdraw()
    let left = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
    #expect(left.filter { $0.hasPrefix("u_gone") }.isEmpty)
    // A later sign-in on this device starts with nothing of the withdrawn account.
    try await harness.signIn(as: "u_next")
    #expect(await harness.backend.analytics.pendingCount() == 0)
  }

  @Test func aWithdrawalWhoseCredentialsCannotBeClearedStillDeletesTheLocalStore() async throws {
    let folder = try TemporaryDirectory("withdraw")
    defer { folder.remove() }
    let harness = Harness(store: UnclearableCredentialStore(), storage: .directory(folder.url))
    try await harness.signIn(as: "u_gone")
    await harness.repositories.analytics.track(
      try AnalyticsEvent(name: "screen_viewed", occurredAt: Date()))
    #expect(FileManager.default.fileExists(atPath: folder.path("u_gone.sqlite")))
    harness.stub(.delete, "/me", status: .noContent, json: "")
    await #expect(throws: (any Error).self) { try await harness.repositories.auth.withdraw() }
    let left = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
    #expect(left.filter { $0.hasPrefix("u_gone") }.isEmpty)
    #expect(await harness.backend.analytics.pendingCount() == 0)
  }

  @Test("a withdrawal answered after someone else signed in leaves them signed in")
  func aWithdrawalDoesNotSignOutTheNextUser() async throws {
    let folder = try TemporaryDirectory("withdraw")
    defer { folder.remove() }
    let harness = Harness(storage: .directory(folder.url))
    try await harness.signIn(as: "u_gone")
    let gate = Gate()
    harness.transport.stub(.delete, "/me") { _, _ in
      await gate.wait()
      return .response(status: .noContent, body: Data())
    }
    let withdrawal = Task { try await harness.repositories.auth.withdraw() }
    try await gate.waitForArrivals()
    let next = try await harness.signIn(as: "u_next", accessToken: "access-2")
    await gate.open()
    try await withdrawal.value
    #expect(await harness.repositories.auth.currentState() == .signedIn(next))
    #expect(try await harness.store.credentials()?.accessToken == "access-2")
    // The withdrawn account's local store is gone all the same.
    let left = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
    #expect(left.filter { $0.hasPrefix("u_gone") }.isEmpty)
    let sent = harness.sentRequests.first { $0.request.method == .delete }
    #expect(sent?.request.headerFields[.authorization] == "Bearer access-1")
  }

  @Test func aFailedWithdrawalKeepsTheSession() async throws {
    let harness = Harness()
    let user = try await harness.signIn()
    harness.stubError(.delete, "/me", status: 403, code: "banned", message: "banned")
    let error = await domainError { try await harness.repositories.auth.withdraw() }
    #expect(error == .banned)
    #expect(await harness.repositories.auth.currentState() == .signedIn(user))
  }

  @Test func aRevokedRefreshTokenSignsOut() async throws {
    let harness = Harness()
    var states = harness.repositories.auth.sessionStates().makeAsyncIterator()
    #expect(await states.next() == .signedOut)
    let user = try await harness.signIn(accessToken: "expired", refreshToken: "revoked")
    #expect(await states.next() == .signedIn(user))
    harness.stubError(.get, "/posts", status: 401, code: "token_expired", message: "expired")
    harness.stubError(
      .post, "/auth/refresh", status: 401, code: "unauthorized", message: "refresh token revoked")

    let error = await domainError { try await harness.repositories.board.fetchPosts(.first) }

    #expect(error == .signedOut)
    #expect(await states.next() == .signedOut)
    #expect(try await harness.store.credentials() == nil)
    let refresh = try #require(harness.sentRequests.first { $0.request.path == "/auth/refresh" })
    #expect(try Harness.jsonBody(refresh)["refresh_token"] as? String == "revoked")
    #expect(refresh.request.headerFields[.authorization] == nil)
  }

  @Test func anExpiredAccessTokenIsRefreshedAndTheRotatedPairStored() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let store = FileCredentialStore(fileURL: directory.url.appendingPathComponent("s.json"))
    let harness = Harness(store: store)
    let user = try await harness.signIn(accessToken: "old", refreshToken: "r-old")
    Self.stubUnreadCount(harness, acceptingOnly: "new")
    harness.stub(
      .post, "/auth/refresh",
      json: Fixtures.session(accessToken: "new", refreshToken: "r-new"))

    #expect(try await harness.repositories.notifications.fetchUnreadCount() == 2)

    let stored = try #require(try await store.storedSession())
    #expect(stored.credentials.accessToken == "new")
    #expect(stored.credentials.refreshToken == "r-new")
    #expect(stored.user == user)
    #expect(await harness.repositories.auth.currentState() == .signedIn(user))
  }

  @Test("a refresh keeps the rotated pair even when the answer's user does not map")
  func aRefreshKeepsTheTokensOfAnAnswerWhoseUserDoesNotMap() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let store = FileCredentialStore(fileURL: directory.url.appendingPathComponent("s.json"))
    let harness = Harness(store: store)
    _ = try await harness.signIn(accessToken: "old", refreshToken: "r-old")
    Self.stubUnreadCount(harness, acceptingOnly: "new")
    // A relative avatar URL: the user does not map (`UserDTO.toDomain` wants an absolute one).
    let user = Fixtures.user().replacingOccurrences(
      of: #""avatar_url": null"#, with: #""avatar_url": "/avatars/u_01?v=1""#)
    harness.stub(
      .post, "/auth/refresh",
      json: Fixtures.session(accessToken: "new", refreshToken: "r-new", user: user))

    #expect(try await harness.repositories.notifications.fetchUnreadCount() == 2)
    let stored = try #require(try await store.storedSession())
    #expect(stored.credentials.refreshToken == "r-new")
  }

  @Test func aRefreshAnswerThatDoesNotDecodeIsAServerProblemNotOffline() async throws {
    let harness = Harness()
    let user = try await harness.signIn(accessToken: "expired", refreshToken: "r-1")
    harness.stubError(.get, "/posts", status: 401, code: "token_expired", message: "expired")
    harness.stub(.post, "/auth/refresh", json: #"{"access_token": 42}"#)

    let error = await domainError { try await harness.repositories.board.fetchPosts(.first) }

    guard case .server(let detail) = error else {
      Issue.record("expected .server, got \(String(describing: error))")
      return
    }
    #expect(detail.contains("SessionDTO"))
    // Not a rejected refresh token: the user stays signed in.
    #expect(try await harness.store.credentials()?.refreshToken == "r-1")
    #expect(await harness.repositories.auth.currentState() == .signedIn(user))
  }

  @Test func a401EvenAfterRefreshForgetsTheSession() async throws {
    let harness = Harness()
    try await harness.signIn()
    harness.stubError(.get, "/me", status: 401, code: "unauthorized", message: "account gone")
    harness.stub(.post, "/auth/refresh", json: Fixtures.session(accessToken: "a-2"))
    var events = harness.backend.authenticator.events().makeAsyncIterator()

    let error = await domainError { try await harness.repositories.profile.fetchMe() }

    #expect(error == .signedOut)
    // Told apart from a sign-out the user asked for.
    #expect(await events.next() == .refreshed)
    #expect(await events.next() == .signedOut(.accessTokenRejected))
    #expect(await harness.repositories.auth.currentState() == .signedOut)
    #expect(try await harness.store.credentials() == nil)
  }

  @Test func everySubscriberSeesEveryChange() async throws {
    let harness = Harness()
    let first = harness.repositories.auth.sessionStates()
    let second = harness.repositories.auth.sessionStates()
    var a = first.makeAsyncIterator()
    var b = second.makeAsyncIterator()
    #expect(await a.next() == .signedOut)
    #expect(await b.next() == .signedOut)

    let user = try await harness.signIn()
    // A subscriber that arrives late starts from the current state.
    var late = harness.repositories.auth.sessionStates().makeAsyncIterator()
    #expect(await late.next() == .signedIn(user))

    harness.stub(.post, "/auth/sign-out", status: .noContent, json: "")
    try await harness.repositories.auth.signOut()

    #expect(await a.next() == .signedIn(user))
    #expect(await a.next() == .signedOut)
    #expect(await b.next() == .signedIn(user))
    #expect(await b.next() == .signedOut)
    #expect(await late.next() == .signedOut)
  }

  @Test func aLateUnauthorizedOfTheLastUserLeavesTheNextUserSignedIn() async throws {
    let harness = Harness()
    try await harness.signIn(as: "u_a", accessToken: "access-a", refreshToken: "refresh-a")
    let path = BoardAPI.delete("p_1").path
    let (arrived, arrivedContinuation) = AsyncStream<Void>.makeStream()
    let (gate, gateContinuation) = AsyncStream<Void>.makeStream()
    let unauthorized = Data(Fixtures.error(code: "unauthorized", message: "no").utf8)
    harness.transport.stub(.delete, path) { request, _ in
      if request.headerFields[.authorization] == "Bearer access-a" {
        arrivedContinuation.yield()
        for await _ in gate {}
      }
      return .response(status: .unauthorized, body: unauthorized)
    }

    // A's delete is slow; meanwhile A signs out and B signs in; then A's token is refused.
    let call = Task { await domainError { try await harness.repositories.board.deletePost("p_1") } }
    var arrivals = arrived.makeAsyncIterator()
    await arrivals.next()
    harness.stub(.post, "/auth/sign-out", status: .noContent, json: "")
    try await harness.repositories.auth.signOut()
    let userB = try await harness.signIn(
      as: "u_b", accessToken: "access-b", refreshToken: "refresh-b")
    gateContinuation.finish()

    #expect(await call.value == .signedOut)
    let deletes = harness.sentRequests.filter { $0.request.path == path }
    #expect(deletes.map { $0.request.headerFields[.authorization] } == ["Bearer access-a"])
    #expect(try await harness.store.credentials()?.accessToken == "access-b")
    #expect(await harness.repositories.auth.currentState() == .signedIn(userB))
  }

  @Test func aProfileChangeUpdatesTheSignedInUser() async throws {
    let harness = Harness()
    let user = try await harness.signIn()
    var states = harness.repositories.auth.sessionStates().makeAsyncIterator()
    #expect(await states.next() == .signedIn(user))
    harness.stub(.patch, "/me", json: Fixtures.user(nickname: "새이름"))

    let updated = try await harness.repositories.profile.updateProfile(
      ProfileUpdate(nickname: try Nickname(validating: "새이름")))

    #expect(updated.nickname.rawValue == "새이름")
    #expect(await states.next() == .signedIn(updated))
    let body = try Harness.jsonBody(try #require(harness.sentRequests.last))
    #expect(body["nickname"] as? String == "새이름")

    // A cohort is checked before sending (`TextRule.cohort`); blank is sent as "" (clears it).
    let sent = harness.sentRequests.count
    await #expect(
      throws: DomainError.validation(.tooLong(field: "cohort", maximum: 30, actual: 31))
    ) {
      try await harness.repositories.profile.updateProfile(
        ProfileUpdate(cohort: String(repeating: "7", count: 31)))
    }
    #expect(harness.sentRequests.count == sent)
    _ = try await harness.repositories.profile.updateProfile(ProfileUpdate(cohort: "  "))
    let cleared = try Harness.jsonBody(try #require(harness.sentRequests.last))
    #expect(cleared["cohort"] as? String == "")
  }
}

@Suite("Session restore")
struct SessionRestoreTests {
  @Test func aStoredSessionRestoresSignedInWithoutTheNetwork() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let store = FileCredentialStore(fileURL: directory.url.appendingPathComponent("s.json"))
    let user = Fixtures.domainUser()
    try await store.saveSession(
      StoredSession(credentials: Credentials(accessToken: "a", refreshToken: "r"), user: user))

    let harness = Harness(store: store)

    var states = harness.repositories.auth.sessionStates().makeAsyncIterator()
    #expect(await states.next() == .signedIn(user))
    #expect(harness.transport.receivedRequests.isEmpty)
  }

  @Test func theProfileIsRefreshedAfterRestoring() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let store = FileCredentialStore(fileURL: directory.url.appendingPathComponent("s.json"))
    let user = Fixtures.domainUser()
    try await store.saveSession(
      StoredSession(credentials: Credentials(accessToken: "a", refreshToken: "r"), user: user))
    let transport = StubTransport()
    transport.stub(
      .get, "/me",
      with: .response(status: .ok, body: Data(Fixtures.user(answerCount: 43).utf8)))

    let backend = LiveBackend(
      configuration: LiveConfiguration(
        baseURL: Harness.baseURL, credentialStore: store, transport: transport,
        retryPolicy: .never, refreshesProfileOnRestore: true))
    await backend.session.restore()
    await backend.session.waitForProfileRefresh()

    var refreshed = user
    refreshed.answerCount = 43
    #expect(await backend.session.currentState() == .signedIn(refreshed))
    #expect(try await store.storedSession()?.user == refreshed)
    #expect(transport.receivedRequests.first?.request.headerFields[.authorization] == "Bearer a")
  }

  @Test func tokensWithoutASnapshotAskTheServerWhoTheyBelongTo() async throws {
    let store = InMemoryCredentialStore(Credentials(accessToken: "a", refreshToken: "r"))
    let transport = StubTransport()
    transport.stub(.get, "/me", with: .response(status: .ok, body: Data(Fixtures.user().utf8)))
    let backend = LiveBackend(
      configuration: LiveConfiguration(
        baseURL: Harness.baseURL, credentialStore: store, transport: transport,
        retryPolicy: .never))

    #expect(await backend.session.currentState() == .signedIn(Fixtures.domainUser()))
  }

  /// A live backend over a ``LockedCredentialStore`` holding a session whose `/me` answers, on a
  /// wall clock the test sets.
  func lockedStoreBackend() -> (LiveBackend, LockedCredentialStore, Locked<Date>) {
    let store = LockedCredentialStore(Credentials(accessToken: "a", refreshToken: "r"))
    let transport = StubTransport()
    transport.stub(.get, "/me", with: .response(status: .ok, body: Data(Fixtures.user().utf8)))
    let clock = Locked(Date(timeIntervalSince1970: 1_800_000_000))
    let backend = LiveBackend(
      configuration: LiveConfiguration(
        baseURL: Harness.baseURL, credentialStore: store, transport: transport,
        retryPolicy: .never, now: { clock.withLock { $0 } }))
    return (backend, store, clock)
  }

  @Test func aStoreThatCannotBeReadYetIsReadAgainLater() async throws {
    // As a Keychain is before the first unlock after a reboot: reads fail, then work.
    let (backend, store, clock) = lockedStoreBackend()
    #expect(await backend.session.currentState() == .signedOut)
    let reads = await store.reads
    // Calls soon after are not worth another read of a store that just failed.
    #expect(await backend.session.currentState() == .signedOut)
    #expect(await store.reads == reads)
    await store.unlock()
    clock.withLock { $0 += 5 }
    #expect(await backend.session.currentState() == .signedIn(Fixtures.domainUser()))
  }

  @Test func aClockSetBackCountsAsTimePassedForTheNextRead() async throws {
    let (backend, store, clock) = lockedStoreBackend()
    #expect(await backend.session.currentState() == .signedOut)
    await store.unlock()
    // After a reboot the wall clock is often corrected backwards.
    clock.withLock { $0 -= 3_600 }
    #expect(await backend.session.currentState() == .signedIn(Fixtures.domainUser()))
  }

  @Test func aSignInWhileTheStoreCannotBeReadStaysSignedIn() async throws {
    let store = LockedCredentialStore(nil)
    let clock = Locked(Date(timeIntervalSince1970: 1_800_000_000))
    let harness = Harness(store: store, now: { clock.withLock { $0 } })
    #expect(await harness.repositories.auth.currentState() == .signedOut)
    let user = try await harness.signIn()
    clock.withLock { $0 += 60 }
    // The store still fails, but the sign-in settled the state: no read signs the user out.
    #expect(await harness.repositories.auth.currentState() == .signedIn(user))
  }

  @Test func aCorruptStoreStartsSignedOutAndKeepsTheFile() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let file = directory.url.appendingPathComponent("s.json")
    try Data("{not json".utf8).write(to: file)
    let harness = Harness(store: FileCredentialStore(fileURL: file))

    #expect(await harness.repositories.auth.currentState() == .signedOut)
    #expect(await harness.backend.session.lastStorageProblem?.contains("unreadable") == true)
    #expect(try Data(contentsOf: file) == Data("{not json".utf8))

    // Signing in replaces it.
    let user = try await harness.signIn()
    let stored = try await FileCredentialStore(fileURL: file).storedSession()
    #expect(stored?.user == user)
  }
}

/// A credential store whose `clear` fails (an unlink refused, a Keychain error).
actor UnclearableCredentialStore: CredentialStore {
  private var stored: Credentials?
  func credentials() -> Credentials? { stored }
  func save(_ credentials: Credentials) { stored = credentials }
  func clear() throws {
    throw CredentialStoreError.fileSystem(operation: "delete", path: "session.json", errno: EACCES)
  }
}

/// A credential store whose file is damaged: reads fail, and deleting it works.
actor UnreadableCredentialStore: CredentialStore {
  /// How many times the store was cleared.
  private(set) var clears = 0
  func credentials() throws -> Credentials? {
    throw CredentialStoreError.corrupted(location: "session.json", reason: "not JSON")
  }
  func save(_ credentials: Credentials) {}
  func clear() { clears += 1 }
}

/// A credential store that refuses every call until ``unlock()``, as a locked Keychain does.
actor LockedCredentialStore: CredentialStore {
  private var stored: Credentials?
  private var isLocked = true
  /// How many times the credentials were read.
  private(set) var reads = 0

  init(_ credentials: Credentials?) { stored = credentials }

  func unlock() { isLocked = false }

  private func open() throws {
    if isLocked { throw CredentialStoreError.keychain(operation: "read", status: -25308) }
  }

  func credentials() throws -> Credentials? {
    reads += 1
    try open()
    return stored
  }
  func save(_ credentials: Credentials) throws {
    try open()
    stored = credentials
  }
  func clear() throws {
    try open()
    stored = nil
  }
}

/// A harness on `store` whose sign-in with `dev-a` answers user `u_a`'s tokens (`access-a`,
/// `refresh-a`) and any other user `u_b`'s: each account's sign-in with its own tokens.
func twoAccountsHarness(_ store: any CredentialStore) -> Harness {
  let harness = Harness(store: store)
  harness.transport.stub(.post, "/auth/sign-in") { _, body in
    let user = String(decoding: body ?? Data(), as: UTF8.self).contains("dev-a") ? "a" : "b"
    return .response(
      status: .ok, headerFields: [.contentType: "application/json"],
      body: Data(
        Fixtures.signedIn(
          Fixtures.session(
            accessToken: "access-\(user)", refreshToken: "refresh-\(user)",
            user: Fixtures.user(id: "u_\(user)", nickname: user))
        ).utf8))
  }
  return harness
}

/// A credential store whose `save` of an access token waits until the test releases it.
actor GatedCredentialStore: CredentialStore {
  private var stored: Credentials?
  private var waiting: [String: CheckedContinuation<Void, Never>] = [:]
  private var released: Set<String> = []

  func credentials() -> Credentials? { stored }
  func clear() { stored = nil }
  func save(_ credentials: Credentials) async {
    if !released.contains(credentials.accessToken) {
      await withCheckedContinuation { waiting[credentials.accessToken] = $0 }
    }
    stored = credentials
  }

  /// Lets the save of `accessToken` finish (now, or when it comes).
  func release(_ accessToken: String) {
    released.insert(accessToken)
    waiting.removeValue(forKey: accessToken)?.resume()
  }

  func isWaiting(_ accessToken: String) -> Bool { waiting[accessToken] != nil }
}

@Suite("Session state: sign-ins at once", .timeLimit(.minutes(1)))
struct ConcurrentSignInTests {
  @Test func twoSignInsAtOnceNeverPairAUserWithTheOthersTokens() async throws {
    let store = GatedCredentialStore()
    let harness = twoAccountsHarness(store)
    let auth = harness.repositories.auth
    let a = Task { try await auth.signIn(.dev, "dev-a") }
    try await waitUntil("A's sign-in stores its tokens") { await store.isWaiting("access-a") }
    let b = Task { try await auth.signIn(.dev, "dev-b") }
    // B's sign-in may finish first (it cannot while A's runs: then this waits out its second).
    await store.release("access-b")
    _ = await poll(timeout: .seconds(1)) {
      if case .signedIn(let user) = await auth.currentState(), user.id == "u_b" { return true }
      return await store.isWaiting("access-b")
    }
    await store.release("access-a")
    _ = try await (a.value, b.value)

    guard case .signedIn(let user) = await auth.currentState() else {
      Issue.record("not signed in")
      return
    }
    let token = try await harness.backend.authenticator.credentials()?.accessToken
    #expect(
      token == "access-\(user.nickname.rawValue)", "\(user.id) holds \(String(describing: token))")
    let account = await harness.backend.session.signedInAccount()
    #expect(account?.user == user.id)
    #expect(account?.session == (await harness.backend.authenticator.currentSession))
  }
}

/// A session store in memory whose token `save` of an access token waits until the test
/// releases it, and whose `saveSession` can be made to fail.
actor GatedSessionStore: SessionStore {
  private var stored: StoredSession?
  private var waiting: [String: CheckedContinuation<Void, Never>] = [:]
  private var released: Set<String> = []
  private var failingSessionSaves = 0

  func storedSession() -> StoredSession? { stored }
  func saveSession(_ session: StoredSession) throws {
    if failingSessionSaves > 0 {
      failingSessionSaves -= 1
      throw CredentialStoreError.fileSystem(operation: "write", path: "test", errno: 5)
    }
    stored = session
  }
  func saveUser(_ user: User, onto refreshToken: String) -> Bool {
    guard stored?.credentials.refreshToken == refreshToken else { return false }
    stored?.user = user
    return true
  }
  func credentials() -> Credentials? { stored?.credentials }
  func clear() { stored = nil }
  /// Replaces the tokens and keeps the snapshot, as the shipped stores do.
  func save(_ credentials: Credentials) async {
    if !released.contains(credentials.accessToken) {
      await withCheckedContinuation { waiting[credentials.accessToken] = $0 }
    }
    stored = StoredSession(credentials: credentials, user: stored?.user)
  }

  /// Lets the save of `accessToken` finish (now, or when it comes).
  func release(_ accessToken: String) {
    released.insert(accessToken)
    waiting.removeValue(forKey: accessToken)?.resume()
  }

  func isWaiting(_ accessToken: String) -> Bool { waiting[accessToken] != nil }

  /// Makes the next `count` session saves fail.
  func failSessionSaves(_ count: Int) { failingSessionSaves = count }
}

@Suite("Session state: the stored snapshot names the tokens' user", .timeLimit(.minutes(1)))
struct StoredSnapshotTests {
  @Test func aProfileOfTheLastUserLandingDuringTheNextSignInIsNotSavedOntoItsTokens()
    async throws
  {
    let store = GatedSessionStore()
    let harness = twoAccountsHarness(store)
    let auth = harness.repositories.auth
    await store.release("access-a")
    _ = try await auth.signIn(.dev, "dev-a")
    guard case .signedIn(let a) = await auth.currentState() else {
      Issue.record("not signed in")
      return
    }
    let b = Task { try await auth.signIn(.dev, "dev-b") }
    try await waitUntil("B's tokens are being stored") { await store.isWaiting("access-b") }
    // A's profile, asked for before, lands now with a change.
    var changed = a
    changed.answerCount += 1
    let landed = Locked(false)
    let update = Task {
      await harness.backend.session.userUpdated(changed)
      landed.withLock { $0 = true }
    }
    // Without a turn of its own it lands at once; in its turn it waits for B's sign-in.
    _ = await poll(timeout: .seconds(1)) { landed.withLock { $0 } }
    await store.release("access-b")
    _ = try await b.value
    await update.value
    let stored = try #require(await store.storedSession())
    #expect(stored.credentials.refreshToken == "refresh-b")
    #expect(stored.user?.id == "u_b")
    guard case .signedIn(let user) = await auth.currentState() else {
      Issue.record("not signed in")
      return
    }
    #expect(user.id == "u_b")
  }

  @Test func aSignInWhoseSessionSaveFailedStillStoresItsUserWithItsTokens() async throws {
    let store = GatedSessionStore()
    let harness = twoAccountsHarness(store)
    let auth = harness.repositories.auth
    await store.release("access-a")
    await store.release("access-b")
    _ = try await auth.signIn(.dev, "dev-a")
    await store.failSessionSaves(1)
    _ = try await auth.signIn(.dev, "dev-b")
    let stored = try #require(await store.storedSession())
    #expect(stored.credentials.refreshToken == "refresh-b")
    #expect(stored.user?.id == "u_b")
  }
}
