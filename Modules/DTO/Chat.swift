import Domain
import Foundation

/// `ChatRoom`: a group room (`group_id` set) or a direct room (`peer` set).
public struct ChatRoomDTO: Codable, Hashable, Sendable, DomainConvertible {
  /// The room's identifier.
  public var id: String
  /// `group` or `direct`.
  public var kind: ChatRoomKindDTO
  /// The study group, for group rooms.
  public var groupId: String?
  /// The other person, for direct rooms.
  public var peer: UserSummaryDTO?
  /// The group name or the peer's nickname.
  public var title: String
  /// The newest message.
  public var lastMessage: ChatMessageDTO?
  /// Messages the user has not read.
  public var unreadCount: Int
  /// The highest `seq` the user has read.
  public var lastReadSeq: Int64

  /// Creates the DTO.
  public init(
    id: String, kind: ChatRoomKindDTO, groupId: String? = nil, peer: UserSummaryDTO? = nil,
    title: String, lastMessage: ChatMessageDTO? = nil, unreadCount: Int, lastReadSeq: Int64
  ) {
    self.id = id
    self.kind = kind
    self.groupId = groupId
    self.peer = peer
    self.title = title
    self.lastMessage = lastMessage
    self.unreadCount = unreadCount
    self.lastReadSeq = lastReadSeq
  }

  /// The wire form of a Domain room; `peerNickname` fills `peer` of a direct room (Domain keeps
  /// only the peer's id; the room title is used when no nickname is given).
  public init(_ room: ChatRoom, peerNickname: String? = nil) {
    self.init(
      id: room.id.rawValue, kind: .group, title: room.title,
      lastMessage: room.lastMessage.map(ChatMessageDTO.init), unreadCount: room.unreadCount,
      lastReadSeq: room.lastReadSeq)
    switch room.kind {
    case .group(let group): groupId = group.rawValue
    case .direct(let user):
      kind = .direct
      peer = UserSummaryDTO(id: user.rawValue, nickname: peerNickname ?? room.title)
    }
  }

  /// The Domain room: a group room needs `group_id`, a direct room needs `peer`; an unknown
  /// kind is refused because Domain cannot represent it.
  public func toDomain() throws(MappingError) -> ChatRoom {
    let kind: ChatRoom.Kind
    switch self.kind {
    case .group:
      guard let groupId else {
        throw MappingError(path: "group_id", problem: .missing(requiredBecause: "kind is group"))
      }
      kind = .group(try groupId.id("group_id"))
    case .direct:
      guard let peer else {
        throw MappingError(path: "peer", problem: .missing(requiredBecause: "kind is direct"))
      }
      kind = .direct(try peer.id.id("peer.id"))
    case .unknown:
      throw self.kind.unknownError("kind")
    }
    let lastMessage: ChatMessage?
    do {
      lastMessage = try self.lastMessage?.toDomain()
    } catch {
      throw error.nested(in: "last_message")
    }
    return ChatRoom(
      id: try id.id("id"), kind: kind, title: try title.nonEmpty("title"),
      lastMessage: lastMessage, unreadCount: try unreadCount.nonNegative("unread_count"),
      lastReadSeq: try lastReadSeq.nonNegative("last_read_seq"))
  }

  /// Writes every key; absent values are sent as `null`, as the contract requires.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(id, forKey: .id)
    try container.encode(kind, forKey: .kind)
    try container.encode(groupId, forKey: .groupId)
    try container.encode(peer, forKey: .peer)
    try container.encode(title, forKey: .title)
    try container.encode(lastMessage, forKey: .lastMessage)
    try container.encode(unreadCount, forKey: .unreadCount)
    try container.encode(lastReadSeq, forKey: .lastReadSeq)
  }

  enum CodingKeys: String, CodingKey {
    case id
    case kind
    case groupId = "group_id"
    case peer
    case title
    case lastMessage = "last_message"
    case unreadCount = "unread_count"
    case lastReadSeq = "last_read_seq"
  }
}

/// `ChatMessage`: a message the server accepted, with its per-room `seq`.
public struct ChatMessageDTO: Codable, Hashable, Sendable, DomainConvertible {
  /// The message's identifier.
  public var id: String
  /// The room.
  public var roomId: String
  /// The per-room sequence number, strictly increasing.
  public var seq: Int64
  /// The sender's UUID for the message, as text (checked by `toDomain()`, so one bad message
  /// names its field instead of failing the whole page's decoding).
  public var clientMessageId: String
  /// Who sent it.
  public var sender: UserSummaryDTO
  /// The text.
  public var text: String
  /// When the server accepted it.
  public var createdAt: Date

  /// Creates the DTO.
  public init(
    id: String, roomId: String, seq: Int64, clientMessageId: String, sender: UserSummaryDTO,
    text: String, createdAt: Date
  ) {
    self.id = id
    self.roomId = roomId
    self.seq = seq
    self.clientMessageId = clientMessageId
    self.sender = sender
    self.text = text
    self.createdAt = createdAt
  }

  /// The wire form of a Domain message (a message without `seq` is sent as `seq` 0).
  public init(_ message: ChatMessage) {
    self.init(
      id: message.id.rawValue, roomId: message.roomID.rawValue, seq: message.seq ?? 0,
      clientMessageId: message.clientMessageID.lowercasedText,
      sender: UserSummaryDTO(message.sender), text: message.text, createdAt: message.createdAt)
  }

  /// The Domain message, delivered (`.sent`); `client_message_id` must be a UUID.
  public func toDomain() throws(MappingError) -> ChatMessage {
    guard let clientMessageID = UUID(uuidString: clientMessageId) else {
      throw MappingError(
        path: "client_message_id",
        problem: .invalidFormat(value: clientMessageId, expected: "a UUID"))
    }
    let sender: UserSummary
    do { sender = try self.sender.toDomain() } catch { throw error.nested(in: "sender") }
    return ChatMessage(
      id: try id.id("id"), roomID: try roomId.id("room_id"), seq: try seq.nonNegative("seq"),
      clientMessageID: clientMessageID, sender: sender, text: try text.nonEmpty("text"),
      createdAt: createdAt, deliveryState: .sent)
  }

  enum CodingKeys: String, CodingKey {
    case id
    case roomId = "room_id"
    case seq
    case clientMessageId = "client_message_id"
    case sender
    case text
    case createdAt = "created_at"
  }
}

/// `AnalyticsBatchResult`: how many events the server accepted.
public struct AnalyticsBatchResultDTO: Codable, Hashable, Sendable, DomainConvertible {
  /// The number of accepted events.
  public var accepted: Int

  /// Creates the DTO.
  public init(accepted: Int) { self.accepted = accepted }

  /// The accepted count; a negative one is refused.
  public func toDomain() throws(MappingError) -> Int { try accepted.nonNegative("accepted") }

  enum CodingKeys: String, CodingKey {
    case accepted
  }
}
