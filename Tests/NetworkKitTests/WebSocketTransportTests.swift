#if os(Linux)
import Foundation
import HTTPTypes
import NetworkKit
import Testing

/// `HummingbirdWebSocketTransport` against a real Hummingbird WebSocket server on 127.0.0.1.
@Suite("WebSocket transport (HummingbirdWSClient)", .timeLimit(.minutes(1)))
struct WebSocketTransportTests {
  let transport = HummingbirdWebSocketTransport()

  @Test func textRoundTripWithTheUpgradeHeaders() async throws {
    let server = try await WebSocketTestServer.shared()
    let socket = try await transport.connect(
      to: server.url("/echo"), headerFields: [.authorization: "Bearer abc"])
    var frames = socket.frames.makeAsyncIterator()
    try await socket.send(.text("hello, Qapple"))
    #expect(try await frames.next() == .text("hello, Qapple"))
    try await socket.send(.text("authorization"))
    #expect(try await frames.next() == .text("Bearer abc"))
    await socket.close(.normalClosure, reason: nil)
  }

  @Test func binaryRoundTripAboveWSClientsDefaultFrameSize() async throws {
    let server = try await WebSocketTestServer.shared()
    let socket = try await transport.connect(to: server.url("/echo"), headerFields: [:])
    var frames = socket.frames.makeAsyncIterator()
    let payload = Data((0..<40_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
    try await socket.send(.binary(payload))
    #expect(try await frames.next() == .binary(payload))
    await socket.close(.normalClosure, reason: nil)
  }

  @Test func aRefusedUpgradeIsATypedHandshakeFailure() async throws {
    let server = try await WebSocketTestServer.shared()
    // WSClient does not report the status, so it is nil here (URLSession reports it).
    await #expect(throws: WebSocketError.handshakeFailed(status: nil)) {
      try await transport.connect(
        to: server.url("/private"), headerFields: [.authorization: "Bearer bad"])
    }
    await #expect(throws: WebSocketError.handshakeFailed(status: nil)) {
      try await transport.connect(to: server.url("/plain"), headerFields: [:])
    }
    let accepted = try await transport.connect(
      to: server.url("/private"), headerFields: [.authorization: "Bearer good"])
    await accepted.close(.normalClosure, reason: nil)
  }

