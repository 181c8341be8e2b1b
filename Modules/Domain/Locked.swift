import Foundation

/// A value guarded by a lock: the SDK's one lock for small synchronous state shared across
/// tasks and threads (`Mutex` needs macOS 15, the package supports 14).
public final class Locked<Value>: @unchecked Sendable {
  private var value: Value
  private let lock = NSLock()

  /// Wraps `value`.
  public init(_ value: Value) { self.value = value }

  /// Runs `body` with the value, exclusively.
  public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}
