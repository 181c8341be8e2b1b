import Domain
import Foundation
import GRDB

/// Reads and maps users; shared by every area that shows a user.
enum Users {
  /// The live (not withdrawn) user with `key`, or `notFound`.
  static func live(_ db: Database, _ key: Int64) throws -> UserRecord {
    guard let user = try UserRecord.fetchOne(db, key: key), !user.isWithdrawn else {
      throw DomainError.notFound
    }
    return user
  }

  /// The live user with a public id, or `notFound` (ids that do not parse included).
  static func live(_ db: Database, _ id: User.ID) throws -> UserRecord {
    try live(db, try PublicID.user.require(id.rawValue))
  }

  /// The viewer as the store has them now. A socket's viewer is loaded once, at its handshake,
  /// so chat operations take bans and withdrawals since then from here; a withdrawn account is
  /// signed out.
  static func current(_ db: Database, _ viewer: Viewer) throws -> Viewer {
    // Three columns off a cached statement, not the whole record: every batch of chat sends
    // asks (decoding the full row is GRDB's slow path, see `summary`).
    let row = try Row.fetchOne(
      db.cachedStatement(
        sql:
          #"SELECT banned, banned_until, withdrawn_at IS NOT NULL AS gone FROM "user" WHERE id = ?"#
      ),
      arguments: [viewer.key])
    guard let row, !(row["gone"] as Bool) else { throw DomainError.signedOut }
    return viewer.with(
      banned: row["banned"], until: (row["banned_until"] as Int64?).map(Millis.date))
  }

  /// The user who holds `nickname` (case-insensitively), if anyone does.
  static func named(_ db: Database, _ nickname: String) throws -> UserRecord? {
    try UserRecord.filter(Column("nickname_key") == Nickname.key(nickname))
      .fetchOne(db)
  }

  /// Whether a live user other than `except` has `nickname` (case-insensitively).
  static func isTaken(_ db: Database, nickname: String, except: Int64? = nil) throws -> Bool {
    guard let owner = try named(db, nickname) else { return false }
    return owner.id != except
  }

  /// The Domain form of a user (answer count included), its avatar path behind the service's
  /// public URL.
  static func user(
    _ db: Database, _ user: UserRecord, _ moment: ServiceEngine.Moment
  ) throws
    -> User
  {
    let answers =
      try db.count(
        "SELECT COUNT(*) FROM answer WHERE author_id = ? AND deleted_at IS NULL AND NOT hidden",
        [user.key])
    return User(
      id: User.ID(rawValue: PublicID.user(user.key)), nickname: Nickname(trusted: user.displayName),
      role: user.role, cohort: user.cohort, joinedAt: Millis.date(user.joinedAt),
      answerCount: answers, avatarURL: user.avatarUrl.flatMap { avatarURL($0, moment.publicURL) },
      isBanned: user.isBanned(at: moment.now))
  }

  /// `path` (`/avatars/...`) behind `publicURL`, keeping any path the public URL has (a
  /// proxy's prefix) and dropping a query or fragment; the path alone without one.
  static func avatarURL(_ path: String, _ publicURL: URL?) -> URL? {
    guard let publicURL,
      var components = URLComponents(url: publicURL, resolvingAgainstBaseURL: true)
    else { return URL(string: path) }
    (components.query, components.fragment) = (nil, nil)
    var base = components.string ?? ""
    while base.hasSuffix("/") { base.removeLast() }
    return URL(string: base + path)
  }

  /// The summary of the user with `key` (a placeholder when the row is gone).
  static func summary(_ db: Database, _ key: Int64) throws -> UserSummary {
    // Two columns, not the whole record: every chat message sent or listed asks for one
    // (decoding the full row was a sixth of the server's time per message in P6).
    let row = try Row.fetchOne(
      db.cachedStatement(
        sql: #"SELECT nickname, withdrawn_at IS NOT NULL AS gone FROM "user" WHERE id = ?"#),
      arguments: [key])
    let nickname: String =
      if let row, !(row["gone"] as Bool) { row["nickname"] } else { UserRecord.withdrawnName }
    return UserSummary(id: User.ID(rawValue: PublicID.user(key)), nickname: nickname)
  }

}

/// Optional text checked against `rule` and trimmed; `nil` when it is `nil` or blank (a field
/// left out: a cohort, a note, a filter).
func validated(_ text: String?, _ rule: TextRule) throws(DomainError) -> String? {
  try validated(try rule.validate(optional: text))
}

/// Runs a Domain check inside a rule, turning its `ValidationError` into `DomainError`.
func validated<T>(
  _ body: @autoclosure () throws(ValidationError) -> T
) throws(DomainError) -> T {
  do {
    return try body()
  } catch {
    throw .validation(error)
  }
}
