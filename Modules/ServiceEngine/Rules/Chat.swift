import Domain
import Foundation
import GRDB

/// Chat rooms and messages: a group's room is its members'; a direct room is its two users'.
/// `seq` is per room and strictly increasing; a sender's `client_message_id` names one message
/// (`Docs/Rules.md`, "Chat").
///
/// Every statement of the send path is a cached one (`Database.cachedStatement`): prepared once
/// per connection instead of parsed, authorized and planned for each message (that preparation
/// was about half of `sendMessage`'s time in the P6 benchmark: 15 % of the process before, 7 %
/// after).
enum Chat {
  private static func existingRoom(_ db: Database, _ key: Int64) throws -> RoomRecord? {
    try RoomRecord.fetchOne(
      db.cachedStatement(sql: "SELECT * FROM chat_room WHERE id = ?"), arguments: [key])
  }

  static func isMember(_ db: Database, roomKey: Int64, userID: Int64) throws -> Bool {
    guard let room = try existingRoom(db, roomKey) else { return false }
    return try isMember(db, room, userID: userID)
  }

  static func isMember(_ db: Database, _ room: RoomRecord, userID: Int64) throws -> Bool {
    if let group = room.groupId { return try Groups.isMember(db, group: group, user: userID) }
    return room.userA == userID || room.userB == userID
  }

  /// A room the viewer belongs to; `forbidden` for anyone else.
  static func memberRoom(_ db: Database, _ key: Int64, viewer: Viewer) throws -> RoomRecord {
    guard let room = try existingRoom(db, key) else { throw DomainError.notFound }
    guard try isMember(db, room, userID: viewer.key) else { throw DomainError.forbidden }
    return room
  }

  /// A room the viewer may write to (send, type): a ``memberRoom(_:_:viewer:)`` and, when it
  /// is a direct room, one whose other user still has an account (`conflict` after they
  /// withdrew: the history stays readable, nobody is left to read what comes).
  static func writableRoom(_ db: Database, _ key: Int64, viewer: Viewer) throws -> RoomRecord {
    let room = try memberRoom(db, key, viewer: viewer)
    if room.groupId == nil, let other = room.userA == viewer.key ? room.userB : room.userA,
      try UserRecord.fetchOne(db, key: other)?.isWithdrawn != false
    {
      throw DomainError.conflict("The other user has left Qapple; this conversation is closed.")
    }
    return room
  }

  /// At most `limit` visible messages of `room`, oldest first: the first ones after `seq`, or
  /// without it the newest ones (before `before` when given).
  static func messages(
    _ db: Database, in room: Int64, after seq: Int64?, before: Int64? = nil, limit: Int
  ) throws -> [ChatMessage] {
    let rows = try MessageRecord.fetchAll(
      db,
      sql: """
        SELECT * FROM chat_message WHERE room_id = ? AND seq > ? AND seq < ? AND NOT hidden
        ORDER BY seq \(seq == nil ? "DESC" : "ASC") LIMIT ?
        """,
      arguments: [room, seq ?? .min, before ?? .max, limit])
    return try (seq == nil ? rows.reversed() : rows).map { try Chat.message(db, $0) }
  }

  static func message(_ db: Database, _ record: MessageRecord) throws -> ChatMessage {
    ChatMessage(
      id: ChatMessage.ID(rawValue: PublicID.message(record.key)),
      roomID: ChatRoom.ID(rawValue: PublicID.room(record.roomId)), seq: record.seq,
      clientMessageID: UUID(uuidString: record.clientMessageId) ?? UUID(),
      sender: try Users.summary(db, record.senderId), text: record.text,
      createdAt: Millis.date(record.createdAt))
  }

