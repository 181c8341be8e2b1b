import DTO
import Domain
import Foundation
import GRDB

/// Sign-in with a provider, the academy e-mail code and sign-up.
///
/// Only the `dev` provider works locally: its token is the provider account key, so the same
/// token signs into the same account. An unknown account gets a sign-up token; the e-mail code
/// (6 digits, 10 minutes, 5 attempts) is written to the server log instead of being mailed.
enum SignUpFlow {
  static let signUpTokenLifetime: TimeInterval = 3600
  static let codeLifetime: TimeInterval = 600
  static let maximumAttempts = 5

  static func signIn(_ request: SignInRequest, core: ServerCore) async throws -> SignInResponseDTO {
    switch request.provider {
    case AuthProvider.dev.rawValue: break
    case AuthProvider.apple.rawValue, AuthProvider.kakao.rawValue:
      throw APIError.validation(
        field: "provider",
        "Only dev sign-in works on the local server; sign in with provider \"dev\" and any token.")
    default:
      throw APIError.validation(
        field: "provider",
        "provider must be one of apple, kakao, dev (got \"\(request.provider)\").")
    }
    let token = request.token.trimmingCharacters(in: .whitespacesAndNewlines)
    guard !token.isEmpty else { throw APIError.validation(.empty(field: "token")) }
    guard token.count <= 200 else {
      throw APIError.validation(.tooLong(field: "token", maximum: 200, actual: token.count))
    }
    let providerKey = "dev:" + token
    let now = core.now
    return try await core.write { db in
      if let user = try UserRecord.filter(Column("provider_key") == providerKey).fetchOne(db) {
        let session = try Sessions.issue(db, user: user, core: core)
        return SignInResponseDTO(status: .signedIn, session: session)
      }
      var record = SignUpRecord(
        token: Secrets.token(prefix: "sut_"), providerKey: providerKey,
        createdAt: Millis.from(now),
        expiresAt: Millis.from(now.addingTimeInterval(signUpTokenLifetime)), attempts: 0)
      try record.insert(db)
      return SignInResponseDTO(status: .needsSignUp, signUpToken: record.token)
    }
  }

  static func requestCode(
    _ request: EmailCodeRequest, core: ServerCore
  ) async throws
    -> EmailCodeSentDTO
  {
    let now = core.now
    let email = try validate { () throws(ValidationError) in
      try EmailAddress(validating: request.email)
    }
    let code = Secrets.sixDigits()
    let expiry = now.addingTimeInterval(codeLifetime)
    try await core.write { db in
      var record = try liveSignUp(db, token: request.signUpToken, now: now)
      record.email = email.rawValue
      record.code = code
      record.codeExpiresAt = Millis.from(expiry)
      record.attempts = 0
      record.verificationToken = nil
      record.verifiedEmail = nil
      try record.update(db)
    }
    core.logger.notice(
      "E-mail verification code (dev: not mailed)",
      metadata: ["email": .string(email.rawValue), "code": .string(code)])
    return EmailCodeSentDTO(expiresAt: Millis.date(Millis.from(expiry)))
  }

  private enum VerifyOutcome: Sendable {
    case verified(String)
    case refused(APIError)
  }

  static func verify(
    _ request: EmailVerifyRequest, core: ServerCore
  ) async throws
    -> EmailVerifiedDTO
  {
    let now = core.now
    let email = try validate { () throws(ValidationError) in
      try EmailAddress(validating: request.email)
    }
    let code = try validate { () throws(ValidationError) in
      try VerificationCode(validating: request.code)
    }
    // Wrong attempts must be counted even though the answer is an error, so the outcome is
    // returned from the transaction (a throw would roll the count back).
    let outcome: VerifyOutcome = try await core.write { db in
      var record = try liveSignUp(db, token: request.signUpToken, now: now)
      guard let expected = record.code, record.email == email.rawValue,
        let expiry = record.codeExpiresAt
      else {
        return .refused(
          .validation(field: "code", "No code is waiting for this address; request one first."))
      }
      guard Millis.date(expiry) > now else {
        return .refused(.validation(field: "code", "The code has expired; request a new one."))
      }
      guard expected == code.rawValue else {
        record.attempts += 1
        let left = maximumAttempts - record.attempts
        if left <= 0 { record.code = nil }
        try record.update(db)
        return .refused(
          .validation(
            field: "code",
            left <= 0
              ? "Too many wrong codes; this code no longer works. Request a new one."
              : "The code is wrong; \(left) attempt\(left == 1 ? "" : "s") left."))
      }
      let token = Secrets.token(prefix: "vt_")
      record.code = nil
      record.verificationToken = token
      record.verifiedEmail = email.rawValue
      try record.update(db)
      return .verified(token)
    }
    switch outcome {
    case .verified(let token): return EmailVerifiedDTO(verificationToken: token)
    case .refused(let error): throw error
    }
  }

  static func signUp(_ request: SignUpRequest, core: ServerCore) async throws -> SessionDTO {
    let now = core.now
    return try await core.write { db in
      let record = try liveSignUp(db, token: request.signUpToken, now: now)
      guard let verified = record.verificationToken, verified == request.verificationToken,
        let email = record.verifiedEmail
      else {
        throw APIError.unauthorized(
          "The verification token is unknown or does not belong to this sign-up; verify the e-mail again."
        )
      }
      let nickname = try validate { () throws(ValidationError) in
        try Nickname(validating: request.nickname)
      }
      let terms = request.agreedTermsVersion.trimmingCharacters(in: .whitespacesAndNewlines)
      guard !terms.isEmpty else {
        throw APIError.validation(
          field: "agreed_terms_version", "agreed_terms_version must name the terms agreed to.")
      }
      let cohort = try Users.validCohort(request.cohort)
      guard try !Users.isTaken(db, nickname: nickname.rawValue) else {
        throw APIError.nicknameTaken
      }
      guard try UserRecord.filter(Column("provider_key") == record.providerKey).fetchCount(db) == 0
      else {
        throw APIError.conflict("This provider account already has an account; sign in instead.")
      }
      var user = UserRecord(
        nickname: nickname.rawValue, nicknameKey: UserRecord.key(forNickname: nickname.rawValue),
        role: "member", cohort: cohort, joinedAt: Millis.from(now), avatarUrl: nil,
        providerKey: record.providerKey, email: email, termsVersion: terms, banned: false)
      try user.insert(db)
      try record.delete(db)
      return try Sessions.issue(db, user: user, core: core)
    }
  }

  /// The sign-up row of `token` if it exists and has not expired, else 401.
  private static func liveSignUp(_ db: Database, token: String, now: Date) throws -> SignUpRecord {
    guard let record = try SignUpRecord.fetchOne(db, key: token),
      Millis.date(record.expiresAt) > now
    else {
      throw APIError.unauthorized("The sign-up token is unknown or expired; sign in again.")
    }
    return record
  }
}
