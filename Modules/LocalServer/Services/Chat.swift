import DTO
import Domain
import Foundation
import GRDB

/// Chat rooms and messages (REST part): group rooms, direct rooms, history by `seq`,
/// de-duplicated sends and read cursors.
enum Chat {
  static func room(_ db: Database, _ key: Int64) throws -> RoomRecord {
    guard let room = try RoomRecord.fetchOne(db, key: key) else {
      throw APIError.notFound("No chat room with id \(PublicID.room(key)).")
    }
    return room
  }

  /// Whether `userID` may read and write in the room: a member of its group, or one of the two
  /// people of a direct room.
  static func isMember(_ db: Database, roomKey: Int64, userID: Int64) throws -> Bool {
    guard let room = try RoomRecord.fetchOne(db, key: roomKey) else { return false }
    return try isMember(db, room, userID: userID)
  }

  static func isMember(_ db: Database, _ room: RoomRecord, userID: Int64) throws -> Bool {
    if let group = room.groupId {
      return try Int.fetchOne(
        db, sql: "SELECT COUNT(*) FROM group_member WHERE group_id = ? AND user_id = ?",
        arguments: [group, userID]) ?? 0 > 0
    }
    return room.userA == userID || room.userB == userID
  }

  /// The room, if the viewer is in it: 404 when it does not exist, 403 when not a member.
  static func memberRoom(_ db: Database, _ key: Int64, viewer: Viewer) throws -> RoomRecord {
    let room = try room(db, key)
    guard try isMember(db, room, userID: viewer.id) else {
      throw APIError.forbidden("You are not a member of this chat room.")
    }
    return room
  }

  static func messageDTO(_ db: Database, _ message: MessageRecord) throws -> ChatMessageDTO {
    ChatMessageDTO(
      id: PublicID.message(message.key), roomId: PublicID.room(message.roomId), seq: message.seq,
      clientMessageId: message.clientMessageId, sender: try Users.summary(db, message.senderId),
      text: message.text, createdAt: Millis.date(message.createdAt))
  }

  static func roomDTO(_ db: Database, _ room: RoomRecord, viewer: Viewer) throws -> ChatRoomDTO {
    let lastRead =
      try Int64.fetchOne(
        db, sql: "SELECT last_read_seq FROM room_read WHERE room_id = ? AND user_id = ?",
        arguments: [room.key, viewer.id]) ?? 0
    let unread =
      try Int.fetchOne(
        db,
        sql: """
          SELECT COUNT(*) FROM chat_message
          WHERE room_id = ? AND seq > ? AND sender_id <> ? AND NOT hidden
          """,
        arguments: [room.key, lastRead, viewer.id]) ?? 0
    let last = try MessageRecord.fetchOne(
      db,
      sql: "SELECT * FROM chat_message WHERE room_id = ? AND NOT hidden ORDER BY seq DESC LIMIT 1",
      arguments: [room.key])
    var title = ""
    var peer: UserSummaryDTO?
    if let groupKey = room.groupId {
      title = try GroupRecord.fetchOne(db, key: groupKey)?.name ?? ""
    } else {
      let peerKey = room.userA == viewer.id ? room.userB : room.userA
      if let peerKey {
        let summary = try Users.summary(db, peerKey)
        peer = summary
        title = summary.nickname
      }
    }
    return ChatRoomDTO(
      id: PublicID.room(room.key), kind: room.groupId == nil ? .direct : .group,
      groupId: room.groupId.map { PublicID.group($0) }, peer: peer, title: title,
      lastMessage: try last.map { try messageDTO(db, $0) }, unreadCount: unread,
      lastReadSeq: lastRead)
  }

  /// My rooms (groups I belong to, my direct rooms), newest room first. Rooms are ordered by
  /// creation, not by activity, so paging stays stable while messages arrive; apps sort by
  /// `last_message` themselves.
  static func rooms(
    _ db: Database, viewer: Viewer, _ page: PageRequest
  ) throws
    -> PageDTO<ChatRoomDTO>
  {
    var sql = """
      SELECT * FROM chat_room WHERE
        (group_id IN (SELECT group_id FROM group_member WHERE user_id = ?)
         OR user_a = ? OR user_b = ?)
      """
    var arguments: StatementArguments = [viewer.id, viewer.id, viewer.id]
    appendNewestFirst(&sql, &arguments, page)
    let rows = try RoomRecord.fetchAll(db, sql: sql, arguments: arguments)
    return try page.page(
      rows, sortKey: { Cursor(key: $0.createdAt, id: $0.key) },
      item: { try roomDTO(db, $0, viewer: viewer) })
  }

