import Domain
import Foundation
import GRDB

/// What a batch of server messages did to the store.
public struct SaveResult: Sendable, Hashable {
  /// Messages stored for the first time (or unsent ones the server now confirmed).
  public var stored: Int
  /// Messages the store already had, unchanged.
  public var duplicates: Int
  /// The `seq`s ``ChatStore/saveDelivered(_:in:hidden:)`` left out as hidden by moderation.
  public var leftOut: [Int64] = []
}

extension ChatStore {
  /// Stores the rooms the server listed (title, kind, unread count, read cursor and newest
  /// message), in order; messages and sync cursors stay. The listed newest message is not
  /// stored among the room's messages: ``rooms()`` shows it until the room's own messages are
  /// synced that far. For a page of the list; ``replaceRooms(_:)`` takes the
  /// whole list. The read cursor never moves back. A room listed with a cursor behind the
  /// stored one (read here before the server applied it) counts at least the server's unread
  /// messages less those the stored cursor may have read (one per `seq` it is ahead), or the
  /// stored messages after the cursor when they are more.
  ///
  /// - Parameter continuing: The rooms are a later page of the list (read with a cursor): they
  ///   are ordered after every room stored, instead of from the top, so ``rooms()`` keeps the
  ///   pages' order.
  public func saveRooms(_ rooms: [ChatRoom], continuing: Bool = false) throws(PersistenceError) {
    try saveRooms(rooms, droppingUnlisted: false, continuing: continuing)
  }

  /// Stores the server's whole room list like ``saveRooms(_:continuing:)`` and drops the listed
  /// rooms it no longer holds (the user left them, or their group was deleted) with their
  /// messages. A room where unsent messages wait stays until they are sent, or failed and
  /// deleted.
  public func replaceRooms(_ rooms: [ChatRoom]) throws(PersistenceError) {
    try saveRooms(rooms, droppingUnlisted: true, continuing: false)
  }

  private func saveRooms(
    _ rooms: [ChatRoom], droppingUnlisted: Bool, continuing: Bool
  ) throws(PersistenceError) {
    try write { db in
      let first =
        continuing
        ? (try Int.fetchOne(db, sql: "SELECT MAX(position) + 1 FROM room") ?? 0) : 0
      let statement = try db.cachedStatement(
        sql: """
          INSERT INTO room (id, kind, peer_id, title, unread_count, read_seq, position)
          VALUES (?, ?, ?, ?, ?, ?, ?)
          ON CONFLICT(id) DO UPDATE SET kind = excluded.kind, peer_id = excluded.peer_id,
            title = excluded.title, read_seq = MAX(read_seq, excluded.read_seq),
            unread_count = CASE WHEN excluded.read_seq < read_seq
              THEN MAX(0, excluded.unread_count - (read_seq - excluded.read_seq))
              ELSE excluded.unread_count END,
            position = excluded.position
          """)
      for (position, room) in rooms.enumerated() {
        let (kind, peer): (String, String) =
          switch room.kind {
          case .group(let group): ("group", group.rawValue)
          case .direct(let user): ("direct", user.rawValue)
          }
        try statement.execute(arguments: [
          room.id.rawValue, kind, peer, room.title, room.unreadCount, room.lastReadSeq,
          first + position,
        ])
        try Self.list(room.lastMessage, of: room.id, db)
      }
      guard droppingUnlisted else { return }
      // Rooms only known from messages (`unknown`) may be newer than the list: they stay.
      let listed = Set(rooms.map(\.id.rawValue))
      let droppable = try String.fetchAll(
        db,
        sql: """
          SELECT id FROM room WHERE kind <> '\(ChatStore.unknownRoomKind)' AND NOT EXISTS (
            SELECT 1 FROM message WHERE message.room_id = room.id AND message.state <> 'sent')
          """)
      for id in droppable where !listed.contains(id) {
        try db.execute(sql: "DELETE FROM room WHERE id = ?", arguments: [id])
      }
    }
  }

