import DTO
import Domain
import Foundation
import Hummingbird
import ServiceEngine

extension RouteTable {
  /// AuthAPI: sign-in, e-mail code, sign-up, refresh, sign-out.
  mutating func addAuthRoutes() {
    add(.authSignIn) { call in
      let body = try call.decode(SignInRequest.self)
      return try .json(
        SignInResponseDTO(try call.engine.signIn(provider: body.provider, token: body.token)))
    }
    add(.authRequestEmailCode) { call in
      let body = try call.decode(EmailCodeRequest.self)
      let sent = try call.engine.requestEmailCode(signUpToken: body.signUpToken, email: body.email)
      call.core.logger.notice(
        "E-mail verification code (dev: not mailed)",
        metadata: ["email": .string(sent.email.rawValue), "code": .string(sent.code)])
      return try .json(EmailCodeSentDTO(expiresAt: sent.expiresAt), status: .accepted)
    }
    add(.authVerifyEmailCode) { call in
      let body = try call.decode(EmailVerifyRequest.self)
      let token = try call.engine.verifyEmailCode(
        signUpToken: body.signUpToken, email: body.email, code: body.code)
      return try .json(EmailVerifiedDTO(verificationToken: token.rawValue))
    }
    add(.authSignUp) { call in
      let body = try call.decode(SignUpRequest.self)
      let session = try call.engine.signUp(
        signUpToken: body.signUpToken, verificationToken: body.verificationToken,
        nickname: body.nickname, cohort: body.cohort, agreedTermsVersion: body.agreedTermsVersion)
      return try .json(SessionDTO(session), status: .created)
    }
    add(.authRefresh) { call in
      let body = try call.decode(RefreshRequest.self)
      do {
        return try .json(SessionDTO(try call.engine.refresh(refreshToken: body.refreshToken)))
      } catch DomainError.signedOut {
        throw APIError.unauthorized(
          "The refresh token is unknown, expired or already used; sign in again.")
      }
    }
    addNoContent(.authSignOut) { call in
      let body = try call.decode(SignOutRequest.self)
      try call.engine.signOut(refreshToken: body.refreshToken, as: try call.me)
    }
  }

  /// MeAPI: profile, avatar, withdrawal, nickname availability, other users, my answers.
  mutating func addMeRoutes() {
    add(.meMe) { call in try .json(UserDTO(try call.engine.me(as: try call.me))) }
    add(.meUpdateProfile) { call in
      let patch = try call.decode(ProfilePatch.self)
      try call.rejectNulls(["nickname"])
      let change = ProfileChange(nickname: patch.nickname, cohort: patch.cohort)
      return try .json(UserDTO(try call.engine.updateProfile(change, as: try call.me)))
    }
    add(.meUploadAvatar) { call in
      let image = try AvatarImage(validating: try Multipart.image(from: call))
      return try .json(UserDTO(try call.engine.uploadAvatar(image, as: try call.me)))
    }
    addNoContent(.meWithdraw) { try $0.engine.withdraw(as: try $0.me) }
    add(.meNicknameAvailability) { call in
      guard let nickname = call.query("nickname") else {
        throw APIError.validation(field: "nickname", "Pass the nickname to check as ?nickname=.")
      }
      return try .json(NicknameAvailabilityDTO(try call.engine.nicknameAvailability(nickname)))
    }
    add(.meUser) { call in try .json(UserDTO(try call.engine.user(call.id("user_id")))) }
    add(.meUserByNickname) { call in
      guard let nickname = call.query("nickname") else {
        throw APIError.validation(field: "nickname", "Pass the nickname to look up as ?nickname=.")
      }
      return try .json(UserDTO(try call.engine.user(nickname: nickname)))
    }
    addPage(.meMyAnswers, AnswerDTO.init) { try $0.engine.myAnswers($1, as: $2) }
    // Not a contract operation: serves the pictures `avatar_url` points at.
    add(serverOnly: "Avatars.image", .get, "\(ServiceEngine.avatarsPath)/{user_id}") { call in
      let image = try call.engine.avatar(of: call.id("user_id"))
      let headers: HTTPFields = [
        .contentType: image.contentType, .cacheControl: "public, max-age=31536000, immutable",
      ]
      return Reply(status: .ok, headers: headers, body: image.data)
    }
  }
}

/// `PATCH /me`: unlike `UpdateProfileRequest`, tells an absent `cohort` ("unchanged") from an
/// explicit `null` ("clear it"), as the contract requires.
struct ProfilePatch: Decodable, Sendable {
  var nickname: String?
  /// `nil`: unchanged; `.some(nil)`: clear; `.some(text)`: set.
  var cohort: String??

  enum CodingKeys: String, CodingKey {
    case nickname
    case cohort
  }

  init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    nickname = try container.decodeIfPresent(String.self, forKey: .nickname)
    if container.contains(.cohort) {
      cohort = .some(
        try container.decodeNil(forKey: .cohort)
          ? nil : container.decode(String.self, forKey: .cohort))
    }
  }
}
