import Domain
import Foundation

/// The write limit: at most ``Limit/count`` writes per key (a user, or an address for
/// signed-out callers) in a sliding ``Limit/window``. The server applies it to every write and
/// to the frames of a socket; the fakes apply it when a test turns it on.
public final class RateLimiter: Sendable {
  /// How many writes (or frames) one caller may make per window.
  public struct Limit: Sendable, Hashable {
    /// How many a window allows; at least 1.
    public var count: Int
    /// The window's length.
    public var window: Duration

    /// A limit of `count` (at least 1) per `window`.
    public init(count: Int, window: Duration) {
      self.count = max(1, count)
      self.window = window
    }

    /// The service's write limit: 30 writes per 10 seconds.
    public static let standard = Limit(count: 30, window: .seconds(10))
  }

  /// A limit of its own (`Docs/Rules.md`, "Writes are limited"): a member's writes, and their
  /// analytics uploads, so that a backlog of events never uses up the writes.
  public enum Bucket: String, Sendable {
    /// Every write but the analytics uploads.
    case writes
    /// Analytics uploads.
    case analytics
  }

  /// The limit it enforces.
  public let limit: Limit
  /// Each caller's writes inside the window, and how many callers there may be before the
  /// callers with none are forgotten (twice as many as were left at the last sweep).
  private let windows = Locked((times: [String: [Date]](), sweepAt: RateLimiter.firstSweep))
  private static let firstSweep = 256

  /// How many callers it keeps writes of (the tests' view of its memory).
  var trackedCallers: Int { windows.withLock { $0.times.count } }

  /// Creates a limiter for `limit`.
  public init(_ limit: Limit) {
    self.limit = limit
  }

  /// Admits one write of `caller` (e.g. `user:u_1`) counted in `bucket` at `now`, as
  /// ``admit(_:at:)`` does.
  public func admit(_ bucket: Bucket, caller: String, at now: Date) throws(DomainError) {
    try admit("\(bucket.rawValue) \(caller)", at: now)
  }

  /// Admits one write of the signed-in `user` counted in `bucket` at `now`: the one key of a
  /// user's writes, over REST, over the socket and in the fakes.
  public func admit(_ bucket: Bucket, user: User.ID, at now: Date) throws(DomainError) {
    try admit(bucket, caller: Self.caller(user), at: now)
  }

  /// The caller key of the signed-in `user`.
  public static func caller(_ user: User.ID) -> String { "user:\(user.rawValue)" }

  /// The write check of `user`'s new chat messages for
  /// ``ServiceEngine/sendMessages(_:as:admitting:)`` (the server's socket, the fakes' link),
  /// counted in ``Bucket/writes`` at `now()`.
  public func admitting(
    _ user: User.ID, now: @escaping @Sendable () -> Date
  ) -> () throws(DomainError) -> Void {
    { () throws(DomainError) in try self.admit(.writes, user: user, at: now()) }
  }

  /// Admits one write of `key` at `now`, or throws `rateLimited` with the whole seconds until
  /// the oldest write leaves the window (at least 1).
  public func admit(_ key: String, at now: Date) throws(DomainError) {
    let (count, window) = (max(1, limit.count), limit.window.timeInterval)
    let isInWindow = { (time: Date) in now.timeIntervalSince(time) < window && time <= now }
    let wait: TimeInterval? = windows.withLock { state in
      // A caller seen once is not kept for ever (a long-running server hears from many
      // addresses): past the sweep mark, callers with no write inside the window go.
      if state.times.count >= state.sweepAt {
        state.times = state.times.filter { $0.value.contains(where: isInWindow) }
        state.sweepAt = max(Self.firstSweep, 2 * state.times.count)
      }
      var times = state.times[key, default: []].filter(isInWindow)
      defer { state.times[key] = times }
      guard times.count >= count else {
        times.append(now)
        return nil
      }
      return window - now.timeIntervalSince(times[0])
    }
    // Said in whole seconds, at least 1, as every wait is (`Duration.wholeSecondsRoundedUp`).
    if let wait {
      throw .rateLimited(retryAfter: .seconds(Duration.seconds(wait).wholeSecondsRoundedUp))
    }
  }
}
