import Dependencies
import Domain
import Foundation
import HTTPTypes
import LocalServer
import NetworkKit
import Repositories
import RepositoriesLive
import TestSupport
import Testing

/// What only the live stack does: the server's rate limit, access tokens that expire and are
/// refreshed, refresh tokens revoked elsewhere, an unreachable server, and a relaunch that
/// restores the session. The fakes do not model these, so they run against `LocalServer` only.
// Only a hang guard, as in SharedScenarioTests (a live run can take near a minute).
@Suite("Live-only scenarios", .timeLimit(.minutes(3)))
struct LiveOnlyScenarioTests {
  /// How the expired access token is discovered.
  enum ExpiryDiscovery: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// The client's clock stands still, so it sends the old token and the server answers 401
    /// `token_expired`; the authenticator refreshes and retries.
    case serverRejects
    /// The client reads the same clock as the server and refreshes before sending.
    case clientNotices

    var testDescription: String { rawValue }
  }

  @Test("429 becomes rateLimited(retryAfter:) and the window reopens")
  func rateLimit() async throws {
    // 10 writes per 10 s: enough for two sign-ups from one address (4 public writes each).
    let limit = ServerConfiguration.RateLimit(count: 10, window: .seconds(10))
    try await withLiveBackend(rateLimit: limit) { backend in
      let alice = try await backend.makeMember(nickname: "alice")
      let bob = try await backend.makeMember(nickname: "bob")
      for number in 1...10 {
        _ = try await alice.board.createPost(PostDraft(content: "Burst \(number)"))
      }
      // The clock stands still, so the oldest write leaves the window in exactly 10 s.
      await #expect(throws: DomainError.rateLimited(retryAfter: .seconds(10))) {
        try await alice.board.createPost(PostDraft(content: "One too many"))
      }
      let newest = try #require(try await alice.board.fetchPosts(.first).items.first)
      await #expect(throws: DomainError.rateLimited(retryAfter: .seconds(10))) {
        try await alice.board.setPostLike(newest.id, true)
      }
      // Reads are not limited, refused writes did not happen, other users are not limited.
      let posts = try await alice.board.fetchPosts(PageRequest(limit: 100))
      #expect(posts.items.count == 10)
      #expect(posts.items.allSatisfy { $0.likeCount == 0 })
      _ = try await bob.board.createPost(PostDraft(content: "Bob is fine"))

      backend.clock.advance(by: .seconds(10))
      let after = try await alice.board.createPost(PostDraft(content: "Window reopened"))
      #expect(after.isMine)
    }
  }

  @Test(
    "an expired access token is refreshed once, transparently", arguments: ExpiryDiscovery.allCases)
  func expiredAccessToken(_ discovery: ExpiryDiscovery) async throws {
    // Five-minute tokens: outside the client's one-minute refresh leeway right after sign-up.
    try await withLiveBackend(accessTokenLifetime: .seconds(300)) { backend in
      let store = RecordingCredentialStore()
      let frozen = backend.clock.now
      var clientNow: (@Sendable () -> Date)?
      if discovery == .serverRejects { clientNow = { frozen } }
      let client = backend.makeLiveClient(store: store, now: clientNow)
      let alice = client.repositories
      let user = try await backend.signUp(alice, nickname: "alice")
      _ = try await alice.board.createPost(PostDraft(content: "Before the token expires"))
      let signedUp = try #require(await store.credentials())
      let savedBefore = await store.saved.count
      #expect(savedBefore == 1)

      backend.clock.advance(by: .seconds(301))
      // Three requests at once share one refresh.
      async let posts = alice.board.fetchPosts(.first)
      async let me = alice.profile.fetchMe()
      async let unread = alice.notifications.fetchUnreadCount()
      let (page, profile, count) = try await (posts, me, unread)
      #expect(page.items.count == 1)
      #expect(profile.id == user.id)
      #expect(count == 0)

      let savedAfter = await store.saved.count
      #expect(savedAfter == 2, "exactly one refresh")
      let refreshed = try #require(await store.credentials())
      #expect(refreshed.accessToken != signedUp.accessToken)
      #expect(refreshed.refreshToken != signedUp.refreshToken, "refresh tokens rotate")
      #expect(await alice.auth.currentState() == .signedIn(user))
      _ = try await alice.board.createPost(PostDraft(content: "After the refresh"))
      let savedAtEnd = await store.saved.count
      #expect(savedAtEnd == 2)
    }
  }

  @Test("a refresh token revoked by sign-out elsewhere signs the client out")
  func refreshTokenRevokedBySignOut() async throws {
    try await withLiveBackend { backend in
      let store = RecordingCredentialStore()
      let alice = backend.makeLiveClient(store: store).repositories
      let user = try await backend.signUp(alice, nickname: "alice")
      var states = alice.auth.sessionStates().makeAsyncIterator()
      #expect(await states.next() == .signedIn(user))

      // A second installation holding the same tokens signs out: the server revokes them.
      let tokens = try #require(await store.credentials())
      let copy = backend.makeLiveClient(store: RecordingCredentialStore(tokens)).repositories
      #expect(await copy.auth.currentState() == .signedIn(user))
      try await copy.auth.signOut()
      #expect(await copy.auth.currentState() == .signedOut)

      await #expect(throws: DomainError.signedOut) { try await alice.board.fetchPosts(.first) }
      #expect(await states.next() == .signedOut)
      #expect(await alice.auth.currentState() == .signedOut)
      #expect(await store.credentials() == nil)
      await #expect(throws: DomainError.signedOut) {
        try await alice.board.createPost(PostDraft(content: "Still here?"))
      }
    }
  }

  @Test("a replayed refresh token ends every session of its family")
  func refreshTokenReuse() async throws {
    try await withLiveBackend(accessTokenLifetime: .seconds(300)) { backend in
      let store = RecordingCredentialStore()
      let alice = backend.makeLiveClient(store: store).repositories
      let user = try await backend.signUp(alice, nickname: "alice")
      let original = try #require(await store.credentials())
      var states = alice.auth.sessionStates().makeAsyncIterator()
      #expect(await states.next() == .signedIn(user))

      // Alice's app refreshes (the old refresh token is spent)...
      backend.clock.advance(by: .seconds(301))
      _ = try await alice.board.fetchPosts(.first)
      #expect(await store.saved.count == 2)

      // ...then a copy of the old tokens replays the spent refresh token: refused, and the
      // server revokes the whole family, alice's fresh tokens included.
      let thief = backend.makeLiveClient(store: RecordingCredentialStore(original)).repositories
      await #expect(throws: DomainError.signedOut) { try await thief.board.fetchPosts(.first) }
      #expect(await thief.auth.currentState() == .signedOut)

      await #expect(throws: DomainError.signedOut) { try await alice.board.fetchPosts(.first) }
      #expect(await states.next() == .signedOut)
      #expect(await store.credentials() == nil)
    }
  }

  /// A client whose session lives in `file`, as a tool's does (one process of several).
  private static func client(of backend: LiveScenarioBackend, sharing file: URL) -> RepositorySet {
    backend.makeLiveClient(store: FileCredentialStore(fileURL: file)).repositories
  }

  /// Alice signs up in a client on the shared `file`; then another command on the same file
  /// signs bob up in a second client (first signing alice out, with `signingAliceOut`).
  private static func aliceThenBob(
    on backend: LiveScenarioBackend, sharing file: URL, signingAliceOut: Bool = false
  ) async throws -> (alice: RepositorySet, other: RepositorySet, bob: User) {
    let alice = client(of: backend, sharing: file)
    _ = try await backend.signUp(alice, nickname: "alice")
    let other = client(of: backend, sharing: file)
    if signingAliceOut { try await other.auth.signOut() }
    return (alice, other, try await backend.signUp(other, nickname: "bob"))
  }

  /// A live backend and a session file in a folder of its own, for clients that share it
  /// (``client(of:sharing:)``).
  private func withSharedSessionFile(
    accessTokenLifetime: Duration = .seconds(15 * 60),
    _ body: (LiveScenarioBackend, URL) async throws -> Void
  ) async throws {
    let folder = try TemporaryDirectory()
    defer { folder.remove() }
    let file = folder.url.appendingPathComponent("local.session.json")
    try await withLiveBackend(accessTokenLifetime: accessTokenLifetime) { try await body($0, file) }
  }

  @Test(
    "two processes on one session file: the later refresh takes the pair the earlier one stored, and both stay signed in"
  )
  func sharedSessionFile() async throws {
    try await withSharedSessionFile(accessTokenLifetime: .seconds(300)) { backend, file in
      let first = Self.client(of: backend, sharing: file)
      let user = try await backend.signUp(first, nickname: "alice")
      // A second command starts from the same file and holds the same pair.
      let second = Self.client(of: backend, sharing: file)
      #expect(await second.auth.currentState() == .signedIn(user))

      backend.clock.advance(by: .seconds(301))
      // The second refreshes (the pair both held is spent) and uses its new pair...
      _ = try await second.board.fetchPosts(.first)
      _ = try await second.board.createPost(PostDraft(content: "From the second command"))
      // ...then the first: before, it sent the spent refresh token, which the server took for a
      // replay, and both were signed out.
      #expect(try await first.board.fetchPosts(.first).items.count == 1)
      #expect(await first.auth.currentState() == .signedIn(user))
      _ = try await second.board.fetchPosts(.first)
      #expect(await second.auth.currentState() == .signedIn(user))
    }
  }

  @Test(
    "a session signed in on a shared file by another user is neither taken over nor cleared by a refresh that fails"
  )
  func sharedSessionFileOtherUser() async throws {
    try await withSharedSessionFile(accessTokenLifetime: .seconds(300)) { backend, file in
      // Another command on the same file signs alice out and bob in.
      let (alice, other, bob) = try await Self.aliceThenBob(
        on: backend, sharing: file, signingAliceOut: true)
      let bobsPair = try #require(try await FileCredentialStore(fileURL: file).credentials())

      backend.clock.advance(by: .seconds(301))
      // Alice's process refreshes its own, revoked pair: signed out, not switched to bob...
      await #expect(throws: DomainError.signedOut) { try await alice.board.fetchPosts(.first) }
      #expect(await alice.auth.currentState() == .signedOut)
      // ...and bob's session stays in the file (before, alice's sign-out deleted it).
      #expect(try await FileCredentialStore(fileURL: file).credentials() == bobsPair)
      #expect(await other.auth.currentState() == .signedIn(bob))
      _ = try await other.board.fetchPosts(.first)
    }
  }

  @Test("a withdrawal leaves a session another process signed in to a shared file")
  func sharedSessionFileWithdrawal() async throws {
    try await withSharedSessionFile { backend, file in
      let (alice, other, bob) = try await Self.aliceThenBob(on: backend, sharing: file)
      try await alice.auth.withdraw()
      #expect(await alice.auth.currentState() == .signedOut)
      let stored = try #require(try await FileCredentialStore(fileURL: file).storedSession())
      #expect(stored.user?.id == bob.id)
      _ = try await other.board.fetchPosts(.first)
    }
  }

  @Test("a profile change does not label another user's session in a shared file as this user's")
  func sharedSessionFileProfileSnapshot() async throws {
    try await withSharedSessionFile { backend, file in
      // Another command on the same file signs bob in (alice's session stays valid).
      let (alice, _, bob) = try await Self.aliceThenBob(on: backend, sharing: file)
      _ = try await alice.profile.updateProfile(ProfileUpdate(cohort: "2026 Evening"))
      let stored = try #require(try await FileCredentialStore(fileURL: file).storedSession())
      #expect(stored.user?.id == bob.id)
    }
  }

  @Test(
    "a device clock 20 minutes fast neither refreshes before every request nor hits the refresh limit"
  )
  func fastDeviceClock() async throws {
    try await withLiveBackend { backend in
      let store = RecordingCredentialStore()
      let serverClock = backend.clock
      let alice = backend.makeLiveClient(
        store: store, now: { serverClock.now.addingTimeInterval(20 * 60) }
      ).repositories
      _ = try await backend.signUp(alice, nickname: "alice")
      for index in 1...8 {
        _ = try await alice.board.createPost(PostDraft(content: "Post \(index)"))
      }
      #expect(await store.saved.count == 1, "the sign-up's tokens, never refreshed")

      // Once the server says the token expired, one refresh, and its token is used as it is.
      backend.clock.advance(by: .seconds(15 * 60 + 1))
      for _ in 1...8 { _ = try await alice.board.fetchPosts(.first) }
      #expect(await store.saved.count == 2)
    }
  }

  @Test("a refresh whose answer was lost is retried at once and the session goes on")
  func lostRefreshAnswerRetried() async throws {
    try await withLiveBackend(accessTokenLifetime: .seconds(300)) { backend in
      let store = RecordingCredentialStore()
      let losing = AnswerLosingTransport(path: "/auth/refresh", times: 1)
      let alice = backend.makeLiveClient(store: store, transport: losing).repositories
      let user = try await backend.signUp(alice, nickname: "alice")
      backend.clock.advance(by: .seconds(301))
      _ = try await alice.board.fetchPosts(.first)
      #expect(losing.lost == 1)
      #expect(await store.saved.count == 2)
      #expect(await alice.auth.currentState() == .signedIn(user))
    }
  }

  @Test("a refresh whose every answer was lost is asked again later and the session goes on")
  func lostRefreshAnswer() async throws {
    try await withLiveBackend(accessTokenLifetime: .seconds(300)) { backend in
      let store = RecordingCredentialStore()
      let attempts = RetryPolicy.default.maxAttempts
      let losing = AnswerLosingTransport(path: "/auth/refresh", times: attempts)
      let alice = backend.makeLiveClient(store: store, transport: losing).repositories
      let user = try await backend.signUp(alice, nickname: "alice")
      let original = try #require(await store.credentials())

      // The server rotates the tokens, but no answer arrives: the app keeps the old ones.
      backend.clock.advance(by: .seconds(301))
      await #expect(throws: DomainError.timeout) { try await alice.board.fetchPosts(.first) }
      #expect(losing.lost == attempts)
      #expect(await store.credentials() == original)

      // Its next request refreshes with the same token and gets the pair it missed.
      _ = try await alice.board.fetchPosts(.first)
      #expect(await alice.auth.currentState() == .signedIn(user))
      let renewed = try #require(await store.credentials())
      #expect(renewed.refreshToken != original.refreshToken)
      backend.clock.advance(by: .seconds(301))
      _ = try await alice.board.fetchPosts(.first)
      #expect(await alice.auth.currentState() == .signedIn(user))
    }
  }

  @Test("an unreachable server is offline, and the session survives it")
  func offline() async throws {
    try await withLiveBackend { backend in
      // Nothing listens on port 1.
      let nowhere = backend.makeLiveClient(baseURL: URL(string: "http://127.0.0.1:1")!)
      await #expect(throws: DomainError.offline) {
        try await nowhere.repositories.auth.signIn(.dev, "alice")
      }
      #expect(await nowhere.repositories.auth.currentState() == .signedOut)

      let alice = try await backend.makeMember(nickname: "alice")
      let user = try await alice.profile.fetchMe()
      await backend.shutdown()
      await #expect(throws: DomainError.offline) { try await alice.board.fetchPosts(.first) }
      await #expect(throws: DomainError.offline) {
        try await alice.board.createPost(PostDraft(content: "Into the void"))
      }
      // A transient failure never signs anyone out.
      #expect(await alice.auth.currentState() == .signedIn(user))
    }
  }

  @Test("a refresh token past its lifetime signs the client out")
  func refreshTokenExpiry() async throws {
    try await withLiveBackend { backend in
      let store = RecordingCredentialStore()
      let alice = backend.makeLiveClient(store: store).repositories
      let user = try await backend.signUp(alice, nickname: "alice")
      var states = alice.auth.sessionStates().makeAsyncIterator()
      #expect(await states.next() == .signedIn(user))

      // Refresh tokens last 30 days unused.
      backend.clock.advance(by: .seconds(31 * 86_400))
      await #expect(throws: DomainError.signedOut) { try await alice.board.fetchPosts(.first) }
      #expect(await states.next() == .signedOut)
      #expect(await store.credentials() == nil)
      // Signing in again works.
      _ = try await backend.signIn(alice, token: "alice", expecting: .member)
      #expect(await states.next() == .signedIn(user))
    }
  }

  @Test("5xx answers are retried, then become .server; the session stays")
  func serverErrors() async throws {
    let faults = [
      FaultRule(target: .operation("BoardAPI.posts"), errorRate: 1, errorStatus: 503),
      FaultRule(target: .operation("BoardAPI.create"), errorRate: 1, errorStatus: 500),
    ]
    try await withLiveBackend(faults: faults) { backend in
      let retryClock = ImmediateClock()
      let alice = backend.makeLiveClient(retryClock: retryClock).repositories
      let user = try await backend.signUp(alice, nickname: "alice")
      #expect(retryClock.now.offset == .zero)

      let listing = await #expect(throws: DomainError.self) {
        try await alice.board.fetchPosts(.first)
      }
      #expect(listing.map(Self.isServerError) == true, "\(String(describing: listing))")
      // The GET was retried after waiting (on the immediate clock).
      let waited = retryClock.now.offset
      #expect(waited > .zero)

      // A write with an Idempotency-Key is retried too.
      let writing = await #expect(throws: DomainError.self) {
        try await alice.board.createPost(PostDraft(content: "Does this stick?"))
      }
      #expect(writing.map(Self.isServerError) == true, "\(String(describing: writing))")
      #expect(retryClock.now.offset > waited)

      // Unaffected routes work, and nobody was signed out.
      #expect(try await alice.profile.fetchMe().id == user.id)
      #expect(await alice.auth.currentState() == .signedIn(user))
    }
  }

  /// Whether `error` is `.server`.
  static func isServerError(_ error: DomainError) -> Bool {
    if case .server = error { return true }
    return false
  }

  @Test("a relaunch with tokens revoked meanwhile starts signed out")
  func relaunchWithRevokedTokens() async throws {
    try await withLiveBackend { backend in
      let store = RecordingCredentialStore()
      let alice = backend.makeLiveClient(store: store).repositories
      _ = try await backend.signUp(alice, nickname: "alice")
      let tokens = try #require(await store.credentials())
      try await alice.auth.signOut()

      let stale = RecordingCredentialStore(tokens)
      let relaunched = backend.makeLiveClient(store: stale).repositories
      var states = relaunched.auth.sessionStates().makeAsyncIterator()
      #expect(await states.next() == .signedOut)
      await #expect(throws: DomainError.signedOut) {
        try await relaunched.board.fetchPosts(.first)
      }
    }
  }

  @Test("a relaunch restores the session from the store; after sign-out it starts signed out")
  func relaunch() async throws {
    try await withLiveBackend { backend in
      let store = RecordingCredentialStore()
      let firstLaunch = backend.makeLiveClient(store: store).repositories
      let user = try await backend.signUp(firstLaunch, nickname: "alice")
      _ = try await firstLaunch.board.createPost(PostDraft(content: "Hello from launch one"))

      let secondLaunch = backend.makeLiveClient(store: store).repositories
      var states = secondLaunch.auth.sessionStates().makeAsyncIterator()
      #expect(await states.next() == .signedIn(user))
      let posts = try await secondLaunch.board.fetchPosts(.first)
      #expect(posts.items.map(\.isMine) == [true])

      try await secondLaunch.auth.signOut()
      #expect(await states.next() == .signedOut)
      #expect(await store.credentials() == nil)
      let thirdLaunch = backend.makeLiveClient(store: store).repositories
      #expect(await thirdLaunch.auth.currentState() == .signedOut)
      // The first launch's tokens were revoked on the server by the sign-out.
      await #expect(throws: DomainError.signedOut) {
        try await firstLaunch.board.fetchPosts(.first)
      }
    }
  }
}

