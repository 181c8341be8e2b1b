import Foundation
import HTTPTypes
import NetworkKit
import NetworkKitTesting
import Synchronization
import TestSupport
import Testing

/// An authenticator whose refresh calls the test server's `/refresh`, and a provider using it.
private struct Harness {
  let server: TestServer
  let clock: TestClock
  let store: InMemoryCredentialStore
  let authenticator: Authenticator
  let provider: NetworkProvider

  init(
    server: TestServer,
    credentials: Credentials?,
    transport: any HTTPTransport = HTTPTransports.platformDefault,
    refreshQuery: [URLQueryItem] = [],
    refreshBaseURL: URL? = nil
  ) {
    let clock = TestClock()
    let store = InMemoryCredentialStore(credentials)
    let refresher = NetworkProvider(transport: transport, retryPolicy: .never)
    let refreshURL = refreshBaseURL ?? server.baseURL
    let authenticator = Authenticator(
      store: store, clock: clock, now: clock.dateProvider
    ) { refreshToken in
      let pair = try await refresher.request(
        TestTarget(
          .post, "/refresh", on: refreshURL,
          task: .json(["refresh_token": refreshToken], query: refreshQuery)),
        as: TokenPair.self)
      return Credentials(
        accessToken: pair.accessToken, refreshToken: pair.refreshToken,
        expiresAt: clock.date.addingTimeInterval(TimeInterval(pair.expiresIn)))
    }
    self.server = server
    self.clock = clock
    self.store = store
    self.authenticator = authenticator
    self.provider = NetworkProvider(
      transport: transport, authenticator: authenticator, retryPolicy: .never, clock: clock)
  }

  func protected(_ id: String, method: HTTPRequest.Method = .get) -> TestTarget {
    TestTarget(method, "/protected/\(id)", on: server.baseURL, authorization: .bearer)
  }

  func refreshCalls(_ refreshToken: String) async -> Int {
    await server.state.count("refresh:\(refreshToken)")
  }
}

/// Credentials in memory whose saves (or clears) fail while ``failsSaves`` (``failsClears``)
/// is set (a locked keychain).
private actor FlakyCredentialStore: CredentialStore {
  private(set) var stored: Credentials?
  var failsSaves = false
  var failsClears = false

  init(_ credentials: Credentials?) { stored = credentials }

  func credentials() -> Credentials? { stored }
  func save(_ credentials: Credentials) throws {
    if failsSaves { throw NetworkError.credentialStorage("locked") }
    stored = credentials
  }
  func clear() throws {
    if failsClears { throw NetworkError.credentialStorage("locked") }
    stored = nil
  }
  func failSaves(_ fails: Bool) { failsSaves = fails }
  func failClears(_ fails: Bool) { failsClears = fails }
  /// What another process sharing the store writes.
  func put(_ credentials: Credentials?) { stored = credentials }
}

/// Credentials in memory whose next swap, once armed, waits at a gate before it checks and
/// writes in one step (as a store shared by processes does it): a swap a sign-out overtakes.
private actor SwapGatedStore: CredentialStore {
  private(set) var stored: Credentials?
  let swaps = Gate()
  private var gatesSwap = false
  private var failsSaves = false

  func credentials() -> Credentials? { stored }
  func save(_ credentials: Credentials) throws {
    if failsSaves { throw NetworkError.credentialStorage("locked") }
    stored = credentials
  }
  func clear() { stored = nil }
  func failSaves(_ fails: Bool) { failsSaves = fails }
  func gateSwap() { gatesSwap = true }
  func swapCredentials(
    _ credentials: Credentials?, ifStored isExpected: @Sendable (Credentials?) -> Bool
  ) async -> Bool {
    if gatesSwap {
      gatesSwap = false
      await swaps.wait()
    }
    guard isExpected(stored) else { return false }
    stored = credentials
    return true
  }
}

/// Credentials in memory whose reads (and refresh lock), once armed, wait at a gate: what a
/// read returns is what the store held when it began (a read racing a sign-out).
private actor GatedReadStore: CredentialStore {
  private(set) var stored: Credentials?
  let reads = Gate()
  let hold = Gate()
  private var gatesReads = false
  private var gatesHold = false

  init(_ credentials: Credentials?) { stored = credentials }

  func gateReads() { gatesReads = true }
  func gateHold() { gatesHold = true }
  func credentials() async -> Credentials? {
    let value = stored
    if gatesReads {
      gatesReads = false
      await reads.wait()
    }
    return value
  }
  func save(_ credentials: Credentials) { stored = credentials }
  func clear() { stored = nil }
  func holdRefreshes() async -> (@Sendable () -> Void)? {
    if gatesHold {
      gatesHold = false
      await hold.wait()
    }
    return nil
  }
}

/// Credentials in memory with a refresh lock, recording what happens in which order.
private actor LockingCredentialStore: CredentialStore {
  private var stored: Credentials?
  nonisolated let log = Mutex<[String]>([])

  private let holdFails: Bool

  init(_ credentials: Credentials?, holdFails: Bool = false) {
    stored = credentials
    self.holdFails = holdFails
  }

  nonisolated func note(_ event: String) { log.withLock { $0.append(event) } }
  nonisolated var events: [String] { log.withLock { $0 } }
  func credentials() -> Credentials? {
    note("read")
    return stored
  }
  func save(_ credentials: Credentials) {
    note("save \(credentials.refreshToken)")
    stored = credentials
  }
  func clear() { stored = nil }
  func holdRefreshes() throws -> (@Sendable () -> Void)? {
    if holdFails { throw NetworkError.timeout }
    note("hold")
    return { self.note("release") }
  }
}

