import GRDB

/// The store's migrations. Each is named and never edited once released: a cache file from any
/// earlier version upgrades in place (`Tests/PersistenceTests/Fixtures` holds one file per
/// released schema, and a test opens each).
enum StoreSchema {
  /// The migration names in order; the last one is the current schema.
  static let migrations = [
    "v1: rooms, messages, cursors, outbox, analytics queue",
    "v2: analytics batches",
    "v3: a client message id is unique per sender",
    "v4: a room keeps the newest message the server listed",
    "v5: damaged files carried over",
  ]

  static var migrator: DatabaseMigrator {
    var migrator = DatabaseMigrator()
    migrator.registerMigration(migrations[0]) { db in
      try db.create(table: "room") { t in
        t.primaryKey("id", .text)
        t.column("kind", .text).notNull()  // group | direct
        t.column("peer_id", .text)  // the group id or the other user's id
        t.column("title", .text).notNull()
        t.column("unread_count", .integer).notNull().defaults(to: 0)
        // The highest seq the user has read.
        t.column("read_seq", .integer).notNull().defaults(to: 0)
        // The highest seq up to which every message is stored (the sync cursor).
        t.column("sync_seq", .integer).notNull().defaults(to: 0)
        t.column("position", .integer).notNull().defaults(to: 0)
      }
      try db.create(table: "message") { t in
        t.autoIncrementedPrimaryKey("row")
        t.column("room_id", .text).notNull().references("room", onDelete: .cascade)
        t.column("id", .text).notNull()  // the server id, or the client id while not sent
        t.column("seq", .integer)  // NULL until the server stored it
        t.column("client_message_id", .text).notNull()
        t.column("sender_id", .text).notNull()
        t.column("sender_nickname", .text).notNull()
        t.column("text", .text).notNull()
        t.column("created_at", .double).notNull()
        t.column("state", .text).notNull()  // pending | sending | sent | failed
        t.column("failure", .text)
        t.column("attempts", .integer).notNull().defaults(to: 0)
        t.uniqueKey(["room_id", "client_message_id"])
      }
      try db.execute(
        sql: "CREATE UNIQUE INDEX message_room_seq ON message(room_id, seq) WHERE seq IS NOT NULL")
      try db.create(index: "message_outbox", on: "message", columns: ["state", "row"])
      try db.create(table: "analytics_event") { t in
        t.autoIncrementedPrimaryKey("id")
        t.column("name", .text).notNull()
        t.column("properties", .text).notNull()  // JSON object of strings
        t.column("occurred_at", .double).notNull()
        t.column("session_id", .text)
      }
    }
    migrator.registerMigration(migrations[1]) { db in
      // The idempotency key of the upload batch an event was put in (NULL: not in one yet); a
      // batch keeps its key until the server accepted it, across relaunches.
      try db.alter(table: "analytics_event") { t in t.add(column: "batch_key", .text) }
      try db.create(index: "analytics_event_batch", on: "analytics_event", columns: ["batch_key"])
    }
    migrator.registerMigration(migrations[2]) { db in
      // The server keeps a client message id unique per sender, not per room: another member's
      // message that reuses an id was dropped as a duplicate (or took the place of the user's
      // own unsent one). SQLite cannot change a table's unique key: the table is made anew.
      try db.create(table: "message_v3") { t in
        t.autoIncrementedPrimaryKey("row")
        t.column("room_id", .text).notNull().references("room", onDelete: .cascade)
        t.column("id", .text).notNull()
        t.column("seq", .integer)
        t.column("client_message_id", .text).notNull()
        t.column("sender_id", .text).notNull()
        t.column("sender_nickname", .text).notNull()
        t.column("text", .text).notNull()
        t.column("created_at", .double).notNull()
        t.column("state", .text).notNull()
        t.column("failure", .text)
        t.column("attempts", .integer).notNull().defaults(to: 0)
        t.uniqueKey(["room_id", "sender_id", "client_message_id"])
      }
      try db.execute(sql: "INSERT INTO message_v3 SELECT * FROM message")
      try db.drop(table: "message")
      try db.rename(table: "message_v3", to: "message")
      try db.execute(
        sql: "CREATE UNIQUE INDEX message_room_seq ON message(room_id, seq) WHERE seq IS NOT NULL")
      try db.create(index: "message_outbox", on: "message", columns: ["state", "row"])
    }
    migrator.registerMigration(migrations[3]) { db in
      // The newest message of each room as the server's room list gave it: the list shows it
      // until the room's own messages are synced that far (rooms nobody opened, rows below
      // the live part of the list). Not a stored message: it moves no cursor.
      try db.create(table: "listed_message") { t in
        t.primaryKey("room_id", .text).references("room", onDelete: .cascade)
        t.column("id", .text).notNull()
        t.column("seq", .integer).notNull()
        t.column("client_message_id", .text).notNull()
        t.column("sender_id", .text).notNull()
        t.column("sender_nickname", .text).notNull()
        t.column("text", .text).notNull()
        t.column("created_at", .double).notNull()
      }
    }
    migrator.registerMigration(migrations[4]) { db in
      // The damaged files a start-over carried over into this store, by name, noted in the
      // carry-over's own transaction: one carried over again (the app ended before it was set
      // aside for good, or another process carried it too) adds nothing twice.
      try db.create(table: "carried_over_file") { t in
        t.primaryKey("name", .text)
      }
    }
    return migrator
  }
}
