import Foundation

/// A value guarded by a lock, so the fake backend can be a `Sendable` class whose calls are
/// synchronous inside (tests can set `isOffline` without `await`).
final class Locked<Value: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value

  init(_ value: Value) { self.value = value }

  /// Runs `body` with exclusive access; never call back into the same lock from `body`.
  func withLock<Result, Failure: Error>(
    _ body: (inout Value) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}
