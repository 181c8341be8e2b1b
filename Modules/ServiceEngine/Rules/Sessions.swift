import Domain
import Foundation
import GRDB

/// Access and refresh tokens: issuing, checking, rotating and revoking.
///
/// Tokens are random strings stored in `auth_token` (the dev provider signs anyone in, so they
/// are kept as-is rather than hashed). Every sign-in starts a token family; a refresh rotates
/// the pair inside the family, and a refresh token used twice revokes the whole family, as a
/// stolen and replayed token would, unless it is a retry whose answer was lost (the pair it got
/// is still unclaimed). Rules: `Docs/Rules.md`, "Sessions".
enum Sessions {
  /// Mints an access + refresh pair for `user` in `family` (a new family when `nil`).
  static func issue(
    _ db: Database, user: UserRecord, family: String? = nil, engine: ServiceEngine,
    _ moment: ServiceEngine.Moment
  ) throws -> AuthSession {
    let now = moment.now
    let settings = engine.configuration
    let family = family ?? engine.secrets.token(prefix: "fam_")
    let accessExpiry = Millis.from(now.addingTimeInterval(settings.accessTokenLifetime))
    let refreshExpiry = Millis.from(now.addingTimeInterval(settings.refreshTokenLifetime))
    var access = AuthTokenRecord(
      token: engine.secrets.token(prefix: "at_"), kind: .access, userId: user.key, family: family,
      createdAt: Millis.from(now), expiresAt: accessExpiry)
    var refresh = AuthTokenRecord(
      token: engine.secrets.token(prefix: "rt_"), kind: .refresh, userId: user.key,
      family: family, createdAt: Millis.from(now), expiresAt: refreshExpiry,
      pairedWith: access.token)
    try access.insert(db)
    try refresh.insert(db)
    return try session(db, access, refresh, user, moment)
  }

  /// The session a client holds with the pair `access` + `refresh` of `user`.
  private static func session(
    _ db: Database, _ access: AuthTokenRecord, _ refresh: AuthTokenRecord, _ user: UserRecord,
    _ moment: ServiceEngine.Moment
  ) throws -> AuthSession {
    AuthSession(
      accessToken: access.token, refreshToken: refresh.token,
      expiresAt: Millis.date(access.expiresAt), user: try Users.user(db, user, moment))
  }

  /// The pair that replaced the spent refresh token `spent`, if the client may never have
  /// received it: asked for again within the engine's `refreshRetryWindow` of the spending,
  /// with neither token of the pair used since (its refresh token unspent, its access token
  /// never presented) and the account still there. `nil` otherwise: then it is a replay.
  static func unclaimedSuccessor(
    _ db: Database, of spent: AuthTokenRecord, engine: ServiceEngine,
    _ moment: ServiceEngine.Moment
  ) throws -> AuthSession? {
    let now = moment.now
    let window = engine.configuration.refreshRetryWindow
    guard let successor = spent.replacedBy, let spentAt = spent.revokedAt,
      Millis.date(spentAt).addingTimeInterval(window) > now,
      let refresh = try AuthTokenRecord.fetchOne(db, key: successor), refresh.revokedAt == nil,
      Millis.date(refresh.expiresAt) > now, let paired = refresh.pairedWith,
      let access = try AuthTokenRecord.fetchOne(db, key: paired), access.revokedAt == nil,
      access.usedAt == nil,
      let user = try UserRecord.fetchOne(db, key: refresh.userId), !user.isWithdrawn
    else { return nil }
    return try session(db, access, refresh, user, moment)
  }

  /// Revokes the live tokens whose `column` is `value`: one `token` (a spent refresh token),
  /// a `family` (sign-out, a replayed refresh token) or a `user_id` (withdrawal).
  static func revoke(
    _ db: Database, _ column: String, _ value: some DatabaseValueConvertible, now: Date
  ) throws {
    try db.execute(
      sql: "UPDATE auth_token SET revoked_at = ? WHERE \(column) = ? AND revoked_at IS NULL",
      arguments: [Millis.from(now), value])
  }
}

/// What an access token is worth now.
public enum AccessCheck: Sendable, Hashable {
  /// It belongs to this user.
  case valid(Viewer)
  /// It was good but is past its expiry: refresh the session.
  case expired
  /// It is unknown or revoked, or its account is gone; says which.
  case refused(String)
}

