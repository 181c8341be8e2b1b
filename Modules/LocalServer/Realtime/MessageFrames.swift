import DTO
import Domain
import Foundation

/// The `message` frame of each recently published chat message, encoded once for every socket
/// subscribed to its room: a message to a group with N members online is turned into JSON once
/// instead of N times (the frame is the same for everyone; nothing in it depends on the reader).
/// Only live messages use it: a replay loads its messages now and encodes them afresh, so a
/// renamed sender shows with the new name there.
final class MessageFrames: Sendable {
  /// How many recent messages keep their encoded frame.
  static let capacity = 1_024

  private struct Recent {
    var texts: [ChatMessage.ID: String] = [:]
    /// The cached ids in insertion order, as a ring; `next` is the oldest once it is full.
    var order: [ChatMessage.ID] = []
    var next = 0
  }

  private let recent = Locked(Recent())

  /// The text of `message`'s `message` frame.
  func text(of message: ChatMessage) -> String {
    if let text = recent.withLock({ $0.texts[message.id] }) { return text }
    // Encoded outside the lock; two sockets that miss at once both encode, harmlessly.
    let text = ServerFrame.message(ChatMessageDTO(message)).text
    recent.withLock { recent in
      guard recent.texts.updateValue(text, forKey: message.id) == nil else { return }
      if recent.order.count < Self.capacity {
        recent.order.append(message.id)
      } else {
        recent.texts[recent.order[recent.next]] = nil
        recent.order[recent.next] = message.id
        recent.next = (recent.next + 1) % Self.capacity
      }
    }
    return text
  }

  /// How many messages have their frame cached (at most ``capacity``).
  var count: Int { recent.withLock(\.texts.count) }
}
