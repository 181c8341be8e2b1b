import Dependencies
import Domain
import Foundation
import Observation
import Repositories

/// The reports the user filed, newest first, paged, with where each stands.
@MainActor @Observable
public final class MyReportsModel {
  /// The last failure of a load, shown until ``failureDismissed()``.
  public private(set) var failure: DomainError?

  @ObservationIgnored private let list: PagedList<Report>
  @ObservationIgnored @Dependency(\.analyticsRepository) private var analytics
  @ObservationIgnored @Dependency(\.date) private var date

  /// The user's reports; ``task()`` loads them.
  public init() {
    @Dependency(\.reportRepository) var reports
    list = PagedList { [reports] page in try await reports.fetchMyReports(page) }
  }

  /// The reports loaded so far, newest first.
  public var reports: [Report] { list.items }
  /// Whether more reports follow.
  public var hasMore: Bool { list.hasMore }
  /// The first page is loading.
  public var isLoading: Bool { list.isLoading }
  /// A further page is loading.
  public var isLoadingMore: Bool { list.isLoadingMore }

  /// The screen appeared: loads the first page.
  public func task() async {
    await analytics.screenViewed("profile_reports", at: date.now)
    await refreshPulled()
  }

  /// The list was pulled down: loads the first page again.
  public func refreshPulled() async {
    failure = nil
    do {
      try await list.reload()
    } catch {
      failure = DomainError(error)
    }
  }

  /// The user scrolled to the last report: loads the next page.
  public func scrolledToBottom() async {
    do {
      try await list.loadMore()
    } catch {
      failure = DomainError(error)
    }
  }

  /// The failure was read.
  public func failureDismissed() {
    failure = nil
  }
}
