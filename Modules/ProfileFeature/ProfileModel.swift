import Dependencies
import Domain
import Foundation
import Observation
import Repositories

/// The Profile tab's root: the user's profile and answers, nickname editing, their reports,
/// signing out and withdrawing (after a confirmation).
///
/// Signing out and withdrawing need no callback: the session ends, and the app, which follows
/// `AuthRepository.sessionStates`, shows the signed-out flow. A failure stays on this screen.
@MainActor @Observable
public final class ProfileModel {
  /// What the screen shows.
  public enum Phase: Hashable, Sendable {
    /// The first load runs.
    case loading
    /// The user's profile.
    case loaded(User)
    /// The first load failed; ``ProfileModel/refreshPulled()`` tries again.
    case failed(DomainError)
  }

  /// What the screen presents on top of itself.
  public enum Destination {
    /// The nickname editor (a sheet).
    case editNickname(NicknameEditModel)
    /// The user's reports (pushed).
    case myReports(MyReportsModel)
    /// "Delete your account?" with withdraw and cancel.
    case confirmWithdrawal
  }

  /// What the screen shows.
  public private(set) var phase: Phase = .loading
  /// The user's answers, shown on the profile.
  public let myAnswers: MyAnswersModel
  /// What is presented on top, if anything.
  public var destination: Destination?
  /// Signing out: the button shows progress.
  public private(set) var isSigningOut = false
  /// Withdrawing: the button shows progress.
  public private(set) var isWithdrawing = false
  /// The last failure (a refresh, signing out, withdrawing), shown until ``failureDismissed()``.
  public private(set) var failure: DomainError?

  /// Asks the app to open a place outside this screen (one of my answers: its question).
  @ObservationIgnored public var onNavigate: @MainActor (DeepLink) -> Void = { _ in }
  /// How many nickname saves landed: a profile read before one must not put the old name back.
  @ObservationIgnored private var saves = 0
  /// Numbers the loads: only the newest lands.
  @ObservationIgnored private var loads = LatestLoad()

  @ObservationIgnored @Dependency(\.profileRepository) private var profiles
  @ObservationIgnored @Dependency(\.authRepository) private var auth
  @ObservationIgnored @Dependency(\.analyticsRepository) private var analytics
  @ObservationIgnored @Dependency(\.date) private var date

  /// The Profile screen; ``task()`` loads it.
  public init() {
    myAnswers = MyAnswersModel()
    myAnswers.onNavigate = { [weak self] link in self?.onNavigate(link) }
  }

  /// The user's profile, when loaded.
  public var user: User? {
    if case .loaded(let user) = phase { user } else { nil }
  }

  /// The screen appeared: loads the profile and the user's answers.
  public func task() async {
    await analytics.screenViewed("profile", at: date.now)
    await load()
  }

  /// The screen was pulled down (or "try again" tapped): loads everything again.
  public func refreshPulled() async {
    await load()
  }

  /// "Edit nickname": opens the editor on the current nickname.
  public func editNicknameButtonTapped() {
    guard let user else { return }
    let editor = withDependencies(from: self) { NicknameEditModel(current: user.nickname) }
    editor.onFinish = { [weak self, weak editor] outcome in
      guard let self else { return }
      // Closed only if it is still the sheet shown (it may have been swiped away and another
      // opened while its request ran); what it did still lands.
      if case .editNickname(let shown) = destination, shown === editor { destination = nil }
      if case .saved(let user) = outcome {
        saves += 1
        phase = .loaded(user)
      }
    }
    destination = .editNickname(editor)
  }

  /// "My reports": pushes their list.
  public func myReportsButtonTapped() {
    destination = .myReports(withDependencies(from: self) { MyReportsModel() })
  }

  /// "Sign out": ends the session (the app then shows the signed-out flow).
  public func signOutButtonTapped() async {
    guard !isSigningOut, !isWithdrawing else { return }
    isSigningOut = true
    failure = nil
    defer { isSigningOut = false }
    do {
      try await auth.signOut()
    } catch {
      failure = DomainError(error)
    }
  }

  /// "Delete account": asks for confirmation first.
  public func withdrawButtonTapped() {
    guard !isWithdrawing else { return }
    failure = nil
    destination = .confirmWithdrawal
  }

  /// The withdrawal was confirmed: deletes the account (the session ends with it).
  public func withdrawalConfirmed() async {
    guard case .confirmWithdrawal = destination, !isWithdrawing, !isSigningOut else { return }
    destination = nil
    isWithdrawing = true
    defer { isWithdrawing = false }
    do {
      try await auth.withdraw()
    } catch {
      failure = DomainError(error)
    }
  }

  /// The sheet, pushed screen or confirmation was dismissed.
  public func destinationDismissed() {
    destination = nil
  }

  /// The failure was read.
  public func failureDismissed() {
    failure = nil
  }

  private func load() async {
    failure = nil
    let (number, savesBefore) = (loads.start(), saves)
    do {
      let me = try await profiles.fetchMe()
      // Overtaken by a newer load: that one shows what is newer.
      guard loads.isLatest(number) else { return }
      // Read before a nickname save landed: the save's answer is newer.
      if saves == savesBefore { phase = .loaded(me) }
    } catch is CancellationError {
      // Given up (the screen went away): no failure; the next appearance loads again.
      return
    } catch {
      guard loads.isLatest(number) else { return }
      if user == nil { phase = .failed(DomainError(error)) } else { failure = DomainError(error) }
      return
    }
    await myAnswers.load()
  }
}
