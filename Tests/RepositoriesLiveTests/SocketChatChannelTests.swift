import ChatCore
import DTO
import Domain
import Foundation
import Logging
import NetworkKit
import NetworkKitTesting
import Repositories
import Testing

@testable import RepositoriesLive

/// A chat engine's calls run in its user's session only (`SessionBinding`).
@Suite("Chat engine calls bound to their user's session", .timeLimit(.minutes(1)))
struct SocketChatChannelTests {
  static func channel(
    _ harness: Harness, for user: User.ID, transport: ScriptedWebSocketTransport
  ) -> SocketChatChannel {
    SocketChatChannel(
      baseURL: Harness.baseURL, authenticator: harness.backend.authenticator,
      binding: harness.backend.binding(for: user),
      logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, transport: transport,
      clock: ContinuousClock())
  }

  /// Waits until the channel has failed `attempts` reconnects in a row.
  static func waitForFailedAttempts(_ channel: SocketChatChannel, _ attempts: Int) async {
    for await state in channel.connection.stateChanges() {
      if case .waitingToReconnect(let attempt, _) = state, attempt >= attempts { return }
    }
  }

  @Test(
    "the socket's URL keeps the base URL's path and port, and is wss for https in any case",
    arguments: [
      ("http://127.0.0.1:8080", "ws://127.0.0.1:8080/realtime"),
      ("http://127.0.0.1:8080/", "ws://127.0.0.1:8080/realtime"),
      ("https://api.qapple.test/api/v1", "wss://api.qapple.test/api/v1/realtime"),
      ("https://api.qapple.test/api/v1/", "wss://api.qapple.test/api/v1/realtime"),
      ("HTTPS://api.qapple.test", "wss://api.qapple.test/realtime"),
      // No socket goes there: left for the transport to refuse (`invalidURL`), not made `ws`.
      ("ftp://files.qapple.test", "ftp://files.qapple.test/realtime"),
    ])
  func socketURL(_ base: String, _ expected: String) throws {
    #expect(SocketChatChannel.socketURL(try #require(URL(string: base))).absoluteString == expected)
  }

