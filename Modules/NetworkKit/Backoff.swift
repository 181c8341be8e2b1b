import Foundation

/// Exponential backoff with full jitter: before retry `n` (0-based) the wait is
/// `random(0 ... min(maxDelay, baseDelay * 2^n))`.
///
/// Full jitter spreads clients that failed together (a server restart) over the whole window
/// instead of sending them back in waves. ``RetryPolicy`` uses it between HTTP attempts and
/// ``WebSocketConnection`` between reconnects.
public struct Backoff: Sendable {
  /// The upper bound of the first wait; it doubles for each further retry.
  public var baseDelay: Duration
  /// The longest wait.
  public var maxDelay: Duration
  /// Returns a random number in the given range; injected so tests get exact delays.
  public var random: @Sendable (ClosedRange<Double>) -> Double

  /// The base delay NetworkKit starts with, for HTTP retries and reconnects alike: 0.5 s.
  public static let defaultBaseDelay: Duration = .milliseconds(500)
  /// The cap NetworkKit starts with, for HTTP retries and reconnects alike: 30 s.
  public static let defaultMaxDelay: Duration = .seconds(30)

  /// Creates a backoff; by default ``defaultBaseDelay`` (0.5 s), ``defaultMaxDelay`` (30 s) and
  /// the system random generator.
  public init(
    baseDelay: Duration = Backoff.defaultBaseDelay,
    maxDelay: Duration = Backoff.defaultMaxDelay,
    random: @escaping @Sendable (ClosedRange<Double>) -> Double = { Double.random(in: $0) }
  ) {
    self.baseDelay = baseDelay
    self.maxDelay = maxDelay
    self.random = random
  }

  /// The wait before retry `retry` (0-based); always within `0 ... min(maxDelay, baseDelay * 2^retry)`.
  public func delay(beforeRetry retry: Int) -> Duration {
    let base = baseDelay.timeInterval
    let exponential = base * pow(2, Double(min(max(retry, 0), 62)))
    let ceiling = max(min(maxDelay.timeInterval, exponential), 0)
    let seconds = min(max(random(0...ceiling), 0), ceiling)
    return .clamped(seconds: seconds)
  }
}
