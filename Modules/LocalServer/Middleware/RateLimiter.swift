import Foundation

/// A sliding-window limit on writes: at most `count` per `window` per key (a user, or an address
/// for public writes). In memory on purpose: limits reset when the server restarts.
final class RateLimiter: Sendable {
  private let limit: ServerConfiguration.RateLimit
  private let windows = Locked<[String: [Date]]>([:])

  init(limit: ServerConfiguration.RateLimit) {
    self.limit = limit
  }

  /// Records a write by `key` at `now`; returns the seconds to wait when over the limit (the
  /// refused write is not recorded).
  func admit(_ key: String, at now: Date) -> Int? {
    let window = limit.window.timeInterval
    return windows.withLock { windows in
      var times = windows[key, default: []].filter {
        now.timeIntervalSince($0) < window && $0 <= now
      }
      defer { windows[key] = times.isEmpty ? nil : times }
      guard times.count >= limit.count else {
        times.append(now)
        return nil
      }
      // The oldest write in the window leaves it first.
      let wait = window - now.timeIntervalSince(times[0])
      return max(1, Int(wait.rounded(.up)))
    }
  }
}
