import Domain
import Foundation
import Persistence
import Testing
import ToolSupport

@Suite("ChatTail: what `qapple chat open` prints")
struct ChatTailTests {
  private let room: ChatRoom.ID = "room_tail"
  private let sender = UserSummary(id: "u_2", nickname: "Joon")

  private func stored(_ seqs: ClosedRange<Int64>) -> [ChatMessage] {
    seqs.map { seq in
      ChatMessage(
        id: ChatMessage.ID(rawValue: "m_\(seq)"), roomID: room, seq: seq, clientMessageID: UUID(),
        sender: sender, text: "message \(seq)",
        createdAt: Date(timeIntervalSince1970: 1_773_622_800 + Double(seq)))
    }
  }

  @Test("more messages than the window arriving at once are all printed, in order, once")
  func noGapAfterABigCatchUp() throws {
    let store = try ChatStore(at: .inMemory, owner: "u_1")
    var tail = ChatTail(store: store, room: room)
    _ = try store.save(stored(1...10))
    // Opening shows the window alone: the newest 5 of the history.
    let opened = try tail.messages(toPrint: store.latestMessages(in: room, limit: 5))
    #expect(opened.compactMap(\.seq) == Array(6...10))
    // A catch-up stores 500 at once (more than two of the tail's pages); the window holds the
    // newest 5, and everything between comes first.
    _ = try store.save(stored(11...510))
    let caughtUp = try tail.messages(toPrint: store.latestMessages(in: room, limit: 5))
    #expect(caughtUp.compactMap(\.seq) == Array(11...510))
    // Nothing new, nothing printed; the next one alone.
    #expect(try tail.messages(toPrint: store.latestMessages(in: room, limit: 5)).isEmpty)
    _ = try store.save(stored(511...511))
    let next = try tail.messages(toPrint: store.latestMessages(in: room, limit: 5))
    #expect(next.compactMap(\.seq) == [511])
  }

  @Test(
    "an empty cache's first catch-up prints its window, as opening would; a changed state prints again"
  )
  func emptyRoomAndStateChanges() throws {
    let store = try ChatStore(at: .inMemory, owner: "u_1")
    var tail = ChatTail(store: store, room: room)
    #expect(try tail.messages(toPrint: store.latestMessages(in: room, limit: 5)).isEmpty)
    _ = try store.save(stored(1...12))
    let caughtUp = try tail.messages(toPrint: store.latestMessages(in: room, limit: 5))
    #expect(caughtUp.compactMap(\.seq) == Array(8...12))
    _ = try store.save(stored(13...20))
    let next = try tail.messages(toPrint: store.latestMessages(in: room, limit: 5))
    #expect(next.compactMap(\.seq) == Array(13...20))

    let mine = try store.enqueue(
      "hello", to: room, clientMessageID: UUID(), sender: UserSummary(id: "u_1", nickname: "Mina"),
      at: Date())
    let pending = try tail.messages(toPrint: store.latestMessages(in: room, limit: 5))
    #expect(pending.map(\.clientMessageID) == [mine.clientMessageID])
    try store.markFailed(mine.clientMessageID, reason: "refused")
    let failed = try tail.messages(toPrint: store.latestMessages(in: room, limit: 5))
    #expect(failed.map(\.deliveryState) == [.failed(reason: "refused")])
    // Sent after all (stored by the server as 21), then another member's message with the
    // same client id (ids are unique per sender only): both print.
    func message(_ seq: Int64, by who: UserSummary, _ text: String) -> ChatMessage {
      ChatMessage(
        id: ChatMessage.ID(rawValue: "m_\(seq)"), roomID: room, seq: seq,
        clientMessageID: mine.clientMessageID, sender: who, text: text,
        createdAt: Date(timeIntervalSince1970: 1_773_622_800 + Double(seq)))
    }
    _ = try store.save([message(21, by: UserSummary(id: "u_1", nickname: "Mina"), "hello")])
    #expect(try tail.messages(toPrint: store.latestMessages(in: room, limit: 5)).count == 1)
    _ = try store.save([message(22, by: sender, "same id, other sender")])
    let other = try tail.messages(toPrint: store.latestMessages(in: room, limit: 5))
    #expect(other.map(\.text) == ["same id, other sender"])
  }
}
