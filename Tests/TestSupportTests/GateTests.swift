import Synchronization
import TestSupport
import Testing

@Suite("Gate", .timeLimit(.minutes(1)))
struct GateTests {
  @Test("a call at the gate is counted and waits until the gate opens; later calls pass")
  func holdsUntilOpened() async throws {
    let gate = Gate()
    let passed = Mutex(0)
    let first = Task {
      await gate.wait()
      passed.withLock { $0 += 1 }
    }
    try await gate.waitForArrivals(1)
    // Still held: give the waiting task turns to run, then look.
    for _ in 0..<100 { await Task.yield() }
    #expect(passed.withLock { $0 } == 0)
    await gate.open()
    await first.value
    await gate.wait()
    #expect(passed.withLock { $0 } == 1)
    #expect(await gate.arrivals == 2)
  }

  @Test("whileHeld runs what happens meanwhile while the call is held, then lets it finish")
  @MainActor
  func whileHeldOrdersTheSteps() async throws {
    let gate = Gate()
    var steps: [String] = []
    try await gate.whileHeld({
      steps.append("called")
      await gate.wait()
      steps.append("answered")
    }) {
      steps.append("meanwhile")
    }
    #expect(steps == ["called", "meanwhile", "answered"])
  }

  @Test("the first calls let through pass at once and are not counted")
  func letsTheFirstCallsThrough() async throws {
    let gate = Gate(letThrough: 1)
    await gate.wait()
    #expect(await gate.arrivals == 0)
    let held = Task { await gate.wait() }
    try await gate.waitForArrivals(1)
    await gate.open()
    await held.value
  }

  @Test("a gate holding one call lets the later ones pass at once, uncounted")
  func holdsOnlyTheFirstCalls() async throws {
    let gate = Gate(holding: 1)
    let held = Task { await gate.wait() }
    try await gate.waitForArrivals(1)
    await gate.wait()  // passes while the first is still held
    #expect(await gate.arrivals == 1)
    await gate.open()
    await held.value
  }

  @Test("waiting for arrivals that never come records an issue and throws")
  func missingArrivalsThrow() async throws {
    let gate = Gate()
    try await withKnownIssue {
      try await gate.waitForArrivals(1, timeout: .milliseconds(20))
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("1 calls reach the gate") }
    }
  }
}
