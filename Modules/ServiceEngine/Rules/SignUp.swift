import Domain
import Foundation
import GRDB

/// Sign-in with a provider, the academy e-mail code and sign-up (`Docs/Rules.md`, "Sign-up").
///
/// Only the `dev` provider works here: its token is the provider account key, so the same token
/// signs into the same account. An unknown account gets a sign-up token (1 hour); the e-mail
/// code has 6 digits, lasts 10 minutes and allows 5 wrong attempts.
enum SignUpFlow {
  static let signUpTokenLifetime: TimeInterval = 3600
  static let codeLifetime: TimeInterval = 600
  static let maximumAttempts = 5

  /// The sign-up row of `token` if it exists and has not expired, else `.signedOut`.
  static func liveSignUp(_ db: Database, token: String, now: Date) throws -> SignUpRecord {
    guard let record = try SignUpRecord.fetchOne(db, key: token),
      Millis.date(record.expiresAt) > now
    else { throw DomainError.signedOut }
    return record
  }

  /// The provider key of a dev token.
  static func providerKey(devToken token: String) -> String { "dev:" + token }

  /// Inserts an account: `nicknameTaken` when a live user has the nickname, `providerTaken`
  /// when an account signs in with `providerKey` already.
  static func createAccount(
    _ db: Database, nickname: Nickname, role: UserRole, cohort: String?, joinedAt: Int64,
    providerKey: String, email: String? = nil, terms: String? = nil, providerTaken: DomainError
  ) throws -> UserRecord {
    guard try !Users.isTaken(db, nickname: nickname.rawValue) else {
      throw DomainError.nicknameTaken
    }
    guard try UserRecord.filter(Column("provider_key") == providerKey).fetchCount(db) == 0 else {
      throw providerTaken
    }
    var user = UserRecord(
      nickname: nickname.rawValue, nicknameKey: nickname.key,
      role: role, cohort: cohort, joinedAt: joinedAt, avatarUrl: nil, providerKey: providerKey,
      email: email, termsVersion: terms, banned: false)
    try user.insert(db)
    return user
  }
}

/// A sign-up code the service "sent": the dev service logs it instead of mailing it.
public struct SentEmailCode: Sendable, Hashable {
  /// The normalized address.
  public var email: EmailAddress
  /// The six digits.
  public var code: String
  /// When the code stops working.
  public var expiresAt: Date
}

extension ServiceEngine {
  /// Signs in with a provider's token: a session for a known account, a sign-up token for a
  /// new one. Only `dev` works here; `apple` and `kakao` are refused with a field error.
  public func signIn(provider: String, token rawToken: String) throws(DomainError) -> SignInResult {
    switch AuthProvider(rawValue: provider) {
    case .dev: break
    case .apple, .kakao:
      throw .validation(
        .invalidFormat(
          field: "provider", expected: "dev (only dev sign-in works on the local service)"))
    case nil:
      throw .validation(
        .invalidFormat(
          field: "provider", expected: "one of apple, kakao, dev (got \"\(provider)\")"))
    }
    let token = try validated(try TextRule.signInToken.validate(rawToken))
    let providerKey = SignUpFlow.providerKey(devToken: token)
    return try write { db, moment in
      if let user = try UserRecord.filter(Column("provider_key") == providerKey).fetchOne(db) {
        return .signedIn(try Sessions.issue(db, user: user, engine: self, moment))
      }
      var record = SignUpRecord(
        token: secrets.token(prefix: "sut_"), providerKey: providerKey, createdAt: moment.millis,
        expiresAt: Millis.from(moment.now.addingTimeInterval(SignUpFlow.signUpTokenLifetime)),
        attempts: 0)
      try record.insert(db)
      return .needsSignUp(SignUpToken(rawValue: record.token))
    }
  }

  /// Sends (stores) a new 6-digit code for the academy address of a sign-up; an earlier code
  /// stops working.
  public func requestEmailCode(
    signUpToken: String, email text: String
  ) throws(DomainError) -> SentEmailCode {
    let signUpToken = try validated(try TextRule.required("sign_up_token").validate(signUpToken))
    let email = try validated(try EmailAddress(validating: text))
    let code = secrets.sixDigits()
    return try write { db, moment in
      var record = try SignUpFlow.liveSignUp(db, token: signUpToken, now: moment.now)
      let expiry = Millis.from(moment.now.addingTimeInterval(SignUpFlow.codeLifetime))
      record.email = email.rawValue
      record.code = code
      record.codeExpiresAt = expiry
      record.attempts = 0
      record.verificationToken = nil
      record.verifiedEmail = nil
      try record.update(db)
      return SentEmailCode(email: email, code: code, expiresAt: Millis.date(expiry))
    }
  }

