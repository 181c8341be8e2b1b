import Domain
import Foundation
import GRDB

extension ChatStore {
  /// Stores a message the user is sending, before it goes out: it shows at once as pending and
  /// survives a restart. Enqueueing the same client message id twice changes nothing. A client
  /// message id names one message of its sender (the server's rule): one the sender still has
  /// unsent in another room is refused with ``PersistenceError/database(_:)``, as the outbox's
  /// updates by client id would otherwise change both. (One the server has already stored
  /// elsewhere is refused by the server when sent, and marked failed.)
  @discardableResult
  public func enqueue(
    _ text: String, to room: ChatRoom.ID, clientMessageID: UUID, sender: UserSummary,
    at date: Date
  ) throws(PersistenceError) -> ChatMessage {
    let client = clientMessageID.lowercasedText
    return try write { db in
      if let other = try String.fetchOne(
        db,
        sql: """
          SELECT room_id FROM message INDEXED BY message_outbox
          WHERE state IN ('pending', 'sending', 'failed')
            AND sender_id = ? AND client_message_id = ? AND room_id <> ? LIMIT 1
          """,
        arguments: [sender.id.rawValue, client, room.rawValue])
      {
        throw PersistenceError.database(
          "client message id \(client) already names a message in room \(other)")
      }
      try db.execute(
        sql: ChatStore.placeholderRoom,
        arguments: [room.rawValue])
      try db.execute(
        sql: """
          INSERT OR IGNORE INTO message (room_id, id, seq, client_message_id, sender_id,
            sender_nickname, text, created_at, state)
          VALUES (?, ?, NULL, ?, ?, ?, ?, ?, 'pending')
          """,
        arguments: [
          room.rawValue, client, client, sender.id.rawValue, sender.nickname, text,
          date.timeIntervalSince1970,
        ])
      return try Self.message(
        Row.fetchOne(
          db,
          sql: """
            SELECT * FROM message WHERE room_id = ? AND sender_id = ? AND client_message_id = ?
            """,
          arguments: [room.rawValue, sender.id.rawValue, client])!)
    }
  }

  /// Unsent messages (pending, sending, failed), oldest first: what the outbox sends after a
  /// restart.
  public func outbox() throws(PersistenceError) -> [ChatMessage] {
    try read { db in try Self.outbox(db) }
  }

  static func outbox(_ db: Database) throws -> [ChatMessage] {
    try messages(db, sql: "SELECT * FROM message WHERE state <> 'sent' ORDER BY row", [])
  }

  /// Marks a pending (or sending) message as on its way, one more attempt; `false` when it is
  /// no longer waiting to go (deleted, failed or sent meanwhile), so it must not be sent.
  @discardableResult
  public func markSending(_ clientMessageID: UUID) throws(PersistenceError) -> Bool {
    try write { db in
      try db.execute(
        sql: """
          UPDATE message SET state = 'sending', failure = NULL, attempts = attempts + 1
          WHERE client_message_id = ? AND state IN ('pending', 'sending')
          """,
        arguments: [clientMessageID.lowercasedText])
      return db.changesCount > 0
    }
  }

  /// Marks an unsent message as failed with a reason the user can read; it stays in the outbox
  /// until retried or deleted.
  public func markFailed(_ clientMessageID: UUID, reason: String) throws(PersistenceError) {
    try setState("failed", failure: reason, of: clientMessageID)
  }

  /// Puts a failed message back in line (the user tapped retry).
  public func retry(_ clientMessageID: UUID) throws(PersistenceError) {
    try setState("pending", failure: nil, of: clientMessageID)
  }

  /// How many times an unsent message was tried.
  public func attempts(of clientMessageID: UUID) throws(PersistenceError) -> Int {
    try read { db in
      try Int.fetchOne(
        db, sql: "SELECT attempts FROM message WHERE client_message_id = ? AND state <> 'sent'",
        arguments: [clientMessageID.lowercasedText]) ?? 0
    }
  }

  /// Deletes a pending or failed message (the user gave up on it). A message on its way
  /// (`sending`) may already be with the server, and sent messages are never deleted here:
  /// both stay.
  public func deleteUnsent(_ clientMessageID: UUID) throws(PersistenceError) {
    try write { db in
      try db.execute(
        sql: "DELETE FROM message WHERE client_message_id = ? AND state IN ('pending', 'failed')",
        arguments: [clientMessageID.lowercasedText])
    }
  }

  private func setState(
    _ state: String, failure: String?, of clientMessageID: UUID
  ) throws(PersistenceError) {
    try write { db in
      try db.execute(
        sql:
          "UPDATE message SET state = ?, failure = ? WHERE client_message_id = ? AND state <> 'sent'",
        arguments: [state, failure, clientMessageID.lowercasedText])
    }
  }
}

