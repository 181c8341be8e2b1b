import Dependencies
import Domain
import Foundation
import Observation
import Repositories

/// The sign-in screen: one button per provider.
///
/// The app obtains the provider's token (Sign in with Apple, the Kakao SDK, or a dev token on
/// the local server) and hands it to ``signInButtonTapped(_:token:)``. What happens next follows
/// the session stream of `AuthRepository`: a known account is signed in, a new one continues
/// with sign-up (``SignUpModel``). The model never flips an `isSignedIn` flag of its own.
@MainActor @Observable
public final class SignInModel {
  /// The provider whose sign-in is under way: its button shows progress, the others wait.
  public private(set) var signingInWith: AuthProvider?
  /// The last failure, shown until ``failureDismissed()``.
  public private(set) var failure: DomainError?

  @ObservationIgnored @Dependency(\.authRepository) private var auth
  @ObservationIgnored @Dependency(\.analyticsRepository) private var analytics
  @ObservationIgnored @Dependency(\.date) private var date

  /// Creates the screen.
  public init() {}

  /// The screen appeared.
  public func task() async {
    await analytics.screenViewed("sign_in", at: date.now)
  }

  /// The user finished a provider's sign-in and the app has its `token`.
  public func signInButtonTapped(_ provider: AuthProvider, token: String) async {
    guard signingInWith == nil else { return }
    signingInWith = provider
    failure = nil
    defer { signingInWith = nil }
    do {
      let result = try await auth.signIn(provider, token)
      let outcome =
        switch result {
        case .signedIn: "signed_in"
        case .needsSignUp: "needs_sign_up"
        }
      await analytics.track(
        "sign_in_completed", ["provider": provider.rawValue, "outcome": outcome], at: date.now)
    } catch {
      failure = DomainError(error)
    }
  }

  /// The provider's own sign-in failed before the app had a token; `reason` is what the
  /// provider said (shown as a server failure, never dropped). A sign-in the user cancelled
  /// needs no call.
  public func providerFailed(_ provider: AuthProvider, reason: String) {
    failure = .server("\(provider.rawValue) sign-in failed: \(reason)")
  }

  /// The failure was read.
  public func failureDismissed() {
    failure = nil
  }
}
