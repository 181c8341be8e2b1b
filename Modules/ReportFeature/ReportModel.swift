import Dependencies
import Domain
import Foundation
import Observation
import Repositories

/// The report flow for anything reportable: choose a reason, confirm, done.
///
/// One model for answers, posts, comments, chat messages and users (``Domain/ReportTarget``),
/// replacing the source app's per-type switch. "Already reported" is an outcome of its own and
/// every failure stays on screen until the user dismisses it: nothing is swallowed.
@MainActor @Observable
public final class ReportModel: Identifiable {
  /// Where the flow stands; a view shows one screen per step.
  public enum Step: Hashable, Sendable {
    /// The list of reasons (``ReportModel/reasons``).
    case chooseReason
    /// "Report this for <reason>?" with the reason chosen.
    case confirm(ReportReason.Code)
    /// Filed; the moderators will look at it.
    case reported(Report)
    /// The user had reported it before: nothing new was filed.
    case alreadyReported
  }

  /// How the flow ended, for the presenting model.
  public enum Outcome: Hashable, Sendable {
    /// A report was filed.
    case reported(Report)
    /// The user had reported it before.
    case alreadyReported
    /// The user left before filing.
    case cancelled
  }

  /// What is reported.
  public let target: ReportTarget
  /// The reasons offered, in display order.
  public let reasons: [ReportReason.Code] = ReportReason.choices.map(\.code)
  /// The current step.
  public private(set) var step: Step = .chooseReason
  /// The text of "something else" (1-500 characters once trimmed).
  public var otherDetail = ""
  /// A report is being filed: the confirm button shows progress and ignores taps.
  public private(set) var isSubmitting = false
  /// The last failure, shown until ``failureDismissed()``.
  public private(set) var failure: DomainError?

  /// Called once when the flow ends (done, already reported, or cancelled).
  @ObservationIgnored public var onFinish: @MainActor (Outcome) -> Void = { _ in }

  @ObservationIgnored @Dependency(\.reportRepository) private var reports
  @ObservationIgnored @Dependency(\.analyticsRepository) private var analytics
  @ObservationIgnored @Dependency(\.date) private var date

  /// Creates the flow for `target`.
  public init(target: ReportTarget) {
    self.target = target
  }

  /// The identity of the sheet: its target.
  public nonisolated var id: ReportTarget { target }

  /// Whether the confirm step may file the report (`other` needs its text).
  public var canSubmit: Bool {
    guard case .confirm(let code) = step, !isSubmitting else { return false }
    return (try? reason(for: code)) != nil
  }

  /// The screen appeared.
  public func task() async {
    await analytics.screenViewed("report", ["target_kind": target.kind.rawValue], at: date.now)
  }

  /// The user picked a reason.
  public func reasonTapped(_ code: ReportReason.Code) {
    guard step == .chooseReason else { return }
    failure = nil
    step = .confirm(code)
  }

  /// Back from the confirmation to the reasons (the text of "other" is kept).
  public func backButtonTapped() {
    guard case .confirm = step, !isSubmitting else { return }
    step = .chooseReason
  }

  /// The user confirmed: files the report.
  public func confirmButtonTapped() async {
    guard case .confirm(let code) = step, !isSubmitting else { return }
    let reason: ReportReason
    do {
      reason = try self.reason(for: code)
    } catch {
      failure = .validation(error)
      return
    }
    isSubmitting = true
    failure = nil
    defer { isSubmitting = false }
    do {
      let report = try await reports.report(target, reason)
      step = .reported(report)
      await track("reported", reason: code)
    } catch DomainError.alreadyReported {
      step = .alreadyReported
      await track("already_reported", reason: code)
    } catch {
      failure = DomainError(error)
    }
  }

  /// The user closed the sheet: ends the flow with what happened. Ignored while a report is
  /// being filed (its outcome is not known yet).
  public func closeButtonTapped() {
    guard !isSubmitting else { return }
    switch step {
    case .reported(let report): onFinish(.reported(report))
    case .alreadyReported: onFinish(.alreadyReported)
    case .chooseReason, .confirm: onFinish(.cancelled)
    }
  }

  /// The failure was read.
  public func failureDismissed() {
    failure = nil
  }

  private func reason(for code: ReportReason.Code) throws(ValidationError) -> ReportReason {
    try ReportReason(code: code, detail: code == .other ? otherDetail : nil)
  }

  private func track(_ outcome: String, reason: ReportReason.Code) async {
    await analytics.track(
      "report_submitted",
      ["target_kind": target.kind.rawValue, "reason": reason.rawValue, "outcome": outcome],
      at: date.now)
  }
}
