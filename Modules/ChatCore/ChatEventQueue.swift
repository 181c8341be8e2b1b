import Domain
import Foundation

/// The event queue of a ``ChatChannel``: what the channel pushes while the engine is busy is
/// handed over in order, with every run of consecutive messages merged into one
/// ``ChatChannelEvent/messages(_:)`` event, so the engine stores a burst in one transaction
/// instead of one per message.
public final class ChatEventQueue: Sendable {
  /// The queued events; read by one engine. Ends after ``finish()`` once drained.
  public let events: AsyncStream<ChatChannelEvent>
  private let state = Locked(PendingEvents())
  private let signal: AsyncStream<Void>.Continuation

  /// An empty queue.
  public init() {
    let (signals, signal) = AsyncStream.makeStream(
      of: Void.self, bufferingPolicy: .bufferingNewest(1))
    self.signal = signal
    let state = state
    let waiting = SignalIterator(signals.makeAsyncIterator())
    events = AsyncStream {
      while true {
        switch state.withLock({ $0.next() }) {
        case .event(let event): return event
        case .finished: return nil
        case .empty:
          if await waiting.next() == nil { return state.withLock { $0.next() }.event }
        }
      }
    }
  }

  /// Queues `event`.
  public func push(_ event: ChatChannelEvent) {
    state.withLock { $0.queue.append(event) }
    signal.yield()
  }

  /// Ends ``events`` after what is queued.
  public func finish() {
    state.withLock { $0.isFinished = true }
    signal.finish()
  }
}

/// The queued events and how far the reader got (kept under a lock).
private struct PendingEvents {
  enum Next {
    case event(ChatChannelEvent)
    case empty
    case finished

    var event: ChatChannelEvent? { if case .event(let event) = self { event } else { nil } }
  }

  var queue: [ChatChannelEvent] = []
  var head = 0
  var isFinished = false

  /// The next event, a run of messages merged into one.
  mutating func next() -> Next {
    guard head < queue.count else {
      queue.removeAll(keepingCapacity: true)
      head = 0
      return isFinished ? .finished : .empty
    }
    guard case .messages(var merged) = queue[head] else {
      defer { head += 1 }
      return .event(queue[head])
    }
    head += 1
    while head < queue.count, case .messages(let more) = queue[head] {
      merged += more
      head += 1
    }
    return .event(.messages(merged))
  }
}

/// The signal stream's iterator, advanced by the one reader of ``ChatEventQueue/events``.
private final class SignalIterator: @unchecked Sendable {
  private var iterator: AsyncStream<Void>.Iterator
  init(_ iterator: AsyncStream<Void>.Iterator) { self.iterator = iterator }
  func next() async -> Void? { await iterator.next() }
}
