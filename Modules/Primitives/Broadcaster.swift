import Foundation

/// Sends every value to each of its current subscribers, each through its own `AsyncStream`:
/// the SDK's streams that several readers follow at once (the session state, the chat
/// connection state, typing, a WebSocket's state, the token events of NetworkKit).
///
/// A replaying broadcaster starts each new subscriber with the latest value; subscribing and
/// publishing share one lock, so a subscriber can neither miss nor reorder a value.
public final class Broadcaster<Element: Sendable>: Sendable {
  private struct State {
    var continuations: [UUID: AsyncStream<Element>.Continuation] = [:]
    var latest: Element?
    var isFinished = false
  }

  // Values are yielded under the lock, so every subscriber sees one order.
  private let state: Locked<State>
  private let replaysLatest: Bool

  /// A broadcaster. With `replaysLatest`, each subscriber first gets the latest value
  /// (`initial` until the first ``publish(_:)``; nothing while it is `nil`).
  public init(replaysLatest: Bool = false, initial: Element? = nil) {
    self.replaysLatest = replaysLatest
    state = Locked(State(latest: replaysLatest ? initial : nil))
  }

  /// The latest value of a replaying broadcaster (`nil` before any).
  public var current: Element? { state.withLock(\.latest) }

  /// How many streams are open.
  public var subscriberCount: Int { state.withLock(\.continuations.count) }

  /// A new stream of the values published from now on (the latest one first, when
  /// replaying); it ends with ``finish()`` or when its reader stops.
  public func subscribe() -> AsyncStream<Element> {
    let (stream, continuation) = AsyncStream.makeStream(
      of: Element.self, bufferingPolicy: .unbounded)
    let id = UUID()
    let replaysLatest = replaysLatest
    let finished = state.withLock { state in
      if replaysLatest, let latest = state.latest { continuation.yield(latest) }
      if !state.isFinished { state.continuations[id] = continuation }
      return state.isFinished
    }
    if finished {
      continuation.finish()
      return stream
    }
    continuation.onTermination = { [weak self] _ in
      _ = self?.state.withLock { $0.continuations.removeValue(forKey: id) }
    }
    return stream
  }

  /// Sends `value` to every subscriber (and keeps it as the latest, when replaying).
  public func publish(_ value: Element) {
    _ = send(value, unless: { _ in false })
  }

  /// Sends `value` unless the broadcaster is finished or `skip` says no to the latest value;
  /// `true` when it was sent.
  fileprivate func send(_ value: Element, unless skip: (Element?) -> Bool) -> Bool {
    let replaysLatest = replaysLatest
    return state.withLock { state in
      guard !state.isFinished, !(replaysLatest && skip(state.latest)) else { return false }
      if replaysLatest { state.latest = value }
      for continuation in state.continuations.values { continuation.yield(value) }
      return true
    }
  }

  /// Ends every stream; later subscribers get the latest value (when replaying) and the end.
  public func finish() {
    let ended = state.withLock { state in
      state.isFinished = true
      defer { state.continuations = [:] }
      return Array(state.continuations.values)
    }
    for continuation in ended { continuation.finish() }
  }

  deinit {
    for continuation in state.withLock(\.continuations.values) { continuation.finish() }
  }
}

extension Broadcaster where Element: Equatable {
  /// Sends `value` unless it equals the latest value of a replaying broadcaster; `true` when
  /// it was sent.
  @discardableResult
  public func publishIfChanged(_ value: Element) -> Bool {
    send(value, unless: { $0 == value })
  }
}