  static func room(_ db: Database, _ room: RoomRecord, viewer: Viewer) throws -> ChatRoom {
    let lastRead =
      try Int64.fetchOne(
        db, sql: "SELECT last_read_seq FROM room_read WHERE room_id = ? AND user_id = ?",
        arguments: [room.key, viewer.key]) ?? 0
    let unread =
      try db.count(
        """
        SELECT COUNT(*) FROM chat_message
        WHERE room_id = ? AND seq > ? AND sender_id <> ? AND NOT hidden
        """, [room.key, lastRead, viewer.key])
    let last = try MessageRecord.fetchOne(
      db,
      sql: "SELECT * FROM chat_message WHERE room_id = ? AND NOT hidden ORDER BY seq DESC LIMIT 1",
      arguments: [room.key])
    let kind: ChatRoom.Kind
    var title = ""
    if let groupKey = room.groupId {
      kind = .group(StudyGroup.ID(rawValue: PublicID.group(groupKey)))
      title = try GroupRecord.fetchOne(db, key: groupKey)?.name ?? ""
    } else {
      let peerKey = (room.userA == viewer.key ? room.userB : room.userA) ?? 0
      let peer = try Users.summary(db, peerKey)
      kind = .direct(peer.id)
      title = peer.nickname
    }
    return ChatRoom(
      id: ChatRoom.ID(rawValue: PublicID.room(room.key)), kind: kind, title: title,
      lastMessage: try last.map { try message(db, $0) }, unreadCount: unread,
      lastReadSeq: lastRead)
  }

  /// `group_message` for the other members of a group room: one unread notification per
  /// member and room, moved to the newest message instead of piling up one per message.
  static func notifyGroupMembers(
    _ db: Database, _ room: RoomRecord, sender: Int64, now: Date
  ) throws {
    guard let groupKey = room.groupId else { return }
    let title =
      try String.fetchOne(
        db.cachedStatement(sql: "SELECT name FROM study_group WHERE id = ?"),
        arguments: [groupKey]) ?? ""
    let event = Notifications.Event.message(room: room.key, title: title)
    let members = try Int64.fetchAll(
      db.cachedStatement(
        sql: "SELECT user_id FROM group_member WHERE group_id = ? AND user_id <> ?"),
      arguments: [groupKey, sender])
    let moveUnread = try db.cachedStatement(
      sql: """
        UPDATE notification SET created_at = ?, actor_id = ?
        WHERE user_id = ? AND kind = ? AND room_id = ? AND NOT is_read
        """)
    for member in members {
      try moveUnread.execute(arguments: [
        Millis.from(now), sender, member, event.code, PublicID.room(room.key),
      ])
      if db.changesCount == 0 {
        try Notifications.notify(db, member, of: event, actor: sender, now: now)
      }
    }
  }

  /// The viewer's message of `clientID` in any room, if any.
  static func earlierMessage(
    _ db: Database, clientID: String, by viewer: Viewer
  ) throws -> MessageRecord? {
    try MessageRecord.fetchOne(
      db.cachedStatement(
        sql: "SELECT * FROM chat_message WHERE sender_id = ? AND client_message_id = ?"),
      arguments: [viewer.key, clientID])
  }

  /// The viewer's earlier message of `clientID` (a retry), if any; a `conflict` when that id
  /// was used in another room.
  static func sent(
    _ db: Database, clientID: String, by viewer: Viewer, inRoom room: Int64
  ) throws -> SentMessage? {
    guard let existing = try earlierMessage(db, clientID: clientID, by: viewer) else {
      return nil
    }
    guard existing.roomId == room else {
      throw DomainError.conflict(
        "client_message_id \(clientID) was already used for a message in another room.")
    }
    return SentMessage(message: try message(db, existing), isNew: false)
  }

  /// Stores a new message at the room's next `seq`: the sender's read cursor moves to it and
  /// the other members of a group get their `group_message` notification.
  static func store(
    _ text: String, clientID: String, in room: RoomRecord, by viewer: Viewer, _ db: Database,
    _ moment: ServiceEngine.Moment
  ) throws -> ChatMessage {
    let seq = room.lastSeq + 1
    try db.cachedStatement(sql: "UPDATE chat_room SET last_seq = ? WHERE id = ?")
      .execute(arguments: [seq, room.key])
    var message = MessageRecord(
      roomId: room.key, seq: seq, clientMessageId: clientID, senderId: viewer.key, text: text,
      createdAt: moment.millis)
    try db.cachedStatement(
      sql: """
        INSERT INTO chat_message (room_id, seq, client_message_id, sender_id, text, created_at)
        VALUES (?, ?, ?, ?, ?, ?)
        """
    ).execute(arguments: [
      message.roomId, message.seq, message.clientMessageId, message.senderId, message.text,
      message.createdAt,
    ])
    message.id = db.lastInsertedRowID
    // The sender's own message counts as read.
    try moveReadCursor(db, room: room.key, user: viewer.key, to: seq)
    try notifyGroupMembers(db, room, sender: viewer.key, now: moment.now)
    return try Chat.message(db, message)
  }