  /// Checks a code; five wrong attempts end it. Returns the token that proves the address.
  public func verifyEmailCode(
    signUpToken: String, email emailText: String, code codeText: String
  ) throws(DomainError) -> EmailVerificationToken {
    let signUpToken = try validated(try TextRule.required("sign_up_token").validate(signUpToken))
    let email = try validated(try EmailAddress(validating: emailText))
    let code = try validated(try VerificationCode(validating: codeText))
    // Wrong attempts must be counted even though the answer is an error, so the outcome is
    // returned from the transaction (a throw would roll the count back).
    let outcome: Result<String, DomainError> = try write { db, moment in
      var record = try SignUpFlow.liveSignUp(db, token: signUpToken, now: moment.now)
      func refuse(_ expected: String) -> Result<String, DomainError> {
        .failure(.validation(.invalidFormat(field: "code", expected: expected)))
      }
      guard let expected = record.code, record.email == email.rawValue,
        let expiry = record.codeExpiresAt
      else { return refuse("a code that was sent to this address (request one first)") }
      guard Millis.date(expiry) > moment.now else {
        return refuse("a code that has not expired (request a new one)")
      }
      guard expected == code.rawValue else {
        record.attempts += 1
        let left = SignUpFlow.maximumAttempts - record.attempts
        if left <= 0 { record.code = nil }
        try record.update(db)
        return refuse(
          left <= 0
            ? "a new code: too many wrong codes ended this one"
            : "the code that was sent (\(left) attempt\(left == 1 ? "" : "s") left)")
      }
      let token = secrets.token(prefix: "vt_")
      record.code = nil
      record.verificationToken = token
      record.verifiedEmail = email.rawValue
      try record.update(db)
      return .success(token)
    }
    return EmailVerificationToken(rawValue: try outcome.get())
  }

  /// Finishes sign-up: checks the verification, the nickname and the terms, creates the
  /// account and signs it in.
  public func signUp(
    signUpToken: String, verificationToken: String, nickname text: String, cohort: String?,
    agreedTermsVersion: String
  ) throws(DomainError) -> AuthSession {
    let signUpToken = try validated(try TextRule.required("sign_up_token").validate(signUpToken))
    let verificationToken = try validated(
      try TextRule.required("verification_token").validate(verificationToken))
    let terms = try validated(
      try TextRule.required("agreed_terms_version").validate(agreedTermsVersion))
    return try write { db, moment in
      let record = try SignUpFlow.liveSignUp(db, token: signUpToken, now: moment.now)
      guard let verified = record.verificationToken, verified == verificationToken,
        let email = record.verifiedEmail
      else { throw DomainError.signedOut }
      let nickname = try validated(try Nickname(validating: text))
      // When another sign-up of the same provider account finished first, this one is over
      // (`signedOut`), and signing in reaches that account.
      let user = try SignUpFlow.createAccount(
        db, nickname: nickname, role: .member, cohort: try validated(cohort, .cohort),
        joinedAt: moment.millis, providerKey: record.providerKey, email: email, terms: terms,
        providerTaken: .signedOut)
      // Every sign-up of this provider account ends with it.
      try SignUpRecord.filter(Column("provider_key") == record.providerKey).deleteAll(db)
      return try Sessions.issue(db, user: user, engine: self, moment)
    }
  }

  /// The latest code sent to `email` that is still waiting to be verified (what the dev
  /// service's log shows).
  public func lastEmailCode(for email: String) throws(DomainError) -> String? {
    let address = EmailAddress.key(email)
    return try read { db, _ in
      try String.fetchOne(
        db,
        sql: """
          SELECT code FROM sign_up WHERE email = ? AND code IS NOT NULL
          ORDER BY code_expires_at DESC LIMIT 1
          """,
        arguments: [address])
    }
  }

  /// Creates an account directly, without the e-mail round trip (seeding and tests); its dev
  /// sign-in token is `devToken`, the nickname unless given.
  @discardableResult
  public func createUser(
    nickname text: String, role: UserRole = .member, cohort: String? = nil,
    devToken: String? = nil, joinedAt: Date? = nil
  ) throws(DomainError) -> Viewer {
    let nickname = try validated(try Nickname(validating: text))
    let cohort = try validated(cohort, .cohort)
    let token = devToken ?? nickname.rawValue
    return try write { db, moment in
      Viewer(
        try SignUpFlow.createAccount(
          db, nickname: nickname, role: role, cohort: cohort,
          joinedAt: Millis.from(joinedAt ?? moment.now),
          providerKey: SignUpFlow.providerKey(devToken: token),
          providerTaken: .conflict("The dev token \(token) already belongs to an account.")))
    }
  }

  /// Starts a session for an existing account without a provider round trip (a second device
  /// in tests).
  public func startSession(for viewer: Viewer) throws(DomainError) -> AuthSession {
    try write { db, moment in
      try Sessions.issue(db, user: try Users.live(db, viewer.key), engine: self, moment)
    }
  }

  /// Makes an account an admin (tests and seeding; there is no API for it).
  public func promoteToAdmin(nickname: String) throws(DomainError) {
    try write { db, _ in
      guard var user = try Users.named(db, nickname) else { throw DomainError.notFound }
      user.role = .admin
      try user.update(db)
    }
  }
}
