import DTO
import Foundation
import Testing

@Suite("Realtime frames")
struct RealtimeFrameTests {
  static let sender = UserSummaryDTO(id: "u_1", nickname: "Jisoo")
  static let message = ChatMessageDTO(
    id: "m_7", roomId: "r_1", seq: 7, clientMessageId: "6f1c2b6a-7a0e-4d58-9a8e-5c1d2b3a4f50",
    sender: sender, text: "안녕 👋", createdAt: Date(timeIntervalSince1970: 1_795_000_000))

  @Test(
    "every client frame survives its text form",
    arguments: [
      ClientFrame.subscribe(roomID: "r_1", afterSeq: 41),
      .subscribe(roomID: "r_1", afterSeq: nil),
      .unsubscribe(roomID: "r_2"),
      .send(
        roomID: "r_1", clientMessageID: UUID(uuidString: "6F1C2B6A-7A0E-4D58-9A8E-5C1D2B3A4F50")!,
        text: "hi"),
      .typing(roomID: "r_3"),
      .ping,
    ])
  func clientRoundTrip(frame: ClientFrame) throws {
    #expect(try ClientFrame(text: frame.text) == frame)
  }

  @Test(
    "every server frame survives its text form",
    arguments: [
      ServerFrame.subscribed(roomID: "r_1", lastSeq: 12),
      .unsubscribed(roomID: "r_1"),
      .message(RealtimeFrameTests.message),
      .ack(clientMessageID: "6f1c2b6a-7a0e-4d58-9a8e-5c1d2b3a4f50", message: message),
      .typing(roomID: "r_1", user: sender),
      .messageHidden(roomID: "r_1", messageID: "m_7", seq: 7),
      .messageRestored(RealtimeFrameTests.message),
      .pong,
      .error(
        RealtimeErrorDTO(
          code: "forbidden", message: "Not a member.", roomId: "r_9",
          clientMessageId: "6f1c2b6a-7a0e-4d58-9a8e-5c1d2b3a4f50", frameType: "send")),
    ])
  func serverRoundTrip(frame: ServerFrame) throws {
    #expect(try ServerFrame(text: frame.text) == frame)
  }

  @Test("the wire form is the documented one")
  func wireForm() throws {
    #expect(ClientFrame.ping.text == #"{"type":"ping"}"#)
    // A client message id goes out in lower case, as over REST (`UUID.lowercasedText`).
    #expect(
      ClientFrame.send(
        roomID: "r_1", clientMessageID: UUID(uuidString: "6F1C2B6A-7A0E-4D58-9A8E-5C1D2B3A4F50")!,
        text: "hi"
      ).text
        == #"{"client_message_id":"6f1c2b6a-7a0e-4d58-9a8e-5c1d2b3a4f50","room_id":"r_1","text":"hi","type":"send"}"#
    )
    #expect(
      ClientFrame.subscribe(roomID: "r_1", afterSeq: 4).text
        == #"{"after_seq":4,"room_id":"r_1","type":"subscribe"}"#)
    #expect(
      ServerFrame.subscribed(roomID: "r_1", lastSeq: 9).text
        == #"{"last_seq":9,"room_id":"r_1","type":"subscribed"}"#)
    let message = try #require(
      JSONSerialization.jsonObject(with: Data(ServerFrame.message(Self.message).text.utf8))
        as? [String: Any])
    #expect(message["type"] as? String == "message")
    #expect(message["room_id"] as? String == "r_1")
    #expect((message["message"] as? [String: Any])?["seq"] as? Int == 7)
    #expect(
      ServerFrame.messageHidden(roomID: "r_1", messageID: "m_7", seq: 7).text
        == #"{"message_id":"m_7","room_id":"r_1","seq":7,"type":"message_hidden"}"#)
    #expect(ServerFrame.messageRestored(Self.message).text.contains(#""type":"message_restored""#))
  }

  @Test("an unknown type is named")
  func unknownType() {
    #expect(throws: RealtimeFrameError.unknownType("shout")) {
      try ClientFrame(text: #"{"type":"shout","room_id":"r_1"}"#)
    }
    #expect(RealtimeFrameError.unknownType("shout").field == "type")
  }

  @Test(
    "malformed frames name the field at fault",
    arguments: [
      ("not json", nil as String?),
      (#"{"room_id":"r_1"}"#, "type"),
      (#"{"type":"subscribe"}"#, "room_id"),
      (#"{"type":"subscribe","room_id":"r_1","after_seq":"x"}"#, "after_seq"),
      (
        #"{"type":"send","room_id":"r_1","client_message_id":"nope","text":"hi"}"#,
        "client_message_id"
      ),
      (
        #"{"type":"send","room_id":"r_1","client_message_id":"6f1c2b6a-7a0e-4d58-9a8e-5c1d2b3a4f50"}"#,
        "text"
      ),
      (#"[1,2]"#, nil),
    ])
  func malformed(text: String, field: String?) {
    do {
      _ = try ClientFrame(text: text)
      Issue.record("accepted \(text)")
    } catch {
      guard case .malformed = error else {
        Issue.record("expected malformed, got \(error)")
        return
      }
      #expect(error.field == field)
    }
  }

  @Test(
    "a message or message_restored frame whose room differs from its message's is refused",
    arguments: [ServerFrame.message(message), .messageRestored(message)])
  func inconsistentRoom(frame: ServerFrame) throws {
    let text = frame.text.replacingOccurrences(
      of: #""room_id":"r_1","type""#, with: #""room_id":"r_2","type""#)
    #expect(text.contains("r_2"))
    #expect(
      throws: RealtimeFrameError.malformed(
        .corrupted(path: "room_id", description: "differs from message.room_id"))
    ) { try ServerFrame(text: text) }
  }

  @Test("an unknown server frame type is named, whatever its body holds")
  func unknownServerType() {
    #expect(throws: RealtimeFrameError.unknownType("shout")) {
      try ServerFrame(text: #"{"type":"shout","message":42}"#)
    }
  }
}
