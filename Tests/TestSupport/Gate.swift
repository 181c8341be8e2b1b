import Testing

/// Holds back faked repository answers until the test opens it: a request "in flight".
///
/// A faked endpoint calls ``wait()`` where its answer should pause; the test waits for
/// ``waitForArrivals(_:)`` (the model reached the endpoint), acts while the request runs, then
/// calls ``open()``.
public actor Gate {
  private var isOpen = false
  private var waiters: [CheckedContinuation<Void, Never>] = []
  /// How many calls may still pass before the gate holds any (a screen's first load).
  private var letThrough: Int
  /// How many calls it holds at most; later ones pass at once, uncounted (`nil`: all).
  private let holding: Int?
  /// How many calls reached ``wait()`` so far, after those let through.
  public private(set) var arrivals = 0

  /// A closed gate that lets the first `letThrough` calls pass (not counted as arrivals), then
  /// holds the next `holding` calls (every one when `nil`) and lets later ones pass: a first
  /// load held while newer ones run.
  public init(letThrough: Int = 0, holding: Int? = nil) {
    self.letThrough = letThrough
    self.holding = holding
  }

  /// Counts the call, then suspends until ``open()`` (at once if it is open); one of the first
  /// calls let through passes at once, uncounted.
  public func wait() async {
    if letThrough > 0 {
      letThrough -= 1
      return
    }
    if let holding, arrivals >= holding { return }
    arrivals += 1
    guard !isOpen else { return }
    await withCheckedContinuation { waiters.append($0) }
  }

  /// Lets every waiting and future call through.
  public func open() {
    isOpen = true
    for waiter in waiters { waiter.resume() }
    waiters = []
  }

  /// Waits (at most `timeout` of real time) until `count` calls reached the gate. Records an
  /// issue and throws when they did not, so the test stops instead of acting on a model that
  /// is not there yet.
  public func waitForArrivals(
    _ count: Int = 1, timeout: Duration = defaultWaitTimeout,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    try await waitUntil(
      "\(count) calls reach the gate", timeout: timeout, sourceLocation: sourceLocation
    ) { arrivals >= count }
  }

  /// `call`, whose answer waits at the gate once the call itself has run: a change the server
  /// made, its answer still on the way.
  public nonisolated func answering<A, R>(
    _ call: @escaping @Sendable (A) async throws -> R
  ) -> @Sendable (A) async throws -> R {
    { a in
      let answer = try await call(a)
      await self.wait()
      return answer
    }
  }

  /// ``answering(_:)`` for a call of two arguments.
  public nonisolated func answering<A, B, R>(
    _ call: @escaping @Sendable (A, B) async throws -> R
  ) -> @Sendable (A, B) async throws -> R {
    { a, b in
      let answer = try await call(a, b)
      await self.wait()
      return answer
    }
  }

  /// Starts `action`, waits until its call reached the gate, runs `meanwhile` (what the user
  /// does while the request runs), then opens the gate and waits for `action` to end.
  @MainActor
  public func whileHeld(
    _ action: @escaping @MainActor () async -> Void,
    sourceLocation: SourceLocation = #_sourceLocation,
    meanwhile: @MainActor () async throws -> Void
  ) async throws {
    let running = Task { await action() }
    do {
      try await waitForArrivals(sourceLocation: sourceLocation)
      try await meanwhile()
    } catch {
      await open()
      await running.value
      throw error
    }
    await open()
    await running.value
  }
}
