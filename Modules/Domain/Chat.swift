import Foundation

/// A chat room: a study group's room or a direct conversation.
public struct ChatRoom: Identifiable, Hashable, Sendable {
  /// The typed identifier of a room.
  public typealias ID = Identifier<ChatRoom>

  /// Whose room it is.
  public enum Kind: Hashable, Sendable {
    /// The room of a study group.
    case group(StudyGroup.ID)
    /// A direct conversation with one other user.
    case direct(User.ID)
  }

  /// The room's identifier.
  public var id: ID
  /// Group room or direct conversation.
  public var kind: Kind
  /// The group name or the other person's nickname.
  public var title: String
  /// The newest message, for the room list.
  public var lastMessage: ChatMessage?
  /// Messages the user has not read.
  public var unreadCount: Int
  /// The highest `seq` the user has read.
  public var lastReadSeq: Int64

  /// Creates a room.
  public init(
    id: ID, kind: Kind, title: String, lastMessage: ChatMessage? = nil, unreadCount: Int = 0,
    lastReadSeq: Int64 = 0
  ) {
    self.id = id
    self.kind = kind
    self.title = title
    self.lastMessage = lastMessage
    self.unreadCount = unreadCount
    self.lastReadSeq = lastReadSeq
  }
}

/// Someone typing in a room, as a chat screen learns it: `user`, and `afterSeq`, the newest
/// message `seq` of the room the device had been told of when the signal came. A message at or
/// below it was sent before the typing began, even when a catch-up stores it later, so only a
/// message above it ends the typing.
public struct ChatTyping: Hashable, Sendable {
  /// Who is typing.
  public var user: UserSummary
  /// The newest `seq` of the room known when the signal came (0 when none).
  public var afterSeq: Int64

  /// Creates a typing signal.
  public init(user: UserSummary, afterSeq: Int64) {
    self.user = user
    self.afterSeq = afterSeq
  }
}

/// A chat message. `seq` is assigned by the server, strictly increasing per room; messages the
/// user is still sending have no `seq` yet.
public struct ChatMessage: Identifiable, Hashable, Sendable {
  /// The typed identifier of a message.
  public typealias ID = Identifier<ChatMessage>

  /// Where a message is on its way to the server.
  public enum DeliveryState: Hashable, Sendable {
    /// Stored locally, waiting in the outbox.
    case pending
    /// On its way.
    case sending
    /// Acknowledged by the server.
    case sent
    /// Gave up; the user can retry or delete it.
    case failed(reason: String)

    /// Whether it gave up (``failed(reason:)``): it waits for the user, not for a retry.
    public var isFailed: Bool {
      if case .failed = self { true } else { false }
    }
  }

  /// The message's identifier (the client message id until the server assigns one).
  public var id: ID
  /// The room.
  public var roomID: ChatRoom.ID
  /// The server's per-room sequence number; `nil` while not yet sent.
  public var seq: Int64?
  /// The sender's UUID for this message, used to de-duplicate retries.
  public var clientMessageID: UUID
  /// Who sent it.
  public var sender: UserSummary
  /// The text, 1-1000 characters.
  public var text: String
  /// When it was created.
  public var createdAt: Date
  /// Delivery state; `.sent` for anything that came from the server.
  public var deliveryState: DeliveryState

  /// Refuses a sequence number a caller gave as `field` (a cursor such as `after_seq`, or a
  /// read mark) below 0, which names no place in a room: ``DomainError/validation(_:)`` with
  /// `.outOfRange(field:range:actual:)`. `nil` (no cursor) and 0 (before the first message)
  /// pass.
  public static func requireSeq(_ seq: Int64?, field: String) throws(DomainError) {
    guard let seq, seq < 0 else { return }
    throw .validation(.outOfRange(field: field, range: 0...Int.max, actual: Int(seq)))
  }

  /// Creates a message.
  public init(
    id: ID, roomID: ChatRoom.ID, seq: Int64?, clientMessageID: UUID, sender: UserSummary,
    text: String, createdAt: Date, deliveryState: DeliveryState = .sent
  ) {
    self.id = id
    self.roomID = roomID
    self.seq = seq
    self.clientMessageID = clientMessageID
    self.sender = sender
    self.text = text
    self.createdAt = createdAt
    self.deliveryState = deliveryState
  }

  /// Checks a chat message draft (1-1000 characters) and returns the text to send.
  public static func validate(text: String) throws(ValidationError) -> String {
    try TextRule.chatMessage.validate(text)
  }
}

/// The chat engine's real-time link as an app shows it ("Connecting...", "Offline").
public enum ChatConnectionState: Hashable, Sendable {
  /// Not connected and not trying: nobody is signed in, or the engine was stopped.
  case offline
  /// Opening the link.
  case connecting
  /// Live: messages arrive as they are sent.
  case connected
  /// The link failed; the next attempt starts after `retryIn`. Sends wait in the outbox.
  case waitingToReconnect(retryIn: Duration)
}
