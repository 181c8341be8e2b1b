import Domain
import Foundation

/// The event queue of a ``ChatChannel``: what the channel pushes while the engine is busy is
/// handed over in order, with every run of consecutive messages merged into one
/// ``ChatChannelEvent/messages(_:)`` event, so the engine stores a burst in one transaction
/// instead of one per message.
public final class ChatEventQueue: Sendable {
  /// The queued events; read by one engine. Ends after ``finish()`` once drained.
  public let events: AsyncStream<ChatChannelEvent>
  private let queue = BatchQueue<ChatChannelEvent>()

  /// An empty queue.
  public init() {
    let reader = MergingReader(queue.batches.makeAsyncIterator())
    events = AsyncStream { await reader.next() }
  }

  /// Queues `event`.
  public func push(_ event: ChatChannelEvent) {
    queue.push(event)
  }

  /// Ends ``events`` after what is queued.
  public func finish() {
    queue.finish()
  }
}

/// Hands the queue's batches to the one reader of ``ChatEventQueue/events`` an event at a time,
/// each run of consecutive messages merged into one event.
private final class MergingReader: @unchecked Sendable {
  private var batches: BatchQueue<ChatChannelEvent>.Batches.AsyncIterator
  /// The merged events of the current batch, in order; `position` is the one to hand out.
  private var ready: [ChatChannelEvent] = []
  private var position = 0

  init(_ batches: BatchQueue<ChatChannelEvent>.Batches.AsyncIterator) {
    self.batches = batches
  }

  func next() async -> ChatChannelEvent? {
    while position == ready.count {
      guard let batch = await batches.next() else { return nil }
      ready = Self.merged(batch)
      position = 0
    }
    defer { position += 1 }
    return ready[position]
  }

  /// `events` with every run of consecutive `.messages` events merged into one.
  private static func merged(_ events: [ChatChannelEvent]) -> [ChatChannelEvent] {
    var merged: [ChatChannelEvent] = []
    var run: [ChatMessage] = []
    for event in events {
      if case .messages(let more) = event {
        run += more
        continue
      }
      if !run.isEmpty { merged.append(.messages(run)) }
      run = []
      merged.append(event)
    }
    if !run.isEmpty { merged.append(.messages(run)) }
    return merged
  }
}
