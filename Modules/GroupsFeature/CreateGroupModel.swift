import Dependencies
import Domain
import Foundation
import Observation
import Repositories

/// The "new group" sheet: a name (1-30 characters) and a description (up to 500), checked as
/// the user types; creating makes the user the group's owner.
@MainActor @Observable
public final class CreateGroupModel: Identifiable {
  /// The name field.
  public var name = ""
  /// The description field.
  public var description = ""
  /// The group is being created: the button shows progress and ignores taps.
  public private(set) var isSubmitting = false
  /// The last failure (refused by the server, offline), shown until ``failureDismissed()``.
  public private(set) var failure: DomainError?

  /// Called once with the new group.
  @ObservationIgnored public var onCreated: @MainActor (StudyGroup) -> Void = { _ in }

  @ObservationIgnored @Dependency(\.studyGroupRepository) private var groups
  @ObservationIgnored @Dependency(\.analyticsRepository) private var analytics
  @ObservationIgnored @Dependency(\.date) private var date

  /// The identity of the sheet (there is one at a time).
  public nonisolated let id = "create_group"

  /// Creates the empty form.
  public init() {}

  /// What is wrong with the fields now, for the form to show (`nil` when they are fine).
  public var validationError: ValidationError? {
    do {
      _ = try draft.validated()
      return nil
    } catch {
      return error
    }
  }

  /// Whether "create" works.
  public var canSubmit: Bool { !isSubmitting && validationError == nil }

  private var draft: StudyGroupDraft { StudyGroupDraft(name: name, description: description) }

  /// The sheet appeared.
  public func task() async {
    await analytics.screenViewed("group_create", at: date.now)
  }

  /// "Create" was tapped: creates the group (fields trimmed) and hands it to ``onCreated``.
  public func createButtonTapped() async {
    guard !isSubmitting else { return }
    let draft: StudyGroupDraft
    do {
      draft = try self.draft.validated()
    } catch {
      failure = .validation(error)
      return
    }
    isSubmitting = true
    failure = nil
    defer { isSubmitting = false }
    do {
      let group = try await groups.createGroup(draft)
      await analytics.track("group_created", at: date.now)
      onCreated(group)
    } catch {
      failure = DomainError(error)
    }
  }

  /// The failure was read.
  public func failureDismissed() {
    failure = nil
  }
}
