import DTO
import Foundation
import NetworkKit

/// Sign-in, sign-up with academy email verification, token refresh and sign-out (`/auth/...`).
public enum AuthAPI: Sendable, Hashable {
  /// Signs in with a provider token; answers a session or "needs sign-up". Public.
  case signIn(SignInRequest)
  /// Sends a 6-digit code to the academy email during sign-up. Public.
  case requestEmailCode(EmailCodeRequest)
  /// Checks the emailed code; answers a verification token. Public.
  case verifyEmailCode(EmailVerifyRequest)
  /// Creates the account and signs in. Public.
  case signUp(SignUpRequest)
  /// Trades a refresh token for a new session; the refresh token rotates. Public.
  case refresh(RefreshRequest)
  /// Revokes the refresh token.
  case signOut(SignOutRequest)
}

extension AuthAPI: DeclaredRoute {
  var declaration: RouteDeclaration {
    switch self {
    case .signIn(let body):
      RouteDeclaration(.authSignIn, task: .json(body), sample: SampleData.signInResponse)
    case .requestEmailCode(let body):
      RouteDeclaration(.authRequestEmailCode, task: .json(body), sample: SampleData.emailCodeSent)
    case .verifyEmailCode(let body):
      RouteDeclaration(.authVerifyEmailCode, task: .json(body), sample: SampleData.emailVerified)
    case .signUp(let body):
      RouteDeclaration(.authSignUp, task: .json(body), sample: SampleData.session)
    case .refresh(let body):
      RouteDeclaration(.authRefresh, task: .json(body), sample: SampleData.session)
    case .signOut(let body):
      RouteDeclaration(.authSignOut, task: .json(body))
    }
  }
}

extension AuthAPI {
  /// Sample response bodies of the auth operations.
  enum SampleData {
    static let session = """
      {
        "access_token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1XzAxIn0.c2FtcGxl",
        "refresh_token": "rt_5c0f1e2a9b7d4e3f8a6c",
        "expires_at": "2026-11-21T06:10:00.000Z",
        "user": \(MeAPI.SampleData.user)
      }
      """

    static let signInResponse = """
      {
        "status": "signed_in",
        "session": \(session),
        "sign_up_token": null
      }
      """

    static let emailCodeSent = """
      { "expires_at": "2026-11-21T05:20:00.000Z" }
      """

    static let emailVerified = """
      { "verification_token": "vt_8d2c41e0b6a3" }
      """
  }
}
