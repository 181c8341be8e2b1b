import DTO
import Domain
import Foundation
import Hummingbird
import NIOWebSocket
import ServiceEngine
import TestSupport
import Testing

@testable import LocalServer

/// `/realtime` frame by frame (Docs/Realtime.md), against a running server over real sockets.
@Suite("Realtime socket")
struct RealtimeTests {
  /// A group with two members (the owner and one who joined) and its room.
  struct Room {
    let owner: String
    let member: String
    let group: StudyGroupDTO
    let room: String
  }

  static func room(_ h: Harness) async throws -> Room {
    let owner = try await h.member("Owner")
    let member = try await h.member("Member")
    let (group, room) = try await h.groupWithRoom("Realtime", token: owner)
    _ = try await h.expect(
      .ok, StudyGroupDTO.self, .put, "/groups/\(group.id)/membership", token: member)
    return Room(owner: owner, member: member, group: group, room: room.id)
  }

  static func subscribe(
    _ probe: SocketProbe, _ room: String, afterSeq: Int64? = nil
  ) async throws -> Int64 {
    probe.send(.subscribe(roomID: room, afterSeq: afterSeq))
    while true {
      let frame = try await probe.frame()
      if case .subscribed(let subscribed, let lastSeq) = frame, subscribed == room {
        return lastSeq
      }
    }
  }

  /// Sends `count` messages into the room over REST, as its owner.
  static func postMessages(_ count: Int, _ h: Harness, _ r: Room) async throws {
    for index in 1...count {
      let id = UUID()
      let sent = try await h.send(
        .post, "/chat/rooms/\(r.room)/messages", token: r.owner,
        json: SendMessageRequest(clientMessageId: id, text: "m\(index)"),
        headers: [.init("Idempotency-Key")!: id.uuidString])
      #expect(sent.status == .created)
    }
  }

  /// Runs `body` against a dev-mode server whose sockets have `faults`.
  static func withFaultyServer(
    _ faults: SocketFaults, _ body: @Sendable (Harness) async throws -> Void
  ) async throws {
    var configuration = ServerConfiguration.testing(devMode: true)
    configuration.socketFaults = faults
    try await withServer(configuration, body)
  }

  /// The server's frames until (and with) the first `subscribed`.
  static func framesUntilSubscribed(_ probe: SocketProbe) async throws -> [ServerFrame] {
    var frames: [ServerFrame] = []
    while true {
      let frame = try await probe.frame()
      frames.append(frame)
      if case .subscribed = frame { return frames }
    }
  }

