import DTO
import Domain
import Foundation
import Hummingbird

extension RouteTable {
  /// AuthAPI: sign-in, e-mail code, sign-up, refresh, sign-out.
  mutating func addAuthRoutes() {
    add("AuthAPI.signIn", .post, "/auth/sign-in", access: .anyone) { call in
      let body = try call.decode(SignInRequest.self)
      return try .json(try await SignUpFlow.signIn(body, core: call.core))
    }
    add("AuthAPI.requestEmailCode", .post, "/auth/email/code", access: .anyone) { call in
      let body = try call.decode(EmailCodeRequest.self)
      return try .json(try await SignUpFlow.requestCode(body, core: call.core), status: .accepted)
    }
    add("AuthAPI.verifyEmailCode", .post, "/auth/email/verify", access: .anyone) { call in
      let body = try call.decode(EmailVerifyRequest.self)
      return try .json(try await SignUpFlow.verify(body, core: call.core))
    }
    add("AuthAPI.signUp", .post, "/auth/sign-up", access: .anyone) { call in
      let body = try call.decode(SignUpRequest.self)
      return try .json(try await SignUpFlow.signUp(body, core: call.core), status: .created)
    }
    add("AuthAPI.refresh", .post, "/auth/refresh", access: .anyone) { call in
      let body = try call.decode(RefreshRequest.self)
      let core = call.core
      let outcome = try await core.write { db in
        try Sessions.refresh(db, token: body.refreshToken, core: core)
      }
      switch outcome {
      case .renewed(let session): return try .json(session)
      case .refused(let error): throw error
      }
    }
    add("AuthAPI.signOut", .post, "/auth/sign-out") { call in
      let body = try call.decode(SignOutRequest.self)
      let me = try call.me
      let now = call.now
      try await call.core.write { db in
        try Sessions.signOut(db, refreshToken: body.refreshToken, userID: me.id, now: now)
      }
      return .noContent
    }
  }

  /// MeAPI: profile, avatar, withdrawal, nickname availability, other users, my answers.
  mutating func addMeRoutes() {
    add("MeAPI.me", .get, "/me") { call in
      let me = try call.me
      let now = call.now
      return try .json(
        try await call.core.read { db in try Users.dto(db, try Users.live(db, me.id), now: now) })
    }
    add("MeAPI.updateProfile", .patch, "/me", blockedWhenBanned: true) { call in
      let patch = try call.decode(ProfilePatch.self)
      try call.rejectNulls(["nickname"])
      return try .json(try await Profiles.update(call.me, patch, core: call.core))
    }
    add("MeAPI.uploadAvatar", .put, "/me/avatar", blockedWhenBanned: true) { call in
      let image = try Avatars.image(from: call)
      return try .json(try await Avatars.store(image, for: call.me, call: call))
    }
    add("MeAPI.withdraw", .delete, "/me") { call in
      try await Profiles.withdraw(call.me, core: call.core)
      return .noContent
    }
    add("MeAPI.nicknameAvailability", .get, "/nicknames/availability", access: .anyone) { call in
      guard let nickname = call.query("nickname") else {
        throw APIError.validation(field: "nickname", "Pass the nickname to check as ?nickname=.")
      }
      return try .json(try await Profiles.availability(of: nickname, core: call.core))
    }
    add("MeAPI.user", .get, "/users/:user_id") { call in
      let key = try call.key("user_id", .user, what: "user")
      let now = call.now
      return try .json(
        try await call.core.read { db in try Users.dto(db, try Users.live(db, key), now: now) })
    }
    add("MeAPI.myAnswers", .get, "/me/answers") { call in
      let page = try call.pageRequest()
      let me = try call.me
      return try .json(try await call.core.read { db in try Answers.mine(db, me, page) })
    }
    // Not a contract operation: serves the pictures `avatar_url` points at.
    add("Avatars.image", .get, "/avatars/:user_id", access: .anyone) { call in
      let key = try call.key("user_id", .user, what: "avatar")
      return try await Avatars.serve(key, core: call.core)
    }
  }
}
