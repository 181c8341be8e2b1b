import Clocks
import Dependencies
import Repositories
import TestSupport
import Testing

/// `Clock.deadline(after:)`: armed when made, over at once once its moment has passed.
@Suite("Clock.deadline(after:)", .timeLimit(.minutes(1)))
struct ClockDeadlineTests {
  @Test func endsAtTheMomentItWasArmedFor() async throws {
    let clock = TestClock()
    let wait = clock.deadline(after: .seconds(3))
    let ended = LockIsolated(false)
    let task = Task {
      try await wait()
      ended.setValue(true)
    }
    try await clock.waitForSleeper()
    await clock.advance(by: .seconds(1))
    await Task.megaYield()
    #expect(!ended.value)
    // Asleep since before the first move: the clock reaching its moment wakes it.
    await clock.advance(by: .seconds(2))
    try await task.value
    #expect(ended.value)
  }

  @Test func countsFromWhenItWasArmedNotFromWhenItSleeps() async throws {
    let clock = TestClock()
    let wait = clock.deadline(after: .seconds(3))
    // The clock passes the deadline before anything waits: the wait is over at once (a plain
    // `sleep(for:)` started now would wait three more seconds of a clock nobody advances).
    await clock.advance(by: .seconds(5))
    try await wait()
  }

  @Test func aCancelledWaitThrows() async {
    let clock = TestClock()
    let wait = clock.deadline(after: .seconds(3))
    let task = Task { try await wait() }
    task.cancel()
    await #expect(throws: CancellationError.self) { try await task.value }
  }

  @Test func aWaitCancelledBeforeItStartsThrowsEvenPastItsMoment() async {
    let clock = TestClock()
    let wait = clock.deadline(after: .seconds(3))
    await clock.advance(by: .seconds(5))
    let task = Task {
      withUnsafeCurrentTask { $0?.cancel() }  // cancelled before the wait starts, every time
      try await wait()
    }
    await #expect(throws: CancellationError.self) { try await task.value }
  }
}
