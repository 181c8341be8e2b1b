import Foundation

/// A value guarded by a lock, for small synchronous state shared across tasks and threads: the
/// lock the SDK's modules use for such state (`Domain` hands it on as `Domain.Locked`); `Mutex`
/// needs macOS 15, the package supports 14.
///
/// `Locked` is `Sendable` when what it holds is, so a class that keeps its state in one compiles
/// as `Sendable` without `@unchecked`, and the compiler still checks that state: a `Locked`
/// holding a non-`Sendable` value makes its owner fail to compile as `Sendable`.
public final class Locked<Value> {
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

/// The lock makes the access exclusive; the value's own `Sendable` makes handing it out safe.
extension Locked: @unchecked Sendable where Value: Sendable {}