@Suite("Authentication", .timeLimit(.minutes(1)))
struct AuthenticationTests {
  @Test("a refreshed pair the store cannot save is used, and saved before a later token")
  func anUnsavedRefreshIsSavedLater() async throws {
    let epoch = TestClock.epoch
    let store = FlakyCredentialStore(
      Credentials(accessToken: "old", refreshToken: "rt-old", expiresAt: epoch + 30))
    let refreshes = Mutex(0)
    let authenticator = Authenticator(store: store, now: { epoch }) { refreshToken in
      refreshes.withLock { $0 += 1 }
      return Credentials(
        accessToken: "new-\(refreshToken)", refreshToken: "next-\(refreshToken)",
        expiresAt: epoch + 900)
    }
    await store.failSaves(true)
    // The old token expires within the leeway: refreshed, and the new one is sent.
    #expect(try await authenticator.validAccessToken() == "new-rt-old")
    #expect(await store.stored?.refreshToken == "rt-old")
    #expect(try await authenticator.validAccessToken() == "new-rt-old")
    await store.failSaves(false)
    #expect(try await authenticator.validAccessToken() == "new-rt-old")
    #expect(await store.stored?.refreshToken == "next-rt-old")
    #expect(refreshes.withLock { $0 } == 1)

    // A sign-out drops a pair still unsaved: nothing writes it back.
    try await authenticator.signIn(Credentials(accessToken: "again", refreshToken: "rt-again"))
    await store.failSaves(true)
    #expect(try await authenticator.accessToken(afterRejecting: "again") == "new-rt-again")
    try await authenticator.signOut()
    await store.failSaves(false)
    #expect(try await authenticator.credentials() == nil)
    #expect(await store.stored == nil)
  }

