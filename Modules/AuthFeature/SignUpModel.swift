import Dependencies
import Domain
import Foundation
import Observation
import Repositories

/// Sign-up after a provider sign-in found no account: academy email, the code sent to it,
/// a nickname, the terms.
///
/// Each step checks its input with the `Domain` rules before anything is sent, so a typo is a
/// field error at once; what only the server knows (a wrong or expired code, a taken
/// nickname) comes back as ``failure``. When sign-up finishes, the session stream says
/// `signedIn` and the app moves on; ``cancelButtonTapped()`` signs out instead.
@MainActor @Observable
public final class SignUpModel {
  /// The steps, in order.
  public enum Step: Int, CaseIterable, Hashable, Sendable {
    /// The academy email address.
    case email
    /// The 6-digit code sent to it.
    case code
    /// The nickname (and, optionally, the cohort).
    case nickname
    /// Agreeing to the terms, then sign-up.
    case terms
  }

  /// How long after sending a code the user may ask for another one.
  public static let resendDelay: Duration = .seconds(30)

  /// The token of the provider sign-in that found no account.
  public let signUpToken: SignUpToken
  /// The version of the terms the screen shows and the user agrees to.
  public let termsVersion: String
  /// The step on screen.
  public private(set) var step: Step = .email
  /// The email field.
  public var emailText = ""
  /// The code field.
  public var codeText = ""
  /// The nickname field.
  public var nicknameText = ""
  /// The cohort field (optional).
  public var cohortText = ""
  /// The terms checkbox.
  public var agreesToTerms = false
  /// Where the last code went.
  public private(set) var codeSentTo: EmailAddress?
  /// When the last code stops working.
  public private(set) var codeExpiresAt: Date?
  /// Whether "send again" is enabled (``resendDelay`` after the last code).
  public private(set) var canResendCode = false
  /// A request is under way: the step's button shows progress and ignores taps.
  public private(set) var isWorking = false
  /// The last failure, shown until ``failureDismissed()`` or the next attempt.
  public private(set) var failure: DomainError?

  @ObservationIgnored private var verified: (email: EmailAddress, token: EmailVerificationToken)?
  @ObservationIgnored private var checkedNickname: Nickname?
  @ObservationIgnored private var resendTimer: Task<Void, Never>?
  @ObservationIgnored @Dependency(\.authRepository) private var auth
  @ObservationIgnored @Dependency(\.analyticsRepository) private var analytics
  @ObservationIgnored @Dependency(\.continuousClock) private var clock
  @ObservationIgnored @Dependency(\.date) private var date

  /// Creates the flow for the sign-up `signUpToken` of `SessionState.needsSignUp`, agreeing to
  /// the terms of `termsVersion`.
  public init(signUpToken: SignUpToken, termsVersion: String) {
    self.signUpToken = signUpToken
    self.termsVersion = termsVersion
  }

  isolated deinit {
    resendTimer?.cancel()
  }

  /// Whether the email address was verified (the code step is done).
  public var isEmailVerified: Bool { verified != nil }

  /// The screen appeared.
  public func task() async {
    await analytics.screenViewed("sign_up", at: date.now)
  }

  /// "Send code" on the email step. An address verified before goes straight to the nickname
  /// step; any other gets a new code.
  public func sendCodeButtonTapped() async {
    guard step == .email else { return }
    let email: EmailAddress
    do {
      email = try EmailAddress(validating: emailText)
    } catch {
      failure = .validation(error)
      return
    }
    if verified?.email == email {
      failure = nil
      step = .nickname
      return
    }
    await requestCode(to: email, isResend: false)
  }

  /// "Send again" on the code step, once ``canResendCode``.
  public func resendCodeButtonTapped() async {
    guard step == .code, canResendCode, let email = codeSentTo else { return }
    await requestCode(to: email, isResend: true)
  }

