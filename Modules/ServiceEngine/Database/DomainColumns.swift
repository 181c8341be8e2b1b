import Domain
import Foundation
import GRDB

// Domain's enumerations as database values: rules compare enums, and each stored spelling is
// written once, here or as the enum's raw value.

extension ReportStatus: DatabaseValueConvertible, Codable {}
extension ReportResolution: DatabaseValueConvertible, Codable {}
extension ReportTarget.Kind: DatabaseValueConvertible, Codable {}
extension ReportReason.Code: DatabaseValueConvertible, Codable {}
extension NotificationKind.Code: DatabaseValueConvertible, Codable {}

/// Stored as `member` / `admin`; another stored text reads back as `.unknown`.
extension UserRole: DatabaseValueConvertible, Codable {
  private static let spellings: [(UserRole, String)] = [(.member, "member"), (.admin, "admin")]

  /// The stored text.
  public var databaseValue: DatabaseValue {
    if case .unknown(let text) = self { return text.databaseValue }
    return (Self.spellings.first { $0.0 == self }?.1 ?? "member").databaseValue
  }

  /// The role of a stored text.
  public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> UserRole? {
    guard let text = String.fromDatabaseValue(dbValue) else { return nil }
    return spellings.first { $0.1 == text }?.0 ?? .unknown(text)
  }

  /// Decodes the stored text.
  public init(from decoder: any Decoder) throws {
    let text = try decoder.singleValueContainer().decode(String.self)
    self = Self.fromDatabaseValue(text.databaseValue) ?? .unknown(text)
  }

  /// Encodes the stored text.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(String.fromDatabaseValue(databaseValue) ?? "")
  }
}

/// Stored as `owner` / `member`.
enum MemberRole: String, Sendable, DatabaseValueConvertible {
  case owner, member

  var domain: GroupRole { self == .owner ? .owner : .member }
}
