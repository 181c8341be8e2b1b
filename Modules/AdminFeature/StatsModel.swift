import Dependencies
import Domain
import Foundation
import Observation
import Repositories

/// The dashboard: counts of accounts, content, open reports and hidden content.
@MainActor @Observable
public final class StatsModel {
  /// The counts, once loaded (kept while a refresh runs or fails).
  public private(set) var stats: AdminStats?
  /// Whether the counts are loading, shown, failed or refused (members).
  public private(set) var state: ScreenState = .idle

  /// Numbers the loads: only the newest lands (an older one's counts, or failure, are stale).
  @ObservationIgnored private var loads = LatestLoad()
  @ObservationIgnored @Dependency(\.adminRepository) private var admin
  @ObservationIgnored @Dependency(\.analyticsRepository) private var analytics
  @ObservationIgnored @Dependency(\.date) private var date

  /// Creates the dashboard.
  public init() {}

  /// The screen appeared: loads the counts.
  public func task() async {
    await analytics.screenViewed("admin_stats", at: date.now)
    await load()
  }

  /// Pull to refresh: the counts again.
  public func refreshPulled() async {
    await load()
  }

  private func load() async {
    let number = loads.start()
    if stats == nil { state = .loading }
    do {
      let read = try await admin.fetchStats()
      guard loads.isLatest(number) else { return }
      stats = read
      state = .loaded
    } catch is CancellationError {
      // Given up (the screen went away): what is shown stays, and no failure.
    } catch {
      guard loads.isLatest(number) else { return }
      state = ScreenState(failure: error)
    }
  }
}
