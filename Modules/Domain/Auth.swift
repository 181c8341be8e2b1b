import Foundation

/// Where a sign-in token comes from.
public enum AuthProvider: String, CaseIterable, Hashable, Sendable {
  /// Sign in with Apple.
  case apple
  /// Kakao login.
  case kakao
  /// The development provider of the local server: any token signs in.
  case dev
}

/// The tokens of a signed-in session and who it belongs to.
public struct AuthSession: Hashable, Sendable {
  /// The short-lived bearer token.
  public var accessToken: String
  /// The long-lived token that gets a new access token; rotates on every refresh.
  public var refreshToken: String
  /// When the access token stops working.
  public var expiresAt: Date
  /// The signed-in user.
  public var user: User

  /// Creates a session.
  public init(accessToken: String, refreshToken: String, expiresAt: Date, user: User) {
    self.accessToken = accessToken
    self.refreshToken = refreshToken
    self.expiresAt = expiresAt
    self.user = user
  }
}

extension AuthSession {
  /// How long after a refresh the service answers the same spent refresh token again with the
  /// pair it issued for it (a retry whose answer was lost), as long as neither token of that
  /// pair was used: one minute (`Docs/Rules.md`, "Sessions"). Past it, a repeat is a replay
  /// and ends the session; a client's retries of one refresh must all go out within it.
  public static let refreshRetryWindow: Duration = .seconds(60)
}

/// A token the server hands out when a provider account has no Qapple account yet.
public struct SignUpToken: RawRepresentable, Hashable, Sendable {
  /// The token text.
  public let rawValue: String
  /// Wraps the token text.
  public init(rawValue: String) { self.rawValue = rawValue }
}

/// A token that proves the academy email was verified.
public struct EmailVerificationToken: RawRepresentable, Hashable, Sendable {
  /// The token text.
  public let rawValue: String
  /// Wraps the token text.
  public init(rawValue: String) { self.rawValue = rawValue }
}

/// What signing in led to.
public enum SignInResult: Hashable, Sendable {
  /// An account exists: here is its session.
  case signedIn(AuthSession)
  /// No account yet: continue with email verification and a nickname.
  case needsSignUp(SignUpToken)
}

/// Where the app stands with authentication; features observe it as a stream.
public enum SessionState: Hashable, Sendable {
  /// Nobody is signed in (also after sign-out, withdrawal or a revoked refresh token).
  case signedOut
  /// A provider account is known but sign-up is not finished.
  case needsSignUp(SignUpToken)
  /// Signed in as this user.
  case signedIn(User)
}

/// An academy email address, checked for shape before a code is sent to it.
public struct EmailAddress: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
  /// The lower-cased address.
  public let rawValue: String

  /// Validates an address typed by a user.
  public init(validating text: String) throws(ValidationError) {
    let trimmed = text.trimmingWhitespace().lowercased()
    if trimmed.isEmpty { throw .empty(field: "email") }
    let parts = trimmed.split(separator: "@", omittingEmptySubsequences: false)
    let isValid =
      parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".")
      && !parts[1].hasPrefix(".") && !parts[1].hasSuffix(".") && !parts[1].contains("..")
      && trimmed.count <= 254
      && !trimmed.contains(where: { $0.isWhitespace || $0 == "," || $0 == ";" })
    guard isValid else {
      throw .invalidFormat(field: "email", expected: "an email address such as name@example.com")
    }
    rawValue = trimmed
  }

  /// Wraps a valid address; `nil` if invalid.
  public init?(rawValue: String) {
    guard let valid = try? EmailAddress(validating: rawValue) else { return nil }
    self = valid
  }

  /// The address.
  public var description: String { rawValue }

  /// The form an address is stored and looked up by: the valid address `text` names, or `text`
  /// lower-cased where it is not one (a lookup then finds nothing instead of failing).
  public static func key(_ text: String) -> String {
    (try? EmailAddress(validating: text))?.rawValue ?? text.lowercased()
  }
}

/// The 6-digit code sent to the academy email.
public struct VerificationCode: RawRepresentable, Hashable, Sendable {
  /// The six digits.
  public let rawValue: String

  /// Validates a code typed by a user (spaces are ignored).
  public init(validating text: String) throws(ValidationError) {
    let digits = text.filter { !$0.isWhitespace }
    if digits.isEmpty { throw .empty(field: "code") }
    guard digits.count == 6, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else {
      throw .invalidFormat(field: "code", expected: "6 digits")
    }
    rawValue = digits
  }

  /// Wraps a valid code; `nil` if invalid.
  public init?(rawValue: String) {
    guard let valid = try? VerificationCode(validating: rawValue) else { return nil }
    self = valid
  }
}

/// Everything sign-up needs after the email is verified.
public struct SignUpForm: Hashable, Sendable {
  /// The token from `SignInResult.needsSignUp`.
  public var signUpToken: SignUpToken
  /// The token from email verification.
  public var verificationToken: EmailVerificationToken
  /// The chosen nickname.
  public var nickname: Nickname
  /// The academy cohort, if given.
  public var cohort: String?
  /// The version of the terms the user agreed to.
  public var agreedTermsVersion: String

  /// Creates a sign-up form.
  public init(
    signUpToken: SignUpToken, verificationToken: EmailVerificationToken, nickname: Nickname,
    cohort: String? = nil, agreedTermsVersion: String
  ) {
    self.signUpToken = signUpToken
    self.verificationToken = verificationToken
    self.nickname = nickname
    self.cohort = cohort
    self.agreedTermsVersion = agreedTermsVersion
  }
}
