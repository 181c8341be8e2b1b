import Domain
import Foundation

// Accounts, sign-in, the email-code sign-up flow, sign-out, withdrawal and profiles.

extension BackendState {
  /// How long an email code stays valid.
  static let emailCodeLifetime: TimeInterval = 10 * 60
  /// Wrong attempts after which a code stops working.
  static let emailCodeAttempts = 5
  /// How long a sign-up token from sign-in stays valid.
  static let signUpTokenLifetime: TimeInterval = 60 * 60
  /// The longest cohort text.
  static let cohortLength = 30
  /// The first bytes of each accepted avatar type, by file extension.
  static let imageSignatures: [String: [UInt8]] = [
    "jpg": [0xFF, 0xD8, 0xFF],
    "png": [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A],
  ]

  /// The key of a provider account: the same token signs in to the same account.
  static func providerKey(_ provider: AuthProvider, _ token: String) -> String {
    "\(provider.rawValue):\(token)"
  }

  /// Stores a new account.
  mutating func insertUser(
    nickname: String, role: UserRole, cohort: String?, providerKey: String?,
    email: String? = nil
  ) -> UserRecord {
    let record = UserRecord(
      id: makeID("u"), nickname: nickname, role: role, cohort: cohort.flatMap(Self.trimmedOrNil),
      joinedAt: now, providerKey: providerKey, email: email, order: nextOrder())
    users[record.id] = record
    return record
  }

  /// Signs `client` in as `userID` with fresh tokens, replacing any session it had.
  mutating func startSession(
    for userID: User.ID, on client: FakeClient.ID
  ) -> AuthSession {
    if let old = clients[client]?.accessToken { sessions[old] = nil }
    let session = SessionRecord(
      userID: userID, accessToken: makeToken("access"), refreshToken: makeToken("refresh"),
      expiresAt: now.addingTimeInterval(accessTokenLifetime))
    sessions[session.accessToken] = session
    clients[client, default: ClientRecord()].accessToken = session.accessToken
    let user = userView(users[userID]!)
    setState(.signedIn(user), of: client)
    return AuthSession(
      accessToken: session.accessToken, refreshToken: session.refreshToken,
      expiresAt: session.expiresAt, user: user)
  }

  /// Ends `client`'s session, if any, and tells its subscribers.
  mutating func endSession(of client: FakeClient.ID) {
    dropSession(of: client)
    setState(.signedOut, of: client)
  }

  /// Revokes `client`'s session, if any, without touching its state: the caller publishes
  /// the next one (sign-in of an unknown account goes straight to `.needsSignUp`).
  mutating func dropSession(of client: FakeClient.ID) {
    if let token = clients[client]?.accessToken { sessions[token] = nil }
    clients[client]?.accessToken = nil
  }

  /// `POST /auth/sign-in`: only the dev provider works; an unknown account needs sign-up.
  mutating func signIn(
    client: FakeClient.ID, provider: AuthProvider, token: String
  ) throws(DomainError) -> SignInResult {
    guard provider == .dev else {
      throw .validation(
        .invalidFormat(
          field: "provider",
          expected: "dev: only dev sign-in works against the local server and the fakes"))
    }
    let token = token.trimmingCharacters(in: .whitespacesAndNewlines)
    guard !token.isEmpty else { throw .validation(.empty(field: "token")) }
    let key = Self.providerKey(provider, token)
    if let user = users.values.first(where: { $0.providerKey == key }) {
      return .signedIn(startSession(for: user.id, on: client))
    }
    // Like the live session controller: the old session ends, but no `.signedOut` state
    // flashes between `.signedIn` and `.needsSignUp`.
    dropSession(of: client)
    let signUpToken = SignUpToken(rawValue: makeToken("signup"))
    signUps[signUpToken.rawValue] = SignUpRecord(
      providerKey: key, expiresAt: now.addingTimeInterval(Self.signUpTokenLifetime))
    setState(.needsSignUp(signUpToken), of: client)
    return .needsSignUp(signUpToken)
  }

