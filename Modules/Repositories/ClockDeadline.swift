import Foundation

extension Clock where Duration == Swift.Duration {
  /// A wait armed now: it ends `interval` after this call (not after the moment its task starts
  /// sleeping), and at once when that moment has already passed.
  ///
  /// Screen models arm debounces and timers with it on `@Dependency(\.continuousClock)`: a
  /// debounce armed by a keystroke ends on time however late its task starts, and a test that
  /// advances a `TestClock` past the deadline before the task sleeps does not leave it waiting
  /// for a moment the clock has already passed.
  public func deadline(after interval: Swift.Duration) -> @Sendable () async throws -> Void {
    let deadline = now.advanced(by: interval)
    return { [self] in
      guard now < deadline else { return }
      try await sleep(until: deadline, tolerance: nil)
    }
  }
}