/// Runs `body` against a fresh live backend and stops its server afterwards.
func withLiveBackend(
  rateLimit: ServerConfiguration.RateLimit? = nil,
  accessTokenLifetime: Duration = .seconds(15 * 60), faults: [FaultRule] = [],
  _ body: (LiveScenarioBackend) async throws -> Void
) async throws {
  let backend = try await LiveScenarioBackend.start(
    rateLimit: rateLimit, accessTokenLifetime: accessTokenLifetime, faults: faults)
  do {
    try await body(backend)
  } catch {
    await backend.shutdown()
    throw error
  }
  await backend.shutdown()
}

/// The platform transport, except that the first `times` requests to `path` reach the server
/// and their answers are then thrown away, as a connection lost on the way back would.
private final class AnswerLosingTransport: HTTPTransport {
  private let path: String
  private let times: Int
  private let count = LockIsolated(0)

  init(path: String, times: Int) {
    self.path = path
    self.times = times
  }

  /// How many answers were thrown away.
  var lost: Int { min(count.value, times) }

  func send(
    _ request: HTTPRequest, body: Data?, timeout: Duration
  ) async throws(NetworkError) -> (HTTPResponse, Data) {
    let answer = try await HTTPTransports.platformDefault.send(
      request, body: body, timeout: timeout)
    let isLost = count.withValue { seen in
      guard request.path == path else { return false }
      seen += 1
      return seen <= times
    }
    guard isLost else { return answer }
    throw .timeout
  }
}
