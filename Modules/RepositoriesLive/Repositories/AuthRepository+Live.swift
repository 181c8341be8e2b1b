import DTO
import Domain
import Endpoints
import Foundation
import NetworkKit
import Repositories

extension AuthRepository {
  /// Sign-in, sign-up and sign-out over `/auth`, driving `session`; withdrawal goes through
  /// `withdrawalClient`, whose provider never repeats a DELETE, then `forget` deletes what the
  /// device keeps of the account.
  static func live(
    client: APIClient, withdrawalClient: APIClient, session: SessionController,
    authenticator: Authenticator, forget: @escaping @Sendable (User.ID) async -> Void
  ) -> AuthRepository {
    AuthRepository(
      sessionStates: { session.states() },
      currentState: { await session.currentState() },
      signIn: { provider, token in
        // Checked as the service checks it; sent as typed (the service trims it too).
        _ = try require(TextRule.signInToken, token)
        let result = try await client.fetch(
          AuthAPI.signIn(SignInRequest(provider: provider, token: token)),
          as: SignInResponseDTO.self)
        switch result {
        case .signedIn(let authSession): await session.signIn(authSession)
        case .needsSignUp(let signUpToken): try await session.needsSignUp(signUpToken)
        }
        return result
      },
      requestEmailCode: { signUpToken, email in
        _ = try require(.required("sign_up_token"), signUpToken.rawValue)
        return try await client.fetch(
          AuthAPI.requestEmailCode(EmailCodeRequest(signUpToken: signUpToken, email: email)),
          as: EmailCodeSentDTO.self)
      },
      verifyEmailCode: { signUpToken, email, code in
        _ = try require(.required("sign_up_token"), signUpToken.rawValue)
        return try await client.fetch(
          AuthAPI.verifyEmailCode(
            EmailVerifyRequest(signUpToken: signUpToken, email: email, code: code)),
          as: EmailVerifiedDTO.self)
      },
      checkNickname: { nickname in
        try await client.fetch(
          MeAPI.nicknameAvailability(nickname: nickname.rawValue),
          as: NicknameAvailabilityDTO.self)
      },
      signUp: { form in
        _ = try require(.required("sign_up_token"), form.signUpToken.rawValue)
        _ = try require(.required("verification_token"), form.verificationToken.rawValue)
        _ = try require(.required("agreed_terms_version"), form.agreedTermsVersion)
        var form = form
        form.cohort = try validate { () throws(ValidationError) in
          try TextRule.cohort.validate(optional: form.cohort)
        }
        let authSession = try await client.fetch(
          AuthAPI.signUp(SignUpRequest(form)), as: SessionDTO.self)
        await session.signIn(authSession)
        return authSession.user
      },
      signOut: {
        // Revoke on the server first, with the token that is current after any refresh the
        // call itself needs; then forget everything on this device whatever the server said.
        var revocationFailure: (any Error)?
        // Credentials the store cannot read (a damaged file, a Keychain error) cannot be
        // revoked either: they are forgotten here all the same, and the caller hears why the
        // server was not told.
        let stored: Credentials?
        do {
          stored = try await signedInCredentials(authenticator)
        } catch {
          (stored, revocationFailure) = (nil, error)
        }
        if stored != nil {
          do {
            _ = try await authenticator.validAccessToken()
            if let credentials = try await authenticator.credentials() {
              try await client.send(
                AuthAPI.signOut(SignOutRequest(refreshToken: credentials.refreshToken)))
            }
          } catch DomainError.signedOut {
            // Already invalid on the server: nothing left to revoke.
          } catch NetworkError.sessionRevoked, NetworkError.notSignedIn {
            // Same: the authenticator found the session gone while preparing the call.
          } catch {
            revocationFailure = error
          }
        }
        try await session.signOut()
        // Signed out here either way; the caller learns that the server was not told (the
        // refresh token then stays valid there until it expires).
        if let revocationFailure {
          throw mapped(revocationFailure, operation: "AuthAPI.signOut")
        }
      },
      withdraw: {
        // The account signed in now, and only it: a sign-in of someone else meanwhile must not
        // send this with their token (the call fails as signed out instead).
        guard let account = await session.signedInAccount() else { throw DomainError.signedOut }
        _ = try await withdrawalClient.perform(MeAPI.withdraw, in: account.session)
        // The account is gone: what the device keeps of it goes too, even when the stored
        // credentials cannot be cleared (that failure is still the caller's to hear).
        do {
          try await session.signOutWithdrawn(account.session)
        } catch {
          await forget(account.user)
          throw error
        }
        await forget(account.user)
      })
  }
}

/// The credentials if someone is signed in; storage failures become `DomainError`.
private func signedInCredentials(_ authenticator: Authenticator) async throws -> Credentials? {
  do {
    return try await authenticator.credentials()
  } catch {
    throw LiveErrorMapping.domainError(for: error, operation: "AuthAPI.signOut")
  }
}

/// Refuses what `rule` refuses before a request goes out (the service checks the same).
private func require(_ rule: TextRule, _ text: String) throws(DomainError) -> String {
  try validate { () throws(ValidationError) in try rule.validate(text) }
}

/// `error` as the Domain error repositories throw (it may already be one).
func mapped(_ error: any Error, operation: String) -> any Error {
  switch error {
  case let error as DomainError: return error
  case let error as NetworkError:
    if error == .cancelled { return CancellationError() }
    return LiveErrorMapping.domainError(for: error, operation: operation)
  default: return error
  }
}
