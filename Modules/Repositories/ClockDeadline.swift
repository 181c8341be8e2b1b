import Foundation

extension Clock where Duration == Swift.Duration {
  /// A wait armed now: it ends `interval` after this call (not after the moment its task starts
  /// sleeping), at once when that moment has already passed, and with `CancellationError` when its
  /// task was cancelled first.
  ///
  /// Screen models arm debounces and timers with it on `@Dependency(\.continuousClock)`: a
  /// debounce armed by a keystroke ends on time however late its task starts, and a test that
  /// advances a `TestClock` past the deadline before the task sleeps does not leave it waiting
  /// for a moment the clock has already passed.
  public func deadline(after interval: Swift.Duration) -> @Sendable () async throws -> Void {
    let deadline = now.advanced(by: interval)
    return { [self] in
      // A wait cancelled before it started (a newer keystroke) ends here, even once its moment
      // has passed: otherwise a late-starting, cancelled debounce would run its stale work.
      try Task.checkCancellation()
      guard now < deadline else { return }
      try await sleep(until: deadline, tolerance: nil)
    }
  }
}
