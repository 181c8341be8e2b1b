import Dependencies
import Domain
import Foundation

extension AnalyticsRepository {
  /// The event every screen model sends when its screen appears (`Docs/Analytics.md`).
  public static let screenViewedEvent = "screen_viewed"

  /// Tracks the catalogue event `name` (`Docs/Analytics.md`) with `properties`, as happening
  /// at `date` (a model passes its `@Dependency(\.date.now)`).
  ///
  /// Names are constants of the catalogue, so one that breaks ``Domain/AnalyticsEvent``'s rules
  /// is a programming error: it is reported as an issue (a failing test, a runtime warning in
  /// an app) and the event is dropped; the user's action goes on.
  public func track(_ name: String, _ properties: [String: String] = [:], at date: Date) async {
    let event: AnalyticsEvent
    do {
      event = try AnalyticsEvent(name: name, properties: properties, occurredAt: date)
    } catch {
      reportIssue("Analytics event \"\(name)\" was dropped: \(error)")
      return
    }
    await track(event)
  }

  /// Tracks ``screenViewedEvent`` for `screen` (`question_today`, `board_post`, ...), with
  /// `properties` beside it, as happening at `date`.
  public func screenViewed(
    _ screen: String, _ properties: [String: String] = [:], at date: Date
  ) async {
    await track(
      Self.screenViewedEvent, properties.merging(["screen": screen]) { _, screen in screen },
      at: date)
  }
}
