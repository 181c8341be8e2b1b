import Domain
import Foundation
import GRDB

/// An analytics event waiting in the store for upload.
public struct QueuedEvent: Sendable, Hashable {
  /// The queue position; ``ChatStore/removeEvents(_:)`` takes it after an upload.
  public var id: Int64
  /// The event.
  public var event: AnalyticsEvent
}

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

  /// The oldest `limit` queued events.
  public func queuedEvents(
    limit: Int = AnalyticsBatch.maximumSize
  ) throws(PersistenceError)
    -> [QueuedEvent]
  {
    try read { db in
      try Row.fetchAll(
        db, sql: "SELECT * FROM analytics_event ORDER BY id LIMIT ?", arguments: [limit]
      ).compactMap { row in
        let properties =
          (try? JSONDecoder().decode(
            [String: String].self, from: Data((row["properties"] as String).utf8))) ?? [:]
        guard
          let event = try? AnalyticsEvent(
            name: row["name"], properties: properties,
            occurredAt: Date(timeIntervalSince1970: row["occurred_at"]),
            sessionID: row["session_id"])
        else { return nil }
        return QueuedEvent(id: row["id"], event: event)
      }
    }
  }

  /// Removes uploaded events from the queue.
  public func removeEvents(_ ids: [Int64]) throws(PersistenceError) {
    try write { db in
      let statement = try db.cachedStatement(sql: "DELETE FROM analytics_event WHERE id = ?")
      for id in ids { try statement.execute(arguments: [id]) }
    }
  }
}