  static func moveReadCursor(_ db: Database, room: Int64, user: Int64, to seq: Int64) throws {
    try db.cachedStatement(
      sql: """
        INSERT INTO room_read (room_id, user_id, last_read_seq) VALUES (?, ?, ?)
        ON CONFLICT(room_id, user_id) DO UPDATE
          SET last_read_seq = MAX(last_read_seq, excluded.last_read_seq)
        """
    ).execute(arguments: [room, user, seq])
  }
}

/// One message to send with ``ServiceEngine/sendMessages(_:as:admitting:)``.
public struct MessageSend: Sendable, Hashable {
  /// The text (1-1000 characters).
  public var text: String
  /// The room it goes to.
  public var roomID: ChatRoom.ID
  /// The sender's id of the message: a retry with the same id stores nothing new.
  public var clientMessageID: UUID

  /// A message to send.
  public init(text: String, roomID: ChatRoom.ID, clientMessageID: UUID) {
    self.text = text
    self.roomID = roomID
    self.clientMessageID = clientMessageID
  }
}

/// A sent message and whether this call stored it (`false`: a retry of an earlier send).
public struct SentMessage: Sendable, Hashable {
  /// The stored message.
  public var message: ChatMessage
  /// `true` when this call created it.
  public var isNew: Bool
}

extension DomainError {
  /// Whether a refused chat send failed for now (the database refused its transaction, or the
  /// sender's write limit was reached), so its client will send it again: the link it came
  /// over then ends, and none of the client's later sends on it is run, so none is stored
  /// before it (`Docs/Realtime.md`). The server's socket and the fakes' link both follow this.
  public var endsChatLink: Bool {
    switch self {
    case .server, .rateLimited: true
    default: false
    }
  }
}

extension ServiceEngine {
  /// The viewer's rooms (groups they belong to and direct rooms), newest first.
  public func chatRooms(
    _ request: PageRequest, as viewer: Viewer
  ) throws(DomainError)
    -> Page<ChatRoom>
  {
    let paging = try Paging(request)
    return try read { db, _ in
      let sql = """
        SELECT * FROM chat_room WHERE
          (group_id IN (SELECT group_id FROM group_member WHERE user_id = ?)
           OR user_a = ? OR user_b = ?)
        """
      return try paging.fetch(db, sql: sql, [viewer.key, viewer.key, viewer.key]) {
        try Chat.room(db, RoomRecord(row: $0), viewer: viewer)
      }
    }
  }

  /// Opens (or finds) the direct room with another live user.
  public func openDirectRoom(with id: User.ID, as viewer: Viewer) throws(DomainError) -> ChatRoom {
    let userKey = try PublicID.user.require(id.rawValue)
    try viewer.requireNotBanned(at: now)
    try viewer.requireOther(userKey)
    return try write { db, moment in
      _ = try Users.live(db, userKey)
      let (a, b) = (min(userKey, viewer.key), max(userKey, viewer.key))
      if let room = try RoomRecord.filter(Column("user_a") == a && Column("user_b") == b)
        .fetchOne(db)
      {
        return try Chat.room(db, room, viewer: viewer)
      }
      var room = RoomRecord(kind: .direct, userA: a, userB: b, createdAt: moment.millis)
      try room.insert(db)
      return try Chat.room(db, room, viewer: viewer)
    }
  }

  /// Messages after `afterSeq` (oldest first), or the newest `limit` before `beforeSeq` (or the
  /// newest of all); hidden messages are left out. Both bounds at once are refused.
  public func messages(
    in id: ChatRoom.ID, afterSeq: Int64?, beforeSeq: Int64?, limit: Int, as viewer: Viewer
  ) throws(DomainError) -> [ChatMessage] {
    let key = try PublicID.room.require(id.rawValue)
    guard afterSeq == nil || beforeSeq == nil else {
      throw .validation(
        .invalidFormat(field: "before_seq", expected: "absent when after_seq is given"))
    }
    try ChatMessage.requireSeq(afterSeq, field: "after_seq")
    try ChatMessage.requireSeq(beforeSeq, field: "before_seq")
    guard (1...PageRequest.maximumLimit).contains(limit) else {
      throw .validation(
        .outOfRange(field: "limit", range: 1...PageRequest.maximumLimit, actual: limit))
    }
    return try read { db, _ in
      let room = try Chat.memberRoom(db, key, viewer: viewer)
      return try Chat.messages(db, in: room.key, after: afterSeq, before: beforeSeq, limit: limit)
    }
  }