  /// The direct room with another user; the same room every time for the same pair.
  static func openDirect(
    _ db: Database, with userKey: Int64, viewer: Viewer, now: Date
  ) throws
    -> ChatRoomDTO
  {
    guard userKey != viewer.id else {
      throw APIError.validation(field: "user_id", "You cannot open a direct room with yourself.")
    }
    _ = try Users.live(db, userKey)
    let (a, b) = (min(userKey, viewer.id), max(userKey, viewer.id))
    if let room = try RoomRecord.filter(Column("user_a") == a && Column("user_b") == b).fetchOne(db)
    {
      return try roomDTO(db, room, viewer: viewer)
    }
    var room = RoomRecord(kind: "direct", userA: a, userB: b, createdAt: Millis.from(now))
    try room.insert(db)
    return try roomDTO(db, room, viewer: viewer)
  }

  /// History ascending by `seq`: after `afterSeq`, the newest before `beforeSeq`, or the newest.
  static func messages(
    _ db: Database, roomKey: Int64, afterSeq: Int64?, beforeSeq: Int64?, limit: Int,
    viewer: Viewer
  ) throws -> PageDTO<ChatMessageDTO> {
    let room = try memberRoom(db, roomKey, viewer: viewer)
    let rows: [MessageRecord]
    if let afterSeq {
      rows = try MessageRecord.fetchAll(
        db,
        sql: """
          SELECT * FROM chat_message WHERE room_id = ? AND seq > ? AND NOT hidden
          ORDER BY seq LIMIT ?
          """,
        arguments: [room.key, afterSeq, limit])
    } else {
      let newest = try MessageRecord.fetchAll(
        db,
        sql: """
          SELECT * FROM chat_message WHERE room_id = ? AND seq < ? AND NOT hidden
          ORDER BY seq DESC LIMIT ?
          """,
        arguments: [room.key, beforeSeq ?? Int64.max, limit])
      rows = newest.reversed()
    }
    return PageDTO(items: try rows.map { try messageDTO(db, $0) }, nextCursor: nil)
  }

  /// What a send led to: a new message (201) or the one stored for this client id (200).
  enum SendOutcome: Sendable {
    case created(ChatMessageDTO)
    case repeated(ChatMessageDTO)
  }

  static func send(
    _ db: Database, roomKey: Int64, clientMessageID: String, text: String, viewer: Viewer,
    now: Date
  ) throws -> SendOutcome {
    var room = try memberRoom(db, roomKey, viewer: viewer)
    if let existing = try MessageRecord.filter(
      Column("sender_id") == viewer.id && Column("client_message_id") == clientMessageID
    ).fetchOne(db) {
      guard existing.roomId == room.key else {
        throw APIError.conflict(
          "client_message_id \(clientMessageID) was already used for a message in another room.")
      }
      return .repeated(try messageDTO(db, existing))
    }
    room.lastSeq += 1
    try room.update(db)
    var message = MessageRecord(
      roomId: room.key, seq: room.lastSeq, clientMessageId: clientMessageID, senderId: viewer.id,
      text: text, createdAt: Millis.from(now))
    try message.insert(db)
    // My own message counts as read.
    try moveReadCursor(db, room: room.key, user: viewer.id, to: room.lastSeq)
    return .created(try messageDTO(db, message))
  }

  /// Moves my read cursor forward to `seq` (never back, never past the last message).
  static func markRead(_ db: Database, roomKey: Int64, seq: Int64, viewer: Viewer) throws {
    let room = try memberRoom(db, roomKey, viewer: viewer)
    try moveReadCursor(db, room: room.key, user: viewer.id, to: min(seq, room.lastSeq))
  }

  private static func moveReadCursor(
    _ db: Database, room: Int64, user: Int64, to seq: Int64
  )
    throws
  {
    try db.execute(
      sql: """
        INSERT INTO room_read (room_id, user_id, last_read_seq) VALUES (?, ?, ?)
        ON CONFLICT(room_id, user_id) DO UPDATE
          SET last_read_seq = MAX(last_read_seq, excluded.last_read_seq)
        """,
      arguments: [room, user, seq])
  }
}