  @Test func aServerCloseEndsTheFramesWithItsCodeAndReason() async throws {
    let server = try await WebSocketTestServer.shared()
    let socket = try await transport.connect(to: server.url("/echo"), headerFields: [:])
    var frames = socket.frames.makeAsyncIterator()
    try await socket.send(.text("close:4001:bye"))
    await #expect(throws: WebSocketError.closed(code: 4001, reason: "bye")) {
      try await frames.next()
    }
    await #expect(throws: WebSocketError.closed(code: 4001, reason: "bye")) {
      try await socket.send(.text("after the close"))
    }
  }

  @Test func closingFromTheClientEndsTheFramesWithoutError() async throws {
    let server = try await WebSocketTestServer.shared()
    let socket = try await transport.connect(to: server.url("/echo"), headerFields: [:])
    var frames = socket.frames.makeAsyncIterator()
    await socket.close(.normalClosure, reason: "done")
    #expect(try await frames.next() == nil)
    await #expect(throws: WebSocketError.self) { try await socket.send(.text("too late")) }
    // Closing again does nothing.
    await socket.close(.normalClosure, reason: nil)
  }

  @Test func anOutgoingMessageOverTheLimitIsRefusedBeforeItLeaves() async throws {
    let server = try await WebSocketTestServer.shared()
    let socket = try await transport.connect(to: server.url("/echo"), headerFields: [:])
    var frames = socket.frames.makeAsyncIterator()
    let limit = WebSocketDefaults.maximumMessageSize
    await #expect(throws: WebSocketError.messageTooLarge) {
      try await socket.send(.binary(Data(count: limit + 1)))
    }
    // The socket is still usable, and a message of exactly the limit goes through.
    try await socket.send(.binary(Data(count: limit)))
    #expect(try await frames.next() == .binary(Data(count: limit)))
    await socket.close(.normalClosure, reason: nil)
  }

  @Test(arguments: ["big", "fragmented"])
  func anIncomingMessageOverTheLimitIsATypedError(command: String) async throws {
    let server = try await WebSocketTestServer.shared()
    let socket = try await transport.connect(to: server.url("/echo"), headerFields: [:])
    var frames = socket.frames.makeAsyncIterator()
    let limit = WebSocketDefaults.maximumMessageSize
    try await socket.send(.text("\(command):\(limit)"))
    #expect(try await frames.next()?.payloadSize == limit)
    try await socket.send(.text("\(command):\(limit + 1)"))
    await #expect(throws: WebSocketError.messageTooLarge) { try await frames.next() }
    await #expect(throws: WebSocketError.closed(code: .messageTooBig, reason: nil)) {
      try await socket.send(.text("x"))
    }
  }

  @Test func anUnreachableServerIsOffline() async throws {
    // Port 9 (discard) has no listener on the test machine, so the connection is refused.
    await #expect(throws: WebSocketError.offline) {
      try await transport.connect(to: URL(string: "ws://127.0.0.1:9/echo")!, headerFields: [:])
    }
  }

  @Test func aServerThatNeverAnswersTimesOut() async throws {
    // TestServer's /slow route accepts the request and never answers it.
    let server = try await TestServer.shared()
    let impatient = HummingbirdWebSocketTransport(handshakeTimeout: .milliseconds(500))
    let url = URL(string: "ws://127.0.0.1:\(server.port)/slow/\(uniqueID())")!
    await #expect(throws: WebSocketError.timeout) {
      try await impatient.connect(to: url, headerFields: [:])
    }
  }

  @Test func cancellingTheConnectingTaskThrowsCancelled() async throws {
    let server = try await TestServer.shared()
    let id = uniqueID()
    let url = URL(string: "ws://127.0.0.1:\(server.port)/slow/\(id)")!
    // A handshake timeout far beyond the wait: on a loaded machine the request once took over
    // the default 10 s to reach the server, and the connect timed out before the cancel.
    let transport = HummingbirdWebSocketTransport(handshakeTimeout: .seconds(300))
    let connecting = Task { try await transport.connect(to: url, headerFields: [:]) }
    // Cancel once the upgrade request is at the server, so the handshake is really in flight.
    await server.state.wait(for: "slow-started:\(id)")
    connecting.cancel()
    await #expect(throws: WebSocketError.cancelled) { try await connecting.value }
  }

  @Test(arguments: ["ftp://127.0.0.1/echo", "ws:///echo", "/echo"])
  func aURLThatCannotCarryAWebSocketIsInvalid(url: String) async throws {
    let url = try #require(URL(string: url))
    await #expect(throws: WebSocketError.invalidURL(url.absoluteString)) {
      try await transport.connect(to: url, headerFields: [:])
    }
    #expect(throws: WebSocketError.invalidURL(url.absoluteString)) { try webSocketURL(url) }
  }

  @Test(
    "http and https, in any case, name ws and wss",
    arguments: [
      ("http://h:8080/a", "ws://h:8080/a"), ("HTTPS://h/a", "wss://h/a"), ("ws://h", "ws://h"),
      ("WSS://h/x?y=1", "wss://h/x?y=1"),
    ])
  func webSocketURLs(_ url: String, _ expected: String) throws {
    #expect(try webSocketURL(try #require(URL(string: url))).absoluteString == expected)
  }

  @Test func theConnectionRefreshesARejectedTokenOverARealServer() async throws {
    // WSClient reports no status, so the refused upgrade counts as a possible token rejection.
    let server = try await WebSocketTestServer.shared()
    let refreshes = Counter()
    let connection = WebSocketConnection(
      configuration: .init(url: server.url("/private"), heartbeat: nil),
      transport: transport,
      accessToken: { "bad" },
      refreshAccessToken: { rejected in
        _ = refreshes.next()
        return rejected == "bad" ? "good" : rejected
      })
    var states = connection.stateChanges().makeAsyncIterator()
    await connection.start()
    #expect(await states.next() == .disconnected)
    #expect(await states.next() == .connecting(attempt: 0))
    #expect(await states.next() == .connected)
    #expect(refreshes.value == 1)

    var frames = connection.events.makeAsyncIterator()
    try await connection.send(.text("through the connection"))
    #expect(await frames.nextFrame() == .text("through the connection"))
    await connection.stop()
    #expect(await states.next() == .closed)
    #expect(await frames.nextFrame() == nil)
  }

  @Test func platformDefaultIsHummingbirdOnLinux() {
    #expect(WebSocketTransports.platformDefault is HummingbirdWebSocketTransport)
  }
}

#endif
