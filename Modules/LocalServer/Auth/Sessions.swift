import DTO
import Foundation
import GRDB

/// Access and refresh tokens: issuing, checking, rotating and revoking.
///
/// Tokens are random strings stored in `auth_token` (this is a development server whose dev
/// provider signs anyone in, so they are kept as-is rather than hashed). Every sign-in starts a
/// token family; a refresh rotates the pair inside the family, and a refresh token used twice
/// revokes the whole family, as a stolen and replayed token would.
enum Sessions {
  /// Mints an access + refresh pair for `user` in `family` (a new family when `nil`).
  static func issue(
    _ db: Database, user: UserRecord, family: String? = nil, core: ServerCore
  ) throws -> SessionDTO {
    let now = core.now
    let family = family ?? Secrets.token(prefix: "fam_")
    let accessExpiry = now.addingTimeInterval(core.configuration.accessTokenLifetime.timeInterval)
    let refreshExpiry = now.addingTimeInterval(
      core.configuration.refreshTokenLifetime.timeInterval)
    var access = AuthTokenRecord(
      token: Secrets.token(prefix: "at_"), kind: "access", userId: user.key, family: family,
      createdAt: Millis.from(now), expiresAt: Millis.from(accessExpiry))
    var refresh = AuthTokenRecord(
      token: Secrets.token(prefix: "rt_"), kind: "refresh", userId: user.key, family: family,
      createdAt: Millis.from(now), expiresAt: Millis.from(refreshExpiry))
    try access.insert(db)
    try refresh.insert(db)
    return SessionDTO(
      accessToken: access.token, refreshToken: refresh.token,
      expiresAt: Millis.date(access.expiresAt), user: try Users.dto(db, user, now: now))
  }

  /// The user an access token belongs to, or 401 (`token_expired` once it is past expiry).
  static func authenticate(_ db: Database, token: String, now: Date) throws -> UserRecord {
    guard let record = try AuthTokenRecord.fetchOne(db, key: token), record.kind == "access",
      record.revokedAt == nil
    else {
      throw APIError.unauthorized("The access token is unknown or revoked; sign in again.")
    }
    guard Millis.date(record.expiresAt) > now else { throw APIError.tokenExpired }
    guard let user = try Users.any(db, record.userId), !user.isWithdrawn else {
      throw APIError.unauthorized("The account no longer exists.")
    }
    return user
  }

  /// What a refresh attempt led to. Failures are returned, not thrown, so that revoking a
  /// family on reuse is committed before the 401 goes out.
  enum RefreshOutcome: Sendable {
    case renewed(SessionDTO)
    case refused(APIError)
  }

  /// Rotates a refresh token: the old one is revoked, a new pair is issued in its family.
  static func refresh(_ db: Database, token: String, core: ServerCore) throws -> RefreshOutcome {
    let now = core.now
    guard let record = try AuthTokenRecord.fetchOne(db, key: token), record.kind == "refresh"
    else {
      return .refused(.unauthorized("The refresh token is unknown; sign in again."))
    }
    if record.revokedAt != nil {
      // A spent token came back: someone replays it. End every session of this family.
      try revoke(db, family: record.family, now: now)
      core.logger.warning(
        "Refresh token reuse detected; revoked its token family",
        metadata: ["user": .string(PublicID.user(record.userId))])
      return .refused(
        .unauthorized("The refresh token was already used; every session it started has ended."))
    }
    guard Millis.date(record.expiresAt) > now else {
      return .refused(.unauthorized("The refresh token has expired; sign in again."))
    }
    guard let user = try Users.any(db, record.userId), !user.isWithdrawn else {
      return .refused(.unauthorized("The account no longer exists."))
    }
    try db.execute(
      sql: "UPDATE auth_token SET revoked_at = ? WHERE token = ?",
      arguments: [Millis.from(now), token])
    return .renewed(try issue(db, user: user, family: record.family, core: core))
  }

  /// Revokes every token of `family`.
  static func revoke(_ db: Database, family: String, now: Date) throws {
    try db.execute(
      sql: "UPDATE auth_token SET revoked_at = ? WHERE family = ? AND revoked_at IS NULL",
      arguments: [Millis.from(now), family])
  }

  /// Ends the session a refresh token belongs to, if it is `userID`'s.
  static func signOut(_ db: Database, refreshToken: String, userID: Int64, now: Date) throws {
    guard let record = try AuthTokenRecord.fetchOne(db, key: refreshToken),
      record.kind == "refresh", record.userId == userID
    else { return }
    try revoke(db, family: record.family, now: now)
  }

  /// Revokes every token of a user (withdrawal).
  static func revokeAll(_ db: Database, userID: Int64, now: Date) throws {
    try db.execute(
      sql: "UPDATE auth_token SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL",
      arguments: [Millis.from(now), userID])
  }
}
