import Foundation

/// Sends every value to each of its current subscribers, each through its own `AsyncStream`:
/// the SDK's streams that several readers follow at once (the session state, the chat
/// connection state, typing).
///
/// A replaying broadcaster starts each new subscriber with the latest value; subscribing and
/// publishing share one lock, so a subscriber can neither miss nor reorder a value.
public final class Broadcaster<Element: Sendable>: @unchecked Sendable {
  // Guarded by `lock`; values are yielded under it so every subscriber sees one order.
  private let lock = NSLock()
  private var continuations: [UUID: AsyncStream<Element>.Continuation] = [:]
  private var latest: Element?
  private let replaysLatest: Bool
  private var isFinished = false

  /// A broadcaster. With `replaysLatest`, each subscriber first gets the latest value
  /// (`initial` until the first ``publish(_:)``; nothing while it is `nil`).
  public init(replaysLatest: Bool = false, initial: Element? = nil) {
    self.replaysLatest = replaysLatest
    self.latest = replaysLatest ? initial : nil
  }

  /// The latest value of a replaying broadcaster (`nil` before any).
  public var current: Element? { lock.withLock { latest } }

  /// How many streams are open.
  public var subscriberCount: Int { lock.withLock { continuations.count } }

  /// A new stream of the values published from now on (the latest one first, when
  /// replaying); it ends with ``finish()`` or when its reader stops.
  public func subscribe() -> AsyncStream<Element> {
    let (stream, continuation) = AsyncStream.makeStream(
      of: Element.self, bufferingPolicy: .unbounded)
    let id = UUID()
    let finished = lock.withLock {
      if replaysLatest, let latest { continuation.yield(latest) }
      if !isFinished { continuations[id] = continuation }
      return isFinished
    }
    if finished {
      continuation.finish()
      return stream
    }
    continuation.onTermination = { [weak self] _ in
      guard let self else { return }
      _ = self.lock.withLock { self.continuations.removeValue(forKey: id) }
    }
    return stream
  }

  /// Sends `value` to every subscriber (and keeps it as the latest, when replaying).
  public func publish(_ value: Element) {
    lock.withLock {
      guard !isFinished else { return }
      if replaysLatest { latest = value }
      for continuation in continuations.values { continuation.yield(value) }
    }
  }

  /// Ends every stream; later subscribers get the latest value (when replaying) and the end.
  public func finish() {
    let ended = lock.withLock {
      isFinished = true
      defer { continuations = [:] }
      return Array(continuations.values)
    }
    for continuation in ended { continuation.finish() }
  }

  deinit {
    for continuation in continuations.values { continuation.finish() }
  }
}

extension Broadcaster where Element: Equatable {
  /// Sends `value` unless it equals the latest value of a replaying broadcaster; `true` when
  /// it was sent.
  @discardableResult
  public func publishIfChanged(_ value: Element) -> Bool {
    lock.withLock {
      guard !isFinished, !(replaysLatest && latest == value) else { return false }
      if replaysLatest { latest = value }
      for continuation in continuations.values { continuation.yield(value) }
      return true
    }
  }
}