  /// `POST /auth/email/code`: a new 6-digit code replaces any earlier one for the address.
  mutating func requestEmailCode(
    signUpToken: SignUpToken, email: EmailAddress
  ) throws(DomainError) -> Date {
    _ = try liveSignUp(signUpToken)
    let code = String(Int.random(in: 0...999_999)).leftPadded(to: 6)
    let expiresAt = now.addingTimeInterval(Self.emailCodeLifetime)
    emailCodes[Self.codeKey(signUpToken, email)] = EmailCodeRecord(
      code: code, signUpToken: signUpToken.rawValue, email: email.rawValue, expiresAt: expiresAt)
    lastCodeByEmail[email.rawValue] = code
    return expiresAt
  }

  /// `POST /auth/email/verify`: codes expire after 10 minutes and die after 5 wrong tries.
  mutating func verifyEmailCode(
    signUpToken: SignUpToken, email: EmailAddress, code: VerificationCode
  ) throws(DomainError) -> EmailVerificationToken {
    _ = try liveSignUp(signUpToken)
    let key = Self.codeKey(signUpToken, email)
    guard var record = emailCodes[key], !record.isUsed else {
      throw .validation(
        .invalidFormat(field: "code", expected: "the code sent to \(email); request a new one"))
    }
    guard record.expiresAt > now else {
      throw .validation(
        .invalidFormat(field: "code", expected: "a code that has not expired; request a new one"))
    }
    guard record.failedAttempts < Self.emailCodeAttempts else {
      throw .validation(
        .invalidFormat(field: "code", expected: "a new code: this one was tried too many times"))
    }
    guard record.code == code.rawValue else {
      record.failedAttempts += 1
      emailCodes[key] = record
      throw .validation(
        .invalidFormat(field: "code", expected: "the 6-digit code sent to \(email)"))
    }
    record.isUsed = true
    emailCodes[key] = record
    let token = EmailVerificationToken(rawValue: makeToken("verified"))
    verifications[token.rawValue] = VerificationRecord(
      signUpToken: signUpToken.rawValue, email: email.rawValue)
    return token
  }

  /// `GET /nicknames/availability`.
  func nicknameAvailability(_ nickname: Nickname) -> NicknameAvailability {
    do {
      let valid = try Nickname(validating: nickname.rawValue)
      if isNicknameTaken(valid.rawValue) {
        return NicknameAvailability(
          nickname: valid.rawValue, isAvailable: false,
          reason: DomainError.nicknameTaken.description)
      }
      return NicknameAvailability(nickname: valid.rawValue, isAvailable: true)
    } catch {
      return NicknameAvailability(
        nickname: nickname.rawValue, isAvailable: false, reason: error.description)
    }
  }

  /// `POST /auth/sign-up`: creates the account and signs the client in.
  mutating func signUp(client: FakeClient.ID, form: SignUpForm) throws(DomainError) -> User {
    let signUp = try liveSignUp(form.signUpToken)
    // Like the server: a verification token of another sign-up is 401, so sign in again.
    guard let verification = verifications[form.verificationToken.rawValue],
      verification.signUpToken == form.signUpToken.rawValue
    else { throw .signedOut }
    let nickname = try validating { () throws(ValidationError) in
      try Nickname(validating: form.nickname.rawValue)
    }
    guard Self.trimmedOrNil(form.agreedTermsVersion) != nil else {
      throw .validation(.empty(field: "agreed_terms_version"))
    }
    let cohort = try Self.validCohort(form.cohort)
    guard !isNicknameTaken(nickname.rawValue) else { throw .nicknameTaken }
    guard !users.values.contains(where: { $0.providerKey == signUp.providerKey }) else {
      throw .conflict("This sign-in account already has a Qapple account. Sign in instead.")
    }
    let record = insertUser(
      nickname: nickname.rawValue, role: .member, cohort: cohort,
      providerKey: signUp.providerKey, email: verification.email)
    signUps[form.signUpToken.rawValue] = nil
    verifications[form.verificationToken.rawValue] = nil
    return startSession(for: record.id, on: client).user
  }

