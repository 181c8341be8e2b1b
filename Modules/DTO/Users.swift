import Domain
import Foundation

/// A response DTO that becomes one Domain value; lets `PageDTO` map its items without a closure.
public protocol DomainConvertible: Sendable {
  /// The Domain type this DTO maps to.
  associatedtype DomainValue: Sendable
  /// The Domain value, or a ``MappingError`` naming the wire field at fault.
  func toDomain() throws(MappingError) -> DomainValue
}

/// `User`: a member's profile.
public struct UserDTO: Codable, Hashable, Sendable, DomainConvertible {
  /// The user's identifier.
  public var id: String
  /// The nickname.
  public var nickname: String
  /// `member` or `admin`.
  public var role: UserRoleDTO
  /// The academy cohort.
  public var cohort: String?
  /// When the account was created.
  public var joinedAt: Date
  /// How many daily questions the user answered.
  public var answerCount: Int
  /// The profile image URL.
  public var avatarUrl: String?
  /// Whether the user is banned from writing.
  public var isBanned: Bool

  /// Creates a user DTO.
  public init(
    id: String, nickname: String, role: UserRoleDTO, cohort: String? = nil, joinedAt: Date,
    answerCount: Int, avatarUrl: String? = nil, isBanned: Bool
  ) {
    self.id = id
    self.nickname = nickname
    self.role = role
    self.cohort = cohort
    self.joinedAt = joinedAt
    self.answerCount = answerCount
    self.avatarUrl = avatarUrl
    self.isBanned = isBanned
  }

  /// The wire form of a Domain user.
  public init(_ user: User) {
    let role: UserRoleDTO
    switch user.role {
    case .member: role = .member
    case .admin: role = .admin
    case .unknown(let text): role = .unknown(text)
    }
    self.init(
      id: user.id.rawValue, nickname: user.nickname.rawValue, role: role, cohort: user.cohort,
      joinedAt: user.joinedAt, answerCount: user.answerCount,
      avatarUrl: user.avatarURL?.absoluteString, isBanned: user.isBanned)
  }

  /// The Domain user; an unknown role is kept as `UserRole.unknown`.
  public func toDomain() throws(MappingError) -> User {
    let role: UserRole
    switch self.role {
    case .member: role = .member
    case .admin: role = .admin
    case .unknown(let text): role = .unknown(text)
    }
    // The server is the authority on nicknames, so only emptiness is checked here.
    return User(
      id: try id.id("id"), nickname: Nickname(trusted: try nickname.nonEmpty("nickname")),
      role: role, cohort: cohort, joinedAt: joinedAt,
      answerCount: try answerCount.nonNegative("answer_count"),
      avatarURL: try avatarUrl.map { text throws(MappingError) in try webURL(text, "avatar_url") },
      isBanned: isBanned)
  }

  /// Writes every key; absent values are sent as `null`, as the contract requires.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(id, forKey: .id)
    try container.encode(nickname, forKey: .nickname)
    try container.encode(role, forKey: .role)
    try container.encode(cohort, forKey: .cohort)
    try container.encode(joinedAt, forKey: .joinedAt)
    try container.encode(answerCount, forKey: .answerCount)
    try container.encode(avatarUrl, forKey: .avatarUrl)
    try container.encode(isBanned, forKey: .isBanned)
  }

  enum CodingKeys: String, CodingKey {
    case id
    case nickname
    case role
    case cohort
    case joinedAt = "joined_at"
    case answerCount = "answer_count"
    case avatarUrl = "avatar_url"
    case isBanned = "is_banned"
  }
}

/// An absolute http(s) URL, or a `MappingError.invalidFormat` at `field`.
func webURL(_ text: String, _ field: String) throws(MappingError) -> URL {
  guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
    scheme == "https" || scheme == "http", url.host?.isEmpty == false
  else {
    throw MappingError(
      path: field, problem: .invalidFormat(value: text, expected: "an absolute http(s) URL"))
  }
  return url
}

/// `UserSummary`: who someone is, in lists.
public struct UserSummaryDTO: Codable, Hashable, Sendable, DomainConvertible {
  /// The user's identifier.
  public var id: String
  /// The nickname.
  public var nickname: String

  /// Creates a summary DTO.
  public init(id: String, nickname: String) {
    self.id = id
    self.nickname = nickname
  }

  /// The wire form of a Domain summary.
  public init(_ summary: UserSummary) {
    self.init(id: summary.id.rawValue, nickname: summary.nickname)
  }

  /// The Domain summary.
  public func toDomain() throws(MappingError) -> UserSummary {
    UserSummary(id: try id.id("id"), nickname: try nickname.nonEmpty("nickname"))
  }

  enum CodingKeys: String, CodingKey {
    case id
    case nickname
  }
}

/// `Session`: the tokens of a signed-in session.
public struct SessionDTO: Codable, Hashable, Sendable, DomainConvertible {
  /// The bearer token.
  public var accessToken: String
  /// The token that renews the session; rotates on every refresh.
  public var refreshToken: String
  /// When the access token expires.
  public var expiresAt: Date
  /// The signed-in user.
  public var user: UserDTO

  /// Creates a session DTO.
  public init(accessToken: String, refreshToken: String, expiresAt: Date, user: UserDTO) {
    self.accessToken = accessToken
    self.refreshToken = refreshToken
    self.expiresAt = expiresAt
    self.user = user
  }

