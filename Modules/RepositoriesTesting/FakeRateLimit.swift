import Foundation

/// An optional limit on writes per user, like the server's (off unless a test sets one).
///
/// The fake counts each user's writes in a sliding window on the backend's clock; the write
/// that would exceed `maximumWrites` throws `DomainError.rateLimited(retryAfter:)` with the
/// time until the oldest write in the window leaves it.
public struct FakeRateLimit: Hashable, Sendable {
  /// How many writes one user may make per window.
  public var maximumWrites: Int
  /// The window length.
  public var window: Duration

  /// Creates a limit; the server's default is 30 writes per 10 seconds.
  public init(maximumWrites: Int = 30, per window: Duration = .seconds(10)) {
    self.maximumWrites = max(1, maximumWrites)
    self.window = window
  }

  /// The window in seconds.
  var windowSeconds: TimeInterval {
    let (seconds, attoseconds) = window.components
    return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
  }
}
