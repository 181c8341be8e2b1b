import Clocks
import Dependencies
import Repositories
import TestSupport
import Testing

/// `LatestSearch`: a text change supersedes the search before; a search runs after its pause.
///
/// Each test waits until the search it started is armed (`isWaiting`) before it changes the
/// text or moves the clock: a task may start late on a loaded machine, and a change made before
/// the pause is armed tests nothing (and once left a test waiting for a clock nobody moved).
@MainActor
@Suite("LatestSearch", .timeLimit(.minutes(1)))
struct LatestSearchTests {
  @Test func everyFieldRestsThreeHundredMilliseconds() {
    #expect(LatestSearch.pause == .milliseconds(300))
  }

  @Test func aSearchRunsAfterItsPauseUnlessANewerChangeCameFirst() async throws {
    let clock = TestClock()
    let searches = LatestSearch()
    let ran = LockIsolated<[String]>([])
    let first = searches.supersede()
    let stale = Task {
      await searches.afterPause(.milliseconds(300), on: clock, run: first) {
        ran.withValue { $0.append("first") }
      }
    }
    try await armed(searches)
    let second = searches.supersede()
    #expect(!searches.isCurrent(first) && searches.isCurrent(second))
    // The first pause ended with the change: it returns without searching.
    await stale.value
    #expect(!searches.isWaiting)
    let current = Task {
      await searches.afterPause(.milliseconds(300), on: clock, run: second) {
        ran.withValue { $0.append("second") }
      }
    }
    try await armed(searches)
    await clock.advance(by: .milliseconds(299))
    await Task.megaYield()
    #expect(ran.value.isEmpty)
    await clock.advance(by: .milliseconds(2))
    await current.value
    #expect(ran.value == ["second"])
    #expect(!searches.isWaiting)
  }

  @Test func skippingThePauseEndsTheWaitWithoutANewNumber() async throws {
    let searches = LatestSearch()
    let run = searches.supersede()
    let ran = LockIsolated(false)
    let waiting = Task {
      await searches.afterPause(.seconds(60), on: TestClock(), run: run) { ran.setValue(true) }
    }
    try await armed(searches)
    searches.skipPause()
    await waiting.value
    #expect(!ran.value && searches.isCurrent(run) && !searches.isWaiting)
  }

  @Test func aCallForASupersededChangeReturnsWithoutWaiting() async {
    let searches = LatestSearch()
    let stale = searches.supersede()
    searches.supersede()
    let returned = LockIsolated(false)
    let call = Task {
      await searches.afterPause(.seconds(60), on: TestClock(), run: stale) {
        Issue.record("a superseded search ran")
      }
      returned.setValue(true)
    }
    // The clock never moves: only a call that does not arm its pause returns.
    await eventually("the superseded call returns") { returned.value }
    #expect(!searches.isWaiting, "the superseded call armed its pause")
    // Ends a pause the call armed anyway, so a failure here cannot leave the test waiting.
    searches.skipPause()
    await call.value
  }

  @Test func cancellingTheCallerLeavesTheSearchToRun() async throws {
    let clock = TestClock()
    let searches = LatestSearch()
    let run = searches.supersede()
    let ran = LockIsolated(false)
    let caller = Task {
      await searches.afterPause(.milliseconds(300), on: clock, run: run) { ran.setValue(true) }
    }
    try await armed(searches)
    caller.cancel()
    await clock.advance(by: .milliseconds(300))
    // Turned until it runs: a pause that went to sleep just as the clock reached its end waits
    // for the next turn.
    try await waitUntil("the search runs", step: clock.turning) { ran.value }
    await caller.value
    #expect(ran.value && !searches.isWaiting)
  }

  @Test func aScheduledSearchIsArmedAtOnceAndANewerChangeCancelsItWhileItRuns() async throws {
    let clock = TestClock()
    let searches = LatestSearch()
    let (started, cancelled) = (LockIsolated(false), LockIsolated(false))
    let task = searches.schedule(.milliseconds(300), on: clock, run: searches.supersede()) {
      started.setValue(true)
      do {
        try await Task.sleep(for: .seconds(30))
      } catch {
        cancelled.setValue(true)
      }
    }
    // Armed before the call returned: the clock moving now ends the pause, task started or not.
    #expect(searches.isWaiting)
    await clock.advance(by: .milliseconds(300))
    try await waitUntil("the search runs", step: clock.turning) { started.value }
    searches.supersede()
    await task.value
    #expect(cancelled.value && !searches.isWaiting)
  }

  /// Waits until `searches` has a search armed.
  private func armed(_ searches: LatestSearch) async throws {
    try await waitUntil("the search's task arms its pause") { searches.isWaiting }
  }
}
