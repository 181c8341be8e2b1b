import Domain
import Foundation
import GRDB

/// An analytics event as uploaded: what the service stores, before Domain's stricter naming
/// rules (the service accepts any non-empty name, so old clients never lose events).
public struct UploadedEvent: Sendable, Hashable {
  /// The event name.
  public var name: String
  /// Extra facts about the event.
  public var properties: [String: String]
  /// When it happened on the device.
  public var occurredAt: Date
  /// The app session it belongs to.
  public var sessionID: String?

  /// Creates an uploaded event.
  public init(
    name: String, properties: [String: String], occurredAt: Date, sessionID: String?
  ) {
    self.name = name
    self.properties = properties
    self.occurredAt = occurredAt
    self.sessionID = sessionID
  }

  /// The upload of a Domain event.
  public init(_ event: AnalyticsEvent) {
    self.init(
      name: event.name, properties: event.properties, occurredAt: event.occurredAt,
      sessionID: event.sessionID)
  }
}

/// A stored event with the account that uploaded it.
public struct StoredEvent: Sendable, Hashable {
  /// Who uploaded it (`nil` once the account is gone).
  public var userID: User.ID?
  /// The event.
  public var event: UploadedEvent
}

extension ServiceEngine {
  /// Stores a batch of 1-100 events (`Docs/Rules.md`, "Analytics"); every event needs a name.
  /// Returns how many were accepted: all of them, or none when the batch is refused.
  @discardableResult
  public func recordAnalytics(
    _ events: [UploadedEvent], as viewer: Viewer
  ) throws(DomainError) -> Int {
    guard (1...AnalyticsBatch.maximumSize).contains(events.count) else {
      throw .validation(
        .outOfRange(field: "events", range: 1...AnalyticsBatch.maximumSize, actual: events.count))
    }
    for (index, event) in events.enumerated()
    where event.name.trimmingCharacters(in: .whitespaces).isEmpty {
      throw .validation(.empty(field: "events[\(index)].name"))
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let rows = events.map { event in
      (
        event,
        (try? encoder.encode(event.properties)).map { String(decoding: $0, as: UTF8.self) }
          ?? "{}"
      )
    }
    try write { db, moment in
      for (event, properties) in rows {
        try db.execute(
          sql: """
            INSERT INTO analytics_event (user_id, name, properties, occurred_at, session_id,
              received_at) VALUES (?, ?, ?, ?, ?, ?)
            """,
          arguments: [
            viewer.key, event.name, properties, Millis.from(event.occurredAt), event.sessionID,
            moment.millis,
          ])
      }
    }
    return rows.count
  }

  /// Every stored event, in upload order (tests and tools).
  public func storedAnalyticsEvents() throws(DomainError) -> [StoredEvent] {
    try read { db, _ in
      try Row.fetchAll(db, sql: "SELECT * FROM analytics_event ORDER BY id").map { row in
        let properties =
          (try? JSONDecoder().decode(
            [String: String].self, from: Data((row["properties"] as String).utf8))) ?? [:]
        let user: Int64? = row["user_id"]
        return StoredEvent(
          userID: user.map { User.ID(rawValue: PublicID.user($0)) },
          event: UploadedEvent(
            name: row["name"], properties: properties,
            occurredAt: Millis.date(row["occurred_at"]), sessionID: row["session_id"]))
      }
    }
  }
}
