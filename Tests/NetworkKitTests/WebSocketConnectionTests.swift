import Clocks
import Foundation
import HTTPTypes
import NetworkKit
import NetworkKitTesting
import Primitives
import TestSupport
import Testing

/// `WebSocketConnection` over `ScriptedWebSocketTransport` on a virtual clock: every delay is
/// checked to the nanosecond by advancing the clock, never by sleeping.
@Suite("WebSocket connection", .timeLimit(.minutes(1)))
struct WebSocketConnectionTests {
  // MARK: - Connecting and the state stream

  @Test func connectsWithTheCurrentTokenAndReportsEveryStateInOrder() async throws {
    let harness = Harness(answers: .accept, .accept)
    var states = harness.connection.stateChanges().makeAsyncIterator()
    #expect(await states.next() == .disconnected)

    await harness.connection.start()
    #expect(await states.next() == .connecting(attempt: 0))
    #expect(await states.next() == .connected)
    let attempt = try await harness.transport.attempt(0)
    #expect(attempt.url == Harness.url)
    #expect(attempt.headerFields[.authorization] == "Bearer token-0")
    #expect(attempt.headerFields[Harness.clientHeader] == "ios")

    // The server goes away: a wait of 0.5 * (0.5 s * 2^0), then a new attempt with a new token.
    await harness.tokens.replace(with: "token-rotated")
    try await harness.transport.socket(0).closeFromServer(code: .goingAway, reason: "restart")
    #expect(await states.next() == .waitingToReconnect(attempt: 1, retryIn: .milliseconds(250)))
    try await harness.clock.advanceOnceSomethingSleeps(by: .milliseconds(250))
    #expect(await states.next() == .connecting(attempt: 1))
    #expect(await states.next() == .connected)
    let second = try await harness.transport.attempt(1)
    #expect(second.headerFields[.authorization] == "Bearer token-rotated")
    #expect(await harness.tokens.accessCount == 2)
    await harness.connection.stop()
  }

  @Test func everySubscriberStartsWithTheCurrentState() async throws {
    let harness = Harness(answers: .accept)
    var first = harness.connection.stateChanges().makeAsyncIterator()
    await harness.connection.start()
    #expect(await first.next() == .disconnected)
    #expect(await first.next() == .connecting(attempt: 0))
    #expect(await first.next() == .connected)

    var late = harness.connection.stateChanges().makeAsyncIterator()
    #expect(await late.next() == .connected)
    #expect(harness.connection.state == .connected)

    await harness.connection.stop()
    #expect(await first.next() == .closed)
    #expect(await late.next() == .closed)
    #expect(await first.next() == nil)
    #expect(await late.next() == nil)
    var afterStop = harness.connection.stateChanges().makeAsyncIterator()
    #expect(await afterStop.next() == .closed)
    #expect(await afterStop.next() == nil)
  }

  // MARK: - Backoff