extension ChatStore {
  /// The stored rooms in the server's order, each with its newest message and as unread the
  /// stored messages of others after the read cursor, or the server's count when that is
  /// higher (a room whose messages were never synced). The newest message is the newest unsent
  /// one, else the newest stored one, or the one the server listed when that is newer than
  /// both it and the sync cursor (a room not synced that far; one the cursor passed without
  /// storing it was hidden by moderation).
  public func rooms() throws(PersistenceError) -> [ChatRoom] {
    try read { db in try Self.rooms(db, owner: owner.rawValue) }
  }

  /// The listed rooms, or only `room` when given.
  static func rooms(_ db: Database, owner: String, only room: String? = nil) throws -> [ChatRoom] {
    try Row.fetchAll(
      db,
      sql: """
        SELECT r.*,
          MAX(r.unread_count, (SELECT COUNT(*) FROM message m WHERE m.room_id = r.id
            AND m.seq > r.read_seq AND m.sender_id <> ?)) AS unread
        FROM room r WHERE r.kind <> '\(ChatStore.unknownRoomKind)' AND (? IS NULL OR r.id = ?)
        ORDER BY r.position, r.id
        """, arguments: [owner, room, room]
    ).map { row in
      // A value of the wrong type is damage, as in a message row (`message(_:)`).
      guard let id: String = row.typed("id"), let kindText: String = row.typed("kind"),
        let title: String = row.typed("title"), let syncSeq: Int64 = row.typed("sync_seq"),
        let readSeq: Int64 = row.typed("read_seq"), let unread: Int = row.typed("unread")
      else {
        throw DatabaseError(
          resultCode: .SQLITE_CORRUPT, message: "a stored room holds a value of the wrong type")
      }
      let peer: String = row.typed("peer_id") ?? ""
      let kind: ChatRoom.Kind =
        kindText == "direct"
        ? .direct(User.ID(rawValue: peer)) : .group(StudyGroup.ID(rawValue: peer))
      let last = try unsent(db, room: id) ?? newestSent(db, room: id, syncSeq: syncSeq)
      return ChatRoom(
        id: ChatRoom.ID(rawValue: id), kind: kind, title: title, lastMessage: last,
        unreadCount: unread, lastReadSeq: readSeq)
    }
  }

  /// The room's newest unsent message, off the outbox index (one ORDER BY over unsent and sent
  /// messages scanned the room's whole history on every change of the observed list).
  private static func unsent(_ db: Database, room: String) throws -> ChatMessage? {
    try messages(
      db,
      sql: """
        SELECT * FROM message INDEXED BY message_outbox
        WHERE state IN ('pending', 'sending', 'failed') AND room_id = ? ORDER BY row DESC
        LIMIT 1
        """, [room]
    ).first
  }

  /// The room's newest stored message, or the one the server listed when that is newer than
  /// it and than the sync cursor `syncSeq`.
  private static func newestSent(
    _ db: Database, room: String, syncSeq: Int64
  ) throws -> ChatMessage? {
    let stored = try messages(
      db,
      sql: "SELECT * FROM message WHERE room_id = ? AND seq IS NOT NULL ORDER BY seq DESC LIMIT 1",
      [room]
    ).first
    let listed = try messages(
      db,
      sql: """
        SELECT *, 'sent' AS state, NULL AS failure FROM listed_message
        WHERE room_id = ? AND seq > ?
        """, [room, max(syncSeq, stored?.seq ?? 0)]
    ).first
    return listed ?? stored
  }

  /// The newest `limit` messages of `room` now and after every change, in order.
  public func observeMessages(
    in room: ChatRoom.ID, limit: Int = 50
  ) -> AsyncThrowingStream<[ChatMessage], any Error> {
    let id = room.rawValue
    return stream(ValueObservation.tracking { db in try Self.latest(db, room: id, limit: limit) })
  }

  /// The room list now and after every change.
  public func observeRooms() -> AsyncThrowingStream<[ChatRoom], any Error> {
    let owner = owner.rawValue
    return stream(ValueObservation.tracking { db in try Self.rooms(db, owner: owner) })
  }

  /// One stored room (as ``rooms()`` shows it; `nil` while it is not listed) now and after every
  /// change.
  public func observeRoom(_ room: ChatRoom.ID) -> AsyncThrowingStream<ChatRoom?, any Error> {
    let owner = owner.rawValue
    return stream(
      ValueObservation.tracking { db in try Self.rooms(db, owner: owner, only: room.rawValue).first
      })
  }

  /// The outbox now and after every change.
  public func observeOutbox() -> AsyncThrowingStream<[ChatMessage], any Error> {
    stream(ValueObservation.tracking { db in try Self.outbox(db) })
  }

  private func stream<Value: Sendable & Equatable>(
    _ observation: ValueObservation<ValueReducers.Fetch<Value>>
  ) -> AsyncThrowingStream<Value, any Error> {
    let values = observation.removeDuplicates().values(in: writer)
    return AsyncThrowingStream { continuation in
      let task = Task {
        do {
          for try await value in values { continuation.yield(value) }
          continuation.finish()
        } catch let error as DatabaseError {
          continuation.finish(throwing: self.failure(error))
        } catch {
          continuation.finish(throwing: error)
        }
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }
}