  /// "Verify" on the code step.
  public func verifyButtonTapped() async {
    guard step == .code, let email = codeSentTo, !isWorking else { return }
    let code: VerificationCode
    do {
      code = try VerificationCode(validating: codeText)
    } catch {
      failure = .validation(error)
      return
    }
    await perform {
      let token = try await auth.verifyEmailCode(signUpToken, email, code)
      verified = (email, token)
      resendTimer?.cancel()
      codeText = ""
      step = .nickname
      await analytics.track("email_verified", at: date.now)
    }
  }

  /// "Next" on the nickname step: checks the rules here (the nickname's and the cohort's, both
  /// typed on this step) and availability on the server.
  public func nicknameNextButtonTapped() async {
    guard step == .nickname, !isWorking else { return }
    let nickname: Nickname
    do {
      nickname = try Nickname(validating: nicknameText)
      _ = try TextRule.cohort.validate(optional: cohortText)
    } catch {
      failure = .validation(error)
      return
    }
    await perform {
      let availability = try await auth.checkNickname(nickname)
      guard availability.isAvailable else {
        failure = .nicknameTaken
        return
      }
      checkedNickname = nickname
      step = .terms
    }
  }

  /// "Sign up" on the terms step. A nickname someone took meanwhile sends the user back to
  /// the nickname step with the failure shown.
  public func signUpButtonTapped() async {
    guard step == .terms, !isWorking, let verified, let nickname = checkedNickname else { return }
    guard agreesToTerms else {
      failure = .validation(.empty(field: "terms"))
      return
    }
    let form = SignUpForm(
      signUpToken: signUpToken, verificationToken: verified.token, nickname: nickname,
      cohort: cohortText.trimmedOrNil, agreedTermsVersion: termsVersion)
    await perform {
      do {
        _ = try await auth.signUp(form)
        await analytics.track(
          "sign_up_completed", ["has_cohort": form.cohort == nil ? "false" : "true"], at: date.now)
      } catch DomainError.nicknameTaken {
        checkedNickname = nil
        step = .nickname
        throw DomainError.nicknameTaken
      }
    }
  }

  /// Back one step. Leaving the nickname step goes back to the email (its code is used up);
  /// the verified address stays verified unless the user changes it.
  public func backButtonTapped() {
    guard !isWorking else { return }
    failure = nil
    switch step {
    case .email: return
    case .code, .nickname: step = .email
    case .terms: step = .nickname
    }
  }

  /// The user gave up: signs out, and the app returns to sign-in. A sign-out that fails keeps
  /// the step as it was ("send again" still comes after its delay).
  public func cancelButtonTapped() async {
    guard !isWorking else { return }
    await perform {
      try await auth.signOut()
      resendTimer?.cancel()
    }
  }

  /// The failure was read.
  public func failureDismissed() {
    failure = nil
  }

  private func requestCode(to email: EmailAddress, isResend: Bool) async {
    guard !isWorking else { return }
    await perform {
      let expiresAt = try await auth.requestEmailCode(signUpToken, email)
      if verified?.email != email { verified = nil }
      codeSentTo = email
      codeExpiresAt = expiresAt
      codeText = ""
      step = .code
      startResendTimer()
      await analytics.track(
        "email_code_requested", ["resend": isResend ? "true" : "false"], at: date.now)
    }
  }

  private func startResendTimer() {
    resendTimer?.cancel()
    canResendCode = false
    // Armed now: the delay counts from the code, however late the task starts.
    let delay = clock.deadline(after: Self.resendDelay)
    resendTimer = Task { [weak self] in
      guard (try? await delay()) != nil else { return }
      self?.canResendCode = true
    }
  }

  /// Runs one request: progress while it runs, its failure kept.
  private func perform(_ body: () async throws -> Void) async {
    isWorking = true
    failure = nil
    defer { isWorking = false }
    do {
      try await body()
    } catch {
      failure = DomainError(error)
    }
  }
}
