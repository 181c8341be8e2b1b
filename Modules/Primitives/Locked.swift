import Foundation

/// A value guarded by a lock, for small synchronous state shared across tasks and threads: the
/// lock the SDK's modules use for such state (`Domain` hands it on as `Domain.Locked`), so a
/// class holding one is checked `Sendable` rather than `@unchecked`; `Mutex` needs macOS 15,
/// the package supports 14.
public final class Locked<Value>: @unchecked Sendable {
  @usableFromInline var value: Value
  @usableFromInline let lock = NSLock()

  /// Wraps `value`.
  public init(_ value: Value) { self.value = value }

  /// Runs `body` with the value, exclusively. Inlinable, so each use is specialized in the
  /// module that calls it (the chat engine takes it for every received event).
  @inlinable
  public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}