  @Test func aRefusedFrameNamesItsRoomAndSend() throws {
    let id = UUID()
    #expect(
      try SocketChatChannel.event(
        .error(RealtimeErrorDTO(code: "forbidden", message: "Members only.", roomId: "r_1")))
        == .refused(clientMessageID: nil, room: "r_1", error: .forbidden))
    #expect(
      try SocketChatChannel.event(
        .error(
          RealtimeErrorDTO(
            code: "forbidden", message: "Members only.", roomId: "r_1", frameType: "typing")))
        == .refused(clientMessageID: nil, room: "r_1", frame: .typing, error: .forbidden))
    // A type this client does not know (a newer server's frame) is named unknown, never taken
    // for a frame the server did not name.
    #expect(
      try SocketChatChannel.event(
        .error(
          RealtimeErrorDTO(
            code: "forbidden", message: "Members only.", roomId: "r_1", frameType: "react")))
        == .refused(clientMessageID: nil, room: "r_1", frame: .unknown, error: .forbidden))
    #expect(
      try SocketChatChannel.event(
        .error(
          RealtimeErrorDTO(
            code: "banned", message: "Banned.", roomId: "r_1",
            clientMessageId: id.uuidString.lowercased(), frameType: "send")))
        == .refused(clientMessageID: id, room: "r_1", frame: .send, error: .banned))
  }

  @Test func aChannelNeverReconnectsWithTheNextUsersToken() async throws {
    let harness = Harness()
    try await harness.signIn(as: "u_a", accessToken: "access-a", refreshToken: "refresh-a")
    let transport = ScriptedWebSocketTransport(.accept)
    let channel = Self.channel(harness, for: "u_a", transport: transport)
    await channel.open()
    #expect(try await transport.attempt(0).headerFields[.authorization] == "Bearer access-a")

    // A signs out and B signs in before the engine of A is stopped; then A's socket drops.
    harness.stub(.post, "/auth/sign-out", status: .noContent, json: "")
    try await harness.repositories.auth.signOut()
    try await harness.signIn(as: "u_b", accessToken: "access-b", refreshToken: "refresh-b")
    try await transport.socket(0).closeFromServer(code: .goingAway)

    // Two reconnect attempts fail for want of A's session; no socket opens with B's token.
    await Self.waitForFailedAttempts(channel, 2)
    #expect(transport.attempts.count == 1)
    await channel.close()
  }

  @Test(
    "each connect names its socket; an old socket's frames come before its end; a call naming a socket that is gone never reaches the next"
  )
  func callsNameTheirSocket() async throws {
    let harness = Harness()
    try await harness.signIn(as: "u_a", accessToken: "access-a", refreshToken: "refresh-a")
    let transport = ScriptedWebSocketTransport(.accept, .accept)
    let channel = Self.channel(harness, for: "u_a", transport: transport)
    var events = channel.events.makeAsyncIterator()
    await channel.open()
    let first = try await transport.socket(0)
    first.deliver(.text(ServerFrame.subscribed(roomID: "r_1", lastSeq: 3).text))
    first.closeFromServer(code: .goingAway)
    var seen: [ChatChannelEvent] = []
    while let event = await events.next() {
      seen.append(event)
      if case .state(.connected, ConnectionLink(2)) = event { break }
    }
    let connects = seen.compactMap { event -> ConnectionLink? in
      if case .state(.connected, let link) = event { link } else { nil }
    }
    #expect(connects == [ConnectionLink(1), ConnectionLink(2)])
    // Only a `.connected` names a link (the WebSocket's own, handed on).
    let namedByOtherStates = seen.filter { event in
      if case .state(let state, let link) = event {
        state != .connected && link != nil
      } else {
        false
      }
    }
    #expect(namedByOtherStates.isEmpty)
    let answer = try #require(seen.firstIndex(of: .subscribed(room: "r_1", lastSeq: 3)))
    let end = try #require(
      seen.firstIndex { if case .state(.waitingToReconnect, _) = $0 { true } else { false } })
    #expect(answer < end)

    // The engine has not handled the reconnect: what it sends naming the first socket fails
    // (it goes again once the engine has), and only what names the second reaches it.
    let late = UUID()
    await #expect(throws: WebSocketError.notConnected) {
      try await channel.send("late", to: "r_1", clientMessageID: late, on: ConnectionLink(1))
    }
    try await channel.send("now", to: "r_1", clientMessageID: UUID(), on: ConnectionLink(2))
    let second = try await transport.socket(1)
    #expect(second.sentFrames.count == 1)
    #expect(second.sentFrames.allSatisfy { !"\($0)".contains(late.uuidString.lowercased()) })
    await channel.close()
  }

  @Test func aChannelOfAUserWhoIsNotSignedInNeverConnects() async throws {
    // A's engine made its channel, but B signed in before its first connect.
    let harness = Harness()
    try await harness.signIn(as: "u_b", accessToken: "access-b", refreshToken: "refresh-b")
    let transport = ScriptedWebSocketTransport(.accept)
    let channel = Self.channel(harness, for: "u_a", transport: transport)
    await channel.open()
    await Self.waitForFailedAttempts(channel, 2)
    #expect(transport.attempts.isEmpty)
    await channel.close()
  }

  @Test func anEnginesServerCallsFailOnceItsUsersSessionEnded() async throws {
    let harness = Harness()
    try await harness.signIn(as: "u_a", accessToken: "access-a", refreshToken: "refresh-a")
    let server = ChatRepository.live(
      client: harness.backend.client.bound(to: harness.backend.binding(for: "u_a")))
    harness.stub(
      .post, "/chat/rooms/room_1/messages", status: .created,
      json: """
        {"id": "m_1", "room_id": "room_1", "seq": 1,
         "client_message_id": "8f0c1a52-36c2-4a8e-9b51-0c7b1d2e3f40",
         "sender": {"id": "u_a", "nickname": "a"}, "text": "hi",
         "created_at": "2026-03-02T00:12:45.120Z"}
        """)
    let id = UUID(uuidString: "8f0c1a52-36c2-4a8e-9b51-0c7b1d2e3f40")!
    _ = try await server.sendMessage("hi", "room_1", id)

    harness.stub(.post, "/auth/sign-out", status: .noContent, json: "")
    try await harness.repositories.auth.signOut()
    try await harness.signIn(as: "u_b", accessToken: "access-b", refreshToken: "refresh-b")
    await #expect(throws: DomainError.signedOut) {
      _ = try await server.sendMessage("hi again", "room_1", UUID())
    }
    // A signs in again (B signed out): A's engine follows A's new session.
    try await harness.repositories.auth.signOut()
    try await harness.signIn(as: "u_a", accessToken: "access-a2", refreshToken: "refresh-a2")
    _ = try await server.sendMessage("hi", "room_1", id)
    let sends = harness.sentRequests.filter { $0.request.path == "/chat/rooms/room_1/messages" }
    #expect(
      sends.map { $0.request.headerFields[.authorization] } == [
        "Bearer access-a", "Bearer access-a2",
      ])
  }
}
