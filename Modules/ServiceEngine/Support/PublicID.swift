import Domain
import Foundation

/// The public identifiers of the API: a short type prefix plus the row's integer key
/// (`p_12`, `room_3`). Clients treat them as opaque strings; the server parses them back and
/// answers 404 for anything that does not parse.
enum PublicID: String, Sendable, CaseIterable {
  case user = "u_"
  case question = "q_"
  case answer = "a_"
  case post = "p_"
  case comment = "c_"
  case report = "r_"
  case reportCase = "case_"
  case notification = "n_"
  case group = "g_"
  case room = "room_"
  case message = "m_"

  /// The public id of row `key`.
  func callAsFunction(_ key: Int64) -> String { rawValue + String(key) }

  /// The row key of a public id of this kind, or `nil` when `text` is not one. Only the form
  /// the server issues is one: `room_03` or `p_+1` name nothing, so every id of a row is
  /// spelled one way (live chat matches rooms by their id).
  func key(_ text: String) -> Int64? {
    guard text.hasPrefix(rawValue), let value = Int64(text.dropFirst(rawValue.count)),
      value > 0, self(value) == text
    else { return nil }
    return value
  }
}

/// Milliseconds since 1970: how the database stores instants.
enum Millis {
  static func from(_ date: Date) -> Int64 {
    let value = (date.timeIntervalSince1970 * 1000).rounded()
    guard value.isFinite else { return 0 }
    return Int64(max(min(value, 253_402_300_799_000), -62_135_596_800_000))
  }

  static func date(_ millis: Int64) -> Date {
    Date(timeIntervalSince1970: Double(millis) / 1000)
  }
}

extension PublicID {
  /// The row key of a public id of this kind, or `DomainError.notFound` (an id that does not
  /// parse names nothing there is).
  func require(_ text: String) throws(DomainError) -> Int64 {
    guard let key = key(text) else { throw .notFound }
    return key
  }
}
