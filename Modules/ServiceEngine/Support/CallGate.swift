import Domain
import Foundation

/// Lets the engine's database calls in until it is shut, and shuts only once the calls under
/// way have returned: a call after ``ServiceEngine/close()`` throws instead of reaching a
/// closed SQLite connection, which crashes the process.
final class CallGate: @unchecked Sendable {
  // `running`, `isShut` and `isClosed` are read and written only while `condition` is locked.
  private let condition = NSCondition()
  private var running = 0
  private var isShut = false
  private var isClosed = false

  /// Counts a call in, unless the gate is shut (then `DomainError.server`); every call let
  /// in must ``leave()``.
  func enter() throws(DomainError) {
    condition.lock()
    defer { condition.unlock() }
    guard !isShut else { throw .server("The service's database is closed.") }
    running += 1
  }

  /// How many calls are let in and not out yet (what a test waits for: a call that waits for
  /// the database writer has been let in).
  var callsUnderWay: Int {
    condition.lock()
    defer { condition.unlock() }
    return running
  }

  /// Counts a call out.
  func leave() {
    condition.lock()
    defer { condition.unlock() }
    running -= 1
    if running == 0 { condition.broadcast() }
  }

  /// Shuts the gate, waits for the calls under way, then runs `close` (once, for the first
  /// caller); a later caller returns once that first `close` has ended. Must not be called
  /// between ``enter()`` and ``leave()`` (it would wait for itself).
  func shut(then close: () throws -> Void) rethrows {
    condition.lock()
    guard !isShut else {
      while !isClosed { condition.wait() }
      return condition.unlock()
    }
    isShut = true
    while running > 0 { condition.wait() }
    // Unlocked while `close` runs: calls arriving meanwhile throw at once instead of waiting.
    condition.unlock()
    defer {
      condition.lock()
      isClosed = true
      condition.broadcast()
      condition.unlock()
    }
    try close()
  }
}
