import Dependencies
import Domain
import Foundation
import Observation
import Repositories

/// The report inbox: one case per reported target, filtered by status, page by page, shown
/// grouped by what was reported (answers, posts, comments, chat messages, users). Tapping a
/// case opens it (``ReportCaseModel``); a case resolved there is updated here.
@MainActor @Observable
public final class ReportInboxModel {
  /// The cases of one kind of target, in the inbox's order.
  public struct Section: Hashable, Sendable, Identifiable {
    /// What the cases are about.
    public var kind: ReportTarget.Kind
    /// The cases, in the inbox order (most recently opened first).
    public var cases: [ReportCase]

    /// The section's identity: its kind.
    public var id: ReportTarget.Kind { kind }
  }

  /// What the inbox presents on top of itself.
  public enum Destination {
    /// A case with all its reports, to resolve.
    case detail(ReportCaseModel)
  }

  /// Which cases are listed: `nil` for all, or only open or resolved ones.
  public private(set) var statusFilter: ReportStatus?
  /// What is presented on top, if anything.
  public var destination: Destination?
  /// The last failure of an action (the next page), shown until ``failureDismissed()``.
  public private(set) var failure: DomainError?

  private let pager: Pager<ReportCase>
  @ObservationIgnored @Dependency(\.adminRepository) private var admin
  @ObservationIgnored @Dependency(\.analyticsRepository) private var analytics
  @ObservationIgnored @Dependency(\.date) private var date

  /// Creates the inbox listing `status` (`nil`: all), `firstPage.limit` cases a page, starting
  /// at `firstPage.cursor` (a tool can continue a listing it printed before).
  public init(status: ReportStatus? = .open, firstPage: PageRequest = .first) {
    statusFilter = status
    pager = Pager(firstPage: firstPage)
  }

  /// The cases loaded so far, in the server's order.
  public var cases: [ReportCase] { pager.items }
  /// The loaded cases grouped by target kind, in ``Domain/ReportTarget/Kind`` order; kinds
  /// without cases are left out.
  public var sections: [Section] {
    let byKind = Dictionary(grouping: cases, by: \.target.kind)
    return ReportTarget.Kind.allCases.compactMap { kind in
      byKind[kind].map { Section(kind: kind, cases: $0) }
    }
  }
  /// Where the next page starts, `nil` on the last page.
  public var nextCursor: PageCursor? { pager.nextCursor }
  /// Whether the inbox is loading, shown, failed or refused (members).
  public var state: ScreenState { pager.state }
  /// The next page is loading.
  public var isLoadingMore: Bool { pager.isLoadingMore }

  /// The screen appeared: loads the first page.
  public func task() async {
    await analytics.screenViewed(
      "admin_reports", ["status": statusFilter?.rawValue ?? "all"], at: date.now)
    await reload()
  }

  /// Pull to refresh: the first page again.
  public func refreshPulled() async {
    await reload()
  }

  /// The status filter changed: the inbox starts over.
  public func statusFilterChanged(_ status: ReportStatus?) async {
    guard status != statusFilter else { return }
    statusFilter = status
    await reload()
  }

  /// The end of the list came into view: loads the next page of the filter the list shows (not
  /// of one chosen since, whose first page has not landed).
  public func loadMoreReached() async {
    failure = await pager.loadMore()
  }

  /// A case was tapped: its detail opens.
  public func caseTapped(_ reportCase: ReportCase) {
    let detail = withDependencies(from: self) { ReportCaseModel(caseID: reportCase.id) }
    detail.onResolved = { [weak self] resolved in self?.show(resolved) }
    destination = .detail(detail)
  }

  /// The detail was closed.
  public func destinationDismissed() {
    destination = nil
  }

  /// The failure was read.
  public func failureDismissed() {
    failure = nil
  }

  /// A case resolved in its detail: updated in place, or gone from an "open" inbox.
  private func show(_ resolved: ReportCase) {
    if statusFilter != nil && statusFilter != resolved.status {
      pager.list.remove(resolved.id)
    } else {
      pager.list.update(resolved.id) { $0 = resolved }
    }
  }

  private func reload() async {
    let status = statusFilter
    await pager.reload { [admin] in try await admin.fetchReportCases(status, $0) }
  }
}