  /// Stores messages the server sent (each with its `seq`) in one transaction. A message the
  /// store already has by `seq` or by client message id is not stored twice; an unsent message
  /// of the same client id becomes sent. Each room's sync cursor then moves over every
  /// contiguous `seq`, and its read cursor up to the owner's newest message among them (the
  /// sender's own message counts as read, as on the server).
  @discardableResult
  public func save(_ messages: [ChatMessage]) throws(PersistenceError) -> SaveResult {
    try write { db in try Self.save(messages, owner: owner.rawValue, db) }
  }

  /// Stores messages of `room` the link delivered, or the server's answer to one of the owner's
  /// sends, like ``save(_:)``, leaving out those moderation hid on their way here (their `seq`s
  /// are in the result's ``SaveResult/leftOut``):
  /// - a message whose `seq` is in `hidden` (the link told of its hide already);
  /// - a message whose `seq` the sync cursor passed without it being stored now: a catch-up
  ///   found it hidden, or it was stored and moderation's hide took it out. (The cursor passes
  ///   a `seq` only once the server listed everything visible up to it, and a room's `seq`s
  ///   are committed in order, so such a copy is one of a hidden message: the sender's ack
  ///   after the room's copy, or a resend answered with it. Unless moderators restored it
  ///   since without this device hearing of it: then it stays out until a reconcile that
  ///   covers its `seq` brings it back.)
  ///
  /// An owner's unsent message that is left out is deleted: the server has it, hidden, so it
  /// is neither shown nor sent again. A restored message is stored with ``save(_:)``, as are
  /// the pages the server fetched (a catch-up, older history): what they hold is visible.
  ///
  /// `hidden` holds `seq`s of `room`, so every message must be of `room`: one of another room
  /// is refused with ``PersistenceError/database(_:)`` and nothing is stored.
  @discardableResult
  public func saveDelivered(
    _ messages: [ChatMessage], in room: ChatRoom.ID, hidden: Set<Int64> = []
  ) throws(PersistenceError) -> SaveResult {
    if let stray = messages.first(where: { $0.roomID != room }) {
      throw .database(
        "a message of room \(stray.roomID) was given to save as one of room \(room)")
    }
    return try write { db in
      let owner = owner.rawValue
      let steppedOver = try db.cachedStatement(
        sql: """
          SELECT ?2 <= (SELECT sync_seq FROM room WHERE id = ?1)
            AND NOT EXISTS (SELECT 1 FROM message WHERE room_id = ?1 AND seq = ?2)
          """)
      let deleteUnsent = try db.cachedStatement(
        sql: """
          DELETE FROM message
          WHERE room_id = ? AND sender_id = ? AND client_message_id = ? AND state <> 'sent'
          """)
      var kept: [ChatMessage] = []
      var leftOut: [Int64] = []
      for message in messages {
        guard let seq = message.seq else { continue }
        let isHidden =
          try hidden.contains(seq)
          || Bool.fetchOne(steppedOver, arguments: [message.roomID.rawValue, seq]) == true
        guard isHidden else {
          kept.append(message)
          continue
        }
        leftOut.append(seq)
        if message.sender.id.rawValue == owner {
          try deleteUnsent.execute(arguments: [
            message.roomID.rawValue, owner, message.clientMessageID.lowercasedText,
          ])
        }
      }
      var result = try Self.save(kept, owner: owner, db)
      result.leftOut = leftOut
      return result
    }
  }

