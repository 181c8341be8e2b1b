import Foundation

/// A member's public name: 2-12 characters of letters, digits or Hangul, unique on the server.
public struct Nickname: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  /// Allowed length in characters.
  public static let length = 2...12
  /// Names nobody may take because they would impersonate staff or anonymity labels.
  public static let reservedWords: Set<String> = [
    "admin", "administrator", "qapple", "anonymous", "moderator", "운영자", "관리자", "익명",
  ]

  /// The validated, NFC-normalized nickname.
  public let rawValue: String

  /// Validates a nickname typed by a user (surrounding whitespace is ignored).
  public init(validating text: String) throws(ValidationError) {
    let normalized = text.trimmingWhitespace().precomposedStringWithCanonicalMapping
    let count = normalized.count
    if count == 0 { throw .empty(field: "nickname") }
    let invalid = normalized.filter { !Self.isAllowed($0) }
    if !invalid.isEmpty {
      throw .invalidCharacters(field: "nickname", characters: String(invalid))
    }
    if count < Self.length.lowerBound {
      throw .tooShort(field: "nickname", minimum: Self.length.lowerBound, actual: count)
    }
    if count > Self.length.upperBound {
      throw .tooLong(field: "nickname", maximum: Self.length.upperBound, actual: count)
    }
    if Self.reservedWords.contains(Self.key(normalized)) {
      throw .reserved(field: "nickname", value: normalized)
    }
    rawValue = normalized
  }

  /// Wraps a nickname that already passed validation, e.g. one the server sent; `nil` if invalid.
  public init?(rawValue: String) {
    guard let valid = try? Nickname(validating: rawValue) else { return nil }
    self = valid
  }

  /// Wraps server-provided text without checking it; use only where the server is the authority.
  public init(trusted text: String) { rawValue = text }

  /// The nickname text.
  public var description: String { rawValue }

  /// What makes two nicknames the same name, which one user at most holds: case is ignored.
  /// The service keeps names unique by it, and a user who changes only the case of their own
  /// name keeps it (the profile editor needs no check then).
  public static func key(_ text: String) -> String { text.lowercased() }

  /// This nickname's ``key(_:)``.
  public var key: String { Self.key(rawValue) }

  /// The text a user is looked up by (`ProfileRepository.findUser`, which ignores case):
  /// `text` trimmed and NFC-normalized, as nicknames are stored; blank is
  /// `.empty(field: "nickname")`. The service and the live client (before sending) check it
  /// with this one rule.
  public static func lookupText(_ text: String) throws(ValidationError) -> String {
    try TextRule.required("nickname").validate(text).precomposedStringWithCanonicalMapping
  }

  /// ASCII letters and digits and precomposed Hangul syllables (가-힣).
  static func isAllowed(_ character: Character) -> Bool {
    guard character.unicodeScalars.count == 1, let scalar = character.unicodeScalars.first else {
      return false
    }
    switch scalar.value {
    case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0xAC00...0xD7A3: return true
    default: return false
    }
  }
}

/// What a user may do: members use the app, admins moderate.
public enum UserRole: Hashable, Sendable {
  /// A learner using the member app.
  case member
  /// A moderator using the admin tool.
  case admin
  /// A role this SDK version does not know; treated like a member.
  case unknown(String)

  /// Whether admin routes are open to this role.
  public var isAdmin: Bool { self == .admin }
}

/// A signed-up person (their own profile, or another member's public profile).
public struct User: Identifiable, Hashable, Sendable {
  /// The typed identifier of a user.
  public typealias ID = Identifier<User>

  /// The user's identifier.
  public var id: ID
  /// The public nickname.
  public var nickname: Nickname
  /// Member or admin.
  public var role: UserRole
  /// The academy cohort, e.g. "2026 Morning".
  public var cohort: String?
  /// When the account was created.
  public var joinedAt: Date
  /// How many daily questions the user answered (answers deleted or hidden by moderation do
  /// not count).
  public var answerCount: Int
  /// The profile image, if one was uploaded.
  public var avatarURL: URL?
  /// Whether the user is banned from writing.
  public var isBanned: Bool

  /// Creates a user.
  public init(
    id: ID, nickname: Nickname, role: UserRole = .member, cohort: String? = nil,
    joinedAt: Date, answerCount: Int = 0, avatarURL: URL? = nil, isBanned: Bool = false
  ) {
    self.id = id
    self.nickname = nickname
    self.role = role
    self.cohort = cohort
    self.joinedAt = joinedAt
    self.answerCount = answerCount
    self.avatarURL = avatarURL
    self.isBanned = isBanned
  }

  /// The short form used in lists, chats and group rosters.
  public var summary: UserSummary { UserSummary(id: id, nickname: nickname.rawValue) }
}

/// Who someone is, in lists: identifier and nickname.
public struct UserSummary: Identifiable, Hashable, Sendable {
  /// The user's identifier.
  public var id: User.ID
  /// The nickname as the server sent it.
  public var nickname: String

  /// Creates a summary.
  public init(id: User.ID, nickname: String) {
    self.id = id
    self.nickname = nickname
  }
}

/// Whether a nickname can be taken, as the server answered.
public struct NicknameAvailability: Hashable, Sendable {
  /// The nickname that was checked.
  public var nickname: String
  /// `true` when nobody has it and it passes the rules.
  public var isAvailable: Bool
  /// Why it is not available, for display.
  public var reason: String?

  /// Creates an availability answer.
  public init(nickname: String, isAvailable: Bool, reason: String? = nil) {
    self.nickname = nickname
    self.isAvailable = isAvailable
    self.reason = reason
  }
}

/// Changes to one's own profile; `nil` fields stay as they are.
public struct ProfileUpdate: Hashable, Sendable {
  /// A new nickname.
  public var nickname: Nickname?
  /// A new cohort; a blank text clears it.
  public var cohort: String?

  /// Creates an update.
  public init(nickname: Nickname? = nil, cohort: String? = nil) {
    self.nickname = nickname
    self.cohort = cohort
  }
}

/// The picture types an avatar may be, told by the bytes (their first bytes' signature), not by
/// what a client declares: the one rule the service and the live client check.
public enum AvatarImageType: String, Sendable, CaseIterable {
  /// `image/jpeg`.
  case jpeg = "image/jpeg"
  /// `image/png`.
  case png = "image/png"

  /// The type `data` is: `.empty(field: "image")` when there are no bytes,
  /// `.invalidFormat(field: "image")` when they are neither a JPEG nor a PNG picture.
  public init(of data: Data) throws(ValidationError) {
    guard !data.isEmpty else { throw .empty(field: "image") }
    guard let type = Self.allCases.first(where: { data.starts(with: $0.signature) }) else {
      throw .invalidFormat(field: "image", expected: "a JPEG or PNG picture")
    }
    self = type
  }

  /// The MIME type (`rawValue`).
  public var mimeType: String { rawValue }

  /// The first bytes every picture of this type starts with.
  var signature: [UInt8] {
    switch self {
    case .jpeg: [0xFF, 0xD8, 0xFF]
    case .png: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    }
  }
}
