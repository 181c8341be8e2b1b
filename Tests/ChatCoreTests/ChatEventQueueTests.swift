import ChatCore
import Domain
import Foundation
import Testing

@Suite("ChatEventQueue")
struct ChatEventQueueTests {
  static func message(_ seq: Int64) -> ChatMessage {
    ChatMessage(
      id: ChatMessage.ID(rawValue: "m_\(seq)"), roomID: "r_1", seq: seq,
      clientMessageID: UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", seq))!,
      sender: UserSummary(id: "u_1", nickname: "one"), text: "\(seq)",
      createdAt: Date(timeIntervalSince1970: 0))
  }

  @Test("a burst queued while the reader is busy arrives as one messages event, in order")
  func mergesRuns() async {
    let queue = ChatEventQueue()
    queue.push(.state(.connected))
    queue.push(.messages([Self.message(1)]))
    queue.push(.messages([Self.message(2), Self.message(3)]))
    queue.push(.subscribed(room: "r_1", lastSeq: 3))
    queue.push(.messages([Self.message(4)]))
    queue.finish()
    var received: [ChatChannelEvent] = []
    for await event in queue.events { received.append(event) }
    #expect(
      received == [
        .state(.connected), .messages([Self.message(1), Self.message(2), Self.message(3)]),
        .subscribed(room: "r_1", lastSeq: 3), .messages([Self.message(4)]),
      ])
  }

  @Test("a reader waiting on an empty queue gets the next push; finish ends the stream")
  func waitsForPushes() async {
    let queue = ChatEventQueue()
    let reader = Task {
      var received: [ChatChannelEvent] = []
      for await event in queue.events { received.append(event) }
      return received
    }
    try? await Task.sleep(for: .milliseconds(20))
    queue.push(.state(.connecting))
    try? await Task.sleep(for: .milliseconds(20))
    queue.push(.state(.connected))
    queue.finish()
    #expect(await reader.value == [.state(.connecting), .state(.connected)])
  }
}
