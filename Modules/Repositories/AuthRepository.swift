import Dependencies
import DependenciesMacros
import Domain
import Foundation

/// Signing in and out, sign-up with academy-email verification, and the session state every
/// feature can observe (so sign-out or withdrawal reaches the main flow from anywhere).
///
/// Every throwing endpoint throws ``Domain/DomainError``.
@DependencyClient
public struct AuthRepository: Sendable {
  /// The session state now and on every change (`signedOut`, `needsSignUp`, `signedIn`).
  /// The stream yields the current state first.
  public var sessionStates: @Sendable () -> AsyncStream<SessionState> = { .finished }
  /// The session state right now.
  public var currentState: @Sendable () async -> SessionState = { .signedOut }
  /// Signs in with a provider's token; an unknown account leads to sign-up.
  public var signIn:
    @Sendable (_ provider: AuthProvider, _ token: String) async throws -> SignInResult
  /// Sends a 6-digit code to the academy email; returns when the code expires.
  public var requestEmailCode:
    @Sendable (_ signUpToken: SignUpToken, _ email: EmailAddress) async throws -> Date
  /// Checks the code and returns the token that proves the email.
  public var verifyEmailCode:
    @Sendable (_ signUpToken: SignUpToken, _ email: EmailAddress, _ code: VerificationCode)
      async throws -> EmailVerificationToken
  /// Whether a nickname can be taken.
  public var checkNickname: @Sendable (_ nickname: Nickname) async throws -> NicknameAvailability
  /// Finishes sign-up and signs in.
  public var signUp: @Sendable (_ form: SignUpForm) async throws -> User
  /// Signs out: revokes the refresh token on the server and forgets the credentials.
  public var signOut: @Sendable () async throws -> Void
  /// Deletes the account and signs out.
  public var withdraw: @Sendable () async throws -> Void
}

/// One's own profile and other members' public profiles.
@DependencyClient
public struct ProfileRepository: Sendable {
  /// The signed-in user's profile.
  public var fetchMe: @Sendable () async throws -> User
  /// Changes nickname or cohort.
  public var updateProfile: @Sendable (_ update: ProfileUpdate) async throws -> User
  /// Uploads a profile image: a JPEG or PNG picture, told by its bytes (`Domain.AvatarImageType`),
  /// as the service tells it; `mimeType` is what the caller believes, and the bytes win.
  public var uploadAvatar:
    @Sendable (_ imageData: Data, _ fileName: String, _ mimeType: String) async throws -> User
  /// Another member's public profile.
  public var fetchUser: @Sendable (_ id: User.ID) async throws -> User
  /// The user who goes by a nickname (case-insensitively, trimmed and NFC-normalized:
  /// `Nickname.lookupText(_:)`); `DomainError.notFound` when nobody does (e.g. to open a
  /// direct chat by nickname), a validation error on `nickname` when it is blank.
  public var findUser: @Sendable (_ nickname: String) async throws -> User
  /// The signed-in user's answers, newest first.
  public var fetchMyAnswers: @Sendable (_ page: PageRequest) async throws -> Page<Answer>
}
