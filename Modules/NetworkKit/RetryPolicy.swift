import Foundation
import HTTPTypes

/// When and how long to wait before a failed request is sent again.
///
/// Only requests that are safe to repeat are retried: idempotent methods (GET, HEAD, PUT,
/// DELETE, OPTIONS) and other methods that carry an `Idempotency-Key` header. They are retried on
/// ``retryableStatusCodes`` and on transport failures (offline, timeout, connection errors),
/// never after cancellation. The wait honours `Retry-After` (seconds or an HTTP date); one longer
/// than ``maxDelay`` is not waited out (nor cut short: the server asked for no request before
/// then), and the failure reaches the caller at once, carrying it. Otherwise the wait is
/// exponential backoff with full jitter (``Backoff``): before retry `n` (0-based) the delay is
/// `random(0 ... min(maxDelay, baseDelay * 2^n))`.
///
/// A DELETE whose earlier attempt may have reached the server (it timed out, the connection
/// broke, or the server answered 5xx) may already have deleted the resource: when a retry of it
/// is answered with one of ``deletedStatusCodes`` (404, 410), the call succeeds with that
/// response instead of failing.
public struct RetryPolicy: Sendable {
  /// The most attempts in total, the first one included; `1` disables retries.
  public var maxAttempts: Int
  /// The backoff's upper bound before the first retry; it doubles for each further retry.
  public var baseDelay: Duration
  /// The longest wait: backoff's bound, and the longest `Retry-After` waited out.
  public var maxDelay: Duration
  /// The statuses worth retrying.
  public var retryableStatusCodes: Set<Int>
  /// The methods that may be repeated without an `Idempotency-Key`.
  public var idempotentMethods: Set<HTTPRequest.Method>
  /// The statuses that tell a retried DELETE that the resource is already gone; see
  /// ``isCompletedDelete(_:status:afterPossibleDelivery:)``.
  public var deletedStatusCodes: Set<Int>
  /// Returns a random number in the given range; injected so tests get exact delays.
  public var random: @Sendable (ClosedRange<Double>) -> Double

  /// Creates a policy.
  public init(
    maxAttempts: Int = 3,
    baseDelay: Duration = Backoff.defaultBaseDelay,
    maxDelay: Duration = Backoff.defaultMaxDelay,
    retryableStatusCodes: Set<Int> = [408, 429, 500, 502, 503, 504],
    idempotentMethods: Set<HTTPRequest.Method> = [.get, .head, .put, .delete, .options],
    deletedStatusCodes: Set<Int> = [404, 410],
    random: @escaping @Sendable (ClosedRange<Double>) -> Double = { Double.random(in: $0) }
  ) {
    self.deletedStatusCodes = deletedStatusCodes
    self.maxAttempts = max(1, maxAttempts)
    self.baseDelay = baseDelay
    self.maxDelay = maxDelay
    self.retryableStatusCodes = retryableStatusCodes
    self.idempotentMethods = idempotentMethods
    self.random = random
  }

  /// Three attempts, ``Backoff``'s default base delay (0.5 s) and cap (30 s).
  public static var `default`: RetryPolicy { RetryPolicy() }

  /// No retries.
  public static var never: RetryPolicy { RetryPolicy(maxAttempts: 1) }

  /// The `Idempotency-Key` header field that makes non-idempotent requests retryable.
  public static let idempotencyKey = HTTPField.Name("Idempotency-Key")!

  /// Whether `request` may be sent more than once.
  public func isRepeatable(_ request: HTTPRequest) -> Bool {
    idempotentMethods.contains(request.method) || request.headerFields[Self.idempotencyKey] != nil
  }

  /// Whether an earlier attempt that failed with `error` may have reached the server and done
  /// its work: a timeout, a broken connection or a 5xx answer (not `.offline`: nothing left).
  public func mayHaveBeenDelivered(_ error: NetworkError) -> Bool {
    switch error {
    case .timeout, .transport: return true
    case .status(let failure): return failure.status >= 500
    default: return false
    }
  }

  /// Whether `request`, answered `status`, is a DELETE that already took effect: an earlier
  /// attempt may have been delivered (``mayHaveBeenDelivered(_:)``) and the server now says the
  /// resource is gone (``deletedStatusCodes``).
  public func isCompletedDelete(
    _ request: HTTPRequest, status: Int, afterPossibleDelivery: Bool
  ) -> Bool {
    afterPossibleDelivery && request.method == .delete && deletedStatusCodes.contains(status)
  }

  /// Whether `error` is worth another attempt (ignoring the method and the attempt count).
  public func isRetryable(_ error: NetworkError) -> Bool {
    switch error {
    case .offline, .timeout, .transport:
      return true
    case .status(let failure):
      return retryableStatusCodes.contains(failure.status)
    case .cancelled, .decoding, .unauthorized, .notSignedIn, .sessionRevoked, .sessionEnded,
      .refreshRateLimited, .credentialStorage, .invalidRequest, .notStubbed:
      return false
    }
  }

  /// The wait before the next attempt, or `nil` when the request must not be retried.
  ///
  /// - Parameters:
  ///   - attempt: How many attempts were made so far (1 after the first failure).
  ///   - request: The request that failed.
  ///   - error: Why it failed.
  ///   - now: The current wall-clock time, for `Retry-After` dates.
  ///
  /// A status failure's `Retry-After` header, when it has one, sets the wait; above
  /// ``maxDelay`` there is no retry.
  public func delay(
    afterAttempt attempt: Int,
    of request: HTTPRequest,
    failedWith error: NetworkError,
    now: Date
  ) -> Duration? {
    guard attempt < maxAttempts, isRepeatable(request), isRetryable(error) else { return nil }
    if case .status(let failure) = error, let wait = failure.retryAfter(now: now) {
      return wait <= maxDelay ? wait : nil
    }
    return backoff(retry: attempt - 1)
  }

  /// The full-jitter backoff before retry `retry` (0-based).
  public func backoff(retry: Int) -> Duration {
    Backoff(baseDelay: baseDelay, maxDelay: maxDelay, random: random).delay(beforeRetry: retry)
  }

  /// Parses `Retry-After` as delay seconds or an HTTP date; past dates mean no wait.
  public static func parseRetryAfter(_ value: String, now: Date) -> Duration? {
    let trimmed = value.trimmingCharacters(in: .whitespaces)
    if let seconds = Int(trimmed) {
      return seconds >= 0 ? .seconds(seconds) : nil
    }
    guard let date = parseHTTPDate(trimmed) else { return nil }
    let interval = date.timeIntervalSince(now)
    return .clamped(seconds: interval)
  }

  /// Parses the IMF-fixdate form (`Sun, 06 Nov 1994 08:49:37 GMT`) and the two obsolete forms.
  static func parseHTTPDate(_ value: String) -> Date? {
    // asctime pads single-digit days with a second space ("Nov  6").
    let value = value.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    for format in [
      "EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy",
    ] {
      let formatter = DateFormatter()
      formatter.locale = Locale(identifier: "en_US_POSIX")
      formatter.timeZone = TimeZone(identifier: "GMT")
      formatter.dateFormat = format
      if let date = formatter.date(from: value) { return date }
    }
    return nil
  }
}