  /// Makes the stored history of `room` agree with `newest`, the server's newest visible
  /// messages (oldest first), fetched after the server said the room's last `seq` was
  /// `lastSeq`. A stored message the server no longer shows in that stretch was hidden by
  /// moderation and is deleted; one it shows that is missing here (restored after the sync
  /// stepped over it) is stored. The stretch runs from the page's first `seq` (from the start
  /// when `isWholeHistory`: the page held every visible message) up to `lastSeq` or the page's
  /// last `seq`, whichever is higher; everything in it was committed before the page was read.
  /// Unsent messages are never touched. Returns how many messages were deleted, and how many
  /// up to `lastSeq` were stored (restored; later ones are merely new).
  @discardableResult
  public func reconcile(
    _ room: ChatRoom.ID, newest: [ChatMessage], isWholeHistory: Bool, lastSeq: Int64
  ) throws(PersistenceError) -> (removed: Int, restored: Int) {
    let shown = newest.compactMap(\.seq)
    let upper = max(lastSeq, shown.last ?? 0)
    let lower = isWholeHistory ? 0 : (shown.first ?? upper + 1)
    return try write { db in
      let stored = try Int64.fetchAll(
        db,
        sql: """
          SELECT seq FROM message WHERE room_id = ? AND seq IS NOT NULL AND seq BETWEEN ? AND ?
          """,
        arguments: [room.rawValue, lower, upper])
      let hidden = Set(stored).subtracting(shown)
      for seq in hidden { try Self.delete(seq, in: room, db) }
      // Only a message the server had by `lastSeq` can have been restored; a later one is new.
      let page = newest.filter { $0.roomID == room }
      let restored = try Self.save(
        page.filter { ($0.seq ?? 0) <= lastSeq }, owner: owner.rawValue, db
      ).stored
      _ = try Self.save(page.filter { ($0.seq ?? 0) > lastSeq }, owner: owner.rawValue, db)
      return (hidden.count, restored)
    }
  }

  /// Deletes the message `seq` of `room`, which moderation hid after it was stored (the
  /// realtime `message_hidden`); `false` when it was not stored. Unsent messages have no `seq`
  /// and are never touched.
  @discardableResult
  public func removeHidden(_ seq: Int64, in room: ChatRoom.ID) throws(PersistenceError) -> Bool {
    try write { db in try Self.delete(seq, in: room, db) }
  }

  /// Deletes one stored message by `seq`, and the room's listed newest message if it is that
  /// one; `false` when there was no stored message.
  @discardableResult
  private static func delete(_ seq: Int64, in room: ChatRoom.ID, _ db: Database) throws -> Bool {
    try db.cachedStatement(sql: "DELETE FROM message WHERE room_id = ? AND seq = ?")
      .execute(arguments: [room.rawValue, seq])
    let deleted = db.changesCount > 0
    try db.cachedStatement(sql: "DELETE FROM listed_message WHERE room_id = ? AND seq = ?")
      .execute(arguments: [room.rawValue, seq])
    return deleted
  }

  /// Keeps `message` as the newest message the server listed for `room`; `nil` (the server
  /// lists none: no visible message) forgets the one kept.
  private static func list(_ message: ChatMessage?, of room: ChatRoom.ID, _ db: Database) throws {
    guard let message, let seq = message.seq else {
      try db.cachedStatement(sql: "DELETE FROM listed_message WHERE room_id = ?")
        .execute(arguments: [room.rawValue])
      return
    }
    try db.cachedStatement(
      sql: """
        INSERT OR REPLACE INTO listed_message (room_id, id, seq, client_message_id, sender_id,
          sender_nickname, text, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        """
    ).execute(arguments: [
      room.rawValue, message.id.rawValue, seq, message.clientMessageID.lowercasedText,
      message.sender.id.rawValue, message.sender.nickname, message.text,
      message.createdAt.timeIntervalSince1970,
    ])
  }

  private static func save(
    _ messages: [ChatMessage], owner: String, _ db: Database
  ) throws -> SaveResult {
    let room = try db.cachedStatement(
      sql: ChatStore.placeholderRoom)
    let upsert = try db.cachedStatement(
      sql: """
        INSERT INTO message (room_id, id, seq, client_message_id, sender_id, sender_nickname,
          text, created_at, state)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'sent')
        ON CONFLICT(room_id, sender_id, client_message_id) DO UPDATE SET id = excluded.id,
          seq = excluded.seq, sender_nickname = excluded.sender_nickname,
          text = excluded.text, created_at = excluded.created_at, state = 'sent', failure = NULL
          WHERE message.state <> 'sent'
        ON CONFLICT DO NOTHING
        """)
    var result = SaveResult(stored: 0, duplicates: 0)
    var rooms = Set<String>()
    var ownNewest: [String: Int64] = [:]
    for message in messages {
      guard let seq = message.seq else { continue }
      let roomID = message.roomID.rawValue
      if rooms.insert(roomID).inserted { try room.execute(arguments: [roomID]) }
      if message.sender.id.rawValue == owner {
        ownNewest[roomID] = max(ownNewest[roomID] ?? 0, seq)
      }
      try upsert.execute(arguments: [
        roomID, message.id.rawValue, seq, message.clientMessageID.lowercasedText,
        message.sender.id.rawValue, message.sender.nickname, message.text,
        message.createdAt.timeIntervalSince1970,
      ])
      if db.changesCount > 0 { result.stored += 1 } else { result.duplicates += 1 }
    }
    for roomID in rooms { try Self.advanceSyncCursor(db, room: roomID) }
    for (roomID, seq) in ownNewest { try Self.moveReadCursor(db, room: roomID, to: seq) }
    return result
  }

