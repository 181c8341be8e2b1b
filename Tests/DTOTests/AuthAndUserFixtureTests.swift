import DTO
import Domain
import Foundation
import Testing

@Suite("Fixtures: auth and users")
struct AuthAndUserFixtureTests {
  @Test("user.json decodes and maps every field")
  func user() throws {
    let dto = try Fixture.decode(UserDTO.self, "user")
    #expect(dto.role == .admin)
    #expect(dto.avatarUrl == "https://cdn.qapple.example/avatars/u_7f3c.png")
    let user = try dto.toDomain()
    #expect(user.id == "u_7f3c")
    #expect(user.nickname.rawValue == "사과나무")
    #expect(user.role == .admin)
    #expect(user.role.isAdmin)
    #expect(user.cohort == "2026 Morning")
    #expect(user.joinedAt == utc(2026, 3, 2, 9))
    #expect(user.answerCount == 42)
    #expect(user.avatarURL == URL(string: "https://cdn.qapple.example/avatars/u_7f3c.png"))
    #expect(user.isBanned == false)
  }

  @Test("user_summary.json maps to a UserSummary")
  func userSummary() throws {
    let summary = try Fixture.decode(UserSummaryDTO.self, "user_summary").toDomain()
    #expect(summary == UserSummary(id: "u_11", nickname: "SwiftLover"))
  }

  @Test("session.json maps tokens, expiry without fraction and a user with nulls")
  func session() throws {
    let session = try Fixture.decode(SessionDTO.self, "session").toDomain()
    #expect(session.accessToken == "at_9c1d.eyJzdWIiOiJ1XzdmM2MifQ")
    #expect(session.refreshToken == "rt_7f3c2a")
    #expect(session.expiresAt == utc(2026, 11, 21, 6, 10))
    #expect(session.user.cohort == nil)
    #expect(session.user.avatarURL == nil)
    #expect(session.user.role == .member)
    expectSameInstant(session.user.joinedAt, utc(2026, 3, 2, 9, milliseconds: 500))
  }

  @Test("a signed-in response maps to .signedIn and keeps an unknown role")
  func signedIn() throws {
    let dto = try Fixture.decode(SignInResponseDTO.self, "sign_in_signed_in")
    #expect(dto.status == .signedIn)
    #expect(dto.signUpToken == nil)
    guard case .signedIn(let session) = try dto.toDomain() else {
      Issue.record("expected .signedIn")
      return
    }
    #expect(session.user.nickname.rawValue == "Dev123")
    #expect(session.user.role == .unknown("superhero"))
    #expect(session.user.role.isAdmin == false)
    #expect(session.user.answerCount == 3)
  }

  @Test("a needs-sign-up response maps to .needsSignUp with its token")
  func needsSignUp() throws {
    let result = try Fixture.decode(SignInResponseDTO.self, "sign_in_needs_sign_up").toDomain()
    #expect(result == .needsSignUp(SignUpToken(rawValue: "sut_5d1e")))
  }

  @Test("email code, verification and nickname availability")
  func signUpSteps() throws {
    #expect(
      try Fixture.decode(EmailCodeSentDTO.self, "email_code_sent").toDomain()
        == utc(2026, 11, 21, 5, 15))
    #expect(
      try Fixture.decode(EmailVerifiedDTO.self, "email_verified").toDomain()
        == EmailVerificationToken(rawValue: "vt_a81b"))
    let availability = try Fixture.decode(NicknameAvailabilityDTO.self, "nickname_availability")
      .toDomain()
    #expect(
      availability
        == NicknameAvailability(
          nickname: "운영자", isAvailable: false, reason: "This nickname is reserved."))
  }

  @Test("error_envelope.json decodes with a known code and the field")
  func errorEnvelope() throws {
    let envelope = try Fixture.decode(ErrorEnvelopeDTO.self, "error_envelope")
    #expect(envelope.error.code == "nickname_taken")
    #expect(envelope.error.knownCode == .nicknameTaken)
    #expect(envelope.error.field == "nickname")
    #expect(envelope.error.message == "The nickname is taken; choose another.")
  }
}