/// One report case with every report in it, and the decision: dismiss (the content stays),
/// hide the content, or hide it and ban its author, with an optional note. A resolved case
/// cannot be resolved again: the service's conflict is shown.
@MainActor @Observable
public final class ReportCaseModel: Identifiable {
  /// What the case presents on top of itself.
  public enum Destination: Hashable, Sendable {
    /// "Resolve this case as …?" with confirm and cancel.
    case confirmResolution(ReportResolution)
  }

  /// The case shown.
  public let caseID: ReportCase.ID
  /// The case and its reports, once loaded.
  public private(set) var detail: ReportCaseDetail?
  /// Whether the case is loading, shown, failed or refused (members).
  public private(set) var state: ScreenState = .idle
  /// The moderator's note: at most 500 characters, or 200 with "ban author", where it is the
  /// ban's reason (`TextRule.moderatorNote(for:)`).
  public var note = ""
  /// What is presented on top, if anything.
  public var destination: Destination?
  /// The decision is being sent.
  public private(set) var isResolving = false
  /// The last failure of the decision (already resolved is `.conflict`), shown until
  /// ``failureDismissed()``.
  public private(set) var failure: DomainError?

  /// Called with the case once it is resolved here.
  @ObservationIgnored public var onResolved: @MainActor (ReportCase) -> Void = { _ in }
  /// The case as the decision made here answered it: a case read before that decision landed
  /// must not offer the decisions again.
  @ObservationIgnored private var resolvedHere: ReportCase?
  /// Numbers the loads: only the newest lands (an older read may still say "open").
  @ObservationIgnored private var loads = LatestLoad()
  @ObservationIgnored @Dependency(\.adminRepository) private var admin
  @ObservationIgnored @Dependency(\.analyticsRepository) private var analytics
  @ObservationIgnored @Dependency(\.date) private var date

  /// Creates the detail of the case `caseID`.
  public init(caseID: ReportCase.ID) {
    self.caseID = caseID
  }

  /// The identity of the screen: its case.
  public nonisolated var id: ReportCase.ID { caseID }

  /// The decisions offered: all three while the case is open, none once it is resolved.
  public var resolutions: [ReportResolution] {
    detail?.reportCase.status == .open ? ReportResolution.allCases : []
  }

  /// The screen appeared: loads the case.
  public func task() async {
    await analytics.screenViewed("admin_report_case", at: date.now)
    await load()
  }

  /// Pull to refresh: loads the case again.
  public func refreshPulled() async {
    await load()
  }

  /// A decision was tapped: asks for confirmation.
  public func resolveButtonTapped(_ resolution: ReportResolution) {
    guard !isResolving else { return }
    failure = nil
    destination = .confirmResolution(resolution)
  }

  /// The decision was confirmed: resolves the case.
  public func resolutionConfirmed() async {
    guard case .confirmResolution(let resolution) = destination, !isResolving else { return }
    destination = nil
    isResolving = true
    defer { isResolving = false }
    do {
      let resolved = try await admin.resolveReportCase(caseID, resolution, note.trimmedOrNil)
      resolvedHere = resolved
      detail?.reportCase = resolved
      await analytics.track(
        "report_case_resolved",
        ["resolution": resolution.rawValue, "target_kind": resolved.target.kind.rawValue],
        at: date.now)
      onResolved(resolved)
    } catch {
      failure = DomainError(error)
    }
  }

  /// The confirmation was dismissed.
  public func destinationDismissed() {
    destination = nil
  }

  /// The failure was read.
  public func failureDismissed() {
    failure = nil
  }

  private func load() async {
    let number = loads.start()
    if detail == nil { state = .loading }
    let resolvedBefore = resolvedHere
    do {
      var read = try await admin.fetchReportCase(caseID)
      guard loads.isLatest(number) else { return }
      // Read before the decision here landed: the decision's answer is newer.
      if let resolved = resolvedHere, resolved != resolvedBefore { read.reportCase = resolved }
      detail = read
      state = .loaded
    } catch is CancellationError {
      // Given up (the screen went away): what is shown stays, and no failure.
    } catch {
      guard loads.isLatest(number) else { return }
      state = ScreenState(failure: error)
    }
  }
}