  /// The wire form of a Domain session.
  public init(_ session: AuthSession) {
    self.init(
      accessToken: session.accessToken, refreshToken: session.refreshToken,
      expiresAt: session.expiresAt, user: UserDTO(session.user))
  }

  /// The Domain session; empty tokens are refused.
  public func toDomain() throws(MappingError) -> AuthSession {
    let user: User
    do { user = try self.user.toDomain() } catch { throw error.nested(in: "user") }
    let tokens = try tokens()
    return AuthSession(
      accessToken: tokens.access, refreshToken: tokens.refresh, expiresAt: expiresAt, user: user)
  }

  /// The two tokens, empty ones refused, without mapping ``user``: a token refresh keeps only
  /// these, so a user this client cannot map (a newer server's value) must not cost it the
  /// pair the server has already rotated.
  public func tokens() throws(MappingError) -> (access: String, refresh: String) {
    (try accessToken.nonEmpty("access_token"), try refreshToken.nonEmpty("refresh_token"))
  }

  enum CodingKeys: String, CodingKey {
    case accessToken = "access_token"
    case refreshToken = "refresh_token"
    case expiresAt = "expires_at"
    case user
  }
}

/// `SignInResponse`: a session, or a token to continue with sign-up.
public struct SignInResponseDTO: Codable, Hashable, Sendable, DomainConvertible {
  /// `signed_in` or `needs_sign_up`.
  public var status: SignInStatusDTO
  /// Set when signed in.
  public var session: SessionDTO?
  /// Set when sign-up is needed.
  public var signUpToken: String?

  /// Creates a sign-in response DTO.
  public init(status: SignInStatusDTO, session: SessionDTO? = nil, signUpToken: String? = nil) {
    self.status = status
    self.session = session
    self.signUpToken = signUpToken
  }

  /// The wire form of a Domain sign-in result.
  public init(_ result: SignInResult) {
    switch result {
    case .signedIn(let session): self.init(status: .signedIn, session: SessionDTO(session))
    case .needsSignUp(let token): self.init(status: .needsSignUp, signUpToken: token.rawValue)
    }
  }

  /// The Domain result; the field the status requires must be present.
  public func toDomain() throws(MappingError) -> SignInResult {
    switch status {
    case .signedIn:
      guard let session else {
        throw MappingError(
          path: "session", problem: .missing(requiredBecause: "status is signed_in"))
      }
      do { return .signedIn(try session.toDomain()) } catch { throw error.nested(in: "session") }
    case .needsSignUp:
      guard let signUpToken else {
        throw MappingError(
          path: "sign_up_token", problem: .missing(requiredBecause: "status is needs_sign_up"))
      }
      return .needsSignUp(SignUpToken(rawValue: try signUpToken.nonEmpty("sign_up_token")))
    case .unknown:
      throw status.unknownError("status")
    }
  }

  /// Writes every key; absent values are sent as `null`, as the contract requires.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(status, forKey: .status)
    try container.encode(session, forKey: .session)
    try container.encode(signUpToken, forKey: .signUpToken)
  }

  enum CodingKeys: String, CodingKey {
    case status
    case session
    case signUpToken = "sign_up_token"
  }
}

/// `EmailCodeSent`: when the emailed code stops working.
public struct EmailCodeSentDTO: Codable, Hashable, Sendable, DomainConvertible {
  /// When the code expires.
  public var expiresAt: Date

  /// Creates the DTO.
  public init(expiresAt: Date) { self.expiresAt = expiresAt }

  /// The expiry of the code (Domain has no wrapper type for it).
  public func toDomain() throws(MappingError) -> Date { expiresAt }

  enum CodingKeys: String, CodingKey {
    case expiresAt = "expires_at"
  }
}

/// `EmailVerified`: the token that proves the email was verified.
public struct EmailVerifiedDTO: Codable, Hashable, Sendable, DomainConvertible {
  /// The verification token for sign-up.
  public var verificationToken: String

  /// Creates the DTO.
  public init(verificationToken: String) { self.verificationToken = verificationToken }

  /// The Domain token; an empty one is refused.
  public func toDomain() throws(MappingError) -> EmailVerificationToken {
    EmailVerificationToken(rawValue: try verificationToken.nonEmpty("verification_token"))
  }

  enum CodingKeys: String, CodingKey {
    case verificationToken = "verification_token"
  }
}

/// `NicknameAvailability`: whether a nickname can be taken.
public struct NicknameAvailabilityDTO: Codable, Hashable, Sendable, DomainConvertible {
  /// The nickname that was checked.
  public var nickname: String
  /// Whether it can be taken.
  public var available: Bool
  /// Why not, for display.
  public var reason: String?

  /// Creates the DTO.
  public init(nickname: String, available: Bool, reason: String? = nil) {
    self.nickname = nickname
    self.available = available
    self.reason = reason
  }

  /// The wire form of a Domain answer.
  public init(_ availability: NicknameAvailability) {
    self.init(
      nickname: availability.nickname, available: availability.isAvailable,
      reason: availability.reason)
  }

  /// The Domain answer.
  public func toDomain() throws(MappingError) -> NicknameAvailability {
    NicknameAvailability(
      nickname: try nickname.nonEmpty("nickname"), isAvailable: available, reason: reason)
  }

  /// Writes every key; absent values are sent as `null`, as the contract requires.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(nickname, forKey: .nickname)
    try container.encode(available, forKey: .available)
    try container.encode(reason, forKey: .reason)
  }

  enum CodingKeys: String, CodingKey {
    case nickname
    case available
    case reason
  }
}
