import Dependencies
import Domain
import Foundation
import Observation
import Repositories

/// The "see more" sheet of anything reportable: report it (someone else's) or delete it (mine,
/// after a confirmation). One sheet for answers, posts, comments, chat messages and users.
///
/// The presenting model says how to delete (`delete`), because that differs per kind; the
/// report flow is ``ReportModel``, presented from here.
@MainActor @Observable
public final class SeeMoreModel: Identifiable {
  /// What the sheet offers.
  public enum Option: Hashable, Sendable {
    /// Report it (not offered for own content).
    case report
    /// Delete it (own content with a `delete` action only).
    case delete
  }

  /// What the sheet presents on top of itself.
  public enum Destination {
    /// The report flow.
    case report(ReportModel)
    /// "Delete this?" with delete and cancel.
    case confirmDeletion
  }

  /// How the sheet ended, for the presenting model.
  public enum Outcome: Hashable, Sendable {
    /// The report flow ended (filed, already reported or cancelled).
    case report(ReportModel.Outcome)
    /// The item was deleted.
    case deleted
    /// The user closed the sheet.
    case dismissed
  }

  /// What the sheet is about.
  public let target: ReportTarget
  /// Whether the user wrote it.
  public let isMine: Bool
  /// What is presented on top, if anything.
  public var destination: Destination?
  /// Deleting: the button shows progress.
  public private(set) var isDeleting = false
  /// The last failure (of a deletion), shown until ``failureDismissed()``.
  public private(set) var failure: DomainError?

  /// Called once when the sheet ends (a close while the deletion runs waits for it: the sheet
  /// ends with its outcome).
  @ObservationIgnored public var onFinish: @MainActor (Outcome) -> Void = { _ in }
  @ObservationIgnored private let delete: (@Sendable () async throws -> Void)?
  @ObservationIgnored @Dependency(\.analyticsRepository) private var analytics
  @ObservationIgnored @Dependency(\.date) private var date

  /// Creates the sheet for `target`; `delete` removes it (offered only when `isMine`).
  public init(
    target: ReportTarget, isMine: Bool, delete: (@Sendable () async throws -> Void)? = nil
  ) {
    self.target = target
    self.isMine = isMine
    self.delete = delete
  }

  /// The identity of the sheet: its target.
  public nonisolated var id: ReportTarget { target }

  /// The options, in display order.
  public var options: [Option] {
    isMine ? (delete == nil ? [] : [.delete]) : [.report]
  }

  /// The sheet appeared.
  public func task() async {
    await analytics.screenViewed("see_more", ["target_kind": target.kind.rawValue], at: date.now)
  }

  /// "Report" was tapped: the report flow opens.
  public func reportButtonTapped() {
    guard options.contains(.report) else { return }
    let report = withDependencies(from: self) { ReportModel(target: target) }
    report.onFinish = { [weak self] outcome in
      self?.destination = nil
      self?.onFinish(.report(outcome))
    }
    destination = .report(report)
  }

  /// "Delete" was tapped: asks for confirmation.
  public func deleteButtonTapped() {
    guard options.contains(.delete) else { return }
    failure = nil
    destination = .confirmDeletion
  }

  /// The deletion was confirmed.
  public func deletionConfirmed() async {
    guard case .confirmDeletion = destination, let delete, !isDeleting else { return }
    destination = nil
    isDeleting = true
    defer { isDeleting = false }
    do {
      try await delete()
      await analytics.track("content_deleted", ["target_kind": target.kind.rawValue], at: date.now)
      onFinish(.deleted)
    } catch {
      failure = DomainError(error)
    }
  }

  /// The confirmation or the report flow was dismissed without finishing.
  public func destinationDismissed() {
    destination = nil
  }

  /// The sheet was closed; ignored while the deletion runs (it ends the sheet).
  public func closeButtonTapped() {
    guard !isDeleting else { return }
    onFinish(.dismissed)
  }

  /// The failure was read.
  public func failureDismissed() {
    failure = nil
  }
}
