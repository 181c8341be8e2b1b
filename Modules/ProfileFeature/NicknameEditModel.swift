import Dependencies
import Domain
import Foundation
import Observation
import Repositories

/// Changing one's nickname, with a live availability check while typing.
///
/// Each change is first checked against the nickname rules here (``Domain/Nickname``): an
/// invalid nickname is shown as its ``Domain/ValidationError`` and never sent. A valid one is
/// checked with the service once typing pauses for ``debounce`` (on
/// `@Dependency(\.continuousClock)`); a newer change cancels the check of an older one, so a
/// stale answer never shows.
@MainActor @Observable
public final class NicknameEditModel: Identifiable {
  /// What the field says about the nickname typed.
  public enum Availability: Hashable, Sendable {
    /// It is the current nickname: nothing to save.
    case unchanged
    /// It breaks a nickname rule (checked here, nothing was sent).
    case invalid(ValidationError)
    /// The service is asked (after the typing pause).
    case checking
    /// Nobody has it: it can be saved.
    case available
    /// Another member has it.
    case taken
    /// The check failed (e.g. offline); saving still asks the service.
    case checkFailed(DomainError)
  }

  /// How the sheet ended, for the presenting model.
  public enum Outcome: Hashable, Sendable {
    /// The nickname was changed; the profile as it is now.
    case saved(User)
    /// The user left without saving.
    case cancelled
  }

  /// How long typing must pause before the service is asked.
  public static let debounce: Duration = LatestSearch.pause

  /// The nickname before editing.
  public let current: Nickname
  /// The text of the field.
  public private(set) var text: String
  /// What is known about ``text``.
  public private(set) var availability: Availability = .unchanged
  /// The new nickname is being saved.
  public private(set) var isSaving = false
  /// The last failure of saving, shown until ``failureDismissed()``.
  public private(set) var failure: DomainError?

  /// Called once when the sheet ends.
  @ObservationIgnored public var onFinish: @MainActor (Outcome) -> Void = { _ in }

  @ObservationIgnored private var check: Task<Void, Never>?
  @ObservationIgnored @Dependency(\.authRepository) private var auth
  @ObservationIgnored @Dependency(\.profileRepository) private var profiles
  @ObservationIgnored @Dependency(\.continuousClock) private var clock
  @ObservationIgnored @Dependency(\.analyticsRepository) private var analytics
  @ObservationIgnored @Dependency(\.date) private var date

  /// The editor, starting from the `current` nickname.
  public init(current: Nickname) {
    self.current = current
    text = current.rawValue
  }

  /// The identity of the sheet: the nickname it edits.
  public nonisolated var id: Nickname { current }

  /// Whether save is enabled: a valid, changed nickname not known to be taken.
  public var canSave: Bool {
    guard !isSaving else { return false }
    switch availability {
    case .available, .checking, .checkFailed: return true
    case .unchanged, .invalid, .taken: return false
    }
  }

  /// The sheet appeared.
  public func task() async {
    await analytics.screenViewed("profile_nickname", at: date.now)
  }

  /// The user typed: checks the rules now and the service after the typing pause.
  public func nicknameChanged(_ newText: String) {
    text = newText
    check?.cancel()
    check = nil
    let nickname: Nickname
    do {
      nickname = try Nickname(validating: newText)
    } catch {
      availability = .invalid(error)
      return
    }
    if nickname == current {
      availability = .unchanged
    } else if nickname.key == current.key {
      // Only the case changes: the name is still the user's own (`Nickname.key`).
      availability = .available
    } else {
      availability = .checking
      // The pause counts from this change, however late the task starts.
      let pause = clock.deadline(after: Self.debounce)
      check = Task { [weak self] in await self?.check(nickname, after: pause) }
    }
  }

  /// Save was tapped: changes the nickname (the service has the last word on "taken").
  public func saveButtonTapped() async {
    guard canSave else { return }
    let nickname: Nickname
    do {
      nickname = try Nickname(validating: text)
    } catch {
      availability = .invalid(error)
      return
    }
    check?.cancel()
    check = nil
    isSaving = true
    failure = nil
    defer { isSaving = false }
    // What the answer is about: the user may type on while it is on its way.
    let sent = text
    do {
      let user = try await profiles.updateProfile(ProfileUpdate(nickname: nickname))
      // Saved: a check of text typed meanwhile has nothing left to say.
      check?.cancel()
      check = nil
      await analytics.track("nickname_changed", at: date.now)
      onFinish(.saved(user))
    } catch DomainError.nicknameTaken {
      // Typed on since: the field's own check speaks for the text it holds now.
      if text == sent { availability = .taken }
    } catch {
      failure = DomainError(error)
      // The save cancelled a check still in its pause: nothing will answer it now (unless the
      // user typed on, which started a check of its own).
      if text == sent, availability == .checking {
        availability = .checkFailed(DomainError(error))
      }
    }
  }

  /// The sheet was closed without saving. Ignored while the nickname is being saved (it may be
  /// saved).
  public func cancelButtonTapped() {
    guard !isSaving else { return }
    check?.cancel()
    check = nil
    onFinish(.cancelled)
  }

  /// The failure was read.
  public func failureDismissed() {
    failure = nil
  }

  /// Waits for the typing pause, then asks the service; a newer change cancels both.
  private func check(
    _ nickname: Nickname, after pause: @escaping @Sendable () async throws -> Void
  ) async {
    do {
      try await pause()
    } catch {
      return
    }
    let answer: Availability
    do {
      answer = try await auth.checkNickname(nickname).isAvailable ? .available : .taken
    } catch {
      answer = .checkFailed(DomainError(error))
    }
    guard !Task.isCancelled else { return }
    availability = answer
  }
}