  @Test func reconnectDelaysDoubleUpToThe30SecondCap() async throws {
    // The random source returns the top of its range, so each delay is the ceiling itself.
    let random = RecordingRandom(fractions: [1])
    let harness = Harness(backoff: Backoff(random: random.next))
    var states = harness.connection.stateChanges().makeAsyncIterator()
    await harness.connection.start()
    #expect(await states.next() == .disconnected)
    #expect(await states.next() == .connecting(attempt: 0))

    let expected: [Duration] = [
      .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16),
      .seconds(30), .seconds(30),
    ]
    for (index, delay) in expected.enumerated() {
      let attempt = index + 1
      harness.transport.enqueue(.refuse(.offline))
      #expect(await states.next() == .waitingToReconnect(attempt: attempt, retryIn: delay))
      try await harness.clock.advanceOnceSomethingSleeps(by: delay - .nanoseconds(1))
      #expect(harness.transport.attempts.count == attempt)
      await harness.clock.advance(by: .nanoseconds(1))
      #expect(await states.next() == .connecting(attempt: attempt))
    }
    #expect(random.ranges == [0...0.5, 0...1, 0...2, 0...4, 0...8, 0...16, 0...30, 0...30])
    // `.offline` is no reason to doubt the token.
    #expect(await harness.tokens.refreshes.isEmpty)
    await harness.connection.stop()
  }

  @Test func reconnectDelaysAreFullJitterBelowTheCeiling() async throws {
    let random = RecordingRandom(fractions: [0.25, 0, 0.5])
    let harness = Harness(
      answers: .refuse(.offline), .refuse(.offline), .refuse(.offline), .refuse(.offline),
      backoff: Backoff(baseDelay: .seconds(1), maxDelay: .seconds(30), random: random.next))
    var states = harness.connection.stateChanges().makeAsyncIterator()
    await harness.connection.start()
    #expect(await states.next() == .disconnected)
    #expect(await states.next() == .connecting(attempt: 0))
    // 0.25 * 1 s, then 0 * 2 s (at once), then 0.5 * 4 s.
    #expect(await states.next() == .waitingToReconnect(attempt: 1, retryIn: .milliseconds(250)))
    try await harness.clock.advanceOnceSomethingSleeps(by: .milliseconds(250))
    #expect(await states.next() == .connecting(attempt: 1))
    #expect(await states.next() == .waitingToReconnect(attempt: 2, retryIn: .zero))
    #expect(await states.next() == .connecting(attempt: 2))
    #expect(await states.next() == .waitingToReconnect(attempt: 3, retryIn: .seconds(2)))
    #expect(random.ranges == [0...1, 0...2, 0...4])
    await harness.connection.stop()
  }

  @Test(
    "the attempt counter resets once a connection open for 10 s delivers a frame, not before")
  func theAttemptCounterResetsOnceAConnectionProvedStable() async throws {
    let harness = Harness(answers: .refuse(.offline), .accept, .accept, .accept, .accept)
    var states = harness.connection.stateChanges().makeAsyncIterator()
    var frames = harness.connection.events.makeAsyncIterator()
    await harness.connection.start()
    #expect(await states.next() == .disconnected)
    #expect(await states.next() == .connecting(attempt: 0))
    #expect(await states.next() == .waitingToReconnect(attempt: 1, retryIn: .milliseconds(250)))
    try await harness.clock.advanceOnceSomethingSleeps(by: .milliseconds(250))
    #expect(await states.next() == .connecting(attempt: 1))
    #expect(await states.next() == .connected)

    // Opened, but closed before delivering anything: not stable, the backoff keeps growing.
    try await harness.transport.socket(0).closeFromServer(code: .internalServerError)
    #expect(await states.next() == .waitingToReconnect(attempt: 2, retryIn: .milliseconds(500)))
    try await harness.clock.advanceOnceSomethingSleeps(by: .milliseconds(500))
    #expect(await states.next() == .connecting(attempt: 2))
    #expect(await states.next() == .connected)

    // This one answers at once, then dies: not stable either (a server that answers every
    // subscribe and closes must not be reconnected to at once, forever).
    let quick = try await harness.transport.socket(1)
    quick.deliver(.text("hello"))
    #expect(await frames.nextFrame() == .text("hello"))
    quick.closeFromServer(code: .goingAway)
    #expect(await states.next() == .waitingToReconnect(attempt: 3, retryIn: .seconds(1)))
    try await harness.clock.advanceOnceSomethingSleeps(by: .seconds(1))
    #expect(await states.next() == .connecting(attempt: 3))
    #expect(await states.next() == .connected)

    // This one delivers a frame after 10 s open: stable, so losing it starts over at attempt 1.
    let socket = try await harness.transport.socket(2)
    socket.deliver(.text("early"))
    #expect(await frames.nextFrame() == .text("early"))
    await harness.clock.advance(by: WebSocketConnection.Configuration.defaultStableAfter)
    socket.deliver(.text("later"))
    #expect(await frames.nextFrame() == .text("later"))
    socket.closeFromServer(code: .goingAway)
    #expect(await states.next() == .waitingToReconnect(attempt: 1, retryIn: .milliseconds(250)))
    try await harness.clock.advanceOnceSomethingSleeps(by: .milliseconds(250))
    #expect(await states.next() == .connecting(attempt: 1))
    #expect(await states.next() == .connected)
    await harness.connection.stop()
  }

  @Test func aCloseThatAsksToBackOffKeepsTheBackoffGrowingAfterFrames() async throws {
    let harness = Harness(answers: .accept, .accept, .accept)
    var states = harness.connection.stateChanges().makeAsyncIterator()
    var frames = harness.connection.events.makeAsyncIterator()
    await harness.connection.start()
    #expect(await states.next() == .disconnected)
    #expect(await states.next() == .connecting(attempt: 0))
    #expect(await states.next() == .connected)
    // The server's error frame, then "try again later" (a socket that fell behind).
    let first = try await harness.transport.socket(0)
    first.deliver(.text("slow_consumer"))
    #expect(await frames.nextFrame() == .text("slow_consumer"))
    first.closeFromServer(code: .tryAgainLater)
    #expect(await states.next() == .waitingToReconnect(attempt: 1, retryIn: .milliseconds(250)))
    try await harness.clock.advanceOnceSomethingSleeps(by: .milliseconds(250))
    #expect(await states.next() == .connecting(attempt: 1))
    #expect(await states.next() == .connected)
    // Again, with "too many frames" (1008): the wait grows instead of starting over.
    let second = try await harness.transport.socket(1)
    second.deliver(.text("too_many_frames"))
    #expect(await frames.nextFrame() == .text("too_many_frames"))
    second.closeFromServer(code: .policyViolation)
    #expect(await states.next() == .waitingToReconnect(attempt: 2, retryIn: .milliseconds(500)))
    await harness.connection.stop()
  }

  // MARK: - Authentication

  @Test(arguments: [401, nil] as [Int?])
  func aRefusedHandshakeRefreshesTheTokenOnceAndRetriesAtOnce(status: Int?) async throws {
    let harness = Harness(answers: .refuse(.handshakeFailed(status: status)), .accept)
    var states = harness.connection.stateChanges().makeAsyncIterator()
    await harness.connection.start()
    #expect(await states.next() == .disconnected)
    #expect(await states.next() == .connecting(attempt: 0))
    // No wait in between: the retry with the refreshed token is part of the same attempt.
    #expect(await states.next() == .connected)
    #expect(await harness.tokens.refreshes == ["token-0"])
    let attempts = harness.transport.attempts
    #expect(
      attempts.map { $0.headerFields[.authorization] } == ["Bearer token-0", "Bearer refreshed-1"])
    await harness.connection.stop()
  }

  @Test func aSecondRefusalWaitsForTheBackoffAndTheNextAttemptAsksForTheTokenAgain() async throws {
    let harness = Harness(
      answers: .refuse(.handshakeFailed(status: 401)), .refuse(.handshakeFailed(status: 401)),
      .accept)
    var states = harness.connection.stateChanges().makeAsyncIterator()
    await harness.connection.start()
    #expect(await states.next() == .disconnected)
    #expect(await states.next() == .connecting(attempt: 0))
    #expect(await states.next() == .waitingToReconnect(attempt: 1, retryIn: .milliseconds(250)))
    await harness.tokens.replace(with: "token-from-elsewhere")
    try await harness.clock.advanceOnceSomethingSleeps(by: .milliseconds(250))
    #expect(await states.next() == .connecting(attempt: 1))
    #expect(await states.next() == .connected)
    #expect(await harness.tokens.refreshes == ["token-0"])
    #expect(
      harness.transport.attempts.map { $0.headerFields[.authorization] } == [
        "Bearer token-0", "Bearer refreshed-1", "Bearer token-from-elsewhere",
      ])

    // After a successful connect, a new refusal may refresh again. (That socket delivered
    // nothing, so the attempt count goes on from 1.)
    harness.transport.enqueue(.refuse(.handshakeFailed(status: 401)), .accept)
    try await harness.transport.socket(0).closeFromServer(code: .policyViolation, reason: "expired")
    #expect(await states.next() == .waitingToReconnect(attempt: 2, retryIn: .milliseconds(500)))
    try await harness.clock.advanceOnceSomethingSleeps(by: .milliseconds(500))
    #expect(await states.next() == .connecting(attempt: 2))
    #expect(await states.next() == .connected)
    #expect(await harness.tokens.refreshes == ["token-0", "token-from-elsewhere"])
    await harness.connection.stop()
  }

  @Test("a refresh that failed (offline, the server busy) may be tried again at the next attempt")
  func aFailedRefreshIsTriedAgainAtTheNextAttempt() async throws {
    let harness = Harness(
      answers: .refuse(.handshakeFailed(status: 401)), .refuse(.handshakeFailed(status: 401)),
      .accept)
    await harness.tokens.failNextRefresh()
    var states = harness.connection.stateChanges().makeAsyncIterator()
    await harness.connection.start()
    #expect(await states.next() == .disconnected)
    #expect(await states.next() == .connecting(attempt: 0))
    #expect(await states.next() == .waitingToReconnect(attempt: 1, retryIn: .milliseconds(250)))
    try await harness.clock.advanceOnceSomethingSleeps(by: .milliseconds(250))
    #expect(await states.next() == .connecting(attempt: 1))
    #expect(await states.next() == .connected)
    #expect(await harness.tokens.refreshes == ["token-0", "token-0"])
    #expect(
      harness.transport.attempts.map { $0.headerFields[.authorization] } == [
        "Bearer token-0", "Bearer token-0", "Bearer refreshed-2",
      ])
    await harness.connection.stop()
  }

  @Test func otherRefusalsDoNotRefreshTheToken() async throws {
    let harness = Harness(answers: .refuse(.handshakeFailed(status: 503)))
    var states = harness.connection.stateChanges().makeAsyncIterator()
    await harness.connection.start()
    #expect(await states.next() == .disconnected)
    #expect(await states.next() == .connecting(attempt: 0))
    #expect(await states.next() == .waitingToReconnect(attempt: 1, retryIn: .milliseconds(250)))
    #expect(await harness.tokens.refreshes.isEmpty)
    #expect(harness.transport.attempts.count == 1)
    await harness.connection.stop()
  }

  @Test func aFailingTokenProviderCountsAsAFailedAttempt() async throws {
    let harness = Harness(answers: .accept)
    await harness.tokens.failNextAccess()
    var states = harness.connection.stateChanges().makeAsyncIterator()
    await harness.connection.start()
    #expect(await states.next() == .disconnected)
    #expect(await states.next() == .connecting(attempt: 0))
    #expect(await states.next() == .waitingToReconnect(attempt: 1, retryIn: .milliseconds(250)))
    #expect(harness.transport.attempts.isEmpty)
    try await harness.clock.advanceOnceSomethingSleeps(by: .milliseconds(250))
    #expect(await states.next() == .connecting(attempt: 1))
    #expect(await states.next() == .connected)
    await harness.connection.stop()
  }

  // MARK: - Heartbeat

  @Test func pingsEvery25SecondsAndConsumesThePongs() async throws {
    let harness = Harness(answers: .accept)
    var frames = harness.connection.events.makeAsyncIterator()
    await harness.connection.start()
    let socket = try await harness.transport.socket(0)

    try await harness.clock.advanceOnceSomethingSleeps(by: .seconds(25) - .nanoseconds(1))
    #expect(socket.sentFrames.isEmpty)
    await harness.clock.advance(by: .nanoseconds(1))
    #expect(try await socket.sentFrame(0) == Harness.ping)

    // The pong is consumed; the text after it proves it was handled (frames are in order).
    socket.deliver(Harness.pong)
    socket.deliver(.text("after the pong"))
    #expect(await frames.nextFrame() == .text("after the pong"))

    try await harness.clock.advanceOnceSomethingSleeps(by: .seconds(10))
    #expect(harness.connection.state == .connected)
    try await harness.clock.advanceOnceSomethingSleeps(by: .seconds(15) - .nanoseconds(1))
    #expect(socket.sentFrames.count == 1)
    await harness.clock.advance(by: .nanoseconds(1))
    #expect(try await socket.sentFrame(1) == Harness.ping)
    #expect(socket.closeCalls.isEmpty)
    await harness.connection.stop()
  }

  @Test func noPongWithin10SecondsDropsTheSocketAndReconnects() async throws {
    let harness = Harness(answers: .accept, .accept)
    var states = harness.connection.stateChanges().makeAsyncIterator()
    await harness.connection.start()
    #expect(await states.next() == .disconnected)
    #expect(await states.next() == .connecting(attempt: 0))
    #expect(await states.next() == .connected)
    let socket = try await harness.transport.socket(0)

    try await harness.clock.advanceOnceSomethingSleeps(by: .seconds(25))
    #expect(try await socket.sentFrame(0) == Harness.ping)
    try await harness.clock.advanceOnceSomethingSleeps(by: .seconds(10) - .nanoseconds(1))
    #expect(harness.connection.state == .connected)
    #expect(socket.closeCalls.isEmpty)
    await harness.clock.advance(by: .nanoseconds(1))
    #expect(await states.next() == .waitingToReconnect(attempt: 1, retryIn: .milliseconds(250)))
    let close = try await socket.closed()
    #expect(close.code == .goingAway)

    try await harness.clock.advanceOnceSomethingSleeps(by: .milliseconds(250))
    #expect(await states.next() == .connecting(attempt: 1))
    #expect(await states.next() == .connected)
    // The new socket's heartbeat counts from its own start.
    let second = try await harness.transport.socket(1)
    try await harness.clock.advanceOnceSomethingSleeps(by: .seconds(25))
    #expect(try await second.sentFrame(0) == Harness.ping)
    await harness.connection.stop()
  }

  @Test("the pong has its 10 seconds from when the ping went out, however long its send took")
  func aSlowPingSendDoesNotEatThePongsTime() async throws {
    let pings = HeldPings()
    let harness = Harness(answers: .accept) { HeldPingTransport(inner: $0, pings: pings) }
    var frames = harness.connection.events.makeAsyncIterator()
    await harness.connection.start()
    let socket = try await harness.transport.socket(0)
    try await harness.clock.advanceOnceSomethingSleeps(by: .seconds(25))
    try await waitUntil("the ping's send is held") { pings.waiting.withLock { $0 } == 1 }
    // The send takes 11 s (a large frame before it on a slow link), then the ping goes out.
    await harness.clock.advance(by: .seconds(11))
    pings.release()
    #expect(try await socket.sentFrame(0) == Harness.ping)
    try await harness.clock.advanceOnceSomethingSleeps(by: .seconds(10) - .nanoseconds(1))
    // The pong comes just before its 10 s end; the text after it proves it was handled.
    socket.deliver(Harness.pong)
    socket.deliver(.text("after the pong"))
    #expect(await frames.nextFrame() == .text("after the pong"))
    await harness.clock.advance(by: .nanoseconds(1))
    #expect(harness.connection.state == .connected)
    #expect(socket.closeCalls.isEmpty)
    await harness.connection.stop()
  }

  // MARK: - Sending and frames

  @Test func sendThrowsNotConnectedUnlessASocketIsOpen() async throws {
    let harness = Harness()
    await #expect(throws: WebSocketError.notConnected) {
      try await harness.connection.send(.text("too early"))
    }
    var states = harness.connection.stateChanges().makeAsyncIterator()
    await harness.connection.start()
    #expect(await states.next() == .disconnected)
    #expect(await states.next() == .connecting(attempt: 0))
    // The handshake has not been answered yet.
    await #expect(throws: WebSocketError.notConnected) {
      try await harness.connection.send(.text("still connecting"))
    }

    harness.transport.enqueue(.accept)
    #expect(await states.next() == .connected)
    try await harness.connection.send(.text("hello"))
    try await harness.connection.send(.binary(Data([1, 2, 3])))
    let socket = try await harness.transport.socket(0)
    #expect(socket.sentFrames == [.text("hello"), .binary(Data([1, 2, 3]))])

    socket.closeFromServer(code: .goingAway)
    #expect(await states.next() == .waitingToReconnect(attempt: 1, retryIn: .milliseconds(250)))
    await #expect(throws: WebSocketError.notConnected) {
      try await harness.connection.send(.text("while waiting"))
    }
    #expect(socket.sentFrames.count == 2)
    await harness.connection.stop()
  }

  @Test func framesArriveInOrderAcrossReconnects() async throws {
    let harness = Harness(answers: .accept, .accept)
    var frames = harness.connection.events.makeAsyncIterator()
    var states = harness.connection.stateChanges().makeAsyncIterator()
    await harness.connection.start()
    let first = try await harness.transport.socket(0)
    first.deliver(.text("one"))
    first.deliver(.binary(Data([2])))
    first.closeFromServer(code: .goingAway)
    #expect(await frames.nextFrame() == .text("one"))
    #expect(await frames.nextFrame() == .binary(Data([2])))
    #expect(await states.next() == .disconnected)
    #expect(await states.next() == .connecting(attempt: 0))
    #expect(await states.next() == .connected)
    #expect(await states.next() == .waitingToReconnect(attempt: 1, retryIn: .milliseconds(250)))
    try await harness.clock.advanceOnceSomethingSleeps(by: .milliseconds(250))
    let second = try await harness.transport.socket(1)
    second.deliver(.text("three"))
    #expect(await frames.nextFrame() == .text("three"))
    await harness.connection.stop()
  }

  @Test("events: states and frames in one order; a .connected names its socket")
  func eventsKeepStatesAndFramesInOneOrder() async throws {
    let harness = Harness(answers: .accept, .accept)
    var events = harness.connection.events.makeAsyncIterator()
    await harness.connection.start()
    let first = try await harness.transport.socket(0)
    first.deliver(.text("one"))
    first.closeFromServer(code: .goingAway)
    let link = ConnectionLink.init
    for expected: WebSocketConnection.Event in [
      .state(.connecting(attempt: 0), link: nil), .state(.connected, link: link(1)),
      .frame(.text("one")),
      .state(.waitingToReconnect(attempt: 1, retryIn: .milliseconds(250)), link: nil),
    ] {
      #expect(await events.next() == expected)
    }
    // Told only once the first socket's heartbeat has ended: the backoff is what sleeps now
    // (moving the clock for the heartbeat's sleep left the backoff waiting forever).
    try await harness.clock.advanceOnceSomethingSleeps(by: .milliseconds(250))
    let second = try await harness.transport.socket(1)
    second.deliver(.text("two"))
    for expected: WebSocketConnection.Event in [
      .state(.connecting(attempt: 1), link: nil), .state(.connected, link: link(2)),
      .frame(.text("two")),
    ] {
      #expect(await events.next() == expected)
    }
    await harness.connection.stop()
    #expect(await events.next() == .state(.closed, link: nil))
    #expect(await events.next() == nil)
  }

  @Test("a send meant for a socket that is gone throws, and the next socket never sees it")
  func sendOnALinkThatIsGoneThrows() async throws {
    let harness = Harness(answers: .accept, .accept)
    var events = harness.connection.events.makeAsyncIterator()
    await harness.connection.start()
    let first = try #require(await events.nextLink())
    try await harness.connection.send(.text("on the first"), on: first)
    let socket = try await harness.transport.socket(0)
    socket.closeFromServer(code: .goingAway)
    // The clock moves only once the backoff is told: until then the first socket's heartbeat
    // may be what sleeps, and moving the clock for it left the backoff waiting forever.
    #expect(await events.nextRetry() == .milliseconds(250))
    try await harness.clock.advanceOnceSomethingSleeps(by: .milliseconds(250))
    let second = try #require(await events.nextLink())
    #expect(second != first)
    // The owner has not handled the reconnect yet: what it meant for the first socket must
    // not go out on the second (it would overtake what the first one lost).
    await #expect(throws: WebSocketError.notConnected) {
      try await harness.connection.send(.text("meant for the first"), on: first)
    }
    try await harness.connection.send(.text("on the second"), on: second)
    try await harness.connection.send(.text("on any"))
    let next = try await harness.transport.socket(1)
    #expect(next.sentFrames == [.text("on the second"), .text("on any")])
    #expect(socket.sentFrames == [.text("on the first")])
    await harness.connection.stop()
  }

  // MARK: - Stopping

  @Test func stopClosesWithNormalClosureEndsTheStreamsAndNeverReconnects() async throws {
    let harness = Harness(answers: .accept, .accept)
    var states = harness.connection.stateChanges().makeAsyncIterator()
    var frames = harness.connection.events.makeAsyncIterator()
    await harness.connection.start()
    #expect(await states.next() == .disconnected)
    #expect(await states.next() == .connecting(attempt: 0))
    #expect(await states.next() == .connected)
    let socket = try await harness.transport.socket(0)

    await harness.connection.stop()
    #expect(socket.closeCalls == [.init(code: .normalClosure, reason: nil)])
    #expect(await states.next() == .closed)
    #expect(await states.next() == nil)
    #expect(await frames.nextFrame() == nil)

    await harness.connection.start()
    await harness.clock.advance(by: .seconds(120))
    #expect(harness.transport.attempts.count == 1)
    #expect(harness.connection.state == .closed)
    await #expect(throws: WebSocketError.notConnected) {
      try await harness.connection.send(.text("after stop"))
    }
  }

  @Test func stopWhileWaitingToReconnectCancelsTheWait() async throws {
    let harness = Harness(answers: .refuse(.offline), .accept)
    var states = harness.connection.stateChanges().makeAsyncIterator()
    await harness.connection.start()
    #expect(await states.next() == .disconnected)
    #expect(await states.next() == .connecting(attempt: 0))
    #expect(await states.next() == .waitingToReconnect(attempt: 1, retryIn: .milliseconds(250)))
    // Both callers return only once the connection is closed.
    async let first: Void = harness.connection.stop()
    async let second: Void = harness.connection.stop()
    _ = await (first, second)
    #expect(harness.connection.state == .closed)
    #expect(await states.next() == .closed)
    await harness.clock.advance(by: .seconds(60))
    #expect(harness.transport.attempts.count == 1)
  }

  @Test func stopWhileConnectingCancelsTheHandshake() async throws {
    let harness = Harness()
    var states = harness.connection.stateChanges().makeAsyncIterator()
    await harness.connection.start()
    #expect(await states.next() == .disconnected)
    #expect(await states.next() == .connecting(attempt: 0))
    _ = try await harness.transport.attempt(0)
    await harness.connection.stop()
    #expect(await states.next() == .closed)
    // An answer arriving now finds nobody waiting.
    harness.transport.enqueue(.accept)
    await harness.clock.advance(by: .seconds(60))
    #expect(harness.transport.sockets.isEmpty)
    #expect(harness.transport.attempts.count == 1)
  }

  // MARK: - Logging

  @Test func logsConnectsAndFailuresButNeverTokens() async throws {
    let harness = Harness(answers: .refuse(.handshakeFailed(status: 401)), .accept)
    var states = harness.connection.stateChanges().makeAsyncIterator()
    await harness.connection.start()
    #expect(await states.next() == .disconnected)
    #expect(await states.next() == .connecting(attempt: 0))
    #expect(await states.next() == .connected)
    try await harness.transport.socket(0).closeFromServer(code: 4001, reason: "kicked")
    #expect(await states.next() == .waitingToReconnect(attempt: 1, retryIn: .milliseconds(250)))
    await harness.connection.stop()

    let text = harness.logs.text
    #expect(text.contains("WebSocket connected"))
    #expect(text.contains("refreshing the access token once"))
    #expect(text.contains("closed with code 4001: kicked"))
    #expect(!text.contains("token-0"))
    #expect(!text.contains("refreshed-1"))
  }

  // MARK: - Errors

  @Test func aTestWaitingForASocketThatNeverComesStopsWhenCancelled() async throws {
    let transport = ScriptedWebSocketTransport()
    let waiting = Task { try await transport.socket(0) }
    try await Task.sleep(for: .milliseconds(20))
    waiting.cancel()
    await #expect(throws: CancellationError.self) { _ = try await waiting.value }
    // Cancelled before it waits: at once; a wait that was answered is not disturbed.
    let early = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return try await transport.attempt(0)
    }
    await #expect(throws: CancellationError.self) { _ = try await early.value }
    transport.enqueue(.accept)
    let socket = try await transport.connect(
      to: URL(string: "ws://127.0.0.1/realtime")!, headerFields: [:])
    #expect(try await transport.socket(0) === socket as? ScriptedWebSocket)
  }

  @Test(arguments: [
    WebSocketError.invalidURL("ftp://x"), .offline, .timeout, .handshakeFailed(status: 401),
    .handshakeFailed(status: 503), .handshakeFailed(status: nil),
    .closed(code: 4001, reason: "bye"),
    .closed(code: nil, reason: nil), .messageTooLarge, .notConnected, .cancelled,
    .transport("reset"),
  ])
  func everyErrorSaysWhatHappenedAndWhatToDo(error: WebSocketError) {
    let text = error.localizedDescription
    #expect(text.hasSuffix("."))
    #expect(text.split(separator: " ").count >= 6)
    #expect(text == error.description)
  }
}

