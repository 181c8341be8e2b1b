import AuthFeature
import Clocks
import Dependencies
import Domain
import Foundation
import Repositories
import RepositoriesTesting
import TestSupport
import Testing

/// Sign-in and the sign-up steps on the fakes: the engine's real rules for codes, nicknames
/// and terms, the session stream as the only source of "signed in", exact resend timers.
@MainActor
@Suite("AuthFeature")
struct AuthFeatureTests {
  let backend = FakeBackend(now: { Fixtures.now })
  let clock = TestClock()

  /// A signed-out client whose dev sign-in with `token` found no account, and its sign-up flow;
  /// `override` replaces repository endpoints.
  func newcomer(
    _ token: String, _ override: (inout DependencyValues) -> Void = { _ in }
  ) async throws -> (FakeClient, SignUpModel) {
    let client = backend.makeClient()
    guard case .needsSignUp(let signUpToken) = try await client.auth.signIn(.dev, token) else {
      throw DomainError.conflict("\(token) has an account")
    }
    let signUp = client.model(clock: clock, override) {
      SignUpModel(signUpToken: signUpToken, termsVersion: "2026-01")
    }
    return (client, signUp)
  }

  @Test func signingInToAKnownAccountFollowsTheSessionStream() async throws {
    try backend.createUser(nickname: "alice")
    let client = backend.makeClient()
    let signIn = client.model(clock: clock) { SignInModel() }
    await signIn.task()
    await signIn.signInButtonTapped(.dev, token: "alice")
    #expect(signIn.failure == nil)
    #expect(signIn.signingInWith == nil)
    guard case .signedIn(let user) = client.sessionState else {
      Issue.record("not signed in: \(client.sessionState)")
      return
    }
    #expect(user.nickname.rawValue == "alice")
    let events = try await client.uploadedEvents()
    #expect(events.map(\.name) == ["screen_viewed", "sign_in_completed"])
    #expect(events[0].properties == ["screen": "sign_in"])
    #expect(events[1].properties == ["provider": "dev", "outcome": "signed_in"])
  }

  @Test func anUnknownAccountMovesTheSessionToSignUp() async throws {
    let client = backend.makeClient()
    let signIn = client.model(clock: clock) { SignInModel() }
    await signIn.signInButtonTapped(.dev, token: "someone-new")
    #expect(signIn.failure == nil)
    guard case .needsSignUp = client.sessionState else {
      Issue.record("expected sign-up, got \(client.sessionState)")
      return
    }
  }

  @Test func signInFailuresStayOnScreenUntilDismissed() async throws {
    let client = backend.makeClient()
    let signIn = client.model(clock: clock) { SignInModel() }
    // The local service takes dev tokens only: Apple is refused with a field error.
    await signIn.signInButtonTapped(.apple, token: "apple-identity-token")
    guard case .validation = signIn.failure else {
      Issue.record("expected a validation failure, got \(String(describing: signIn.failure))")
      return
    }
    #expect(client.sessionState == .signedOut)
    signIn.failureDismissed()
    #expect(signIn.failure == nil)

    backend.isOffline = true
    await signIn.signInButtonTapped(.dev, token: "alice")
    #expect(signIn.failure == .offline)
    #expect(client.sessionState == .signedOut)

    signIn.providerFailed(.kakao, reason: "KakaoTalk is not installed")
    #expect(signIn.failure == .server("kakao sign-in failed: KakaoTalk is not installed"))
  }