  /// Sends a message (1-1000 characters) to a room the viewer belongs to. A retry with the
  /// same `clientMessageID` returns the stored message instead of a second one; reusing it in
  /// another room is a `conflict`. `admit` is the write limit of a new message, as in
  /// ``sendMessages(_:as:admitting:)`` (the fakes' link; REST counts the request itself).
  public func sendMessage(
    _ text: String, to id: ChatRoom.ID, clientMessageID: UUID, as viewer: Viewer,
    admitting admit: (() throws(DomainError) -> Void)? = nil
  ) throws(DomainError) -> SentMessage {
    try sendMessages(
      [MessageSend(text: text, roomID: id, clientMessageID: clientMessageID)], as: viewer,
      admitting: admit)[0]
      .get()
  }

  /// Whether the viewer already sent a message with `clientMessageID` (in any room): a send
  /// with it repeats that write instead of making a new one.
  public func hasSent(clientMessageID: UUID, as viewer: Viewer) -> Bool {
    let found = try? read { db, _ in
      try Chat.earlierMessage(db, clientID: clientMessageID.lowercasedText, by: viewer)
    }
    return found != nil
  }

  /// Sends several messages of the viewer in one transaction (a socket's burst of `send`
  /// frames): one result per send, in order, each what
  /// ``sendMessage(_:to:clientMessageID:as:admitting:)`` gives for it alone. A refused send
  /// (bad room, not a member, invalid text, an id reused in another room) writes nothing and
  /// leaves the others alone; a database failure fails every send and writes nothing.
  ///
  /// - Parameter admit: the write limit (the server's socket, the fakes' link): called for each
  ///   send that would store a new message (a resend of a stored one is not a new write).
  ///   Once it refuses one, every later new send of the burst is refused the same way, so
  ///   none is stored before the refused one comes again.
  public func sendMessages(
    _ sends: [MessageSend], as viewer: Viewer,
    admitting admit: (() throws(DomainError) -> Void)? = nil
  ) -> [Result<SentMessage, DomainError>] {
    var limited: DomainError?
    do {
      return try write { db, moment in
        limited = nil
        let viewer = try Users.current(db, viewer)
        return try sends.map { send in
          let clientID = send.clientMessageID.lowercasedText
          // Every refusal comes before the send's first write, so a refused send leaves
          // nothing behind without a savepoint; errors after it are the database's own.
          let (room, text): (RoomRecord, String)
          do {
            let key = try PublicID.room.require(send.roomID.rawValue)
            // A retry of a stored send answers with it first: the message was delivered, even
            // if the sender was banned or left the room since (its answer was lost).
            if let existing = try Chat.sent(db, clientID: clientID, by: viewer, inRoom: key) {
              return .success(existing)
            }
            if let limited { throw limited }
            do throws(DomainError) {
              try admit?()
            } catch {
              limited = error
              throw error
            }
            try viewer.requireNotBanned(at: moment.now)
            text = try validated(try TextRule.chatMessage.validate(send.text))
            room = try Chat.writableRoom(db, key, viewer: viewer)
          } catch let error as DomainError {
            return .failure(error)
          }
          let sent = try Chat.store(text, clientID: clientID, in: room, by: viewer, db, moment)
          chatEvents.publishOnCommit(db, .message(sent))
          return .success(SentMessage(message: sent, isNew: true))
        }
      }
    } catch {
      return sends.map { _ in .failure(error) }
    }
  }

  /// Moves the viewer's read cursor forward (never back, never past the last message).
  public func markRoomRead(_ id: ChatRoom.ID, seq: Int64, as viewer: Viewer) throws(DomainError) {
    let key = try PublicID.room.require(id.rawValue)
    try ChatMessage.requireSeq(seq, field: "seq")
    try write { db, _ in
      let room = try Chat.memberRoom(db, key, viewer: viewer)
      try Chat.moveReadCursor(db, room: room.key, user: viewer.key, to: min(seq, room.lastSeq))
    }
  }
}
