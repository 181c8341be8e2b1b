import Domain
import Foundation

/// The write limit: at most `count` writes per key (a user, or an address for signed-out
/// callers) in a sliding `window`. The server applies it to every write; the fakes apply it
/// when a test turns it on.
public final class RateLimiter: Sendable {
  /// How many writes a window allows.
  public let count: Int
  /// The window's length.
  public let window: TimeInterval
  private let windows = Locked<[String: [Date]]>([:])

  /// Creates a limiter; `count` is at least 1.
  public init(count: Int, window: TimeInterval) {
    self.count = max(1, count)
    self.window = window
  }

  /// Admits one write of `key` at `now`, or throws `rateLimited` with the whole seconds until
  /// the oldest write leaves the window (at least 1).
  public func admit(_ key: String, at now: Date) throws(DomainError) {
    let wait: Int? = windows.withLock { windows in
      var times = windows[key, default: []].filter {
        now.timeIntervalSince($0) < window && $0 <= now
      }
      defer { windows[key] = times.isEmpty ? nil : times }
      guard times.count >= count else {
        times.append(now)
        return nil
      }
      return max(1, Int((window - now.timeIntervalSince(times[0])).rounded(.up)))
    }
    if let wait { throw .rateLimited(retryAfter: .seconds(wait)) }
  }
}
