import DTO
import Domain
import Foundation
import Hummingbird
import HummingbirdTesting
import LocalServer
import TestSupport
import Testing

@Suite("Auth: sign-in, e-mail code, sign-up, tokens")
struct AuthTests {
  @Test("needs_sign_up -> code -> verify -> sign-up -> session; the same dev token signs in again")
  func fullFlow() async throws {
    try await withServer(.testing(accessTokenLifetime: .seconds(900))) { h in
      let session = try await h.signUp("사과나무", token: "learner-1", cohort: "2026 Morning")
      #expect(session.user.nickname == "사과나무")
      #expect(session.user.role == .member)
      #expect(session.user.cohort == "2026 Morning")
      #expect(session.expiresAt == testEpoch.addingTimeInterval(900))

      let me = try await h.expect(.ok, UserDTO.self, .get, "/me", token: session.accessToken)
      #expect(me.id == session.user.id)

      let again = try await h.expect(
        .ok, SignInResponseDTO.self, .post, "/auth/sign-in",
        json: SignInRequest(provider: "dev", token: "learner-1"))
      #expect(again.status == .signedIn)
      #expect(again.session?.user.id == session.user.id)
      #expect(again.signUpToken == nil)
    }
  }

  @Test("apple and kakao are refused locally with a message naming the provider field")
  func onlyDevProvider() async throws {
    try await withServer { h in
      for provider in ["apple", "kakao"] {
        let result = try await h.expectError(
          .badRequest, "validation_failed", field: "provider", .post, "/auth/sign-in",
          json: SignInRequest(provider: provider, token: "x"))
        #expect(result.error?.message.contains("dev") == true)
      }
      try await h.expectError(
        .badRequest, "validation_failed", field: "provider", .post, "/auth/sign-in",
        json: SignInRequest(provider: "github", token: "x"))
      try await h.expectError(
        .badRequest, "validation_failed", field: "token", .post, "/auth/sign-in",
        json: SignInRequest(provider: "dev", token: "   "))
    }
  }

  @Test("e-mail must be valid; wrong codes count; five wrong codes invalidate the code")
  func emailCodeRules() async throws {
    try await withServer { h in
      let signIn = try await h.expect(
        .ok, SignInResponseDTO.self, .post, "/auth/sign-in",
        json: SignInRequest(provider: "dev", token: "t1"))
      let sut = try #require(signIn.signUpToken)
      try await h.expectError(
        .badRequest, "validation_failed", field: "email", .post, "/auth/email/code",
        json: EmailCodeRequest(signUpToken: sut, email: "not-an-address"))
      try await h.expectError(
        .unauthorized, "unauthorized", .post, "/auth/email/code",
        json: EmailCodeRequest(signUpToken: "sut_unknown", email: "a@b.example"))
      // A blank token is a field error before the address is looked at (as the SDK says).
      try await h.expectError(
        .badRequest, "validation_failed", field: "sign_up_token", .post, "/auth/email/code",
        json: EmailCodeRequest(signUpToken: " ", email: "not-an-address"))

      _ = try await h.expect(
        .accepted, EmailCodeSentDTO.self, .post, "/auth/email/code",
        json: EmailCodeRequest(signUpToken: sut, email: "A@Academy.example"))
      let code = try #require(try h.server.engine.lastEmailCode(for: "a@academy.example"))
      let wrong = code == "000000" ? "111111" : "000000"
      try await h.expectError(
        .badRequest, "validation_failed", field: "code", .post, "/auth/email/verify",
        json: EmailVerifyRequest(signUpToken: sut, email: "a@academy.example", code: "12ab"))
      for attempt in 1...5 {
        let result = try await h.expectError(
          .badRequest, "validation_failed", field: "code", .post, "/auth/email/verify",
          json: EmailVerifyRequest(signUpToken: sut, email: "a@academy.example", code: wrong))
        if attempt < 5 {
          #expect(result.error?.message.contains("\(5 - attempt) attempt") == true)
        }
      }
      // The right code no longer works after five wrong ones.
      try await h.expectError(
        .badRequest, "validation_failed", field: "code", .post, "/auth/email/verify",
        json: EmailVerifyRequest(signUpToken: sut, email: "a@academy.example", code: code))
      #expect(try h.server.engine.lastEmailCode(for: "a@academy.example") == nil)
    }
  }