extension ServiceEngine {
  /// Checks an access token without throwing for a bad one (the server tells expiry apart).
  ///
  /// The first time a token is found valid, it is marked used (one write per token): from then
  /// on the refresh token spent for it can no longer be retried (``refresh(refreshToken:)``).
  public func checkAccessToken(_ token: String) throws(DomainError) -> AccessCheck {
    let (check, isFirstUse) = try read { db, moment in
      guard let record = try AuthTokenRecord.fetchOne(db, key: token), record.kind == .access,
        record.revokedAt == nil
      else {
        return (
          AccessCheck.refused("The access token is unknown or revoked; sign in again."), false
        )
      }
      guard Millis.date(record.expiresAt) > moment.now else { return (.expired, false) }
      guard let user = try UserRecord.fetchOne(db, key: record.userId), !user.isWithdrawn else {
        return (.refused("The account no longer exists."), false)
      }
      return (.valid(Viewer(user)), record.usedAt == nil)
    }
    if isFirstUse {
      try write { db, moment in
        try db.execute(
          sql: "UPDATE auth_token SET used_at = ? WHERE token = ? AND used_at IS NULL",
          arguments: [Millis.from(moment.now), token])
      }
    }
    return check
  }

  /// The user an access token belongs to; `DomainError.signedOut` for any token that is not
  /// valid now.
  public func authenticate(accessToken token: String) throws(DomainError) -> Viewer {
    guard case .valid(let viewer) = try checkAccessToken(token) else { throw .signedOut }
    return viewer
  }

  /// The viewer of an existing, live account (seeding, tests, admin tools).
  public func viewer(_ id: User.ID) throws(DomainError) -> Viewer {
    try read { db, _ in Viewer(try Users.live(db, id)) }
  }

  /// Rotates a refresh token: the old one is revoked and a new pair is issued in its family.
  ///
  /// A spent token coming back is a retry whose answer was lost when the pair issued for it is
  /// still unclaimed (within ``Configuration/refreshRetryWindow``, neither token used): it gets
  /// that same pair again. Otherwise it is a replay, and its whole family is revoked. Every
  /// refusal is `.signedOut`.
  public func refresh(refreshToken token: String) throws(DomainError) -> AuthSession {
    // Refusals are returned from the transaction, not thrown, so that revoking a family on
    // reuse is committed.
    let outcome: AuthSession? = try write { db, moment in
      guard let record = try AuthTokenRecord.fetchOne(db, key: token), record.kind == .refresh
      else { return nil }
      if record.revokedAt != nil {
        if let retry = try Sessions.unclaimedSuccessor(
          db, of: record, engine: self, moment)
        {
          return retry
        }
        try revokeSession(db, family: record.family, now: moment.now)
        return nil
      }
      guard Millis.date(record.expiresAt) > moment.now,
        let user = try UserRecord.fetchOne(db, key: record.userId), !user.isWithdrawn
      else { return nil }
      try Sessions.revoke(db, "token", token, now: moment.now)
      let session = try Sessions.issue(
        db, user: user, family: record.family, engine: self, moment)
      try db.execute(
        sql: "UPDATE auth_token SET replaced_by = ? WHERE token = ?",
        arguments: [session.refreshToken, token])
      return session
    }
    guard let outcome else { throw .signedOut }
    return outcome
  }

  /// Ends the session a refresh token belongs to, if it is the viewer's; anything else is
  /// ignored (signing out always succeeds).
  public func signOut(refreshToken: String, as viewer: Viewer) throws(DomainError) {
    try write { db, moment in
      guard let record = try AuthTokenRecord.fetchOne(db, key: refreshToken),
        record.kind == .refresh, record.userId == viewer.key
      else { return }
      try revokeSession(db, family: record.family, now: moment.now)
    }
  }

  /// Revokes every token of the session `family`; once that commits, the chat listeners opened
  /// with its tokens end (``ChatListener/Ending/sessionRevoked``).
  func revokeSession(_ db: Database, family: String, now: Date) throws {
    try Sessions.revoke(db, "family", family, now: now)
    db.afterNextTransaction { [chatEvents] _ in chatEvents.endSession(family) }
  }
}
