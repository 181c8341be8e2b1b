import DTO
import Foundation
import Testing

/// Compares `Docs/asyncapi.yaml` with the frames of `Modules/DTO/Realtime.swift`: every
/// documented message is a frame of the right direction and its examples decode; every frame
/// type is documented; and every frame, encoded with every field set, has exactly the fields of
/// its payload schema, of the documented types (so a field added to a frame without the
/// document, or to the document without the frame, fails here). `Scripts/validate-asyncapi`
/// (CI) checks the document on its own: its structure, `$ref`s, schemas and examples.
@Suite("Realtime frames match Docs/asyncapi.yaml")
struct RealtimeContractTests {
  struct Message {
    var name: String
    var type: String
    var examples: [String]
  }

  /// The documented messages, split by who sends them.
  static func messages() throws -> (client: [Message], server: [Message]) {
    let root = try PayloadSchemas.load().root
    #expect(root["asyncapi"] as? String == "3.0.0")
    let components = try #require(root["components"] as? [String: Any])
    let definitions = try #require(components["messages"] as? [String: Any])
    let operations = try #require(root["operations"] as? [String: Any])

    func names(_ operation: String) throws -> [String] {
      let entry = try #require(operations[operation] as? [String: Any])
      let references = try #require(entry["messages"] as? [[String: Any]])
      return try references.map { reference in
        let path = try #require(reference["$ref"] as? String)
        return String(try #require(path.split(separator: "/").last))
      }
    }
    func message(_ name: String) throws -> Message {
      let definition = try #require(definitions[name] as? [String: Any], "\(name)")
      let payload = try #require(definition["payload"] as? [String: Any])
      let properties = try #require(payload["properties"] as? [String: Any])
      let type = try #require((properties["type"] as? [String: Any])?["const"] as? String)
      let examples = try (definition["examples"] as? [[String: Any]] ?? []).map { example in
        let data = try JSONSerialization.data(
          withJSONObject: try #require(example["payload"]), options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
      }
      return Message(name: name, type: type, examples: examples)
    }
    return (
      try names("clientSends").map(message), try names("serverSends").map(message)
    )
  }

  @Test("client messages are ClientFrames and their examples decode")
  func clientMessages() throws {
    let client = try Self.messages().client
    #expect(Set(client.map(\.name)) == Set(Self.clientSamples.map(\.message)))
    #expect(Set(client.map(\.type)) == Set(Self.clientSamples.map(\.frame.type)))
    for message in client {
      #expect(!message.examples.isEmpty, "\(message.name) has no example")
      for example in message.examples {
        let frame = try ClientFrame(text: example)
        #expect(frame.type == message.type, "\(message.name)")
      }
    }
  }

  @Test("server messages are ServerFrames and their examples decode")
  func serverMessages() throws {
    let server = try Self.messages().server
    #expect(Set(server.map(\.name)) == Set(Self.serverSamples.map(\.message)))
    #expect(Set(server.map(\.type)) == Set(Self.serverSamples.map(\.frame.type)))
    for documented in server {
      #expect(!documented.examples.isEmpty, "\(documented.name) has no example")
      for example in documented.examples {
        let frame = try ServerFrame(text: example)
        #expect(frame.type == documented.type, "\(documented.name)")
      }
    }
  }

  @Test("every client frame, every field set, encodes exactly its documented payload")
  func clientFramesMatchTheirPayloads() throws {
    try Self.expectDocumented(Self.clientSamples.map { ($0.message, $0.frame, $0.frame.text) })
  }

  @Test("every server frame, every field set, encodes exactly its documented payload")
  func serverFramesMatchTheirPayloads() throws {
    try Self.expectDocumented(Self.serverSamples.map { ($0.message, $0.frame, $0.frame.text) })
  }

  /// Each sample sets every field and its encoded `text` matches the payload of `message`.
  static func expectDocumented(_ samples: [(message: String, frame: Any, text: String)]) throws {
    let schemas = try PayloadSchemas.load()
    for (message, frame, text) in samples {
      let unset = unsetFields(frame)
      #expect(unset.isEmpty, "\(message): the sample leaves these nil")
      let problems = try schemas.problems(of: text, as: message)
      #expect(problems.isEmpty, "\(message): \(text)")
    }
  }

  @Test("the payload check catches an undocumented, a missing and a mistyped field")
  func payloadCheckBites() throws {
    let schemas = try PayloadSchemas.load()
    #expect(
      try schemas.problems(of: #"{"type":"ping","extra":1}"#, as: "ping")
        == ["(root): extra is encoded but not documented"])
    #expect(
      try schemas.problems(of: #"{"type":"subscribe","room_id":"r"}"#, as: "subscribe")
        == ["(root): after_seq is documented but not encoded"])
    #expect(
      try schemas.problems(
        of: #"{"type":"subscribed","room_id":"r","last_seq":"1"}"#, as: "subscribed")
        == ["last_seq: \"1\" is not integer"])
    #expect(
      try schemas.problems(
        of: #"{"type":"typing","room_id":"r","user":{"id":"u"}}"#, as: "typingOut")
        == ["user: nickname is required", "user: nickname is documented but not encoded"])
    #expect(unsetFields(RealtimeErrorDTO(code: "c", message: "m")).contains("roomId"))
  }

  // MARK: Samples

  /// One frame of each kind with every field set (`unsetFields` must find no `nil`: a field
  /// left out of the encoded frame would escape the comparison), named by its document message.
  static let clientSamples: [(message: String, frame: ClientFrame)] = [
    .subscribe(roomID: "room_1", afterSeq: 41), .unsubscribe(roomID: "room_1"),
    .send(roomID: "room_1", clientMessageID: UUID(), text: "안녕하세요"),
    .typing(roomID: "room_1"), .ping,
  ].map { (documentedName($0), $0) }

  static let serverSamples: [(message: String, frame: ServerFrame)] = {
    let user = UserSummaryDTO(id: "u_1", nickname: "Jisoo")
    let id = UUID().uuidString.lowercased()
    let message = ChatMessageDTO(
      id: "msg_7", roomId: "room_1", seq: 7, clientMessageId: id, sender: user, text: "t",
      createdAt: Date(timeIntervalSince1970: 1_800_000_000.5))
    let frames: [ServerFrame] = [
      .subscribed(roomID: "room_1", lastSeq: 7), .unsubscribed(roomID: "room_1"),
      .message(message), .ack(clientMessageID: id, message: message),
      .typing(roomID: "room_1", user: user),
      .messageHidden(roomID: "room_1", messageID: "msg_7", seq: 7), .messageRestored(message),
      .pong,
      .error(
        RealtimeErrorDTO(
          code: "validation_failed", message: "m", field: "text",
          validation: ValidationDetailDTO(
            kind: .outOfRange, minimum: 1, maximum: 1000, actual: 1001, characters: "c",
            value: "v", expected: "e"),
          roomId: "room_1", clientMessageId: id, frameType: "send")),
    ]
    return frames.map { (documentedName($0), $0) }
  }()

  /// The document's message for a client frame; a new case fails to compile until it is named.
  static func documentedName(_ frame: ClientFrame) -> String {
    switch frame {
    case .subscribe: "subscribe"
    case .unsubscribe: "unsubscribe"
    case .send: "send"
    case .typing: "typingIn"
    case .ping: "ping"
    }
  }

  /// The document's message for a server frame; a new case fails to compile until it is named.
  static func documentedName(_ frame: ServerFrame) -> String {
    switch frame {
    case .subscribed: "subscribed"
    case .unsubscribed: "unsubscribed"
    case .message: "message"
    case .ack: "ack"
    case .typing: "typingOut"
    case .messageHidden: "messageHidden"
    case .messageRestored: "messageRestored"
    case .pong: "pong"
    case .error: "error"
    }
  }
}