  @Test("the handshake needs a valid bearer token; a plain GET answers 426, a bad token 401")
  func handshake() async throws {
    try await withServer { h in
      let token = try await h.member("Mina")
      await #expect(throws: SocketProbe.Refused.self) {
        _ = try await SocketProbe.open(h.url, token: nil)
      }
      await #expect(throws: SocketProbe.Refused.self) {
        _ = try await SocketProbe.open(h.url, token: "at_not-a-token")
      }
      await #expect(throws: SocketProbe.Refused.self) {
        _ = try await SocketProbe.open(h.url, token: token, path: "/posts")
      }
      try await h.expectError(.unauthorized, "unauthorized", .get, "/realtime", token: "nope")
      let plain = try await h.send(.get, "/realtime", token: token)
      #expect(plain.status == .upgradeRequired)
      #expect(plain.error?.code == "upgrade_required")
      #expect(plain.headers[.upgrade] == "websocket")
      let probe = try await SocketProbe.open(h.url, token: token)
      probe.send(.ping)
      #expect(try await probe.frame() == .pong)
      await probe.close()
    }
  }

  @Test(
    "a refused handshake answers as a plain request would: 401 with the envelope, token_expired for an expired token; another path 400"
  )
  func refusedHandshakeKeepsTheEnvelope() async throws {
    try await withServer(.testing(accessTokenLifetime: .seconds(30))) { h in
      let session = try await h.signUp("Late")
      func handshake(
        _ authorization: String?, path: String = RealtimeLimits.path
      ) async throws -> (
        status: String, body: ErrorEnvelopeDTO?
      ) {
        let lines =
          [
            "GET \(path) HTTP/1.1", "Host: 127.0.0.1", "Upgrade: websocket", "Connection: Upgrade",
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==", "Sec-WebSocket-Version: 13",
          ] + (authorization.map { ["Authorization: \($0)"] } ?? []) + ["", ""]
        let answer = try await rawHTTP(
          Array(lines.joined(separator: "\r\n").utf8), port: h.url.port ?? 0)
        let parts = answer.components(separatedBy: "\r\n\r\n")
        let status = parts[0].components(separatedBy: "\r\n")[0]
        let body = parts.count > 1 ? Data(parts[1].utf8) : Data()
        return (status, try? JSONDecoder().decode(ErrorEnvelopeDTO.self, from: body))
      }
      for authorization in [nil, "Bearer at_not-a-token", "Basic abc"] {
        let refused = try await handshake(authorization)
        #expect(
          refused.status == "HTTP/1.1 401 Unauthorized", "\(authorization ?? "none"): \(refused)")
        #expect(refused.body?.error.code == "unauthorized", "\(authorization ?? "none")")
      }
      #expect(
        try await handshake("Bearer \(session.accessToken)", path: "/posts").status.hasPrefix(
          "HTTP/1.1 400"))
      h.clock.advance(by: .seconds(31))
      let expired = try await handshake("Bearer \(session.accessToken)")
      #expect(expired.status == "HTTP/1.1 401 Unauthorized")
      #expect(expired.body?.error.code == "token_expired")
    }
  }

  @Test("send: ack with the stored seq, broadcast to every subscriber, retries de-duplicated")
  func sendAndBroadcast() async throws {
    try await withServer { h in
      let r = try await Self.room(h)
      let sender = try await SocketProbe.open(h.url, token: r.owner)
      let senderOtherDevice = try await SocketProbe.open(h.url, token: r.owner)
      let reader = try await SocketProbe.open(h.url, token: r.member)
      #expect(try await Self.subscribe(sender, r.room) == 0)
      #expect(try await Self.subscribe(senderOtherDevice, r.room) == 0)
      #expect(try await Self.subscribe(reader, r.room) == 0)

      let id = UUID()
      sender.send(.send(roomID: r.room, clientMessageID: id, text: "안녕하세요"))
      var ack: ChatMessageDTO?
      var echoed: ChatMessageDTO?
      while ack == nil || echoed == nil {
        switch try await sender.frame() {
        case .ack(let client, let message):
          #expect(client == id.uuidString.lowercased())
          ack = message
        case .message(let message): echoed = message
        case let other: Issue.record("unexpected \(other)")
        }
      }
      #expect(ack?.seq == 1)
      #expect(ack == echoed)
      #expect(try await senderOtherDevice.frame() == .message(try #require(ack)))
      #expect(try await reader.frame() == .message(try #require(ack)))

      // The same client_message_id again: the same message, nothing new broadcast.
      sender.send(.send(roomID: r.room, clientMessageID: id, text: "안녕하세요"))
      #expect(
        try await sender.frame()
          == .ack(clientMessageID: id.uuidString.lowercased(), message: try #require(ack)))
      sender.send(.send(roomID: r.room, clientMessageID: UUID(), text: "second"))
      guard case .message(let second) = try await reader.frame() else {
        Issue.record("expected the second message")
        return
      }
      #expect(second.seq == 2)
      #expect(second.text == "second")

      // The REST history holds exactly the two messages.
      let history = try await h.expect(
        .ok, PageDTO<ChatMessageDTO>.self, .get, "/chat/rooms/\(r.room)/messages?after_seq=0",
        token: r.member)
      #expect(history.items.map(\.seq) == [1, 2])
      // The other member got one coalesced group_message notification.
      let inbox = try await h.expect(
        .ok, PageDTO<NotificationDTO>.self, .get, "/notifications", token: r.member)
      #expect(inbox.items.map(\.kind) == [.groupMessage])
      await sender.close()
      await senderOtherDevice.close()
      await reader.close()
    }
  }

  @Test("subscribing with after_seq replays what was missed, then says subscribed")
  func replay() async throws {
    try await withServer { h in
      let r = try await Self.room(h)
      try await Self.postMessages(4, h, r)
      let probe = try await SocketProbe.open(h.url, token: r.member)
      probe.send(.subscribe(roomID: r.room, afterSeq: 2))
      var seqs: [Int64] = []
      while true {
        let frame = try await probe.frame()
        if case .message(let message) = frame { seqs.append(message.seq) }
        if case .subscribed(_, let lastSeq) = frame {
          #expect(lastSeq == 4)
          break
        }
      }
      #expect(seqs == [3, 4])
      await probe.close()
    }
  }

  @Test("refused and malformed frames get an error frame and the connection stays up")
  func badFrames() async throws {
    try await withServer { h in
      let r = try await Self.room(h)
      let outsider = try await h.member("Outsider")
      let probe = try await SocketProbe.open(h.url, token: outsider)
      probe.send(.subscribe(roomID: r.room, afterSeq: nil))
      guard case .error(let forbidden) = try await probe.frame() else {
        Issue.record("expected an error")
        return
      }
      #expect(forbidden.code == "forbidden")
      #expect(forbidden.roomId == r.room)
      #expect(forbidden.frameType == "subscribe")
      // A refused typing frame names its room too; its type tells it from a subscription.
      probe.send(.typing(roomID: r.room))
      guard case .error(let typing) = try await probe.frame() else {
        Issue.record("expected an error")
        return
      }
      #expect(typing.code == "forbidden")
      #expect(typing.roomId == r.room)
      #expect(typing.frameType == "typing")
      let id = UUID()
      probe.send(.send(roomID: r.room, clientMessageID: id, text: "let me in"))
      guard case .error(let refused) = try await probe.frame() else {
        Issue.record("expected an error")
        return
      }
      #expect(refused.code == "forbidden")
      #expect(refused.clientMessageId == id.uuidString.lowercased())
      #expect(refused.frameType == "send")

      let cases: [(String, String, String?)] = [
        ("not json", "malformed_request", nil),
        (#"{"type":"shout"}"#, "unknown_frame", "type"),
        (#"{"type":"subscribe"}"#, "malformed_request", "room_id"),
        (
          #"{"type":"send","room_id":"x","client_message_id":"nope","text":"a"}"#,
          "malformed_request", "client_message_id"
        ),
      ]
      for (text, code, field) in cases {
        probe.send(text: text)
        guard case .error(let error) = try await probe.frame() else {
          Issue.record("expected an error for \(text)")
          continue
        }
        #expect(error.code == code, "\(text)")
        #expect(error.field == field, "\(text)")
      }
      probe.send(binary: [0x01, 0x02])
      guard case .error(let binary) = try await probe.frame() else {
        Issue.record("expected an error for binary")
        return
      }
      #expect(binary.code == "unknown_frame")
      let member = try await SocketProbe.open(h.url, token: r.member)
      _ = try await Self.subscribe(member, r.room)
      member.send(.send(roomID: r.room, clientMessageID: UUID(), text: ""))
      guard case .error(let empty) = try await member.frame() else {
        Issue.record("expected an error for empty text")
        return
      }
      #expect(empty.code == "validation_failed")
      #expect(empty.validation == ValidationDetailDTO(kind: .empty))
      probe.send(.ping)
      #expect(try await probe.frame() == .pong)
      await probe.close()
      await member.close()
    }
  }

  @Test(
    "a send over the user's write limit is refused (rate_limited) and ends the socket (1013); what was stored keeps its order"
  )
  func sendsCountAgainstTheWriteLimit() async throws {
    // The server's clock stands still: the window never passes during the test.
    try await withServer(.testing(rateLimit: .init(count: 10, window: .seconds(10)))) { h in
      let r = try await Self.room(h)
      let probe = try await SocketProbe.open(h.url, token: r.member)
      let texts = (1...12).map { "message \($0)" }
      for text in texts { probe.send(.send(roomID: r.room, clientMessageID: UUID(), text: text)) }
      var acked: [String] = []
      var refusal: RealtimeErrorDTO?
      reading: while true {
        switch try await probe.next() {
        case .text(let text):
          switch try ServerFrame(text: text) {
          case .ack(_, let message): acked.append(message.text)
          case .error(let error):
            refusal = refusal ?? error
          default: break
          }
        case .closed(let code):
          #expect(code == 1013)
          break reading
        }
      }
      #expect(refusal?.code == "rate_limited")
      #expect(!acked.isEmpty && acked.count < texts.count)
      #expect(acked == Array(texts.prefix(acked.count)))
      let history = try await h.expect(
        .ok, PageDTO<ChatMessageDTO>.self, .get, "/chat/rooms/\(r.room)/messages", token: r.owner)
      #expect(history.items.map(\.text) == acked)
    }
  }

  @Test("a burst of frames is answered in order; its sends get consecutive seqs")
  func burst() async throws {
    try await withServer { h in
      let r = try await Self.room(h)
      let probe = try await SocketProbe.open(h.url, token: r.owner)
      let (first, second) = (UUID(), UUID())
      // Sent without waiting: the server takes what waits together (one transaction for a
      // run of sends) and must still answer frame by frame.
      probe.send(.send(roomID: r.room, clientMessageID: first, text: "one"))
      probe.send(.send(roomID: r.room, clientMessageID: first, text: "one"))
      probe.send(text: "not json")
      probe.send(.send(roomID: r.room, clientMessageID: UUID(), text: ""))
      probe.send(.send(roomID: r.room, clientMessageID: second, text: "two"))
      probe.send(.ping)
      var answers: [ServerFrame] = []
      for _ in 0..<6 { answers.append(try await probe.frame()) }
      guard case .ack(let id1, let one) = answers[0], case .ack(let id2, let again) = answers[1],
        case .error(let malformed) = answers[2], case .error(let empty) = answers[3],
        case .ack(let id3, let two) = answers[4]
      else {
        Issue.record("unexpected answers: \(answers)")
        return
      }
      #expect([id1, id2, id3] == [first, first, second].map { $0.uuidString.lowercased() })
      #expect([one.seq, again.seq, two.seq] == [1, 1, 2])
      #expect(malformed.code == "malformed_request")
      #expect(empty.code == "validation_failed")
      #expect(answers[5] == .pong)
      let history = try await h.expect(
        .ok, PageDTO<ChatMessageDTO>.self, .get, "/chat/rooms/\(r.room)/messages", token: r.owner)
      #expect(history.items.map(\.text) == ["one", "two"])
      await probe.close()
    }
  }

  @Test("a client sending faster than the server stores waits for it: 1,000 sends, 1,000 acks")
  func backpressure() async throws {
    var configuration = ServerConfiguration.testing()
    configuration.realtimeFrameLimit = nil
    try await withServer(configuration) { h in
      let r = try await Self.room(h)
      let probe = try await SocketProbe.open(h.url, token: r.owner)
      // More than the server's inbox holds (256 frames), sent without waiting for answers.
      for index in 0..<1_000 {
        probe.send(.send(roomID: r.room, clientMessageID: UUID(), text: "m\(index)"))
      }
      var seqs: [Int64] = []
      for _ in 0..<1_000 {
        guard case .ack(_, let message) = try await probe.frame() else {
          Issue.record("expected an ack")
          return
        }
        seqs.append(message.seq)
      }
      #expect(seqs == Array(1...1_000))
      await probe.close()
    }
  }

  @Test("an oversized message gets frame_too_large and close 1009; nothing is stored")
  func oversized() async throws {
    try await withServer { h in
      let r = try await Self.room(h)
      let probe = try await SocketProbe.open(h.url, token: r.owner)
      let text = String(repeating: "a", count: RealtimeLimits.maxMessageBytes + 1)
      probe.send(.send(roomID: r.room, clientMessageID: UUID(), text: text))
      guard case .error(let error) = try await probe.frame() else {
        Issue.record("expected an error")
        return
      }
      #expect(error.code == "frame_too_large")
      #expect(try await probe.next() == .closed(code: 1009))
      let history = try await h.expect(
        .ok, PageDTO<ChatMessageDTO>.self, .get, "/chat/rooms/\(r.room)/messages", token: r.owner)
      #expect(history.items.isEmpty)
    }
  }

  @Test("a continuation with nothing to continue is refused with 1002; the last message runs once")
  func strayContinuation() async throws {
    try await withServer { h in
      let r = try await Self.room(h)
      let probe = try await SocketProbe.open(h.url, token: r.owner)
      // A message in two fragments, in order: it runs once.
      let text = Array(
        ClientFrame.send(roomID: r.room, clientMessageID: UUID(), text: "once").text.utf8)
      let half = text.count / 2
      probe.send(
        frame: WebSocketFrame(fin: false, opcode: .text, data: ByteBuffer(bytes: text[..<half])))
      probe.send(
        frame: WebSocketFrame(
          fin: true, opcode: .continuation, data: ByteBuffer(bytes: text[half...])))
      guard case .ack = try await probe.frame() else {
        Issue.record("expected an ack")
        return
      }
      probe.send(frame: WebSocketFrame(fin: true, opcode: .continuation, data: ByteBuffer()))
      guard case .error(let error) = try await probe.frame() else {
        Issue.record("expected an error, not the message run again")
        return
      }
      #expect(error.code == "malformed_request")
      #expect(try await probe.next() == .closed(code: 1002))
      let history = try await h.expect(
        .ok, PageDTO<ChatMessageDTO>.self, .get, "/chat/rooms/\(r.room)/messages", token: r.owner)
      #expect(history.items.map(\.text) == ["once"])
    }
  }

  @Test(
    "a send that fails for now (the database refuses it) ends the socket with 1013: no later send on it is stored first"
  )
  func sendFailedForNowEndsTheSocket() async throws {
    try await withFileServer { h, path in
      let r = try await Self.room(h)
      try failInserts(into: "chat_message", when: "NEW.text = 'first'", ofDatabaseAt: path)
      let probe = try await SocketProbe.open(h.url, token: r.owner)
      let first = UUID()
      probe.send(.send(roomID: r.room, clientMessageID: first, text: "first"))
      probe.send(.send(roomID: r.room, clientMessageID: UUID(), text: "second"))
      // "second" is refused with it (one transaction) or never run: nothing is acknowledged.
      var refused: [String?] = []
      var event = try await probe.next()
      while case .text(let text) = event {
        let frame = try ServerFrame(text: text)
        if case .error(let error) = frame {
          #expect(error.code == "internal")
          refused.append(error.clientMessageId)
        } else {
          Issue.record("expected only refusals, got \(frame)")
        }
        event = try await probe.next()
      }
      #expect(refused.first == first.uuidString.lowercased())
      #expect(event == .closed(code: 1013))
      let history = try await h.expect(
        .ok, PageDTO<ChatMessageDTO>.self, .get, "/chat/rooms/\(r.room)/messages",
        token: r.owner)
      #expect(history.items.isEmpty)
    }
  }

  @Test(
    "after a send that failed for now the session ends with the client's close, whatever the client sent after it"
  )
  func sessionEndsAfterFailedSend() async throws {
    var configuration = ServerConfiguration.testing()
    configuration.realtimeFrameLimit = nil
    try await withFileServer(configuration) { h, path in
      let r = try await Self.room(h)
      let probe = try await SocketProbe.open(h.url, token: r.owner)
      try failInserts(into: "chat_message", ofDatabaseAt: path)
      // More frames after the failing send than the server's inbox holds (256).
      for index in 0...400 {
        probe.send(.send(roomID: r.room, clientMessageID: UUID(), text: "m\(index)"))
      }
      while case .text = try await probe.next() {}
      try await waitUntil("the server's session has ended") { h.server.core.sockets.isEmpty }
    }
  }

  @Test("a flood gets too_many_frames and close 1008")
  func flood() async throws {
    var configuration = ServerConfiguration.testing()
    configuration.realtimeFrameLimit = .init(count: 5, window: .seconds(10))
    try await withServer(configuration) { h in
      let token = try await h.member("Flooder")
      let probe = try await SocketProbe.open(h.url, token: token)
      for _ in 0..<6 { probe.send(.ping) }
      for _ in 0..<5 { #expect(try await probe.frame() == .pong) }
      guard case .error(let error) = try await probe.frame() else {
        Issue.record("expected an error")
        return
      }
      #expect(error.code == "too_many_frames")
      #expect(try await probe.next() == .closed(code: 1008))
    }
  }

  @Test(
    "a socket whose client stops reading is cut off: slow_consumer and close 1013 (or a drop), not every event queued"
  )
  func slowConsumer() async throws {
    var configuration = ServerConfiguration.testing()
    configuration.realtimeBacklog = 100
    try await withServer(configuration) { h in
      let r = try await Self.room(h)
      let probe = try await SocketProbe.open(h.url, token: r.member)
      _ = try await Self.subscribe(probe, r.room)
      await probe.pauseReading()
      // About 18 MB of frames: more than the socket's buffers hold (Linux lets a loopback
      // socket buffer 4 MB to send and 6 MB to receive), so the server's writes wait and its
      // backlog grows past 100.
      let owner = try h.server.engine.authenticate(accessToken: r.owner)
      let text = String(repeating: "가", count: 1000)
      let total = 6000
      for _ in 0..<(total / 500) {
        let sends = (0..<500).map { _ in
          MessageSend(text: text, roomID: ChatRoom.ID(rawValue: r.room), clientMessageID: UUID())
        }
        #expect(
          h.server.engine.sendMessages(sends, as: owner).allSatisfy { (try? $0.get()) != nil })
      }
      await probe.resumeReading()
      let messages = try await Self.expectCutOff(probe) { _ in false }.filter {
        if case .message = $0 { true } else { false }
      }
      #expect(messages.count < total, "all \(messages.count) events were queued and written")
    }
  }

  /// Reads `probe` until the server cuts it off as a slow consumer (`slow_consumer`, then close
  /// 1013, or a drop when the client read again too late) and returns the frames before; records
  /// an issue when `isTooFar` says a frame came that a cut-off socket never gets.
  static func expectCutOff(
    _ probe: SocketProbe, isTooFar: ([ServerFrame]) -> Bool,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> [ServerFrame] {
    var frames: [ServerFrame] = []
    while true {
      switch try await probe.next() {
      case .text(let text):
        frames.append(try ServerFrame(text: text))
        if isTooFar(frames) {
          Issue.record("the socket was never cut off", sourceLocation: sourceLocation)
          return frames
        }
      case .closed(let code):
        let slowConsumer = frames.contains {
          if case .error(let error) = $0 { error.code == "slow_consumer" } else { false }
        }
        #expect(
          code == 1013 || code == nil, "closed with \(String(describing: code))",
          sourceLocation: sourceLocation)
        #expect(slowConsumer || code == nil, sourceLocation: sourceLocation)
        return frames
      }
    }
  }

  @Test("a client that subscribes again and again without reading is cut off by its replays")
  func replaysCountInTheBacklog() async throws {
    // A backlog smaller than one replay: a subscribe's replay is posted at once, far faster
    // than the writer takes it, so the count passes 50 whether or not the client reads.
    var configuration = ServerConfiguration.testing()
    configuration.realtimeBacklog = 50
    try await withServer(configuration) { h in
      let r = try await Self.room(h)
      // 200 messages of about 3 KB: each subscribe from the start replays about 600 KB.
      let owner = try h.server.engine.authenticate(accessToken: r.owner)
      let text = String(repeating: "가", count: 1000)
      let sends = (0..<200).map { _ in
        MessageSend(text: text, roomID: ChatRoom.ID(rawValue: r.room), clientMessageID: UUID())
      }
      #expect(h.server.engine.sendMessages(sends, as: owner).allSatisfy { (try? $0.get()) != nil })
      let probe = try await SocketProbe.open(h.url, token: r.member)
      await probe.pauseReading()
      // 40 subscribes: 8,000 replayed frames, about 24 MB, more than the socket's buffers.
      let subscribes = 40
      for _ in 0..<subscribes { probe.send(.subscribe(roomID: r.room, afterSeq: 0)) }
      await probe.resumeReading()
      // Every subscribe answered: every replay was queued and written.
      _ = try await Self.expectCutOff(probe) { frames in
        frames.count { if case .subscribed = $0 { true } else { false } } == subscribes
      }
    }
  }

  @Test(
    "a client that sends but never reads is cut off by the answers it piles up: past the count of frames, or of bytes",
    arguments: [
      (frames: 50, bytes: 64 << 20, sent: 600), (frames: 10_000, bytes: 1 << 20, sent: 400),
    ])
  func answersCountInTheBacklog(limit: (frames: Int, bytes: Int, sent: Int)) async throws {
    var configuration = ServerConfiguration.testing()
    configuration.realtimeFrameLimit = nil
    configuration.realtimeBacklog = limit.frames
    configuration.realtimeBacklogBytes = limit.bytes
    try await withServer(configuration) { h in
      let probe = try await SocketProbe.open(h.url, token: try await h.member("Talker"))
      await probe.pauseReading()
      // Unsubscribes that each echo a 60 KB room ID: 24 or 36 MB of answers, more than the
      // sockets' buffers hold (about 10 MB each way), so the server's writes wait and its
      // backlog grows past either limit (the frames' 50, or the 1 MiB of bytes long before
      // 10,000 frames). Reading resumes once they were all written: by then the server has read
      // all but the megabytes the buffers hold, more than the limit beyond its own buffers.
      let sent = limit.sent
      let room = String(repeating: "r", count: 60_000)
      for _ in 0..<sent { probe.send(.unsubscribe(roomID: room)) }
      await probe.written()
      await probe.resumeReading()
      // Every unsubscribe answered: every answer was queued and written.
      _ = try await Self.expectCutOff(probe) { frames in
        frames.count { if case .unsubscribed = $0 { true } else { false } } == sent
      }
    }
  }

  /// Runs `body` against a server whose 60 s idle timeout runs on a clock the test moves by
  /// hand: a loaded machine's stalls change nothing.
  static func withIdleTimeout(
    _ body: @Sendable (Harness, ServerClock) async throws -> Void
  ) async throws {
    let clock = ServerClock(fixed: testEpoch)
    var configuration = ServerConfiguration.testing(clock: clock)
    configuration.realtimeIdleTimeout = .seconds(60)
    try await withServer(configuration) { try await body($0, clock) }
  }

  @Test(
    "a socket that sends nothing for the idle timeout is closed with 1001; one that pings stays")
  func idleSocketIsClosed() async throws {
    try await Self.withIdleTimeout { h, clock in
      let token = try await h.member("Quiet")
      let talker = try await SocketProbe.open(h.url, token: token)
      let quiet = try await SocketProbe.open(h.url, token: token)
      clock.advance(by: .seconds(40))
      talker.send(.ping)
      #expect(try await talker.frame() == .pong)
      // 61 s since the quiet one was heard from, 21 s since the talker was.
      clock.advance(by: .seconds(21))
      #expect(try await quiet.next() == .closed(code: 1001))
      talker.send(.ping)
      #expect(try await talker.frame() == .pong)
      await talker.close()
    }
  }

  /// A raw TCP connection to `/realtime` as `token`'s user, upgraded (reads give up after 15 s
  /// of silence), and the response head; the caller closes it.
  static func rawSocket(_ h: Harness, token: String) async throws -> (Int32, head: [UInt8]) {
    let socket = try rawConnection(port: h.url.port ?? 0, timeout: 15)
    let handshake = [
      "GET \(RealtimeLimits.path) HTTP/1.1", "Host: 127.0.0.1", "Upgrade: websocket",
      "Connection: Upgrade", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
      "Sec-WebSocket-Version: 13", "Authorization: Bearer \(token)", "", "",
    ].joined(separator: "\r\n")
    do {
      try sendAll(Array(handshake.utf8), to: socket)
      return (socket, try await readUntil(Array("\r\n\r\n".utf8), from: socket))
    } catch {
      close(socket)
      throw error
    }
  }

  @Test("a frame the client sends after the server's close is neither run nor answered")
  func nothingRunsAfterTheServersClose() async throws {
    try await Self.withIdleTimeout { h, clock in
      let r = try await Self.room(h)
      // A raw connection, which does not answer the server's close at once as a client does.
      let (socket, _) = try await Self.rawSocket(h, token: r.owner)
      defer { close(socket) }
      clock.advance(by: .seconds(61))
      // The idle close (1001, "idle") has come; the client sends a message, then its close.
      _ = try await readUntil(Array("idle".utf8), from: socket)
      /// A client frame: FIN, `opcode`, masked with the key 0 (so the payload reads as is).
      func masked(_ opcode: UInt8, _ payload: [UInt8]) -> [UInt8] {
        precondition(payload.count < 126)
        return [0x80 | opcode, 0x80 | UInt8(payload.count), 0, 0, 0, 0] + payload
      }
      let late = ClientFrame.send(roomID: r.room, clientMessageID: UUID(), text: "after the close")
      try sendAll(masked(0x1, Array(late.text.utf8)), to: socket)
      try sendAll(masked(0x8, [0x03, 0xE8]), to: socket)
      let (rest, ended) = try await readUntilClosed(socket)
      #expect(ended)
      #expect(rest.isEmpty, "the server answered after its close: \(rest)")
      let history = try await h.expect(
        .ok, PageDTO<ChatMessageDTO>.self, .get, "/chat/rooms/\(r.room)/messages?after_seq=0",
        token: r.member)
      #expect(history.items.isEmpty)
    }
  }

  @Test(
    "signing a session out closes its sockets (error unauthorized, 1008); another session's socket stays"
  )
  func signOutClosesTheSessionsSockets() async throws {
    try await withServer { h in
      let phone = try await h.signUp("Twice")
      let again = try await h.expect(
        .ok, SignInResponseDTO.self, .post, "/auth/sign-in",
        json: SignInRequest(provider: "dev", token: "dev-Twice"))
      let laptop = try #require(again.session)
      let onPhone = try await SocketProbe.open(h.url, token: phone.accessToken)
      let onLaptop = try await SocketProbe.open(h.url, token: laptop.accessToken)
      // Both sockets are up before the sign-out.
      for probe in [onPhone, onLaptop] {
        probe.send(.ping)
        #expect(try await probe.frame() == .pong)
      }
      #expect(
        try await h.send(
          .post, "/auth/sign-out", token: phone.accessToken,
          json: SignOutRequest(refreshToken: phone.refreshToken)
        ).status == .noContent)
      guard case .error(let error) = try await onPhone.frame() else {
        Issue.record("expected an error")
        return
      }
      #expect(error.code == "unauthorized")
      #expect(try await onPhone.next() == .closed(code: 1008))
      onLaptop.send(.ping)
      #expect(try await onLaptop.frame() == .pong)
      await onLaptop.close()
    }
  }

  @Test("a withdrawn account's connection ends, also when its client never answers the close")
  func withdrawnClientThatIgnoresTheCloseIsDropped() async throws {
    // The server's clock stands still: the idle timeout never comes to end the connection.
    try await Self.withIdleTimeout { h, _ in
      let token = try await h.member("Leaving")
      // A raw connection, which answers no close.
      let (socket, _) = try await Self.rawSocket(h, token: token)
      defer { close(socket) }
      #expect(try await h.send(.delete, "/me", token: token).status == .noContent)
      // The error, the close; then the server ends the connection itself (the read gives up
      // after 15 s of silence).
      let (rest, ended) = try await readUntilClosed(socket)
      #expect(ended, "the server kept the connection of a client that ignored its close")
      #expect(String(decoding: rest, as: UTF8.self).contains("withdrawn"))
    }
  }

  @Test("a client that vanished without a word (it never answers the close) loses its connection")
  func vanishedClientIsDropped() async throws {
    try await Self.withIdleTimeout { h, clock in
      let token = try await h.member("Gone")
      // A raw connection that upgrades, then neither reads a frame nor answers the close.
      let (socket, head) = try await Self.rawSocket(h, token: token)
      defer { close(socket) }
      clock.advance(by: .seconds(61))
      // The close frame arrives; then the server ends the connection itself (before, it stayed
      // open until TCP gave up: the read timed out after 15 s).
      let (rest, ended) = try await readUntilClosed(socket)
      #expect(ended, "the server left the connection open")
      #expect(String(decoding: head, as: UTF8.self).hasPrefix("HTTP/1.1 101"))
      // After the head, the close frame: FIN and opcode 8, then the code 1001 (0x03E9).
      let frame = rest
      #expect(frame.count >= 4 && frame[0] == 0x88 && frame[2] == 0x03 && frame[3] == 0xE9)
    }
  }

  @Test("typing reaches the other subscribers, not the typer")
  func typing() async throws {
    try await withServer { h in
      let r = try await Self.room(h)
      let typer = try await SocketProbe.open(h.url, token: r.owner)
      let reader = try await SocketProbe.open(h.url, token: r.member)
      _ = try await Self.subscribe(typer, r.room)
      _ = try await Self.subscribe(reader, r.room)
      typer.send(.typing(roomID: r.room))
      guard case .typing(let room, let user) = try await reader.frame() else {
        Issue.record("expected typing")
        return
      }
      #expect(room == r.room)
      #expect(user.nickname == "Owner")
      typer.send(.ping)
      #expect(try await typer.frame() == .pong)
      await typer.close()
      await reader.close()
    }
  }

  @Test("leaving the group ends the subscription with unsubscribed")
  func leaving() async throws {
    try await withServer { h in
      let r = try await Self.room(h)
      let probe = try await SocketProbe.open(h.url, token: r.member)
      _ = try await Self.subscribe(probe, r.room)
      #expect(
        try await h.send(.delete, "/groups/\(r.group.id)/membership", token: r.member).status
          == .noContent)
      #expect(try await probe.frame() == .unsubscribed(roomID: r.room))
      probe.send(.unsubscribe(roomID: r.room))
      #expect(try await probe.frame() == .unsubscribed(roomID: r.room))
      await probe.close()
    }
  }

  @Test("a ban reaches an open socket's sends; a withdrawal closes the account's sockets, 1008")
  func banAndWithdrawal() async throws {
    try await withServer { h in
      let r = try await Self.room(h)
      let probe = try await SocketProbe.open(h.url, token: r.member)
      _ = try await Self.subscribe(probe, r.room)
      let member = try await h.expect(.ok, UserDTO.self, .get, "/me", token: r.member)
      let until = testEpoch.addingTimeInterval(86_400)
      _ = try await h.expect(
        .ok, AdminUserDTO.self, .put, "/admin/users/\(member.id)/ban", token: try await h.admin(),
        json: BanUserRequest(reason: "Spam", until: until))
      let id = UUID()
      probe.send(.send(roomID: r.room, clientMessageID: id, text: "after the ban"))
      guard case .error(let refused) = try await probe.frame() else {
        Issue.record("expected an error")
        return
      }
      #expect(refused.code == "banned")
      #expect(refused.clientMessageId == id.uuidString.lowercased())
      // Worded with the ban's end, as over REST (the socket was opened before the ban).
      #expect(refused.message.contains(QappleCoding.string(from: until)), "\(refused.message)")

      let owner = try await SocketProbe.open(h.url, token: r.owner)
      _ = try await Self.subscribe(owner, r.room)
      #expect(try await h.send(.delete, "/me", token: r.owner).status == .noContent)
      guard case .error(let ended) = try await owner.frame() else {
        Issue.record("expected an error")
        return
      }
      #expect(ended.code == "unauthorized")
      #expect(try await owner.next() == .closed(code: 1008))
      // The member's socket is another account's: it stays up.
      probe.send(.ping)
      #expect(try await probe.frame() == .pong)
      await probe.close()
    }
  }

  @Test("socket faults (dev mode): duplicated frames, then a drop after N frames")
  func faults() async throws {
    try await Self.withFaultyServer(SocketFaults(dropAfterFrames: 2, duplicateRate: 1)) { h in
      let token = try await h.member("Chaos")
      let probe = try await SocketProbe.open(h.url, token: token)
      probe.send(.ping)
      #expect(try await probe.frame() == .pong)
      #expect(try await probe.frame() == .pong)
      probe.send(.ping)
      #expect(try await probe.frame() == .pong)
      #expect(try await probe.frame() == .pong)
      probe.send(.ping)
      #expect(try await probe.next() == .closed(code: nil))
    }
  }

  @Test("socket faults (dev mode): reorder swaps neighbours; a frame held last still goes out")
  func reorderFault() async throws {
    try await Self.withFaultyServer(SocketFaults(reorderRate: 1)) { h in
      let r = try await Self.room(h)
      try await Self.postMessages(4, h, r)
      let probe = try await SocketProbe.open(h.url, token: r.member)
      // The replay (seq 1...4) and `subscribed` are posted at once: every first frame of a pair
      // is held back and sent after the second; `subscribed`, held last, goes out alone.
      probe.send(.subscribe(roomID: r.room, afterSeq: 0))
      let frames = try await Self.framesUntilSubscribed(probe)
      let seqs = frames.compactMap { frame -> Int64? in
        if case .message(let message) = frame { message.seq } else { nil }
      }
      #expect(seqs == [2, 1, 4, 3])
      #expect(frames.last == .subscribed(roomID: r.room, lastSeq: 4))
      // A pong held back on an idle socket is not held until the client's heartbeat gives up.
      probe.send(.ping)
      #expect(try await probe.frame() == .pong)
      await probe.close()
    }
  }

  @Test("socket faults (dev mode): delay holds every frame back, one after another")
  func delayFault() async throws {
    try await Self.withFaultyServer(SocketFaults(delay: .milliseconds(300))) { h in
      let token = try await h.member("Slow")
      let probe = try await SocketProbe.open(h.url, token: token)
      let clock = ContinuousClock()
      let start = clock.now
      probe.send(.ping)
      probe.send(.ping)
      #expect(try await probe.frame() == .pong)
      #expect(start.duration(to: clock.now) >= .milliseconds(300))
      #expect(try await probe.frame() == .pong)
      #expect(start.duration(to: clock.now) >= .milliseconds(600))
      await probe.close()
    }
  }

  @Test("socket faults (dev mode): drop-rate 1 drops every connection before its first frame")
  func randomDropFault() async throws {
    try await Self.withFaultyServer(SocketFaults(dropRate: 1)) { h in
      let token = try await h.member("Dropped")
      for _ in 1...2 {
        let probe = try await SocketProbe.open(h.url, token: token)
        probe.send(.ping)
        #expect(try await probe.next() == .closed(code: nil))
      }
    }
  }

  @Test("socket fault specs parse and refuse out-of-range values")
  func faultSpecs() throws {
    let faults = try SocketFaults(
      parsing: "drop-after=100,drop-rate=0.01,duplicate-rate=0.05,reorder-rate=0.1,delay=5")
    #expect(
      faults
        == SocketFaults(
          dropAfterFrames: 100, dropRate: 0.01, duplicateRate: 0.05, reorderRate: 0.1,
          delay: .milliseconds(5)))
    #expect(throws: FaultRule.Invalid.self) { try SocketFaults(parsing: "drop-rate=2") }
    #expect(throws: FaultRule.Invalid.self) { try SocketFaults(parsing: "explode=1") }
    #expect(throws: FaultRule.Invalid.self) { try SocketFaults(parsing: "drop-after=0") }
    // Counts and milliseconds are whole numbers: a huge, fractional or NaN one is refused
    // (it used to be read as a Double and truncated; `Int` of 1e30 or NaN crashed).
    #expect(try SocketFaults(parsing: "delay=250ms").delay == .milliseconds(250))
    for spec in ["drop-after=1e30", "drop-after=1.5", "delay=nan", "delay=2.5"] {
      #expect(throws: FaultRule.Invalid.self, "\(spec)") { try SocketFaults(parsing: spec) }
    }
    // A configuration built in code is checked by the server as the parsed form is.
    var configuration = ServerConfiguration.testing(devMode: true)
    configuration.socketFaults = SocketFaults(dropAfterFrames: 0)
    #expect(throws: FaultRule.Invalid.self) { try QappleServer(configuration: configuration) }
    configuration.socketFaults = SocketFaults(duplicateRate: 1.5)
    #expect(throws: FaultRule.Invalid.self) { try QappleServer(configuration: configuration) }
  }

  @Test("stopping the server closes open sockets with 1001")
  func shutdown() async throws {
    let server = try QappleServer(configuration: .testing())
    let url = try await server.start()
    let viewer = try server.engine.createUser(nickname: "Late", devToken: "late-token")
    let session = try server.engine.startSession(for: viewer)
    let probe = try await SocketProbe.open(url, token: session.accessToken)
    probe.send(.ping)
    #expect(try await probe.frame() == .pong)
    await server.stop()
    #expect(try await probe.next() == .closed(code: 1001))
  }
}
