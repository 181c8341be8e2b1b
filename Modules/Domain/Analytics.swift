import Foundation

/// A named product event with string properties, uploaded in batches.
public struct AnalyticsEvent: Hashable, Sendable {
  /// Allowed name length.
  public static let nameLength = 1...40
  /// The most properties one event may carry.
  public static let maximumProperties = 20

  /// The event name in snake_case, e.g. `answer_submitted`.
  public var name: String
  /// Extra facts about the event.
  public var properties: [String: String]
  /// When it happened.
  public var occurredAt: Date
  /// The app session it belongs to.
  public var sessionID: String?

  /// Creates an event, checking the name (lower-case snake_case, 1-40 characters) and the
  /// property count.
  public init(
    name: String, properties: [String: String] = [:], occurredAt: Date, sessionID: String? = nil
  ) throws(ValidationError) {
    guard !name.isEmpty else { throw .empty(field: "name") }
    guard name.count <= Self.nameLength.upperBound else {
      throw .tooLong(field: "name", maximum: Self.nameLength.upperBound, actual: name.count)
    }
    let isSnakeCase =
      name.first.map { $0.isASCII && $0.isLowercase } == true
      && name.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_") }
    guard isSnakeCase else {
      throw .invalidFormat(
        field: "name", expected: "lower-case snake_case such as answer_submitted")
    }
    guard properties.count <= Self.maximumProperties else {
      throw .outOfRange(
        field: "properties", range: 0...Self.maximumProperties, actual: properties.count)
    }
    self.name = name
    self.properties = properties
    self.occurredAt = occurredAt
    self.sessionID = sessionID
  }
}

/// The largest batch the server takes in one upload.
public enum AnalyticsBatch {
  /// At most this many events per upload.
  public static let maximumSize = 100
}
