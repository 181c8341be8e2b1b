import DTO
import Domain
import Foundation
import GRDB

/// Reads and maps users; shared by every area that shows a user.
enum Users {
  /// The live (not withdrawn) user with `key`, or 404.
  static func live(_ db: Database, _ key: Int64) throws -> UserRecord {
    guard let user = try UserRecord.fetchOne(db, key: key), !user.isWithdrawn else {
      throw APIError.notFound("No user with id \(PublicID.user(key)).")
    }
    return user
  }

  /// The user with `key`, withdrawn or not.
  static func any(_ db: Database, _ key: Int64) throws -> UserRecord? {
    try UserRecord.fetchOne(db, key: key)
  }

  /// Whether a live user other than `except` has `nickname` (case-insensitively).
  static func isTaken(_ db: Database, nickname: String, except: Int64? = nil) throws -> Bool {
    let key = UserRecord.key(forNickname: nickname)
    let owner = try Int64.fetchOne(
      db, sql: #"SELECT id FROM "user" WHERE nickname_key = ?"#, arguments: [key])
    guard let owner else { return false }
    return owner != except
  }

  /// The wire form of a user (answer count included).
  static func dto(_ db: Database, _ user: UserRecord, now: Date) throws -> UserDTO {
    let answers =
      try Int.fetchOne(
        db, sql: "SELECT COUNT(*) FROM answer WHERE author_id = ? AND deleted_at IS NULL",
        arguments: [user.key]) ?? 0
    return UserDTO(
      id: PublicID.user(user.key), nickname: user.displayName,
      role: user.isAdmin ? .admin : .member, cohort: user.cohort,
      joinedAt: Millis.date(user.joinedAt), answerCount: answers, avatarUrl: user.avatarUrl,
      isBanned: user.isBanned(at: now))
  }

  /// `{id, nickname}`; withdrawn users show as "(withdrawn)".
  static func summary(_ user: UserRecord) -> UserSummaryDTO {
    UserSummaryDTO(id: PublicID.user(user.key), nickname: user.displayName)
  }

  /// The summary of the user with `key` (a placeholder when the row is gone).
  static func summary(_ db: Database, _ key: Int64) throws -> UserSummaryDTO {
    guard let user = try any(db, key) else {
      return UserSummaryDTO(id: PublicID.user(key), nickname: UserRecord.withdrawnName)
    }
    return summary(user)
  }

  /// The viewer of a request, from the user row.
  static func viewer(_ user: UserRecord) -> Viewer {
    Viewer(
      id: user.key, nickname: user.nickname, isAdmin: user.isAdmin, banned: user.banned,
      bannedUntil: user.bannedUntil.map(Millis.date))
  }

  /// Validates an optional cohort: trimmed, empty means none, at most 30 characters.
  static func validCohort(_ text: String?) throws -> String? {
    guard let text else { return nil }
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    if trimmed.isEmpty { return nil }
    guard trimmed.count <= 30 else {
      throw APIError.validation(.tooLong(field: "cohort", maximum: 30, actual: trimmed.count))
    }
    return trimmed
  }
}
