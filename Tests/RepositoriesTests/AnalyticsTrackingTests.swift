import Dependencies
import Domain
import Foundation
import Repositories
import Testing

@Suite("AnalyticsRepository.track(_:_:) and screenViewed")
struct AnalyticsTrackingTests {
  static let now = Date(timeIntervalSince1970: 1_790_000_000)

  /// An analytics repository that records what it is asked to track.
  static func recording() -> (AnalyticsRepository, LockIsolated<[AnalyticsEvent]>) {
    let events = LockIsolated<[AnalyticsEvent]>([])
    var analytics = AnalyticsRepository()
    analytics.track = { event in events.withValue { $0.append(event) } }
    return (analytics, events)
  }

  @Test func stampsCatalogueEventsWithTheirDate() async {
    let (analytics, events) = Self.recording()
    await analytics.track("answer_submitted", ["length": "12"], at: Self.now)
    await analytics.screenViewed(
      "question_today", ["screen": "ignored", "question": "q_1"], at: Self.now)
    #expect(
      events.value.map(\.name) == ["answer_submitted", AnalyticsRepository.screenViewedEvent])
    #expect(events.value.allSatisfy { $0.occurredAt == Self.now })
    #expect(events.value[0].properties == ["length": "12"])
    #expect(events.value[1].properties == ["screen": "question_today", "question": "q_1"])
  }

  @Test func aNameThatBreaksTheRulesIsReportedAndDropped() async {
    let (analytics, events) = Self.recording()
    await withKnownIssue {
      await analytics.track("Not Snake Case", at: Self.now)
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("\"Not Snake Case\" was dropped") }
    }
    #expect(events.value.isEmpty)
  }
}
