import Domain
import Foundation
import Persistence

/// What `qapple chat open` prints of a room as its store changes: each message once per
/// delivery state, and no gap when more messages arrive at once than the store's window of
/// newest messages holds.
///
/// `ChatStore.observeMessages(in:limit:)` gives the newest `limit` messages after every change.
/// A catch-up that stores a page of 200 messages in one change showed only the last 50 of
/// them: the printed sequence numbers jumped. ``messages(toPrint:)`` fills that jump from the
/// store first.
public struct ChatTail {
  /// The store the messages come from.
  public let store: ChatStore
  /// The room being printed.
  public let room: ChatRoom.ID

  // Keyed by sender and client message id: ids are unique per sender only.
  private var printed: [PrintedKey: ChatMessage.DeliveryState] = [:]
  private var newestSeq: Int64?

  /// A tail of `room` in `store` that has printed nothing yet.
  public init(store: ChatStore, room: ChatRoom.ID) {
    self.store = store
    self.room = room
  }

  /// The messages to print for `window`, the store's newest messages as `ChatStore` observes
  /// them (oldest first, unsent ones last), in that order: the ones not printed yet in their
  /// current state. Once a sent message was printed, the stored messages between the newest one
  /// printed and the window's oldest come first: the window jumped over them. (Until then, a
  /// window is printed alone: it is the history shown on opening, also when the cache was
  /// empty and the first catch-up filled it.)
  public mutating func messages(
    toPrint window: [ChatMessage]
  ) throws(PersistenceError)
    -> [ChatMessage]
  {
    var candidates = window
    if let newestSeq, let oldest = window.lazy.compactMap(\.seq).first, oldest > newestSeq + 1 {
      candidates = try skipped(after: newestSeq, before: oldest) + window
    }
    let fresh = candidates.filter { printed[PrintedKey($0)] != $0.deliveryState }
    for message in fresh {
      printed[PrintedKey(message)] = message.deliveryState
      if let seq = message.seq { newestSeq = max(newestSeq ?? seq, seq) }
    }
    return fresh
  }

  private struct PrintedKey: Hashable {
    let sender: User.ID
    let clientMessageID: UUID

    init(_ message: ChatMessage) {
      sender = message.sender.id
      clientMessageID = message.clientMessageID
    }
  }

  /// The stored messages with a sequence number after `low` and before `high`, oldest first.
  private func skipped(
    after low: Int64, before high: Int64
  ) throws(PersistenceError)
    -> [ChatMessage]
  {
    var found: [ChatMessage] = []
    var before = high
    while before > low + 1 {
      let page = try store.messages(in: room, before: before, limit: 200)
      found.insert(contentsOf: page.filter { ($0.seq ?? 0) > low }, at: 0)
      guard let first = page.first?.seq, page.count == 200, first > low + 1 else { break }
      before = first
    }
    return found
  }
}
