import Domain
import Foundation
import GRDB

/// Queued analytics events put in one upload, named by the idempotency key it goes under.
public struct QueuedEventBatch: Sendable, Hashable {
  /// The batch's `Idempotency-Key`; it stays the same for every attempt, across relaunches.
  public var key: String
  /// The events, oldest first.
  public var events: [AnalyticsEvent]
}

/// The analytics queue: events wait in the store of the account that tracked them until the
/// server accepted them, so they survive a relaunch. The oldest waiting events are put in a
/// batch under a new key; a batch that failed keeps its events and key and goes first next
/// time, so the server can tell a repeat from a new upload.
extension ChatStore {
  /// Queues events for upload; they survive a relaunch.
  public func enqueue(events: [AnalyticsEvent]) throws(PersistenceError) {
    try write { db in
      let statement = try db.cachedStatement(
        sql: """
          INSERT INTO analytics_event (name, properties, occurred_at, session_id)
          VALUES (?, ?, ?, ?)
          """)
      let encoder = JSONEncoder()
      encoder.outputFormatting = .sortedKeys
      for event in events {
        let properties = String(decoding: try encoder.encode(event.properties), as: UTF8.self)
        try statement.execute(arguments: [
          event.name, properties, event.occurredAt.timeIntervalSince1970, event.sessionID,
        ])
      }
    }
  }

  /// How many events wait for upload (in a batch or not).
  public func queuedEventCount() throws(PersistenceError) -> Int {
    try read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM analytics_event") ?? 0 }
  }

  /// The batch to upload next: the oldest batch already made (one that failed, possibly before
  /// a relaunch) whose key is not in `excluded` (batches being uploaded now), else a new batch
  /// of the oldest `size` events not in one, put under `newKey`. `nil` when nothing is left.
  ///
  /// A row that no longer decodes as an event (written by something else than ``enqueue(events:)``)
  /// would fail every upload; it is deleted.
  public func nextEventBatch(
    size: Int, newKey: @autoclosure () -> String, excluding excluded: Set<String> = []
  ) throws(PersistenceError) -> QueuedEventBatch? {
    try write { db in
      let keys = try String.fetchAll(
        db,
        sql: """
          SELECT batch_key FROM analytics_event WHERE batch_key IS NOT NULL
          GROUP BY batch_key ORDER BY MIN(id)
          """)
      for key in keys where !excluded.contains(key) {
        let rows = try Row.fetchAll(
          db, sql: "SELECT * FROM analytics_event WHERE batch_key = ? ORDER BY id",
          arguments: [key])
        let events = try Self.events(rows, db)
        if !events.isEmpty { return QueuedEventBatch(key: key, events: events) }
      }
      // Until a batch holds an event: rows that did not decode are gone, and the next ones
      // are looked at.
      while true {
        let rows = try Row.fetchAll(
          db, sql: "SELECT * FROM analytics_event WHERE batch_key IS NULL ORDER BY id LIMIT ?",
          arguments: [max(size, 1)])
        guard let last = rows.last else { return nil }
        let key = newKey()
        // The rows are the oldest unbatched ones, so they are exactly those up to the last id.
        try db.execute(
          sql: "UPDATE analytics_event SET batch_key = ? WHERE batch_key IS NULL AND id <= ?",
          arguments: [key, last["id"] as Int64])
        let events = try Self.events(rows, db)
        if !events.isEmpty { return QueuedEventBatch(key: key, events: events) }
      }
    }
  }

  /// Removes the batch `key` (the server accepted it, or refused it for good).
  public func removeEventBatch(_ key: String) throws(PersistenceError) {
    try write { db in
      try db.execute(sql: "DELETE FROM analytics_event WHERE batch_key = ?", arguments: [key])
    }
  }

  /// Deletes the oldest events not yet in a batch until at most `limit` events wait (batches
  /// keep their events: their keys name those exact events). Returns how many were deleted.
  @discardableResult
  public func dropOldestEvents(keeping limit: Int) throws(PersistenceError) -> Int {
    try write { db in
      let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM analytics_event") ?? 0
      guard count > limit else { return 0 }
      try db.execute(
        sql: """
          DELETE FROM analytics_event WHERE id IN (
            SELECT id FROM analytics_event WHERE batch_key IS NULL ORDER BY id LIMIT ?)
          """,
        arguments: [count - max(limit, 0)])
      return db.changesCount
    }
  }

  /// Decodes `rows`, deleting the ones that are not events.
  private static func events(_ rows: [Row], _ db: Database) throws -> [AnalyticsEvent] {
    var events: [AnalyticsEvent] = []
    for row in rows {
      let properties = (row.typed("properties") as String?).flatMap {
        try? JSONDecoder().decode([String: String].self, from: Data($0.utf8))
      }
      if let properties, let name: String = row.typed("name"),
        let occurredAt: Double = row.typed("occurred_at"),
        let event = try? AnalyticsEvent(
          name: name, properties: properties,
          occurredAt: Date(timeIntervalSince1970: occurredAt),
          sessionID: row.typed("session_id"))
      {
        events.append(event)
      } else {
        try db.execute(sql: "DELETE FROM analytics_event WHERE id = ?", arguments: [row["id"]])
      }
    }
    return events
  }
}