  @Test("an e-mail code expires after ten minutes")
  func emailCodeExpires() async throws {
    try await withServer { h in
      let signIn = try await h.expect(
        .ok, SignInResponseDTO.self, .post, "/auth/sign-in",
        json: SignInRequest(provider: "dev", token: "t2"))
      let sut = try #require(signIn.signUpToken)
      let sent = try await h.expect(
        .accepted, EmailCodeSentDTO.self, .post, "/auth/email/code",
        json: EmailCodeRequest(signUpToken: sut, email: "b@academy.example"))
      #expect(sent.expiresAt == testEpoch.addingTimeInterval(600))
      let code = try #require(try h.server.engine.lastEmailCode(for: "b@academy.example"))
      h.clock.advance(by: .seconds(601))
      let result = try await h.expectError(
        .badRequest, "validation_failed", field: "code", .post, "/auth/email/verify",
        json: EmailVerifyRequest(signUpToken: sut, email: "b@academy.example", code: code))
      #expect(result.error?.message.contains("expired") == true)
    }
  }

  @Test("two sign-ups of one provider account: the first creates it, the other ends with 401")
  func twoSignUpsOfOneAccount() async throws {
    try await withServer { h in
      // Two devices start signing up with the same dev token before either finishes.
      func verifiedForm(_ nickname: String) async throws -> SignUpRequest {
        let signIn = try await h.expect(
          .ok, SignInResponseDTO.self, .post, "/auth/sign-in",
          json: SignInRequest(provider: "dev", token: "twice"))
        let sut = try #require(signIn.signUpToken)
        let email = "\(nickname)@academy.example"
        _ = try await h.expect(
          .accepted, EmailCodeSentDTO.self, .post, "/auth/email/code",
          json: EmailCodeRequest(signUpToken: sut, email: email))
        let code = try #require(try h.server.engine.lastEmailCode(for: email))
        let verified = try await h.expect(
          .ok, EmailVerifiedDTO.self, .post, "/auth/email/verify",
          json: EmailVerifyRequest(signUpToken: sut, email: email, code: code))
        return SignUpRequest(
          signUpToken: sut, verificationToken: verified.verificationToken, nickname: nickname,
          agreedTermsVersion: "2026-03")
      }
      let phone = try await verifiedForm("PhoneOne")
      let tablet = try await verifiedForm("TabletOne")
      let account = try await h.expect(
        .created, SessionDTO.self, .post, "/auth/sign-up", json: phone)
      try await h.expectError(.unauthorized, "unauthorized", .post, "/auth/sign-up", json: tablet)
      // Signing in again reaches the account the first sign-up created.
      let again = try await h.expect(
        .ok, SignInResponseDTO.self, .post, "/auth/sign-in",
        json: SignInRequest(provider: "dev", token: "twice"))
      #expect(again.session?.user.id == account.user.id)
      // An account made for tests with a dev token already taken is refused, not a 500.
      #expect(throws: DomainError.conflict("The dev token twice already belongs to an account.")) {
        try h.server.engine.createUser(nickname: "Another", devToken: "twice")
      }
    }
  }

  @Test("sign-up checks nickname rules, case-insensitive uniqueness, terms and tokens")
  func signUpRules() async throws {
    try await withServer { h in
      _ = try await h.signUp("Swiftie")
      let signIn = try await h.expect(
        .ok, SignInResponseDTO.self, .post, "/auth/sign-in",
        json: SignInRequest(provider: "dev", token: "second"))
      let sut = try #require(signIn.signUpToken)
      _ = try await h.expect(
        .accepted, EmailCodeSentDTO.self, .post, "/auth/email/code",
        json: EmailCodeRequest(signUpToken: sut, email: "second@academy.example"))
      let code = try #require(try h.server.engine.lastEmailCode(for: "second@academy.example"))
      let verified = try await h.expect(
        .ok, EmailVerifiedDTO.self, .post, "/auth/email/verify",
        json: EmailVerifyRequest(signUpToken: sut, email: "second@academy.example", code: code))
      func form(_ nickname: String, terms: String = "2026-03", vt: String? = nil) -> SignUpRequest {
        SignUpRequest(
          signUpToken: sut, verificationToken: vt ?? verified.verificationToken,
          nickname: nickname, agreedTermsVersion: terms)
      }
      try await h.expectError(
        .unauthorized, "unauthorized", .post, "/auth/sign-up", json: form("Valid1", vt: "vt_nope"))
      try await h.expectError(
        .badRequest, "validation_failed", field: "nickname", .post, "/auth/sign-up",
        json: form("a"))
      try await h.expectError(
        .badRequest, "validation_failed", field: "nickname", .post, "/auth/sign-up",
        json: form("bad name!"))
      try await h.expectError(
        .badRequest, "validation_failed", field: "nickname", .post, "/auth/sign-up",
        json: form("Admin"))
      try await h.expectError(
        .conflict, "nickname_taken", field: "nickname", .post, "/auth/sign-up",
        json: form("SWIFTIE"))
      try await h.expectError(
        .badRequest, "validation_failed", field: "agreed_terms_version", .post, "/auth/sign-up",
        json: form("Fresh1", terms: " "))
      let session = try await h.expect(
        .created, SessionDTO.self, .post, "/auth/sign-up", json: form("Fresh1"))
      #expect(session.user.nickname == "Fresh1")

      let availability = try await h.expect(
        .ok, NicknameAvailabilityDTO.self, .get, "/nicknames/availability?nickname=fresh1")
      #expect(availability.available == false)
      let free = try await h.expect(
        .ok, NicknameAvailabilityDTO.self, .get,
        "/nicknames/availability?nickname=%EC%83%88%EC%9D%B4%EB%A6%84")
      #expect(free.available == true)
      #expect(free.nickname == "새이름")
      let invalid = try await h.expect(
        .ok, NicknameAvailabilityDTO.self, .get, "/nicknames/availability?nickname=x")
      #expect(invalid.available == false)
      #expect(invalid.reason != nil)
    }
  }

  @Test("refresh rotates; reusing a spent refresh token is 401 and revokes the whole family")
  func refreshRotationAndReuse() async throws {
    try await withServer { h in
      let first = try await h.signUp("Rotator")
      let second = try await h.expect(
        .ok, SessionDTO.self, .post, "/auth/refresh",
        json: RefreshRequest(refreshToken: first.refreshToken))
      #expect(second.refreshToken != first.refreshToken)
      #expect(second.accessToken != first.accessToken)
      _ = try await h.expect(.ok, UserDTO.self, .get, "/me", token: second.accessToken)

      // The old refresh token comes back: 401, and the session it belonged to ends.
      try await h.expectError(
        .unauthorized, "unauthorized", .post, "/auth/refresh",
        json: RefreshRequest(refreshToken: first.refreshToken))
      try await h.expectError(.unauthorized, "unauthorized", .get, "/me", token: second.accessToken)
      try await h.expectError(
        .unauthorized, "unauthorized", .post, "/auth/refresh",
        json: RefreshRequest(refreshToken: second.refreshToken))

      // Another sign-in is another family and still works.
      let other = try await h.expect(
        .ok, SignInResponseDTO.self, .post, "/auth/sign-in",
        json: SignInRequest(provider: "dev", token: "dev-Rotator"))
      let token = try #require(other.session?.accessToken)
      _ = try await h.expect(.ok, UserDTO.self, .get, "/me", token: token)
    }
  }

  @Test("an expired access token is 401 token_expired; unknown or missing tokens are unauthorized")
  func accessTokenExpiry() async throws {
    try await withServer(.testing(accessTokenLifetime: .seconds(30))) { h in
      let session = try await h.signUp("Expiring")
      #expect(session.expiresAt == testEpoch.addingTimeInterval(30))
      _ = try await h.expect(.ok, UserDTO.self, .get, "/me", token: session.accessToken)
      h.clock.advance(by: .seconds(31))
      try await h.expectError(
        .unauthorized, "token_expired", .get, "/me", token: session.accessToken)
      let renewed = try await h.expect(
        .ok, SessionDTO.self, .post, "/auth/refresh",
        json: RefreshRequest(refreshToken: session.refreshToken))
      _ = try await h.expect(.ok, UserDTO.self, .get, "/me", token: renewed.accessToken)

      try await h.expectError(.unauthorized, "unauthorized", .get, "/me", token: "at_unknown")
      try await h.expectError(.unauthorized, "unauthorized", .get, "/me")
      try await h.expectError(
        .unauthorized, "unauthorized", .get, "/me", headers: [.authorization: "Basic abc"])
    }
  }

  @Test("sign-out revokes the session; withdraw frees the nickname and keeps content")
  func signOutAndWithdraw() async throws {
    try await withServer { h in
      let session = try await h.signUp("Leaver")
      let post = try await h.post("Goodbye, everyone", token: session.accessToken)
      let reader = try await h.member("Reader")

      let signOut = try await h.send(
        .post, "/auth/sign-out", token: session.accessToken,
        json: SignOutRequest(refreshToken: session.refreshToken))
      #expect(signOut.status == .noContent)
      try await h.expectError(
        .unauthorized, "unauthorized", .get, "/me", token: session.accessToken)
      try await h.expectError(
        .unauthorized, "unauthorized", .post, "/auth/refresh",
        json: RefreshRequest(refreshToken: session.refreshToken))

      let back = try await h.expect(
        .ok, SignInResponseDTO.self, .post, "/auth/sign-in",
        json: SignInRequest(provider: "dev", token: "dev-Leaver"))
      let token = try #require(back.session?.accessToken)
      #expect(try await h.send(.delete, "/me", token: token).status == .noContent)
      try await h.expectError(.unauthorized, "unauthorized", .get, "/me", token: token)

      let kept = try await h.expect(.ok, PostDTO.self, .get, "/posts/\(post.id)", token: reader)
      #expect(kept.authorName == "(withdrawn)")
      try await h.expectError(
        .notFound, "not_found", .get, "/users/\(session.user.id)", token: reader)
      // The provider account and the nickname are free again.
      let fresh = try await h.expect(
        .ok, SignInResponseDTO.self, .post, "/auth/sign-in",
        json: SignInRequest(provider: "dev", token: "dev-Leaver"))
      #expect(fresh.status == .needsSignUp)
      let availability = try await h.expect(
        .ok, NicknameAvailabilityDTO.self, .get, "/nicknames/availability?nickname=Leaver")
      #expect(availability.available)
    }
  }

  @Test("PATCH /me: nickname rules and conflicts; cohort null clears, missing keeps")
  func profileUpdate() async throws {
    try await withServer { h in
      _ = try await h.signUp("Taken")
      let session = try await h.signUp("Changer", cohort: "2026 Morning")
      let token = session.accessToken
      let renamed = try await h.expect(
        .ok, UserDTO.self, .patch, "/me", token: token, json: UpdateProfileRequest(nickname: "변경됨"))
      #expect(renamed.nickname == "변경됨")
      #expect(renamed.cohort == "2026 Morning")
      try await h.expectError(
        .conflict, "nickname_taken", field: "nickname", .patch, "/me", token: token,
        json: UpdateProfileRequest(nickname: "taken"))
      try await h.expectError(
        .badRequest, "validation_failed", field: "nickname", .patch, "/me", token: token,
        json: UpdateProfileRequest(nickname: "!"))
      let cleared = try await h.send(
        .patch, "/me", token: token, raw: Data(#"{"cohort": null}"#.utf8),
        contentType: "application/json")
      #expect(cleared.status == .ok)
      #expect(try cleared.decode(UserDTO.self).cohort == nil)
      #expect(cleared.object?["cohort"] is NSNull)
    }
  }

  private static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3, 4])

  /// A `multipart/form-data` body (boundary `b0undary`) with one part `name`.
  private static func multipart(_ name: String, _ bytes: Data) -> Data {
    Data(
      ("--b0undary\r\nContent-Disposition: form-data; name=\"\(name)\"; filename=\"a.png\"\r\n"
        + "Content-Type: image/png\r\n\r\n").utf8) + bytes + Data("\r\n--b0undary--\r\n".utf8)
  }

  @Test("avatar upload: multipart part image, JPEG or PNG, served back at avatar_url")
  func avatarUpload() async throws {
    try await withServer { h in
      let token = try await h.member("Pictured")
      let (png, multipart) = (Self.png, Self.multipart)
      let type = "multipart/form-data; boundary=b0undary"
      let uploaded = try await h.send(
        .put, "/me/avatar", token: token, raw: multipart("image", png), contentType: type)
      #expect(uploaded.status == .ok)
      let user = try uploaded.decode(UserDTO.self)
      let avatar = try #require(user.avatarUrl.flatMap(URL.init(string:)))
      #expect(avatar.host == "127.0.0.1")
      #expect(avatar.port == h.port)
      let query = avatar.query.map { "?\($0)" } ?? ""
      let image = try await h.send(.get, avatar.path + query)
      #expect(image.status == .ok)
      #expect(image.headers[.contentType] == "image/png")
      #expect(image.body == png)

      // The uploader's Host header goes into no URL: the server's own address does, for the
      // uploader and for everyone who reads the profile.
      let forged = try await h.client.execute(
        TestClient.Request(
          "/me/avatar", method: .put, authority: "evil.example",
          headers: [.authorization: "Bearer \(token)", .contentType: type],
          body: ByteBuffer(bytes: multipart("image", png))))
      #expect(forged.status == .ok)
      let forgedUser = try QappleCoding.makeDecoder().decode(
        UserDTO.self, from: Data(buffer: try #require(forged.body)))
      let reader = try await h.member("Reader")
      let seen = try await h.send(.get, "/users/\(forgedUser.id)", token: reader)
      for url in [forgedUser.avatarUrl, try seen.decode(UserDTO.self).avatarUrl] {
        let avatar = try #require(url.flatMap(URL.init(string:)))
        #expect(avatar.host == "127.0.0.1")
        #expect(avatar.port == h.port)
      }

      try await h.expectError(
        .badRequest, "validation_failed", field: "image", .put, "/me/avatar", token: token,
        raw: multipart("image", Data("not a picture".utf8)), contentType: type)
      try await h.expectError(
        .badRequest, "validation_failed", field: "image", .put, "/me/avatar", token: token,
        raw: multipart("photo", png), contentType: type)
      try await h.expectError(
        .badRequest, "malformed_request", .put, "/me/avatar", token: token, raw: png,
        contentType: "image/png")
    }
  }
  @Test(
    "bound to every interface without a public URL, the server warns that avatar URLs are unreachable"
  )
  func wildcardHostWarns() async throws {
    let capture = LogCapture()
    var configuration = ServerConfiguration.testing()
    configuration.host = "0.0.0.0"
    configuration.logLevel = .warning
    let server = try QappleServer(configuration: configuration, logger: capture.logger)
    _ = try await server.start()
    await server.stop()
    #expect(
      capture.entries.contains { $0.level == .warning && $0.message.contains("--public-url") })
  }

  @Test("a configured public URL is where avatar URLs point, whatever address the client used")
  func avatarPublicURL() async throws {
    var configuration = ServerConfiguration.testing()
    configuration.publicURL = URL(string: "https://qapple.campus.example/api/")
    try await withServer(configuration) { h in
      let token = try await h.member("Pictured")
      let uploaded = try await h.send(
        .put, "/me/avatar", token: token, raw: Self.multipart("image", Self.png),
        contentType: "multipart/form-data; boundary=b0undary")
      let url = try #require(try uploaded.decode(UserDTO.self).avatarUrl)
      #expect(url.hasPrefix("https://qapple.campus.example/api/avatars/"))
    }
  }

}
