import DTO
import Domain
import Foundation
import Testing

@testable import LocalServer

@Suite("Realtime: message frames encoded once")
struct MessageFramesTests {
  static func message(_ seq: Int64) -> ChatMessage {
    ChatMessage(
      id: ChatMessage.ID(rawValue: "m_\(seq)"), roomID: "room_1", seq: seq,
      clientMessageID: UUID(), sender: UserSummary(id: "u_1", nickname: "Mina"),
      text: "메시지 \(seq)", createdAt: Date(timeIntervalSince1970: 1_795_000_000 + Double(seq)))
  }

  @Test("a message's frame is the protocol's message frame, the same text for every reader")
  func sameText() throws {
    let frames = MessageFrames()
    let message = Self.message(1)
    let text = frames.text(of: message)
    #expect(text == ServerFrame.message(ChatMessageDTO(message)).text)
    #expect(try ServerFrame(text: text) == .message(ChatMessageDTO(message)))
    #expect(frames.text(of: message) == text)
    #expect(frames.count == 1)
  }

  @Test("only the most recent messages keep their frame; an older one is encoded again")
  func bounded() {
    let frames = MessageFrames()
    let total = MessageFrames.capacity + 10
    for seq in 1...Int64(total) { _ = frames.text(of: Self.message(seq)) }
    #expect(frames.count == MessageFrames.capacity)
    let first = Self.message(1)
    #expect(frames.text(of: first) == ServerFrame.message(ChatMessageDTO(first)).text)
    #expect(frames.count == MessageFrames.capacity)
  }
}
