import Foundation

/// The searches of a screen's search field: each text change supersedes the one before (its
/// pause ends and its results are dropped), and a search runs once the text has rested.
///
/// A screen model keeps one, calls ``supersede()`` on every text change, runs the search with
/// ``afterPause(_:on:run:_:)``, and asks ``isCurrent(_:)`` before it shows what a search found.
@MainActor
public final class LatestSearch {
  /// The number of the latest text change; a search of another number was superseded.
  public private(set) var current = 0
  private var waiting: Task<Void, Never>?

  /// How long typing must rest before a screen asks the service, the same for every field that
  /// checks or searches as the user types: 300 ms.
  public static let pause: Duration = .milliseconds(300)

  /// Creates the searches of one field.
  public init() {}

  /// A text change: ends the pause still waiting and returns this change's number.
  @discardableResult
  public func supersede() -> Int {
    skipPause()
    current += 1
    return current
  }

  /// Ends the pause still waiting, if any, without a new number (the search runs now, elsewhere).
  public func skipPause() {
    waiting?.cancel()
    waiting = nil
  }

  /// Whether `run` is still the latest text change.
  public func isCurrent(_ run: Int) -> Bool { run == current }

  /// Whether a search armed by ``afterPause(_:on:run:_:)`` is still waiting for its pause or
  /// running after it (``supersede()`` and ``skipPause()`` end the pause).
  public var isWaiting: Bool { waiting != nil }

  /// Waits `pause` on `clock`, armed now (it counts from this change, however late the task
  /// starts), then runs `search` unless a newer change came first. Returns when the search
  /// ended or was superseded; at once, without waiting, when `run` was superseded before the
  /// call (a caller whose task started late). Cancelling the caller changes nothing: the search
  /// still runs after its pause (a screen that comes back shows its results).
  public func afterPause(
    _ pause: Duration, on clock: any Clock<Duration>, run: Int,
    _ search: @escaping @MainActor () async -> Void
  ) async {
    await schedule(pause, on: clock, run: run, search).value
  }

  /// ``afterPause(_:on:run:_:)`` for a caller that does not wait: arms the pause now and
  /// returns the task that waits for it and runs `search` (a task that does nothing when `run`
  /// was superseded already). A newer change, or ``skipPause()``, cancels it, the search too
  /// if it is running; cancelling the task returned does not.
  @discardableResult
  public func schedule(
    _ pause: Duration, on clock: any Clock<Duration>, run: Int,
    _ search: @escaping @MainActor () async -> Void
  ) -> Task<Void, Never> {
    guard isCurrent(run) else { return Task {} }
    let wait = clock.deadline(after: pause)
    let task = Task { [weak self] in
      do {
        try await wait()
      } catch {
        return  // A newer change cancelled this wait.
      }
      guard let self, self.isCurrent(run) else { return }
      await search()
    }
    waiting = task
    return Task { [weak self] in
      await task.value
      if self?.waiting == task { self?.waiting = nil }
    }
  }
}
