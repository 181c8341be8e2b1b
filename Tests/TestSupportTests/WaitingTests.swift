import Clocks
import Synchronization
import TestSupport
import Testing

@Suite("Waiting for other tasks", .timeLimit(.minutes(1)))
struct WaitingTests {
  @Test("poll returns as soon as work on another task makes the condition hold")
  func pollSeesOtherTasks() async {
    let done = Mutex(false)
    let worker = Task { done.withLock { $0 = true } }
    #expect(await poll { done.withLock { $0 } })
    await worker.value
  }

  @Test("poll gives up after its timeout and says so")
  func pollGivesUp() async {
    let checks = Mutex(0)
    let held = await poll(timeout: .milliseconds(50)) {
      checks.withLock { $0 += 1 }
      return false
    }
    #expect(!held)
    // Past the first hundred yields it sleeps a millisecond between checks: about 150 checks
    // in 50 ms. Spinning on yields alone would check tens of thousands of times.
    // (At least one: a thread descheduled past the deadline checks once.)
    #expect((1..<1_000).contains(checks.withLock { $0 }))
  }

  @Test("a cancelled wait gives up at once instead of spinning until its timeout")
  func cancelledWaitGivesUp() async {
    let checks = Mutex(0)
    let wait = Task {
      // Cancelled before it waits, whenever the task starts.
      withUnsafeCurrentTask { $0?.cancel() }
      return await poll(timeout: .seconds(5)) {
        checks.withLock { $0 += 1 }
        return false
      }
    }
    #expect(await wait.value == false)
    #expect(checks.withLock { $0 } == 1, "checked again after the task was cancelled")
  }

  @Test("a wait whose task was cancelled says so instead of 'timed out'")
  func cancelledWaitSaysSo() async {
    await Task {
      withUnsafeCurrentTask { $0?.cancel() }
      await withKnownIssue {
        await eventually("the moon turns green") { false }
      } matching: { issue in
        issue.comments.contains {
          $0.rawValue == "cancelled while waiting until the moon turns green"
        }
      }
    }.value
  }

  @Test("poll runs the given step between checks")
  func pollRunsTheStep() async {
    let steps = Mutex(0)
    let held = await poll(step: { steps.withLock { $0 += 1 } }) { steps.withLock { $0 } == 3 }
    #expect(held && steps.withLock { $0 } == 3)
  }

  @Test("a condition that throws ends the wait with its error")
  func throwingCondition() async {
    struct Broken: Error {}
    await #expect(throws: Broken.self) { try await poll { throw Broken() } }
  }

  @Test("waitUntil throws and records an issue naming what never happened")
  func waitUntilThrows() async throws {
    try await withKnownIssue {
      try await waitUntil("the moon turns green", timeout: .milliseconds(20)) { false }
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("the moon turns green") }
    }
  }

  @Test("eventually records an issue and returns false instead of throwing")
  func eventuallyRecords() async {
    var held = true
    await withKnownIssue {
      held = await eventually("the moon turns green", timeout: .milliseconds(20)) { false }
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("the moon turns green") }
    }
    #expect(!held)
    #expect(await eventually("it holds at once") { true })
  }

  @Test("the condition runs on the caller's actor")
  @MainActor func runsOnTheCallersActor() async throws {
    try await waitUntil {
      MainActor.assertIsolated(); return true
    }
  }

  @Test("a test clock: wait for its sleeper, then advance it under the sleep")
  func testClockSleeper() async throws {
    let clock = TestClock()
    let woke = Mutex(false)
    let sleeper = Task {
      try await clock.sleep(for: .seconds(5))
      woke.withLock { $0 = true }
    }
    try await clock.advanceOnceSomethingSleeps(by: .seconds(5))
    try await sleeper.value
    #expect(woke.withLock { $0 })
  }

  @Test("waitForSleeper fails when nothing sleeps on the clock")
  func noSleeper() async throws {
    try await withKnownIssue {
      try await TestClock().waitForSleeper(timeout: .milliseconds(20))
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("a task sleeps on the test clock") }
    }
  }

  @Test("turning a test clock wakes sleeps already due, without moving it")
  func turning() async throws {
    let clock = TestClock()
    let start = clock.now
    let woke = Mutex(false)
    let sleeper = Task {
      try await clock.sleep(for: .zero)
      woke.withLock { $0 = true }
    }
    try await waitUntil("the due sleep wakes", step: clock.turning) { woke.withLock { $0 } }
    try await sleeper.value
    #expect(clock.now == start)
  }
}