  @Test("a rejected refresh whose credentials cannot be cleared still tells of the sign-out")
  func aRejectedRefreshTellsOfTheSignOutWhenTheStoreFails() async throws {
    let epoch = TestClock.epoch
    let store = FlakyCredentialStore(
      Credentials(accessToken: "old", refreshToken: "rt-old", expiresAt: epoch + 30))
    let authenticator = Authenticator(store: store, now: { epoch }, isRevocation: { _ in true }) {
      _ in throw NetworkError.unauthorized
    }
    var events = authenticator.events().makeAsyncIterator()
    await store.failClears(true)
    await #expect(throws: NetworkError.sessionRevoked) {
      try await authenticator.validAccessToken()
    }
    // Signed out in memory, and told so: the store's failure is the caller's to hear.
    #expect(await events.next() == .signedOut(.refreshTokenRejected))
    await #expect(throws: NetworkError.notSignedIn) { try await authenticator.validAccessToken() }
  }

  @Test("a sign-in whose credentials cannot be saved is signed in, and tells so, and throws")
  func anUnsavedSignInStillTellsOfTheSignIn() async throws {
    let store = FlakyCredentialStore(nil)
    let authenticator = Authenticator(store: store) { _ in throw NetworkError.unauthorized }
    var events = authenticator.events().makeAsyncIterator()
    await store.failSaves(true)
    await #expect(throws: NetworkError.self) {
      try await authenticator.signIn(Credentials(accessToken: "t", refreshToken: "rt"))
    }
    #expect(try await authenticator.validAccessToken() == "t")
    // A sign-out after it: the events must tell of the sign-in first (and the wait cannot hang).
    await store.failSaves(false)
    try await authenticator.signOut()
    #expect(await events.next() == .signedIn)
    #expect(await events.next() == .signedOut(.requested))
  }

  @Test func injectsTheBearerTokenForBearerTargets() async throws {
    let server = try await TestServer.shared()
    let id = uniqueID()
    let token = "tok-\(id)"
    await server.state.issue(accessToken: token)
    let harness = Harness(
      server: server, credentials: Credentials(accessToken: token, refreshToken: "rt-\(id)"))
    let response = try await harness.provider.response(harness.protected(id))
    #expect(response.request.headerFields[.authorization] == "Bearer \(token)")
    #expect(await server.state.count("protected:\(id)") == 1)
    #expect(await harness.refreshCalls("rt-\(id)") == 0)
  }

  @Test func publicTargetsCarryNoToken() async throws {
    let server = try await TestServer.shared()
    let harness = Harness(
      server: server, credentials: Credentials(accessToken: "secret", refreshToken: "r"))
    let echo = try await harness.provider.request(
      TestTarget(.get, "/echo/public", on: server.baseURL), as: Echo.self)
    #expect(echo.headers["authorization"] == nil)
  }

  @Test func bearerTargetsWithoutCredentialsFailFast() async throws {
    let server = try await TestServer.shared()
    let id = uniqueID()
    let harness = Harness(server: server, credentials: nil)
    await #expect(throws: NetworkError.notSignedIn) {
      try await harness.provider.send(harness.protected(id))
    }
    #expect(await server.state.count("protected-401:\(id)") == 0)
    #expect(await server.state.count("protected:\(id)") == 0)
  }

  @Test func bearerTargetsOnAProviderWithoutAuthenticatorAreRejected() async throws {
    let provider = NetworkProvider(transport: StubTransport())
    let error = await #expect(throws: NetworkError.self) {
      try await provider.send(TestTarget(.get, "/me", authorization: .bearer))
    }
    guard case .invalidRequest(let reason) = error else {
      Issue.record("expected invalidRequest, got \(String(describing: error))")
      return
    }
    #expect(reason.contains("Authenticator"))
  }

  @Test(arguments: NamedTransport.all)
  func concurrentUnauthorizedRequestsShareOneRefresh(transport: NamedTransport) async throws {
    let server = try await TestServer.shared()
    let id = uniqueID()
    let refreshToken = "rt-\(id)"
    let concurrency = 50
    // The refresh answers only after the server has refused all 50 requests, so every one of
    // them hits the 401 path while the refresh is in flight.
    let harness = Harness(
      server: server,
      credentials: Credentials(accessToken: "stale-\(id)", refreshToken: refreshToken),
      transport: transport.transport,
      refreshQuery: [
        URLQueryItem(name: "scope", value: id),
        URLQueryItem(name: "await_401s", value: "\(concurrency)"),
      ])
    let events = harness.authenticator.events()

    let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
      for _ in 0..<concurrency {
        group.addTask { try await harness.provider.response(harness.protected(id)).status.code }
      }
      return try await group.reduce(into: []) { $0.append($1) }
    }

    #expect(statuses == Array(repeating: 200, count: concurrency))
    #expect(await harness.refreshCalls(refreshToken) == 1)
    #expect(await server.state.count("protected-401:\(id)") == concurrency)
    #expect(await server.state.count("protected:\(id)") == concurrency)
    let stored = try #require(await harness.store.credentials())
    #expect(stored.accessToken.hasPrefix("access-"))
    var iterator = events.makeAsyncIterator()
    #expect(await iterator.next() == .refreshed)
  }

  @Test func aSecondUnauthorizedAfterRefreshIsUnauthorized() async throws {
    let server = try await TestServer.shared()
    let id = uniqueID()
    let harness = Harness(
      server: server, credentials: Credentials(accessToken: "stale-\(id)", refreshToken: "rt-\(id)")
    )
    let alwaysRefused = TestTarget(.get, "/status/401", on: server.baseURL, authorization: .bearer)
    let error = await #expect(throws: NetworkError.self) {
      try await harness.provider.send(alwaysRefused)
    }
    #expect(error == .unauthorized)
    #expect(error?.description.contains("even after refreshing") == true)
    #expect(await harness.refreshCalls("rt-\(id)") == 1)
  }

  @Test func aRejectedRefreshSignsOut() async throws {
    let server = try await TestServer.shared()
    let id = uniqueID()
    await server.state.revoke(refreshToken: "rt-\(id)")
    let harness = Harness(
      server: server, credentials: Credentials(accessToken: "stale-\(id)", refreshToken: "rt-\(id)")
    )
    let events = harness.authenticator.events()

    await #expect(throws: NetworkError.sessionRevoked) {
      try await harness.provider.send(harness.protected(id))
    }
    #expect(await harness.store.credentials() == nil)
    var iterator = events.makeAsyncIterator()
    #expect(await iterator.next() == .signedOut(.refreshTokenRejected))

    // Later calls fail fast without reaching the server.
    await #expect(throws: NetworkError.notSignedIn) {
      try await harness.provider.send(harness.protected(id))
    }
    #expect(await server.state.count("protected-401:\(id)") == 1)
    #expect(await harness.refreshCalls("rt-\(id)") == 1)
  }

  @Test(arguments: ["unavailable", "offline"])
  func aTransientRefreshFailureKeepsTheUserSignedIn(kind: String) async throws {
    let server = try await TestServer.shared()
    let id = uniqueID()
    let refreshToken = "\(kind)-\(id)"
    // "offline" refreshes against a port nobody listens on.
    let harness = Harness(
      server: server,
      credentials: Credentials(accessToken: "stale-\(id)", refreshToken: refreshToken),
      refreshBaseURL: kind == "offline" ? URL(string: "http://127.0.0.1:9")! : nil)
    let events = harness.authenticator.events()

    let error = await #expect(throws: NetworkError.self) {
      try await harness.provider.send(harness.protected(id))
    }
    if kind == "offline" {
      #expect(error == .offline)
    } else {
      #expect(error?.statusCode == 503)
    }
    #expect(await harness.store.credentials()?.refreshToken == refreshToken)
    #expect(try await harness.authenticator.isSignedIn)

    // The first event is the sign-out below: the failure published nothing.
    try await harness.authenticator.signOut()
    var iterator = events.makeAsyncIterator()
    #expect(await iterator.next() == .signedOut(.requested))
  }

  @Test(
    "a pair another process stored in place of ours is used instead of a refresh; one near expiry is refreshed from its own token; none is asked for while our own pair is unsaved"
  )
  func aReplacementFromElsewhereIsUsed() async throws {
    let epoch = TestClock.epoch
    let store = FlakyCredentialStore(
      Credentials(accessToken: "a0", refreshToken: "r0", expiresAt: epoch + 30))
    let sent = Mutex<[String]>([])
    let asked = Mutex<[String]>([])
    // As RepositoriesLive's: what the store holds, when it is not the pair in use.
    let authenticator = Authenticator(
      store: store, now: { epoch },
      replacement: { current, _ in
        asked.withLock { $0.append(current.refreshToken) }
        let stored = await store.stored
        return stored?.refreshToken == current.refreshToken ? nil : stored
      }
    ) { refreshToken in
      let count = sent.withLock {
        $0.append(refreshToken)
        return $0.count
      }
      return Credentials(
        accessToken: "a\(count)", refreshToken: "r\(count)", expiresAt: epoch + 900)
    }
    #expect(try await authenticator.credentials()?.refreshToken == "r0")
    // Another process refreshed: ours is within the leeway, and the stored pair is taken.
    await store.put(Credentials(accessToken: "t1", refreshToken: "rt1", expiresAt: epoch + 900))
    #expect(try await authenticator.validAccessToken() == "t1")
    #expect(sent.withLock { $0 } == [])
    // The server refuses it; the pair stored now expires within the leeway itself, so it is
    // refreshed from its own token (not from ours, which is spent), and saved over it.
    await store.put(Credentials(accessToken: "t2", refreshToken: "rt2", expiresAt: epoch + 10))
    #expect(try await authenticator.accessToken(afterRejecting: "t1") == "a1")
    #expect(sent.withLock { $0 } == ["rt2"])
    #expect(await store.stored?.refreshToken == "r1")
    // Nothing new stored: refreshed as before. This pair cannot be saved...
    await store.failSaves(true)
    #expect(try await authenticator.accessToken(afterRejecting: "a1") == "a2")
    // ...so the store holds an older pair than ours, and no replacement is asked for; the
    // next pair is saved over the one the store holds once it can be.
    #expect(try await authenticator.accessToken(afterRejecting: "a2") == "a3")
    #expect(sent.withLock { $0 } == ["rt2", "r1", "r2"])
    #expect(asked.withLock { $0 } == ["r0", "rt1", "r1"])
    await store.failSaves(false)
    #expect(try await authenticator.validAccessToken() == "a3")
    #expect(await store.stored?.refreshToken == "r3")
  }

  @Test("a refreshed pair is saved only over the pair it replaced, not over another session")
  func aRefreshDoesNotOverwriteAnotherSession() async throws {
    let epoch = TestClock.epoch
    let store = FlakyCredentialStore(
      Credentials(accessToken: "a0", refreshToken: "r0", expiresAt: epoch + 900))
    let authenticator = Authenticator(store: store, now: { epoch }) { refreshToken in
      Credentials(accessToken: "new-\(refreshToken)", refreshToken: "next-\(refreshToken)")
    }
    #expect(try await authenticator.validAccessToken() == "a0")
    // Another process signs someone else in on the same store.
    let theirs = Credentials(accessToken: "b0", refreshToken: "s0", expiresAt: epoch + 900)
    await store.put(theirs)
    #expect(try await authenticator.accessToken(afterRejecting: "a0") == "new-r0")
    #expect(await store.stored == theirs)
    // ...or out: nothing comes back into the store.
    await store.put(nil)
    #expect(try await authenticator.accessToken(afterRejecting: "new-r0") == "new-next-r0")
    #expect(await store.stored == nil)
  }

  @Test(
    "a refused token's sign-out leaves a session another process stored; a requested one empties the store"
  )
  func aRefusedTokenLeavesAnotherSessionStored() async throws {
    let store = FlakyCredentialStore(Credentials(accessToken: "a0", refreshToken: "r0"))
    let authenticator = Authenticator(store: store) { _ in throw NetworkError.timeout }
    let session = try #require(try await authenticator.signedInSession())
    let theirs = Credentials(accessToken: "b0", refreshToken: "s0")
    await store.put(theirs)
    #expect(try await authenticator.signOut(ifCurrent: session, reason: .accessTokenRejected))
    #expect(try await authenticator.credentials() == nil)
    #expect(await store.stored == theirs)
    try await authenticator.signIn(Credentials(accessToken: "a1", refreshToken: "r1"))
    await store.put(theirs)
    try await authenticator.signOut()
    #expect(await store.stored == nil)
  }

  @Test(
    "a refresh that cannot get the store's refresh lock fails for now; an unexpired token is still sent"
  )
  func aHeldRefreshLockFailsTheRefreshForNow() async throws {
    let epoch = TestClock.epoch
    let store = LockingCredentialStore(
      Credentials(accessToken: "a0", refreshToken: "r0", expiresAt: epoch + 30), holdFails: true)
    let refreshes = Mutex(0)
    let authenticator = Authenticator(store: store, now: { epoch }) { _ in
      refreshes.withLock { $0 += 1 }
      return Credentials(accessToken: "a1", refreshToken: "r1", expiresAt: epoch + 900)
    }
    #expect(try await authenticator.validAccessToken() == "a0")
    await #expect(throws: NetworkError.timeout) {
      try await authenticator.accessToken(afterRejecting: "a0")
    }
    #expect(refreshes.withLock { $0 } == 0)
  }

  @Test(
    "a rejected refresh whose store read a sign-in overtook tells no sign-out: the sign-in is the news"
  )
  func aSignInDuringTheRejectedRefreshsClear() async throws {
    let epoch = TestClock.epoch
    let store = GatedReadStore(Credentials(accessToken: "a0", refreshToken: "r0"))
    // The refresh is rejected; the store read after it (the clear's) waits at the gate.
    let authenticator = Authenticator(store: store, now: { epoch }, isRevocation: { _ in true }) {
      _ in
      await store.gateReads()
      throw NetworkError.unauthorized
    }
    #expect(try await authenticator.validAccessToken() == "a0")
    var events = authenticator.events().makeAsyncIterator()
    let refresh = Task { try await authenticator.accessToken(afterRejecting: "a0") }
    // The refresh was rejected; the clear reads the store, and a sign-in comes meanwhile.
    try await store.reads.waitForArrivals()
    try await authenticator.signIn(Credentials(accessToken: "b0", refreshToken: "s0"))
    await store.reads.open()
    _ = try? await refresh.value
    try await authenticator.signOut()
    #expect(await events.next() == .signedIn)
    #expect(await events.next() == .signedOut(.requested))
    #expect(await store.stored == nil)
  }

  @Test("a sign-out while a refreshed pair's save reads the store is not undone by that save")
  func aSignOutDuringTheSaveIsNotUndone() async throws {
    let epoch = TestClock.epoch
    let store = GatedReadStore(Credentials(accessToken: "a0", refreshToken: "r0"))
    let authenticator = Authenticator(store: store, now: { epoch }) { _ in
      Credentials(accessToken: "a1", refreshToken: "r1")
    }
    #expect(try await authenticator.validAccessToken() == "a0")
    await store.gateReads()
    let refresh = Task { try await authenticator.accessToken(afterRejecting: "a0") }
    try await store.reads.waitForArrivals()
    try await authenticator.signOut()
    await store.reads.open()
    _ = try? await refresh.value
    #expect(await store.stored == nil)
    #expect(try await authenticator.credentials() == nil)
  }

  @Test("a refresh that waited for the store's lock past the end of its session sends nothing")
  func aRefreshOfASessionEndedWhileWaitingForTheLock() async throws {
    let store = GatedReadStore(Credentials(accessToken: "a0", refreshToken: "r0"))
    let refreshes = Mutex(0)
    let authenticator = Authenticator(store: store) { _ in
      refreshes.withLock { $0 += 1 }
      return Credentials(accessToken: "a1", refreshToken: "r1")
    }
    #expect(try await authenticator.validAccessToken() == "a0")
    await store.gateHold()
    let refresh = Task { try await authenticator.accessToken(afterRejecting: "a0") }
    try await store.hold.waitForArrivals()
    try await authenticator.signIn(Credentials(accessToken: "b0", refreshToken: "s0"))
    await store.hold.open()
    await #expect(throws: NetworkError.sessionEnded) { try await refresh.value }
    #expect(refreshes.withLock { $0 } == 0)
  }

  @Test(
    "a session whose sign-in could not be saved saves its refreshed pair once the store works; a rejected refresh clears what this session left"
  )
  func anUnsavedSessionFillsAndClearsItsStore() async throws {
    let epoch = TestClock.epoch
    let store = FlakyCredentialStore(nil)
    let rejects = Mutex(false)
    let authenticator = Authenticator(
      store: store, now: { epoch }, isRevocation: { _ in true }
    ) { refreshToken in
      if rejects.withLock({ $0 }) { throw NetworkError.timeout }
      return Credentials(accessToken: "new-\(refreshToken)", refreshToken: "next-\(refreshToken)")
    }
    await store.failSaves(true)
    await #expect(throws: NetworkError.self) {
      try await authenticator.signIn(Credentials(accessToken: "a0", refreshToken: "r0"))
    }
    await store.failSaves(false)
    #expect(try await authenticator.accessToken(afterRejecting: "a0") == "new-r0")
    #expect(await store.stored?.refreshToken == "next-r0")
    // A refreshed pair the store refuses, then a refresh the server rejects: the store held
    // this session's older pair, and it is cleared.
    await store.failSaves(true)
    #expect(try await authenticator.accessToken(afterRejecting: "new-r0") == "new-next-r0")
    #expect(await store.stored?.refreshToken == "next-r0")
    rejects.withLock { $0 = true }
    await #expect(throws: NetworkError.sessionRevoked) {
      try await authenticator.accessToken(afterRejecting: "new-next-r0")
    }
    #expect(await store.stored == nil)
  }

  @Test(
    "a refreshed pair whose save a sign-out overtook does not outlive the session in the store"
  )
  func aSaveOvertakenByASignOutIsTakenBack() async throws {
    let store = SwapGatedStore()
    let authenticator = Authenticator(store: store, now: { TestClock.epoch }) { refreshToken in
      Credentials(accessToken: "new-\(refreshToken)", refreshToken: "next-\(refreshToken)")
    }
    // A sign-in the store refused: its refreshed pair may fill the empty store.
    await store.failSaves(true)
    await #expect(throws: NetworkError.self) {
      try await authenticator.signIn(Credentials(accessToken: "a0", refreshToken: "r0"))
    }
    await store.failSaves(false)
    await store.gateSwap()
    let refresh = Task { try await authenticator.accessToken(afterRejecting: "a0") }
    try await store.swaps.waitForArrivals(1)
    try await authenticator.signOut()
    await store.swaps.open()
    _ = await refresh.result
    #expect(await store.stored == nil)
    #expect(try await authenticator.credentials() == nil)
  }

  @Test("a refresh holds the store's refresh lock from before it reads the store until it saved")
  func aRefreshHoldsTheStoresLock() async throws {
    let epoch = TestClock.epoch
    let store = LockingCredentialStore(
      Credentials(accessToken: "a0", refreshToken: "r0", expiresAt: epoch + 30))
    let authenticator = Authenticator(
      store: store, now: { epoch },
      replacement: { _, _ in
        store.note("replacement")
        return nil
      }
    ) { refreshToken in
      store.note("refresh \(refreshToken)")
      return Credentials(accessToken: "a1", refreshToken: "r1", expiresAt: epoch + 900)
    }
    #expect(try await authenticator.validAccessToken() == "a1")
    // It reads the store again before it saves: only over the pair it replaced.
    #expect(
      store.events == ["read", "hold", "replacement", "refresh r0", "read", "save r1", "release"])
  }

  @Test func refreshesProactivelyBeforeExpiry() async throws {
    let server = try await TestServer.shared()
    let id = uniqueID()
    let token = "tok-\(id)"
    await server.state.issue(accessToken: token)
    // The harness's clock starts at `TestClock.epoch`: the token expires within the 60 s leeway.
    let harness = Harness(
      server: server,
      credentials: Credentials(
        accessToken: token, refreshToken: "rt-\(id)",
        expiresAt: TestClock.epoch.addingTimeInterval(59)))
    let response = try await harness.provider.response(harness.protected(id))
    let sent = try #require(response.request.headerFields[.authorization])
    #expect(sent != "Bearer \(token)")
    #expect(sent.hasPrefix("Bearer access-"))
    #expect(await harness.refreshCalls("rt-\(id)") == 1)
    #expect(await server.state.count("protected-401:\(id)") == 0)
  }

  @Test func doesNotRefreshTokensOutsideTheLeeway() async throws {
    let server = try await TestServer.shared()
    let id = uniqueID()
    let token = "tok-\(id)"
    await server.state.issue(accessToken: token)
    let harness = Harness(
      server: server,
      credentials: Credentials(
        accessToken: token, refreshToken: "rt-\(id)",
        expiresAt: TestClock.epoch.addingTimeInterval(61)))
    try await harness.provider.send(harness.protected(id))
    #expect(await harness.refreshCalls("rt-\(id)") == 0)
  }

  @Test func aFailedProactiveRefreshStillSendsAnUnexpiredToken() async throws {
    let server = try await TestServer.shared()
    let id = uniqueID()
    let token = "tok-\(id)"
    await server.state.issue(accessToken: token)
    let harness = Harness(
      server: server,
      credentials: Credentials(
        accessToken: token, refreshToken: "unavailable-\(id)",
        expiresAt: TestClock.epoch.addingTimeInterval(30)))
    let response = try await harness.provider.response(harness.protected(id))
    #expect(response.request.headerFields[.authorization] == "Bearer \(token)")
    #expect(await harness.refreshCalls("unavailable-\(id)") == 1)
  }

  @Test func refreshesAreRateLimitedInASlidingWindow() async throws {
    let clock = TestClock()
    let refreshes = Counter()
    // The server refuses every token it gets (a refresh returns an already expired one), so
    // every call refreshes again.
    let authenticator = Authenticator(
      store: InMemoryCredentialStore(
        Credentials(accessToken: "a0", refreshToken: "r", expiresAt: TestClock.epoch)),
      refreshLimit: 5, refreshWindow: .seconds(30), clock: clock, now: clock.dateProvider
    ) { refreshToken in
      let count = refreshes.next()
      return Credentials(
        accessToken: "a\(count)", refreshToken: refreshToken, expiresAt: .distantPast)
    }
    var current = "a0"
    for expected in 1...5 {
      current = try await authenticator.accessToken(afterRejecting: current)
      #expect(current == "a\(expected)")
    }
    clock.advance(by: .seconds(29))
    await #expect(throws: NetworkError.refreshRateLimited) {
      try await authenticator.accessToken(afterRejecting: current)
    }
    #expect(refreshes.value == 5, "the sixth refresh within 30 s must not run")

    clock.advance(by: .seconds(1))
    #expect(try await authenticator.accessToken(afterRejecting: current) == "a6")
  }

  @Test func aTokenThatArrivesWithinTheLeewayIsRefreshedOnlyWhenTheServerRefusesIt() async throws {
    // The device clock runs 20 minutes ahead of the server, whose tokens last 15 minutes: by
    // the device clock every token has expired when it arrives.
    let clock = TestClock()
    let refreshes = Counter()
    let authenticator = Authenticator(
      store: InMemoryCredentialStore(), clock: clock,
      now: { clock.date.addingTimeInterval(20 * 60) }
    ) { refreshToken in
      let count = refreshes.next()
      return Credentials(
        accessToken: "a\(count)", refreshToken: refreshToken,
        expiresAt: clock.date.addingTimeInterval(15 * 60))
    }
    try await authenticator.signIn(
      Credentials(
        accessToken: "a0", refreshToken: "r", expiresAt: clock.date.addingTimeInterval(15 * 60)))
    for _ in 1...10 { #expect(try await authenticator.validAccessToken() == "a0") }
    #expect(refreshes.value == 0, "no refresh before each request")

    // The server refuses it once it really expired: one refresh, whose token is sent as it is.
    clock.advance(by: .seconds(15 * 60))
    #expect(try await authenticator.accessToken(afterRejecting: "a0") == "a1")
    for _ in 1...10 { #expect(try await authenticator.validAccessToken() == "a1") }
    #expect(refreshes.value == 1)
  }

  @Test func cancellingARequestThatWaitsForARefreshStopsOnlyThatRequest() async throws {
    let (refreshStarted, startedContinuation) = AsyncStream<Void>.makeStream()
    let (gate, gateContinuation) = AsyncStream<Void>.makeStream()
    let store = InMemoryCredentialStore(Credentials(accessToken: "stale", refreshToken: "r"))
    let authenticator = Authenticator(store: store) { refreshToken in
      startedContinuation.yield()
      for await _ in gate {}
      return Credentials(accessToken: "fresh", refreshToken: refreshToken)
    }
    let stubs = StubTransport()
    stubs.stub(.get, "/me") { request, _ throws(NetworkError) in
      request.headerFields[.authorization] == "Bearer fresh"
        ? .response(status: .ok, body: Data()) : .response(status: .unauthorized, body: Data())
    }
    let provider = NetworkProvider(transport: stubs, authenticator: authenticator)
    let events = authenticator.events()

    let call = Task { try await provider.send(TestTarget(.get, "/me", authorization: .bearer)) }
    var started = refreshStarted.makeAsyncIterator()
    await started.next()
    call.cancel()
    await #expect(throws: NetworkError.cancelled) { try await call.value }

    // The refresh itself carries on for everyone else.
    gateContinuation.finish()
    var iterator = events.makeAsyncIterator()
    #expect(await iterator.next() == .refreshed)
    #expect(await store.credentials()?.accessToken == "fresh")
    try await provider.send(TestTarget(.get, "/me", authorization: .bearer))
  }

  @Test("a request cancelled while its token is refreshed early (not yet expired) is not sent")
  func cancellingDuringAnEarlyRefreshSendsNothing() async throws {
    let (refreshStarted, startedContinuation) = AsyncStream<Void>.makeStream()
    let (gate, gateContinuation) = AsyncStream<Void>.makeStream()
    // Inside the refresh leeway (60 s) but not expired: a failed refresh would still send it.
    let store = InMemoryCredentialStore(
      Credentials(accessToken: "stale", refreshToken: "r", expiresAt: Date() + 30))
    let authenticator = Authenticator(store: store) { refreshToken in
      startedContinuation.yield()
      for await _ in gate {}
      return Credentials(accessToken: "fresh", refreshToken: refreshToken)
    }
    let stubs = StubTransport()
    stubs.stub(.get, "/me") { _, _ throws(NetworkError) in .response(status: .ok, body: Data()) }
    let provider = NetworkProvider(transport: stubs, authenticator: authenticator)

    let call = Task { try await provider.send(TestTarget(.get, "/me", authorization: .bearer)) }
    var started = refreshStarted.makeAsyncIterator()
    await started.next()
    call.cancel()
    await #expect(throws: NetworkError.cancelled) { try await call.value }
    #expect(stubs.receivedRequests.isEmpty)
    gateContinuation.finish()
  }

  @Test func aRequestOfAnEndedSessionIsNeverSentWithTheNextUsersToken() async throws {
    // A's POST is slow; A signs out and B signs in; then the server refuses A's token.
    let refreshes = Counter()
    let authenticator = Authenticator(
      store: InMemoryCredentialStore(Credentials(accessToken: "a-token", refreshToken: "a-rt"))
    ) { refreshToken in
      _ = refreshes.next()
      return Credentials(accessToken: "\(refreshToken)-fresh", refreshToken: refreshToken)
    }
    let (arrived, arrivedContinuation) = AsyncStream<Void>.makeStream()
    let (gate, gateContinuation) = AsyncStream<Void>.makeStream()
    let stubs = StubTransport()
    stubs.stub(.post, "/posts") { request, _ throws(NetworkError) in
      if request.headerFields[.authorization] == "Bearer a-token" {
        arrivedContinuation.yield()
        for await _ in gate {}
      }
      return .response(status: .unauthorized, body: Data())
    }
    let provider = NetworkProvider(
      transport: stubs, authenticator: authenticator, retryPolicy: .never)

    let call = Task {
      try await provider.send(TestTarget(.post, "/posts", authorization: .bearer))
    }
    var arrivals = arrived.makeAsyncIterator()
    await arrivals.next()
    try await authenticator.signOut()
    try await authenticator.signIn(Credentials(accessToken: "b-token", refreshToken: "b-rt"))
    gateContinuation.finish()

    await #expect(throws: NetworkError.sessionEnded) { try await call.value }
    let sent = stubs.receivedRequests.map { $0.request.headerFields[.authorization] }
    #expect(sent == ["Bearer a-token"], "A's request must never go out with B's token")
    #expect(refreshes.value == 0)
    #expect(try await authenticator.validAccessToken() == "b-token")
  }

  @Test func aRefreshOfAnEndedSessionIsNeitherJoinedNorHandedOut() async throws {
    let (refreshStarted, startedContinuation) = AsyncStream<String>.makeStream()
    let (gate, gateContinuation) = AsyncStream<Void>.makeStream()
    // However the test ends, A's refresh is released, so nothing waits for it forever.
    defer { gateContinuation.finish() }
    let store = InMemoryCredentialStore(Credentials(accessToken: "a-stale", refreshToken: "a-rt"))
    let authenticator = Authenticator(store: store) { refreshToken in
      startedContinuation.yield(refreshToken)
      if refreshToken == "a-rt" {
        for await _ in gate {}
      }
      return Credentials(accessToken: "\(refreshToken)-fresh", refreshToken: "\(refreshToken)-2")
    }
    let stubs = StubTransport()
    stubs.stub(.get, "/me") { _, _ throws(NetworkError) in
      .response(status: .unauthorized, body: Data())
    }
    let provider = NetworkProvider(
      transport: stubs, authenticator: authenticator, retryPolicy: .never)

    // A's request is refused and waits for A's refresh, which hangs.
    let call = Task { try await provider.send(TestTarget(.get, "/me", authorization: .bearer)) }
    var started = refreshStarted.makeAsyncIterator()
    #expect(await started.next() == "a-rt")
    try await authenticator.signOut()
    // The server refuses B's token, so B refreshes at once: with B's refresh token, not by
    // joining A's.
    try await authenticator.signIn(Credentials(accessToken: "b-stale", refreshToken: "b-rt"))

    // Joining A's refresh would wait for the gate (until the time limit cancels it).
    #expect(try await authenticator.accessToken(afterRejecting: "b-stale") == "b-rt-fresh")
    #expect(await started.next() == "b-rt")
    // A's waiting request failed when A signed out, without waiting for A's refresh.
    await #expect(throws: NetworkError.sessionEnded) { try await call.value }
    gateContinuation.finish()
    #expect(stubs.receivedRequests.count == 1)
    #expect(await store.credentials()?.refreshToken == "b-rt-2")
  }

  /// An authenticator signed in with token `a` (refresh token `ra`) whose refresh must not run.
  static func signedInAsA() -> Authenticator {
    Authenticator(
      store: InMemoryCredentialStore(Credentials(accessToken: "a", refreshToken: "ra"))
    ) { _ in
      Issue.record("no refresh expected")
      return Credentials(accessToken: "", refreshToken: "")
    }
  }

  @Test func aSessionBoundSignOutLeavesALaterSessionAlone() async throws {
    let authenticator = Self.signedInAsA()
    let first = await authenticator.currentSession
    #expect(try await authenticator.sessionToken().session == first)
    try await authenticator.signIn(Credentials(accessToken: "b", refreshToken: "rb"))
    let second = await authenticator.currentSession
    #expect(second != first)
    #expect(try await !authenticator.signOut(ifCurrent: first))
    #expect(try await authenticator.validAccessToken() == "b")
    await #expect(throws: NetworkError.sessionEnded) {
      try await authenticator.sessionToken(in: first)
    }
    await #expect(throws: NetworkError.sessionEnded) {
      try await authenticator.accessToken(afterRejecting: "a", in: first)
    }
    let token = try await authenticator.sessionToken(in: second)
    #expect(token.accessToken == "b")
    #expect("\(token)" == "SessionToken(\(second), accessToken: <redacted>)")
    #expect(try await authenticator.signedInSession() == second)
    #expect(try await authenticator.signOut(ifCurrent: second))
    #expect(try await !authenticator.isSignedIn)
    #expect(try await authenticator.signedInSession() == nil)
  }

  @Test func aCallBoundToAnEndedSessionIsNotSent() async throws {
    let authenticator = Self.signedInAsA()
    let stubs = StubTransport()
    stubs.stub(.get, "/me", with: .response(status: .ok, body: Data()))
    let provider = NetworkProvider(transport: stubs, authenticator: authenticator)
    let me = TestTarget(.get, "/me", authorization: .bearer)
    let first = await authenticator.currentSession
    _ = try await provider.response(me, in: first)

    try await authenticator.signIn(Credentials(accessToken: "b", refreshToken: "rb"))
    await #expect(throws: NetworkError.sessionEnded) { try await provider.response(me, in: first) }

    let sent = stubs.receivedRequests.map { $0.request.headerFields[.authorization] }
    #expect(sent == ["Bearer a"])
  }

  @Test func theRefreshEndpointMustNotNeedABearerToken() async throws {
    let clock = TestClock()
    let box = ProviderBox()
    let authenticator = Authenticator(
      store: InMemoryCredentialStore(
        Credentials(accessToken: "a", refreshToken: "r", expiresAt: .distantPast)),
      clock: clock, now: clock.dateProvider
    ) { _ in
      // A misconfigured refresh target that itself asks for a token.
      _ = try await box.provider?.response(TestTarget(.post, "/refresh", authorization: .bearer))
      return Credentials(accessToken: "never", refreshToken: "r")
    }
    let stubs = StubTransport()
    box.provider = NetworkProvider(transport: stubs, authenticator: authenticator)
    let error = await #expect(throws: NetworkError.self) {
      try await box.provider?.send(TestTarget(.get, "/me", authorization: .bearer))
    }
    guard case .invalidRequest(let reason) = error else {
      Issue.record("expected invalidRequest, got \(String(describing: error))")
      return
    }
    #expect(reason.contains("AuthorizationRequirement.none"))
    #expect(stubs.receivedRequests.isEmpty)
  }

  @Test func signInAndSignOutPublishEvents() async throws {
    let store = InMemoryCredentialStore()
    let authenticator = Authenticator(store: store) { _ in
      Issue.record("no refresh expected")
      return Credentials(accessToken: "", refreshToken: "")
    }
    let events = authenticator.events()
    #expect(try await !authenticator.isSignedIn)
    let credentials = Credentials(accessToken: "a", refreshToken: "r")
    try await authenticator.signIn(credentials)
    #expect(await store.credentials() == credentials)
    #expect(try await authenticator.validAccessToken() == "a")
    try await authenticator.signOut()
    #expect(await store.credentials() == nil)
    var iterator = events.makeAsyncIterator()
    #expect(await iterator.next() == .signedIn)
    #expect(await iterator.next() == .signedOut(.requested))
  }

  @Test func credentialsNeverPrintTheirTokens() {
    let credentials = Credentials(accessToken: "acc-123", refreshToken: "ref-456")
    for text in [String(describing: credentials), String(reflecting: credentials)] {
      #expect(!text.contains("acc-123"))
      #expect(!text.contains("ref-456"))
    }
  }
}

/// Lets a refresh closure reach a provider created after the authenticator.
private final class ProviderBox: @unchecked Sendable {
  private let lock = NSLock()
  private var stored: NetworkProvider?

  var provider: NetworkProvider? {
    get { lock.withLock { stored } }
    set { lock.withLock { stored = newValue } }
  }
}
