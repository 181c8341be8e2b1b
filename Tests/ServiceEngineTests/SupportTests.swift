import Domain
import Foundation
import Testing

@testable import ServiceEngine

@Suite("Engine support: cursors, public ids, rate limit")
struct SupportTests {
  @Test("cursors round-trip and reject foreign text; public ids parse strictly")
  func cursorsAndIDs() {
    let cursor = Cursor(key: 1_795_230_000_123, id: 42)
    #expect(Cursor(cursor.text) == cursor)
    #expect(Cursor("djE6MTox") == Cursor(key: 1, id: 1))
    #expect(Cursor("not a cursor") == nil)
    #expect(PublicID.post.key("p_12") == 12)
    #expect(PublicID.post.key("c_12") == nil)
    #expect(PublicID.post.key("p_") == nil)
    #expect(PublicID.post.key("p_+1") == nil)
    #expect(PublicID.post.key("p_012") == nil)
    #expect(PublicID.post.key("p_0") == nil)
    #expect(PublicID.post.key("p_99999999999999999999") == nil)
    #expect(PublicID.room(3) == "room_3")
  }

  @Test("the rate limiter counts per key inside the window")
  func rateLimiter() {
    let limiter = RateLimiter(.init(count: 2, window: .seconds(10)))
    let start = Date(timeIntervalSince1970: 1000)
    #expect(throws: Never.self) { try limiter.admit("a", at: start) }
    #expect(throws: Never.self) { try limiter.admit("a", at: start.addingTimeInterval(1)) }
    #expect(throws: DomainError.rateLimited(retryAfter: .seconds(8))) {
      try limiter.admit("a", at: start.addingTimeInterval(2))
    }
    #expect(throws: Never.self) { try limiter.admit("b", at: start.addingTimeInterval(2)) }
    #expect(throws: Never.self) { try limiter.admit("a", at: start.addingTimeInterval(10)) }
  }

  @Test("a user's writes share one key: over REST (admit), over the socket (admitting)")
  func userKey() throws {
    let limiter = RateLimiter(.init(count: 2, window: .seconds(10)))
    let start = Date(timeIntervalSince1970: 1000)
    #expect(RateLimiter.caller("u_1") == "user:u_1")
    try limiter.admit(.writes, user: "u_1", at: start)
    let socket = limiter.admitting("u_1") { start }
    try socket()
    #expect(throws: DomainError.rateLimited(retryAfter: .seconds(10))) { try socket() }
    #expect(throws: DomainError.self) {
      try limiter.admit(.writes, caller: RateLimiter.caller("u_1"), at: start)
    }
    // Another user, and the same user's analytics, count apart.
    try limiter.admit(.writes, user: "u_2", at: start)
    try limiter.admit(.analytics, user: "u_1", at: start)
  }

  @Test("callers whose writes all left the window are forgotten, not kept for ever")
  func rateLimiterForgetsCallers() throws {
    let limiter = RateLimiter(.init(count: 2, window: .seconds(10)))
    let start = Date(timeIntervalSince1970: 1000)
    for caller in 0..<10_000 {
      try limiter.admit("address \(caller)", at: start.addingTimeInterval(Double(caller) / 100))
    }
    // 100 s of callers, one write each: those of the last 10 s (and fewer than the sweep's
    // doubling allows) are kept, not all 10,000.
    #expect(limiter.trackedCallers < 2_048)
    // A caller still inside the window keeps its count through a sweep.
    let late = start.addingTimeInterval(100)
    try limiter.admit("address 9999", at: late)
    #expect(throws: DomainError.self) { try limiter.admit("address 9999", at: late) }
  }

  @Test("a limit allows at least one; the standard is 30 per 10 seconds")
  func limit() throws {
    #expect(RateLimiter.Limit(count: 0, window: .seconds(1)).count == 1)
    #expect(RateLimiter.Limit.standard == .init(count: 30, window: .seconds(10)))
    let limiter = RateLimiter(.init(count: 1, window: .milliseconds(1_500)))
    let start = Date(timeIntervalSince1970: 1000)
    try limiter.admit("a", at: start)
    // 1.5 s left, said as whole seconds rounded up.
    #expect(throws: DomainError.rateLimited(retryAfter: .seconds(2))) {
      try limiter.admit("a", at: start)
    }
  }
}

