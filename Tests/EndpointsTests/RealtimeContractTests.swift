import DTO
import Foundation
import Testing
import Yams

/// Compares `Docs/asyncapi.yaml` with the frames of `Modules/DTO/Realtime.swift`: every
/// documented message is a frame of the right direction and its examples decode; every frame
/// type is documented.
@Suite("Realtime frames match Docs/asyncapi.yaml")
struct RealtimeContractTests {
  struct Message {
    var name: String
    var type: String
    var examples: [String]
  }

  /// The documented messages, split by who sends them.
  static func messages() throws -> (client: [Message], server: [Message]) {
    let url = URL(fileURLWithPath: #filePath)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Docs/asyncapi.yaml")
    let root = try #require(
      try Yams.load(yaml: try String(contentsOf: url, encoding: .utf8)) as? [String: Any])
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
    let sample: [ClientFrame] = [
      .subscribe(roomID: "r", afterSeq: nil), .unsubscribe(roomID: "r"),
      .send(roomID: "r", clientMessageID: UUID(), text: "t"), .typing(roomID: "r"), .ping,
    ]
    #expect(Set(client.map(\.type)) == Set(sample.map(\.type)))
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
    let user = UserSummaryDTO(id: "u", nickname: "n")
    let message = ChatMessageDTO(
      id: "m", roomId: "r", seq: 1, clientMessageId: "c", sender: user, text: "t",
      createdAt: Date())
    let sample: [ServerFrame] = [
      .subscribed(roomID: "r", lastSeq: 0), .unsubscribed(roomID: "r"), .message(message),
      .ack(clientMessageID: "c", message: message), .typing(roomID: "r", user: user), .pong,
      .error(RealtimeErrorDTO(code: "c", message: "m")),
    ]
    #expect(Set(server.map(\.type)) == Set(sample.map(\.type)))
    for documented in server {
      #expect(!documented.examples.isEmpty, "\(documented.name) has no example")
      for example in documented.examples {
        let frame = try ServerFrame(text: example)
        #expect(frame.type == documented.type, "\(documented.name)")
      }
    }
  }
}