  @Test func theWholeSignUpWithResendAndWrongCode() async throws {
    let (client, signUp) = try await newcomer("newbie")
    await signUp.task()
    #expect(signUp.step == .email)

    signUp.emailText = "not an address"
    await signUp.sendCodeButtonTapped()
    guard case .validation(let error) = signUp.failure else {
      Issue.record("expected a field error, got \(String(describing: signUp.failure))")
      return
    }
    #expect(error.field == "email")
    #expect(signUp.step == .email)

    signUp.emailText = " Newbie@Academy.example "
    await signUp.sendCodeButtonTapped()
    #expect(signUp.failure == nil)
    #expect(signUp.step == .code)
    #expect(signUp.codeSentTo?.rawValue == "newbie@academy.example")
    #expect(signUp.codeExpiresAt == Fixtures.now.addingTimeInterval(600))
    let firstCode = try #require(backend.lastEmailCode(for: "newbie@academy.example"))

    // "Send again" waits for the delay.
    #expect(!signUp.canResendCode)
    await signUp.resendCodeButtonTapped()
    #expect(backend.lastEmailCode(for: "newbie@academy.example") == firstCode)
    await clock.advance(by: SignUpModel.resendDelay - .seconds(1))
    await yieldUntil { signUp.canResendCode }
    #expect(!signUp.canResendCode)
    await clock.advance(by: .seconds(1))
    // Turned until its timer runs: one that went to sleep just as the clock reached its
    // deadline waits for the next turn.
    try await waitUntil("send again is enabled", step: clock.turning) { signUp.canResendCode }
    await signUp.resendCodeButtonTapped()
    #expect(!signUp.canResendCode)
    let code = try #require(backend.lastEmailCode(for: "newbie@academy.example"))

    // A malformed code never reaches the server; a wrong one is refused there.
    signUp.codeText = "12a"
    await signUp.verifyButtonTapped()
    #expect(signUp.failure == .validation(.invalidFormat(field: "code", expected: "6 digits")))
    signUp.codeText = code.rawValue == "000000" ? "111111" : "000000"
    await signUp.verifyButtonTapped()
    guard case .validation(.invalidFormat(field: "code", _)) = signUp.failure else {
      Issue.record("expected a wrong-code failure, got \(String(describing: signUp.failure))")
      return
    }
    #expect(signUp.step == .code)
    signUp.codeText = code.rawValue
    await signUp.verifyButtonTapped()
    #expect(signUp.failure == nil)
    #expect(signUp.step == .nickname)
    #expect(signUp.isEmailVerified)

    // Nickname: the rules here, availability on the server.
    try backend.createUser(nickname: "taken")
    signUp.nicknameText = "admin"
    await signUp.nicknameNextButtonTapped()
    #expect(signUp.failure == .validation(.reserved(field: "nickname", value: "admin")))
    signUp.nicknameText = "taken"
    await signUp.nicknameNextButtonTapped()
    #expect(signUp.failure == .nicknameTaken)
    #expect(signUp.step == .nickname)
    signUp.nicknameText = "newbie"
    // The cohort is typed on this step too, so it is checked here, not after the terms.
    signUp.cohortText = String(repeating: "반", count: 31)
    await signUp.nicknameNextButtonTapped()
    #expect(signUp.failure == .validation(.tooLong(field: "cohort", maximum: 30, actual: 31)))
    #expect(signUp.step == .nickname)
    signUp.cohortText = ""
    await signUp.nicknameNextButtonTapped()
    #expect(signUp.step == .terms)

    // Terms must be agreed to.
    await signUp.signUpButtonTapped()
    #expect(signUp.failure == .validation(.empty(field: "terms")))
    #expect(client.sessionState != .signedOut)
    signUp.agreesToTerms = true
    signUp.cohortText = "2026 Morning"
    await signUp.signUpButtonTapped()
    #expect(signUp.failure == nil)
    guard case .signedIn(let user) = client.sessionState else {
      Issue.record("not signed in: \(client.sessionState)")
      return
    }
    #expect(user.nickname.rawValue == "newbie")
    #expect(user.cohort == "2026 Morning")

    let events = try await client.uploadedEvents()
    #expect(
      events.map(\.name) == [
        "screen_viewed", "email_code_requested", "email_code_requested", "email_verified",
        "sign_up_completed",
      ])
    #expect(events[0].properties == ["screen": "sign_up"])
    #expect(events[1].properties == ["resend": "false"])
    #expect(events[2].properties == ["resend": "true"])
    #expect(events[4].properties == ["has_cohort": "true"])
  }

  @Test func goingBackKeepsWhatWasTypedAndAVerifiedAddress() async throws {
    let (_, signUp) = try await newcomer("backtracker")
    signUp.emailText = "back@academy.example"
    await signUp.sendCodeButtonTapped()
    #expect(signUp.step == .code)
    signUp.backButtonTapped()
    #expect(signUp.step == .email)
    #expect(signUp.emailText == "back@academy.example")

    await signUp.sendCodeButtonTapped()
    let code = try #require(backend.lastEmailCode(for: "back@academy.example"))
    signUp.codeText = code.rawValue
    await signUp.verifyButtonTapped()
    signUp.nicknameText = "backtracker"
    await signUp.nicknameNextButtonTapped()
    #expect(signUp.step == .terms)
    signUp.backButtonTapped()
    #expect(signUp.step == .nickname)
    #expect(signUp.nicknameText == "backtracker")
    signUp.backButtonTapped()
    #expect(signUp.step == .email)
    signUp.backButtonTapped()
    #expect(signUp.step == .email)

    // The same address is still verified: no new code, straight to the nickname.
    await signUp.sendCodeButtonTapped()
    #expect(signUp.step == .nickname)
    #expect(backend.lastEmailCode(for: "back@academy.example") == nil)

    // Another address needs its own code.
    signUp.backButtonTapped()
    signUp.emailText = "other@academy.example"
    await signUp.sendCodeButtonTapped()
    #expect(signUp.step == .code)
    #expect(!signUp.isEmailVerified)
  }

  @Test func aCodeThatExpiredIsRefusedWithAReason() async throws {
    let (_, signUp) = try await newcomer("slowpoke")
    signUp.emailText = "slow@academy.example"
    await signUp.sendCodeButtonTapped()
    let code = try #require(backend.lastEmailCode(for: "slow@academy.example"))
    backend.advance(by: 601)
    signUp.codeText = code.rawValue
    await signUp.verifyButtonTapped()
    guard case .validation(.invalidFormat(field: "code", let expected)) = signUp.failure else {
      Issue.record("expected an expiry failure, got \(String(describing: signUp.failure))")
      return
    }
    #expect(expected.contains("expired"))
    #expect(signUp.step == .code)
  }

  @Test func aNicknameTakenMeanwhileSendsTheUserBack() async throws {
    let (client, signUp) = try await newcomer("racer")
    signUp.emailText = "racer@academy.example"
    await signUp.sendCodeButtonTapped()
    signUp.codeText = try #require(backend.lastEmailCode(for: "racer@academy.example")).rawValue
    await signUp.verifyButtonTapped()
    signUp.nicknameText = "swift"
    await signUp.nicknameNextButtonTapped()
    #expect(signUp.step == .terms)
    try backend.createUser(nickname: "swift")
    signUp.agreesToTerms = true
    await signUp.signUpButtonTapped()
    #expect(signUp.failure == .nicknameTaken)
    #expect(signUp.step == .nickname)
    guard case .needsSignUp = client.sessionState else {
      Issue.record("expected to be still signing up, got \(client.sessionState)")
      return
    }
  }

  @Test func cancellingSignsOut() async throws {
    let (client, signUp) = try await newcomer("quitter")
    await signUp.cancelButtonTapped()
    #expect(signUp.failure == nil)
    #expect(client.sessionState == .signedOut)
  }

  @Test("a cancel whose sign-out fails keeps the code step: 'send again' still comes")
  func aFailedCancelKeepsTheResendTimer() async throws {
    let (_, signUp) = try await newcomer("stays") {
      $0.authRepository.signOut = { throw DomainError.offline }
    }
    signUp.emailText = "stays@academy.example"
    await signUp.sendCodeButtonTapped()
    #expect(signUp.step == .code)
    await signUp.cancelButtonTapped()
    #expect(signUp.failure == .offline)
    await clock.advance(by: SignUpModel.resendDelay)
    try await waitUntil("send again is enabled", step: clock.turning) { signUp.canResendCode }
  }

  @Test func offlineRequestsKeepTheStepAndSayWhy() async throws {
    let (_, signUp) = try await newcomer("offline")
    signUp.emailText = "offline@academy.example"
    backend.isOffline = true
    await signUp.sendCodeButtonTapped()
    #expect(signUp.failure == .offline)
    #expect(signUp.step == .email)
    #expect(!signUp.isWorking)
    signUp.failureDismissed()
    #expect(signUp.failure == nil)
  }
}
