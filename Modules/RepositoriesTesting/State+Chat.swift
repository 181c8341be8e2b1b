import Domain
import Foundation

// Chat over REST: group and direct rooms, per-room `seq`, idempotent sends, read cursors.

extension BackendState {
  /// Whether `userID` may read and write in `room`.
  func canAccess(_ room: RoomRecord, _ userID: User.ID) -> Bool {
    switch room.kind {
    case .group(let groupID): groups[groupID]?.members[userID] != nil
    case .direct(let first, let second): userID == first || userID == second
    }
  }

  /// A message anywhere, by id.
  func message(_ id: ChatMessage.ID) -> MessageRecord? {
    for room in rooms.values {
      if let message = room.messages.first(where: { $0.id == id }) { return message }
    }
    return nil
  }

  /// A room the user may use; unknown rooms are `notFound`, others' rooms `forbidden`.
  func accessibleRoom(_ id: ChatRoom.ID, _ userID: User.ID) throws(DomainError) -> RoomRecord {
    guard let room = rooms[id] else { throw .notFound }
    guard canAccess(room, userID) else { throw .forbidden }
    return room
  }

  func messageView(_ message: MessageRecord) -> ChatMessage {
    ChatMessage(
      id: message.id, roomID: message.roomID, seq: message.seq,
      clientMessageID: message.clientMessageID, sender: summary(of: message.senderID),
      text: message.text, createdAt: message.createdAt, deliveryState: .sent)
  }

  func roomView(_ room: RoomRecord, viewer: User.ID) -> ChatRoom {
    let kind: ChatRoom.Kind
    let title: String
    switch room.kind {
    case .group(let groupID):
      kind = .group(groupID)
      title = groups[groupID]?.name ?? ""
    case .direct(let first, let second):
      let peer = first == viewer ? second : first
      kind = .direct(peer)
      title = nickname(of: peer)
    }
    let readSeq = room.readSeq[viewer] ?? 0
    let visible = room.messages.filter { !$0.isHidden }
    return ChatRoom(
      id: room.id, kind: kind, title: title, lastMessage: visible.last.map(messageView),
      unreadCount: visible.count(where: { $0.seq > readSeq && $0.senderID != viewer }),
      lastReadSeq: readSeq)
  }

  // MARK: - Endpoints

  /// The user's rooms, newest room first (a stable order, like the server's).
  func fetchRooms(viewer: User.ID, page: PageRequest) throws(DomainError) -> Page<ChatRoom> {
    try paginate(
      rooms.values.filter { canAccess($0, viewer) }, by: { .date($0.createdAt, $0.order) },
      .descending, page
    ).map { roomView($0, viewer: viewer) }
  }

  /// The same room every time for the same pair.
  mutating func openDirectRoom(
    with peer: User.ID, viewer: User.ID
  ) throws(DomainError) -> ChatRoom {
    guard peer != viewer else {
      throw .validation(.invalidFormat(field: "user_id", expected: "someone other than yourself"))
    }
    guard users[peer] != nil else { throw .notFound }
    let pair: Set<User.ID> = [peer, viewer]
    if let id = directRooms[pair], let room = rooms[id] {
      return roomView(room, viewer: viewer)
    }
    let room = RoomRecord(
      id: makeID("room_dm"), kind: .direct(viewer, peer), createdAt: now, order: nextOrder())
    rooms[room.id] = room
    directRooms[pair] = room.id
    return roomView(room, viewer: viewer)
  }

  /// After `afterSeq`: the oldest `limit` newer messages; otherwise the newest `limit` before
  /// `beforeSeq` (or of all). Always ascending by `seq`; hidden messages are left out. Both
  /// bounds at once are refused, as by the server.
  func fetchMessages(
    in roomID: ChatRoom.ID, afterSeq: Int64?, beforeSeq: Int64?, limit: Int, viewer: User.ID
  ) throws(DomainError) -> [ChatMessage] {
    guard (1...PageRequest.maximumLimit).contains(limit) else {
      throw .validation(
        .outOfRange(field: "limit", range: 1...PageRequest.maximumLimit, actual: limit))
    }
    guard afterSeq == nil || beforeSeq == nil else {
      throw .validation(
        .invalidFormat(field: "before_seq", expected: "absent when after_seq is given"))
    }
    let room = try accessibleRoom(roomID, viewer)
    let visible = room.messages.filter { !$0.isHidden }
    if let afterSeq {
      return visible.filter { $0.seq > afterSeq }.prefix(limit).map(messageView)
    }
    return visible.filter { $0.seq < (beforeSeq ?? .max) }.suffix(limit).map(messageView)
  }

  /// Sends once per client message id: a retry returns the original message; the same id in
  /// another room is a conflict. One's own message counts as read.
  mutating func sendMessage(
    _ text: String, to roomID: ChatRoom.ID, clientMessageID: UUID, sender: User.ID
  ) throws(DomainError) -> ChatMessage {
    let text = try validating { () throws(ValidationError) in try ChatMessage.validate(text: text) }
    var room = try accessibleRoom(roomID, sender)
    if let original = rooms.values.lazy.flatMap(\.messages).first(where: {
      $0.clientMessageID == clientMessageID && $0.senderID == sender
    }) {
      guard original.roomID == roomID else {
        throw .conflict(
          "This client message id was already used in another room; make a new one per message.")
      }
      return messageView(original)
    }
    room.lastSeq += 1
    let message = MessageRecord(
      id: makeID("m"), roomID: roomID, seq: room.lastSeq, clientMessageID: clientMessageID,
      senderID: sender, text: text, createdAt: now)
    room.messages.append(message)
    room.readSeq[sender] = max(room.readSeq[sender] ?? 0, message.seq)
    rooms[roomID] = room
    return messageView(message)
  }

  /// Moves the read cursor forward (never back, never past the last message).
  mutating func markRoomRead(
    _ roomID: ChatRoom.ID, seq: Int64, viewer: User.ID
  ) throws(DomainError) {
    guard seq >= 0 else {
      throw .validation(.outOfRange(field: "seq", range: 0...Int.max, actual: Int(seq)))
    }
    let room = try accessibleRoom(roomID, viewer)
    let current = room.readSeq[viewer] ?? 0
    rooms[roomID]?.readSeq[viewer] = max(current, min(seq, room.lastSeq))
  }
}
