import Domain
import Foundation
import Testing

@Suite("Duration in seconds")
struct DurationTests {
  @Test("timeInterval keeps fractions of a second")
  func timeInterval() {
    #expect(Duration.seconds(90).timeInterval == 90)
    #expect(Duration.milliseconds(1_500).timeInterval == 1.5)
    #expect(Duration.zero.timeInterval == 0)
    #expect(Duration.milliseconds(-250).timeInterval == -0.25)
  }

  @Test(
    "whole seconds round up and are at least 1",
    arguments: [
      (Duration.milliseconds(500), Int64(1)), (.zero, 1), (.seconds(3), 3),
      (.milliseconds(3_001), 4), (.nanoseconds(1), 1), (.seconds(-5), 1),
    ])
  func wholeSeconds(duration: Duration, expected: Int64) {
    #expect(duration.wholeSecondsRoundedUp == expected)
  }

  @Test("a rate-limit message says the rounded-up wait")
  func rateLimitedMessage() {
    #expect(
      DomainError.rateLimited(retryAfter: .milliseconds(200)).description
        == "You are doing that too often. Try again in 1 s.")
  }
}
