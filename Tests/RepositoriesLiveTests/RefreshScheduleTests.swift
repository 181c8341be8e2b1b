import Domain
import NetworkKit
import Testing

@testable import RepositoriesLive

/// A refresh whose answer was lost is sent again with the same refresh token; the server takes
/// a repeat within `AuthSession.refreshRetryWindow` for a retry, after it for a replay.
@Suite("Token refresh schedule")
struct RefreshScheduleTests {
  static let configurations: [(RetryPolicy, Duration)] = [
    (.default, .seconds(30)),
    (.never, .seconds(30)),
    (RetryPolicy(maxAttempts: 10, maxDelay: .seconds(60)), .seconds(120)),
    (
      RetryPolicy(maxAttempts: 6, baseDelay: .milliseconds(100), maxDelay: .seconds(1)), .seconds(2)
    ),
  ]

  @Test(
    "every attempt of one refresh starts within the server's retry window, and a refresh is retried when the policy allows",
    arguments: configurations)
  func attemptsStartWithinTheWindow(policy: RetryPolicy, timeout: Duration) {
    let schedule = LiveBackend.refreshSchedule(retryPolicy: policy, timeout: timeout)
    let attempts = schedule.retryPolicy.maxAttempts
    let lastStart = (schedule.timeout + schedule.retryPolicy.maxDelay) * (attempts - 1)
    #expect(lastStart < AuthSession.refreshRetryWindow)
    #expect(schedule.timeout <= timeout)
    #expect(attempts <= policy.maxAttempts)
    #expect(attempts >= min(policy.maxAttempts, 2))
    #expect(schedule.retryPolicy.idempotentMethods.contains(.post))
  }

  @Test func theDefaultsRetryTwiceWithinFifteenSecondAttempts() {
    let schedule = LiveBackend.refreshSchedule(retryPolicy: .default, timeout: .seconds(30))
    #expect(schedule.retryPolicy.maxAttempts == 3)
    #expect(schedule.timeout == .seconds(15))
    #expect(schedule.retryPolicy.maxDelay == .seconds(5))
  }
}