  /// Moves a room's read cursor forward to `seq` (never back); the server's unread count is
  /// spent then (the stored messages after the cursor are counted instead).
  private static func moveReadCursor(_ db: Database, room: String, to seq: Int64) throws {
    try db.cachedStatement(
      sql: "UPDATE room SET read_seq = ?1, unread_count = 0 WHERE id = ?2 AND read_seq < ?1"
    ).execute(arguments: [seq, room])
  }

  /// Moves a room's sync cursor over every stored `seq` that follows it without a gap.
  static func advanceSyncCursor(_ db: Database, room: String) throws {
    try db.cachedStatement(
      sql: """
        UPDATE room SET sync_seq = (
          WITH RECURSIVE next(seq) AS (
            SELECT sync_seq FROM room WHERE id = ?1
            UNION ALL
            SELECT seq + 1 FROM next
            WHERE EXISTS (SELECT 1 FROM message WHERE room_id = ?1 AND message.seq = next.seq + 1)
          )
          SELECT MAX(seq) FROM next)
        WHERE id = ?1
        """
    ).execute(arguments: [room])
  }

  /// Moves the sync cursor of `room` to `seq` at least, then on over stored `seq`s: the server
  /// listed every visible message up to `seq`, so the `seq`s missing below it are hidden
  /// messages it will never send (without this the cursor would stop at the first one).
  public func skip(in room: ChatRoom.ID, through seq: Int64) throws(PersistenceError) {
    try write { db in
      try db.execute(
        sql: ChatStore.placeholderRoom,
        arguments: [room.rawValue])
      try db.execute(
        sql: "UPDATE room SET sync_seq = MAX(sync_seq, ?) WHERE id = ?",
        arguments: [seq, room.rawValue])
      try Self.advanceSyncCursor(db, room: room.rawValue)
    }
  }

  /// The highest `seq` up to which every message of `room` is stored (0 for an unknown room):
  /// a sync asks the server only for what comes after it.
  public func syncCursor(of room: ChatRoom.ID) throws(PersistenceError) -> Int64 {
    try read { db in
      try Int64.fetchOne(Self.syncCursorStatement(db), arguments: [room.rawValue]) ?? 0
    }
  }

  private static func syncCursorStatement(_ db: Database) throws -> Statement {
    try db.cachedStatement(sql: "SELECT sync_seq FROM room WHERE id = ?")
  }

  /// The `seq`s missing between the sync cursor and the newest stored message of `room`: the
  /// gaps a sync fills over REST.
  public func missingSeqs(in room: ChatRoom.ID) throws(PersistenceError) -> ClosedRange<Int64>? {
    try read { db in
      // `seq IS NOT NULL` lets SQLite read the newest seq off the partial index
      // (room_id, seq): without it every received message scanned the room's history.
      guard
        let cursor = try Int64.fetchOne(Self.syncCursorStatement(db), arguments: [room.rawValue]),
        let newest = try Int64.fetchOne(
          db.cachedStatement(
            sql: "SELECT MAX(seq) FROM message WHERE room_id = ? AND seq IS NOT NULL"),
          arguments: [room.rawValue]),
        newest > cursor + 1
      else { return nil }
      return (cursor + 1)...(newest - 1)
    }
  }

  /// The lowest stored `seq` of `room` (`nil` when none is stored): where loading older
  /// history continues.
  public func oldestSeq(in room: ChatRoom.ID) throws(PersistenceError) -> Int64? {
    try read { db in
      try Int64.fetchOne(
        db, sql: "SELECT MIN(seq) FROM message WHERE room_id = ? AND seq IS NOT NULL",
        arguments: [room.rawValue])
    }
  }

