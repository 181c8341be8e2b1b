import DTO
import Domain
import Foundation
import GRDB
import Hummingbird

/// `PATCH /me`: unlike `UpdateProfileRequest`, tells an absent `cohort` ("unchanged") from an
/// explicit `null` ("clear it"), as the contract requires.
struct ProfilePatch: Decodable, Sendable {
  enum Change<Value: Sendable>: Sendable {
    case unchanged
    case set(Value)
  }

  var nickname: String?
  var cohort: Change<String?> = .unchanged

  enum CodingKeys: String, CodingKey {
    case nickname
    case cohort
  }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    nickname = try container.decodeIfPresent(String.self, forKey: .nickname)
    if container.contains(.cohort) {
      cohort = .set(
        try container.decodeNil(forKey: .cohort)
          ? nil : container.decode(String.self, forKey: .cohort))
    }
  }
}

/// The signed-in user's own account: profile changes, withdrawal, nickname checks.
enum Profiles {
  static func update(_ me: Viewer, _ patch: ProfilePatch, core: ServerCore) async throws -> UserDTO
  {
    let nickname = try patch.nickname.map { text in
      try validate { () throws(ValidationError) in try Nickname(validating: text) }
    }
    var cohortChange: ProfilePatch.Change<String?> = .unchanged
    if case .set(let text) = patch.cohort { cohortChange = .set(try Users.validCohort(text)) }
    let (now, cohort) = (core.now, cohortChange)
    return try await core.write { db in
      var user = try Users.live(db, me.id)
      if let nickname {
        guard try !Users.isTaken(db, nickname: nickname.rawValue, except: me.id) else {
          throw APIError.nicknameTaken
        }
        user.nickname = nickname.rawValue
        user.nicknameKey = UserRecord.key(forNickname: nickname.rawValue)
      }
      if case .set(let value) = cohort { user.cohort = value }
      try user.update(db)
      return try Users.dto(db, user, now: now)
    }
  }

  /// Deletes the account: content stays (shown as "(withdrawn)"), the nickname and provider
  /// account are freed, every token is revoked, memberships of others' groups end.
  static func withdraw(_ me: Viewer, core: ServerCore) async throws {
    let now = core.now
    try await core.write { db in
      var user = try Users.live(db, me.id)
      user.withdrawnAt = Millis.from(now)
      user.nicknameKey = nil
      user.providerKey = nil
      user.email = nil
      user.avatarUrl = nil
      try user.update(db)
      try Sessions.revokeAll(db, userID: me.id, now: now)
      try db.execute(
        sql: "DELETE FROM group_member WHERE user_id = ? AND role <> 'owner'", arguments: [me.id])
      try db.execute(sql: "DELETE FROM avatar WHERE user_id = ?", arguments: [me.id])
    }
  }

  /// Whether a nickname passes the rules and is free; a refusal is an answer, not an error.
  static func availability(
    of text: String, core: ServerCore
  ) async throws
    -> NicknameAvailabilityDTO
  {
    let nickname: Nickname
    do {
      nickname = try Nickname(validating: text)
    } catch {
      return NicknameAvailabilityDTO(nickname: text, available: false, reason: error.description)
    }
    let taken = try await core.read { db in try Users.isTaken(db, nickname: nickname.rawValue) }
    return NicknameAvailabilityDTO(
      nickname: nickname.rawValue, available: !taken,
      reason: taken ? "The nickname is taken." : nil)
  }
}

/// Profile pictures: `PUT /me/avatar` (multipart, part `image`, JPEG or PNG) stores them in the
/// database; `GET /avatars/<user id>` serves them.
enum Avatars {
  struct Image: Sendable {
    var contentType: String
    var data: Data
  }

  /// The `image` part of a multipart body, checked to be a JPEG or PNG by its bytes.
  static func image(from call: Call) throws -> Image {
    guard let contentType = call.request.headers[.contentType],
      contentType.lowercased().hasPrefix("multipart/form-data")
    else {
      throw APIError.malformed("Send the picture as multipart/form-data with a part named image.")
    }
    guard let boundary = Multipart.boundary(of: contentType) else {
      throw APIError.malformed("The multipart Content-Type has no boundary.")
    }
    let parts = Multipart.parts(of: Data(buffer: call.body), boundary: boundary)
    guard let part = parts.first(where: { $0.name == "image" }), !part.data.isEmpty else {
      throw APIError.validation(field: "image", "Add a part named image with the picture.")
    }
    let bytes = [UInt8](part.data.prefix(8))
    if bytes.starts(with: [0xFF, 0xD8, 0xFF]) {
      return Image(contentType: "image/jpeg", data: part.data)
    }
    if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
      return Image(contentType: "image/png", data: part.data)
    }
    throw APIError.validation(field: "image", "image must be a JPEG or PNG picture.")
  }

  static func store(_ image: Image, for me: Viewer, call: Call) async throws -> UserDTO {
    let now = call.now
    let base = baseURL(of: call)
    return try await call.core.write { db in
      var user = try Users.live(db, me.id)
      try db.execute(
        sql: """
          INSERT INTO avatar (user_id, content_type, data, updated_at) VALUES (?, ?, ?, ?)
          ON CONFLICT(user_id) DO UPDATE SET content_type = excluded.content_type,
            data = excluded.data, updated_at = excluded.updated_at
          """,
        arguments: [me.id, image.contentType, image.data, Millis.from(now)])
      // The version query makes caches fetch a replaced picture.
      user.avatarUrl = "\(base)/avatars/\(PublicID.user(me.id))?v=\(Millis.from(now))"
      try user.update(db)
      return try Users.dto(db, user, now: now)
    }
  }

  static func serve(_ key: Int64, core: ServerCore) async throws -> Reply {
    let stored = try await core.read { db -> (String, Data)? in
      guard
        let row = try Row.fetchOne(
          db, sql: "SELECT content_type, data FROM avatar WHERE user_id = ?", arguments: [key])
      else { return nil }
      return (row["content_type"], row["data"])
    }
    guard let (contentType, data) = stored else {
      throw APIError.notFound("No avatar for \(PublicID.user(key)).")
    }
    var headers = HTTPFields()
    headers[.contentType] = contentType
    headers[.cacheControl] = "public, max-age=31536000, immutable"
    return Reply(status: .ok, headers: headers, body: data)
  }

  /// `http://<Host header>`: the address the client used, so the URL works from where it is.
  private static func baseURL(of call: Call) -> String {
    if let host = call.request.head.authority, !host.isEmpty {
      return "http://\(host)"
    }
    let configuration = call.core.configuration
    return "http://\(configuration.host):\(configuration.port)"
  }
}