// MARK: - Support

extension AsyncStream<WebSocketConnection.Event>.Iterator {
  /// The next frame event's frame, past any state changes; `nil` once the events end.
  mutating func nextFrame() async -> WebSocketFrame? {
    while let event = await next() {
      if case .frame(let frame) = event { return frame }
    }
    return nil
  }

  /// The wait of the next `.waitingToReconnect`, past any other event; `nil` once the events
  /// end.
  mutating func nextRetry() async -> Duration? {
    while let event = await next() {
      if case .state(.waitingToReconnect(_, let retryIn), _) = event { return retryIn }
    }
    return nil
  }

  /// The socket of the next `.connected`, past any other event; `nil` once the events end.
  mutating func nextLink() async -> ConnectionLink? {
    while let event = await next() {
      if case .state(.connected, let link) = event { return link }
    }
    return nil
  }
}

/// A connection on a virtual clock over a scripted transport, with a heartbeat and a backoff
/// whose random source returns the middle of its range.
private struct Harness {
  static let url = URL(string: "wss://realtime.example/realtime")!
  static let clientHeader = HTTPField.Name("X-Client")!
  static let ping = WebSocketFrame.text(#"{"type":"ping"}"#)
  static let pong = WebSocketFrame.text(#"{"type":"pong"}"#)

  let clock = Clocks.TestClock<Duration>()
  let transport: ScriptedWebSocketTransport
  let tokens = TokenSource()
  let logs = LogCapture()
  let connection: WebSocketConnection

  /// A connection on the scripted transport's `answers`; `wrap` puts a transport of the test's
  /// around it.
  init(
    answers: ScriptedWebSocketTransport.Answer...,
    backoff: Backoff = Backoff(random: { $0.lowerBound + ($0.upperBound - $0.lowerBound) / 2 }),
    wrap: (ScriptedWebSocketTransport) -> any WebSocketTransport = { $0 }
  ) {
    let transport = ScriptedWebSocketTransport()
    for answer in answers { transport.enqueue(answer) }
    self.transport = transport
    let tokens = self.tokens
    connection = WebSocketConnection(
      configuration: .init(
        url: Self.url, headerFields: [Self.clientHeader: "ios"],
        heartbeat: .init(ping: Self.ping) { $0 == Self.pong }, backoff: backoff),
      transport: wrap(transport),
      clock: clock,
      logger: logs.logger,
      accessToken: { try await tokens.access() },
      refreshAccessToken: { try await tokens.refresh(rejecting: $0) })
  }
}

/// The app's tokens: the current one, and refreshes that mint `refreshed-N`.
private actor TokenSource {
  private var current = "token-0"
  private var failsNext = false
  private(set) var accessCount = 0
  private(set) var refreshes: [String] = []

  struct NoToken: Error {}

  func access() throws -> String {
    accessCount += 1
    if failsNext {
      failsNext = false
      throw NoToken()
    }
    return current
  }

  private var refreshFailsNext = false

  func refresh(rejecting token: String) throws -> String {
    refreshes.append(token)
    if refreshFailsNext {
      refreshFailsNext = false
      throw NoToken()
    }
    current = "refreshed-\(refreshes.count)"
    return current
  }

  func failNextRefresh() { refreshFailsNext = true }

  func replace(with token: String) { current = token }

  func failNextAccess() { failsNext = true }
}

/// A random source that returns fixed fractions of the requested range (the last one repeats)
/// and records the ranges it was asked for.
private final class RecordingRandom: @unchecked Sendable {
  private let lock = NSLock()
  private var fractions: [Double]
  private var recorded: [ClosedRange<Double>] = []

  init(fractions: [Double]) {
    self.fractions = fractions
  }

  var ranges: [ClosedRange<Double>] { lock.withLock { recorded } }

  var next: @Sendable (ClosedRange<Double>) -> Double {
    { range in
      self.lock.withLock {
        self.recorded.append(range)
        let fraction = self.fractions.count > 1 ? self.fractions.removeFirst() : self.fractions[0]
        return range.lowerBound + (range.upperBound - range.lowerBound) * fraction
      }
    }
  }
}

/// The pings held back by a ``HeldPingTransport``'s sockets until the test releases them.
private final class HeldPings: Sendable {
  let waiting = Locked(0)
  private let gate = AsyncStream<Void>.makeStream()

  /// Waits (counted in ``waiting``) until ``release()``.
  func hold() async {
    waiting.withLock { $0 += 1 }
    for await _ in gate.stream { break }
  }

  /// Lets every held ping (and every later one) go.
  func release() { gate.continuation.finish() }
}

/// A transport whose sockets hold each ping's send until the test releases it: a ping queued
/// behind a large frame on a slow link.
private struct HeldPingTransport: WebSocketTransport {
  let inner: ScriptedWebSocketTransport
  let pings: HeldPings

  func connect(
    to url: URL, headerFields: HTTPFields
  ) async throws(WebSocketError) -> any WebSocket {
    HeldPingSocket(
      inner: try await inner.connect(to: url, headerFields: headerFields), pings: pings)
  }
}

private struct HeldPingSocket: WebSocket {
  let inner: any WebSocket
  let pings: HeldPings

  var frames: WebSocketFrames { inner.frames }

  func send(_ frame: WebSocketFrame) async throws(WebSocketError) {
    if frame == Harness.ping { await pings.hold() }
    try await inner.send(frame)
  }

  func close(_ code: WebSocketCloseCode, reason: String?) async {
    await inner.close(code, reason: reason)
  }
}