  /// Moves the read cursor of `room` forward (never back); the server's unread count of the
  /// room is spent (the stored messages after the cursor count from now on).
  public func markRead(_ room: ChatRoom.ID, upTo seq: Int64) throws(PersistenceError) {
    try write { db in
      try db.execute(
        sql: "UPDATE room SET read_seq = MAX(read_seq, ?), unread_count = 0 WHERE id = ?",
        arguments: [seq, room.rawValue])
    }
  }

  /// The newest `limit` messages of `room`, oldest first; unsent ones last, in sending order.
  /// A `limit` below 1 gives none of the sent ones (SQLite would read a negative `LIMIT` as no
  /// limit: the whole history).
  public func latestMessages(
    in room: ChatRoom.ID, limit: Int = 50
  ) throws(PersistenceError) -> [ChatMessage] {
    try read { db in try Self.latest(db, room: room.rawValue, limit: limit) }
  }

  /// Up to `limit` stored messages before `seq` (loading older history), oldest first; none
  /// for a `limit` below 1.
  public func messages(
    in room: ChatRoom.ID, before seq: Int64, limit: Int = 50
  ) throws(PersistenceError) -> [ChatMessage] {
    try read { db in
      try Self.messages(
        db,
        sql: """
          SELECT * FROM (SELECT * FROM message WHERE room_id = ? AND seq < ?
          ORDER BY seq DESC LIMIT ?) ORDER BY seq
          """, [room.rawValue, seq, max(limit, 0)])
    }
  }

  static func latest(_ db: Database, room: String, limit: Int) throws -> [ChatMessage] {
    let sent = try messages(
      db,
      sql: """
        SELECT * FROM (SELECT * FROM message WHERE room_id = ? AND seq IS NOT NULL
        ORDER BY seq DESC LIMIT ?) ORDER BY seq
        """, [room, max(limit, 0)])
    // Unsent messages through the outbox index (state, row): without `INDEXED BY` SQLite picks
    // the (room_id, client_message_id) index and scans the room's whole history (135 ms for
    // 100,000 messages, measured by Benchmarks/run-chat-benchmarks).
    let unsent = try messages(
      db,
      sql: """
        SELECT * FROM message INDEXED BY message_outbox
        WHERE state IN ('pending', 'sending', 'failed') AND room_id = ? ORDER BY row
        """, [room])
    return sent + unsent
  }

  static func messages(
    _ db: Database, sql: String, _ arguments: StatementArguments
  ) throws -> [ChatMessage] {
    try Row.fetchAll(db, sql: sql, arguments: arguments).map(message)
  }

  /// A stored message; a row holding a value of the wrong type (the file was changed outside
  /// the app, or damaged) is damage (`SQLITE_CORRUPT`: ``PersistenceError/corrupt(path:reason:)``
  /// to the caller, and the store can start over, carrying its readable unsent messages over).
  static func message(_ row: Row) throws -> ChatMessage {
    guard let stateText: String = row.typed("state"), let id: String = row.typed("id"),
      let room: String = row.typed("room_id"), let client: String = row.typed("client_message_id"),
      let sender: String = row.typed("sender_id"), let text: String = row.typed("text"),
      let createdAt: Double = row.typed("created_at")
    else {
      throw DatabaseError(
        resultCode: .SQLITE_CORRUPT, message: "a stored message holds a value of the wrong type")
    }
    let state: ChatMessage.DeliveryState =
      switch stateText {
      case "pending": .pending
      case "sending": .sending
      case "failed": .failed(reason: row.typed("failure") ?? "")
      default: .sent
      }
    return ChatMessage(
      id: ChatMessage.ID(rawValue: id), roomID: ChatRoom.ID(rawValue: room),
      seq: row.typed("seq"), clientMessageID: UUID(uuidString: client) ?? UUID(),
      sender: UserSummary(
        id: User.ID(rawValue: sender), nickname: row.typed("sender_nickname") ?? ""),
      text: text, createdAt: Date(timeIntervalSince1970: createdAt), deliveryState: state)
  }
}
