import Foundation

/// A clock whose `sleep` records the requested duration, moves `now` forward by it and returns at
/// once, so tests assert exact delays without waiting.
final class TestClock: Clock, @unchecked Sendable {
  struct Instant: InstantProtocol {
    var offset: Duration

    func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
    func duration(to other: Instant) -> Duration { other.offset - offset }
    static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
  }

  /// The wall-clock date at offset zero, for code that needs a `Date` (expiry, `Retry-After`).
  static let epoch = Date(timeIntervalSince1970: 1_750_000_000)

  // Guarded by `lock`.
  private let lock = NSLock()
  private var current = Instant(offset: .zero)
  private var recorded: [Duration] = []

  var now: Instant { lock.withLock { current } }
  var minimumResolution: Duration { .zero }

  /// The durations passed to `sleep`, in order.
  var sleeps: [Duration] { lock.withLock { recorded } }

  /// The wall-clock date matching `now`.
  var date: Date {
    let offset = now.offset.components
    return Self.epoch.addingTimeInterval(
      TimeInterval(offset.seconds) + TimeInterval(offset.attoseconds) / 1e18)
  }

  /// A `now` closure for code that takes one.
  var dateProvider: @Sendable () -> Date { { self.date } }

  func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    try Task.checkCancellation()
    lock.withLock {
      recorded.append(current.duration(to: deadline))
      if deadline > current { current = deadline }
    }
  }

  /// Moves `now` forward without recording a sleep.
  func advance(by duration: Duration) {
    lock.withLock { current = current.advanced(by: duration) }
  }
}