  /// `DELETE /me`: the account goes, its content stays (shown as "(withdrawn)"), every
  /// session of it is revoked.
  mutating func withdraw(client: FakeClient.ID, userID: User.ID) {
    users[userID] = nil
    revokeSessions(of: userID)
    notifications = notifications.filter { $0.value.recipientID != userID }
    for id in groups.keys where groups[id]?.ownerID != userID {
      groups[id]?.members[userID] = nil
    }
    endSession(of: client)
  }

  // MARK: - Profile

  /// `PATCH /me`.
  mutating func updateProfile(
    client: FakeClient.ID, userID: User.ID, update: ProfileUpdate
  ) throws(DomainError) -> User {
    guard var record = users[userID] else { throw .signedOut }
    if let nickname = update.nickname {
      let valid = try validating { () throws(ValidationError) in
        try Nickname(validating: nickname.rawValue)
      }
      guard !isNicknameTaken(valid.rawValue, except: userID) else { throw .nicknameTaken }
      record.nickname = valid.rawValue
    }
    if let cohort = update.cohort { record.cohort = try Self.validCohort(cohort) }
    users[userID] = record
    let user = userView(record)
    userUpdated(user, on: client)
    return user
  }

  /// `PUT /me/avatar`: JPEG or PNG only.
  mutating func uploadAvatar(
    client: FakeClient.ID, userID: User.ID, data: Data, fileName: String, mimeType: String
  ) throws(DomainError) -> User {
    let extensions = ["image/jpeg": "jpg", "image/png": "png"]
    guard let fileExtension = extensions[mimeType.lowercased()] else {
      throw .validation(.invalidFormat(field: "image", expected: "a JPEG or PNG image"))
    }
    guard !data.isEmpty else { throw .validation(.empty(field: "image")) }
    // Like the live repository (and the server, which reads the bytes): the data must start
    // with the signature of the declared type.
    guard data.starts(with: Self.imageSignatures[fileExtension] ?? []) else {
      throw .validation(.invalidFormat(field: "image", expected: "a JPEG or PNG image"))
    }
    guard var record = users[userID] else { throw .signedOut }
    let version = nextOrder()
    record.avatarURL = URL(
      string: "https://avatars.qapple.test/\(userID.rawValue)/\(version).\(fileExtension)")
    record.avatarData = data
    users[userID] = record
    let user = userView(record)
    userUpdated(user, on: client)
    return user
  }

  /// `GET /users/{id}`.
  func fetchUser(_ id: User.ID) throws(DomainError) -> User {
    guard let record = users[id] else { throw .notFound }
    return userView(record)
  }

  // MARK: - Helpers

  /// The sign-up of `token` if it exists and has not expired; otherwise 401 (sign in again).
  func liveSignUp(_ token: SignUpToken) throws(DomainError) -> SignUpRecord {
    guard let record = signUps[token.rawValue], record.expiresAt > now else { throw .signedOut }
    return record
  }

  /// A cohort as the server keeps it: trimmed, empty means none, at most 30 characters.
  static func validCohort(_ text: String?) throws(DomainError) -> String? {
    guard let trimmed = text.flatMap(trimmedOrNil) else { return nil }
    guard trimmed.count <= cohortLength else {
      throw .validation(.tooLong(field: "cohort", maximum: cohortLength, actual: trimmed.count))
    }
    return trimmed
  }

  static func codeKey(_ token: SignUpToken, _ email: EmailAddress) -> String {
    "\(token.rawValue)|\(email.rawValue)"
  }

  /// Trimmed text, or `nil` when nothing is left.
  static func trimmedOrNil(_ text: String) -> String? {
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    return trimmed.isEmpty ? nil : trimmed
  }
}

extension String {
  /// The string with leading zeros up to `length` characters.
  func leftPadded(to length: Int) -> String {
    String(repeating: "0", count: max(0, length - count)) + self
  }
}
