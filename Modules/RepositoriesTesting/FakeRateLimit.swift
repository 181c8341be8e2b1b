import Foundation
import ServiceEngine

/// An optional limit on writes per user: the server's own limit (``RateLimiter/Limit``), off
/// unless a test sets one.
///
/// The fake counts each user's writes in a sliding window on the backend's clock, with the
/// server's ``RateLimiter``; the write that would exceed the limit throws
/// `DomainError.rateLimited(retryAfter:)` with the time until the oldest write in the window
/// leaves it.
public typealias FakeRateLimit = RateLimiter.Limit

extension RateLimiter.Limit {
  /// At most `maximumWrites` writes per `window`; the defaults are the server's
  /// (``RateLimiter/Limit/standard``).
  public init(
    maximumWrites: Int = RateLimiter.Limit.standard.count,
    per window: Duration = RateLimiter.Limit.standard.window
  ) {
    self.init(count: maximumWrites, window: window)
  }
}
