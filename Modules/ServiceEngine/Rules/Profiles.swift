import Domain
import Foundation
import GRDB

/// A change to one's profile: `nil` leaves a field as it is; a cohort can be set or cleared.
public struct ProfileChange: Sendable, Hashable {
  /// The new nickname, or `nil` to keep it.
  public var nickname: String?
  /// `.some(nil)` clears the cohort, `.some(text)` sets it, `nil` keeps it.
  public var cohort: String??

  /// Creates a change.
  public init(nickname: String? = nil, cohort: String?? = nil) {
    self.nickname = nickname
    self.cohort = cohort
  }
}

/// A stored profile picture.
public struct AvatarImage: Sendable, Hashable {
  /// `image/jpeg` or `image/png`, read from the bytes.
  public var contentType: String
  /// The picture.
  public var data: Data
}

extension AvatarImage {
  /// Checks the bytes: only JPEG and PNG pictures are accepted, whatever the client declared.
  public init(validating data: Data) throws(DomainError) {
    contentType = try validated(try AvatarImageType(of: data)).mimeType
    self.data = data
  }
}

extension ServiceEngine {
  /// The viewer's own profile.
  public func me(as viewer: Viewer) throws(DomainError) -> User {
    try read { db, moment in try Users.user(db, try Users.live(db, viewer.key), moment) }
  }

  /// Another member's public profile; withdrawn accounts are `notFound`.
  public func user(_ id: User.ID) throws(DomainError) -> User {
    try read { db, moment in try Users.user(db, try Users.live(db, id), moment) }
  }

  /// The live user who goes by `nickname` (case-insensitively, looked up as
  /// `Nickname.lookupText` makes it: trimmed, NFC; blank is a validation error); `notFound` when
  /// nobody does.
  public func user(nickname: String) throws(DomainError) -> User {
    guard let user = try user(named: try validated(try Nickname.lookupText(nickname))) else {
      throw .notFound
    }
    return user
  }

  /// The live user with `nickname` (case-insensitive), if any.
  public func user(named nickname: String) throws(DomainError) -> User? {
    try read { db, moment in
      try Users.named(db, nickname).map { try Users.user(db, $0, moment) }
    }
  }

  /// Changes nickname and/or cohort; a nickname someone else holds is `nicknameTaken`.
  public func updateProfile(_ change: ProfileChange, as viewer: Viewer) throws(DomainError) -> User
  {
    try viewer.requireNotBanned(at: now)
    let nickname = try change.nickname.map { text throws(DomainError) in
      try validated(try Nickname(validating: text))
    }
    var cohort: String?? = nil
    if let requested = change.cohort { cohort = .some(try validated(requested, .cohort)) }
    return try write { db, moment in
      var user = try Users.live(db, viewer.key)
      if let nickname {
        guard try !Users.isTaken(db, nickname: nickname.rawValue, except: viewer.key) else {
          throw DomainError.nicknameTaken
        }
        user.nickname = nickname.rawValue
        user.nicknameKey = nickname.key
      }
      if let cohort { user.cohort = cohort }
      try user.update(db)
      return try Users.user(db, user, moment)
    }
  }

  /// Deletes the account: content stays (shown as "(withdrawn)"), the nickname and provider
  /// account are freed, every token is revoked, memberships of others' groups end, and the
  /// account's chat listeners end (``ChatListener/Ending/accountClosed``).
  public func withdraw(as viewer: Viewer) throws(DomainError) {
    try write { db, moment in
      db.afterNextTransaction { [chatEvents] _ in chatEvents.end(viewer.id, .accountClosed) }
      var user = try Users.live(db, viewer.key)
      user.withdrawnAt = moment.millis
      user.nicknameKey = nil
      user.providerKey = nil
      user.email = nil
      user.avatarUrl = nil
      try user.update(db)
      try Sessions.revoke(db, "user_id", viewer.key, now: moment.now)
      try db.execute(
        sql: "DELETE FROM group_member WHERE user_id = ? AND role <> ?",
        arguments: [viewer.key, MemberRole.owner])
      try db.execute(sql: "DELETE FROM avatar WHERE user_id = ?", arguments: [viewer.key])
    }
  }

  /// Whether a nickname passes the rules and is free; a refusal is an answer, not an error.
  public func nicknameAvailability(_ text: String) throws(DomainError) -> NicknameAvailability {
    let nickname: Nickname
    do {
      nickname = try Nickname(validating: text)
    } catch {
      return NicknameAvailability(nickname: text, isAvailable: false, reason: error.description)
    }
    let taken = try read { db, _ in try Users.isTaken(db, nickname: nickname.rawValue) }
    return NicknameAvailability(
      nickname: nickname.rawValue, isAvailable: !taken,
      reason: taken ? DomainError.nicknameTaken.description : nil)
  }

  /// Stores the viewer's profile picture; its URL is `<publicURL>/avatars/<user id>?v=<time>`
  /// (``Configuration/publicURL``), so caches fetch a replaced picture. Nothing of the request
  /// that uploads it goes into the URL others load.
  public func uploadAvatar(_ image: AvatarImage, as viewer: Viewer) throws(DomainError) -> User {
    try viewer.requireNotBanned(at: now)
    return try write { db, moment in
      var user = try Users.live(db, viewer.key)
      try db.execute(
        sql: """
          INSERT INTO avatar (user_id, content_type, data, updated_at) VALUES (?, ?, ?, ?)
          ON CONFLICT(user_id) DO UPDATE SET content_type = excluded.content_type,
            data = excluded.data, updated_at = excluded.updated_at
          """,
        arguments: [viewer.key, image.contentType, image.data, moment.millis])
      user.avatarUrl = "\(Self.avatarsPath)/\(PublicID.user(viewer.key))?v=\(moment.millis)"
      try user.update(db)
      return try Users.user(db, user, moment)
    }
  }

  /// Where the pictures are served, `/avatars`: a user's is at `/avatars/<user id>`
  /// (``avatar(of:)``), the path ``uploadAvatar(_:as:)`` puts in their `avatarURL`.
  public static let avatarsPath = "/avatars"

  /// The stored picture of a user, or `notFound`.
  public func avatar(of id: User.ID) throws(DomainError) -> AvatarImage {
    let key = try PublicID.user.require(id.rawValue)
    return try read { db, _ in
      guard
        let row = try Row.fetchOne(
          db, sql: "SELECT content_type, data FROM avatar WHERE user_id = ?", arguments: [key])
      else { throw DomainError.notFound }
      return AvatarImage(contentType: row["content_type"], data: row["data"])
    }
  }
}
