import Foundation

extension Duration {
  /// The duration in seconds, as Foundation counts time (`Date`, `TimeInterval`).
  public var timeInterval: TimeInterval {
    let (seconds, attoseconds) = components
    return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
  }

  /// Whole seconds, rounded up and at least 1: how a wait is said to people ("try again in
  /// 1 s", never "0 s") and in `Retry-After`.
  public var wholeSecondsRoundedUp: Int64 {
    let (seconds, attoseconds) = components
    return max(1, attoseconds > 0 ? seconds + 1 : seconds)
  }
}