/// The gate behind ``ServiceEngine/close()``, driven from threads: what the engine test
/// (`closedEngine`) cannot hold still, a call under way and a close under way.
@Suite("The engine's call gate", .timeLimit(.minutes(1)))
struct CallGateTests {
  private let closed = DomainError.server("The service's database is closed.")

  /// Runs `body` on a thread of its own; `join()` waits for it, `false` after 30 s (a gate
  /// that never lets go fails the test instead of hanging the run: the time limit cannot
  /// interrupt a blocked thread).
  private func thread(_ body: @escaping @Sendable () -> Void) -> @Sendable () -> Bool {
    let done = DispatchSemaphore(value: 0)
    Thread {
      body()
      done.signal()
    }.start()
    return { done.wait(timeout: .now() + 30) == .success }
  }

  /// Waits until `condition` holds (it must come true by itself, from another thread);
  /// `false` after 30 s.
  private func waitUntil(_ condition: () -> Bool) -> Bool {
    for _ in 0..<30_000 {
      if condition() { return true }
      usleep(1_000)
    }
    return false
  }

  @Test("a shut waits for the call under way before closing; later calls throw")
  func shutWaitsForCalls() throws {
    let gate = CallGate()
    let closes = Locked(0)
    try gate.enter()
    var left = false
    defer { if !left { gate.leave() } }  // a failed check below leaves no thread hung
    let join = thread { gate.shut { closes.withLock { $0 += 1 } } }
    // Once a call is refused the gate is shut; the call still under way keeps it from closing.
    try #require(waitUntil { (try? gate.enter()).map { gate.leave() } == nil })
    #expect(closes.withLock { $0 } == 0)
    gate.leave()
    left = true
    try #require(join())
    #expect(closes.withLock { $0 } == 1)
    #expect(throws: closed) { try gate.enter() }
  }

  @Test("a second shut returns once the first one's close has ended; calls meanwhile throw")
  func secondShutWaits() throws {
    let gate = CallGate()
    let (closing, release) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
    let (closes, closeEnded) = (Locked(0), Locked(false))
    let joinFirst = thread {
      gate.shut {
        closes.withLock { $0 += 1 }
        closing.signal()
        release.wait()
        closeEnded.withLock { $0 = true }
      }
    }
    var released = false
    defer { if !released { release.signal() } }  // a failed check below leaves no thread hung
    try #require(closing.wait(timeout: .now() + 30) == .success)
    // The first close is under way: a call is refused at once, it does not wait for it.
    let refused = Locked<DomainError?>(nil)
    let joinCall = thread {
      do throws(DomainError) {
        try gate.enter()
      } catch {
        refused.withLock { $0 = error }
      }
    }
    try #require(joinCall())
    #expect(refused.withLock { $0 } == closed)
    let sawEnd = Locked<Bool?>(nil)
    let joinSecond = thread {
      gate.shut { closes.withLock { $0 += 1 } }
      sawEnd.withLock { $0 = closeEnded.withLock { $0 } }
    }
    usleep(50_000)  // time for a second shut that does not wait to return
    #expect(sawEnd.withLock { $0 } == nil)
    release.signal()
    released = true
    try #require(joinFirst())
    try #require(joinSecond())
    #expect(sawEnd.withLock { $0 } == true)
    #expect(closes.withLock { $0 } == 1)
  }

  @Test("a close that throws still shuts the gate, and a second shut does not close again")
  func failedClose() {
    struct Failure: Error {}
    let gate = CallGate()
    #expect(throws: Failure.self) { try gate.shut { throw Failure() } }
    #expect(throws: closed) { try gate.enter() }
    let closes = Locked(0)
    gate.shut { closes.withLock { $0 += 1 } }
    #expect(closes.withLock { $0 } == 0)
  }
}
