import Clocks
import Testing

// How the tests wait for work on other tasks: check a condition, let that work run, check
// again, and give up after a bounded stretch of *real* time. Real time, not a count of turns:
// a loaded machine (CI runs two test cases per core) can need many more turns than an idle one,
// and a wait that gives up too early fails a correct test while one that never gives up hangs
// the run. Written once here for every test target (`Docs/Architecture.md`, "Tests").

/// How long a wait lasts before it gives up: thirty seconds of real time. A passing test never
/// waits that long; a starved one can come close: with the whole suite on one core, waiting for
/// a sleeper on a `TestClock` (which runs background-priority tasks) took 28 s.
public let defaultWaitTimeout: Duration = .seconds(30)

/// Checks `condition` until it holds or `timeout` of real time has passed, running `step`
/// between checks. Returns whether it held. Records nothing: the caller decides what a timeout
/// means.
///
/// Without a `step`, the first hundred checks are one `Task.yield()` apart (work already queued
/// on the caller's actor runs, no time is slept), later ones a millisecond apart. A long wait
/// must not spin: a task that yields in a loop keeps its thread of the cooperative pool (two on
/// a two-core machine) busy at its priority, and starves lower-priority work, such as the
/// background-priority tasks `TestClock` uses to let sleepers run.
/// The condition runs on the caller's actor, so it may read main-actor or actor state.
public func poll(
  isolation: isolated (any Actor)? = #isolation, timeout: Duration = defaultWaitTimeout,
  step: (() async -> Void)? = nil, until condition: () async throws -> Bool
) async rethrows -> Bool {
  let clock = ContinuousClock()
  let giveUp = clock.now.advanced(by: timeout)
  var checks = 0
  while true {
    if try await condition() { return true }
    // A cancelled task (a suite's time limit) gives up at once: its sleeps no longer wait.
    guard clock.now < giveUp, !Task.isCancelled else { return false }
    checks += 1
    if let step {
      await step()
    } else if checks <= 100 {
      await Task.yield()
    } else {
      try? await Task.sleep(for: .milliseconds(1))
    }
  }
}

/// Waits (``poll(isolation:timeout:step:until:)``) until `condition` holds; when it never does,
/// records an issue naming `what` and throws, so the test stops instead of acting on a state it
/// never reached (or waiting on it forever).
public func waitUntil(
  _ what: String = "the condition holds", isolation: isolated (any Actor)? = #isolation,
  timeout: Duration = defaultWaitTimeout, step: (() async -> Void)? = nil,
  sourceLocation: SourceLocation = #_sourceLocation, _ condition: () async throws -> Bool
) async throws {
  let held = try await poll(timeout: timeout, step: step, until: condition)
  try #require(held, gaveUp(what), sourceLocation: sourceLocation)
}

/// Waits like ``waitUntil(_:isolation:timeout:step:sourceLocation:_:)``, but records the
/// issue and returns `false` instead of throwing: for a test that has more to check (or to
/// clean up) after a failed wait.
@discardableResult
public func eventually(
  _ what: String, isolation: isolated (any Actor)? = #isolation,
  timeout: Duration = defaultWaitTimeout, step: (() async -> Void)? = nil,
  sourceLocation: SourceLocation = #_sourceLocation, _ condition: () async throws -> Bool
) async rethrows -> Bool {
  let held = try await poll(timeout: timeout, step: step, until: condition)
  if !held { Issue.record(gaveUp(what), sourceLocation: sourceLocation) }
  return held
}

/// Why a wait for `what` ended without it: its time ran out, or its task was cancelled (a
/// suite's time limit, say).
private func gaveUp(_ what: String) -> Comment {
  Task.isCancelled ? "cancelled while waiting until \(what)" : "timed out waiting until \(what)"
}

/// A `step` that sleeps `interval`: for a condition that acts (sends a frame, asks the server)
/// and must not do so a thousand times a second.
public func every(_ interval: Duration) -> () async -> Void {
  { try? await Task.sleep(for: interval) }
}

extension TestClock<Duration> {
  /// Waits until a task sleeps on the clock, so that moving the clock now moves time under it
  /// and not before it (a sleep armed after the clock moved would wait forever). Throws when
  /// nothing sleeps within `timeout`: 45 s by default (each check runs background-priority
  /// tasks, which a busy machine starves longest), so it still fires before a one-minute suite
  /// time limit.
  public func waitForSleeper(
    timeout: Duration = .seconds(45), sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    // `checkSuspension()` throws exactly when something is suspended on the clock.
    try await waitUntil(
      "a task sleeps on the test clock", timeout: timeout, sourceLocation: sourceLocation
    ) {
      (try? await checkSuspension()) == nil
    }
  }

  /// Waits until a task sleeps on the clock (``waitForSleeper(sourceLocation:)``), then
  /// advances it by `duration`: the order of events no longer depends on scheduling.
  public func advanceOnceSomethingSleeps(
    by duration: Duration, sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    try await waitForSleeper(sourceLocation: sourceLocation)
    await advance(by: duration)
  }

  /// A `step` that turns the clock without moving it (waking only sleeps already due), so tasks
  /// that wait on it run.
  public var turning: () async -> Void { { await self.advance(by: .zero) } }
}
