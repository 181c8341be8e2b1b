import Foundation

/// A queue that one reader drains a batch at a time: writers push without waiting, and the
/// reader takes everything that waits at once (waiting while nothing does), so what arrives
/// while it works is taken together next. The realtime server's socket inbox and the chat
/// engine's event queue are built on it.
public final class BatchQueue<Element: Sendable>: Sendable {
  /// The sequence ``batches`` returns (spelled out because `some AsyncSequence<[Element],
  /// Never>` needs macOS 15 and the package supports 14).
  public typealias Batches = AsyncFilterSequence<AsyncMapSequence<AsyncStream<Void>, [Element]>>

  private let pending = Locked<[Element]>([])
  private let signals: AsyncStream<Void>
  private let signal: AsyncStream<Void>.Continuation

  /// An empty queue.
  public init() {
    (signals, signal) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
  }

  /// The waiting elements in push order, a non-empty batch at a time; ends after ``finish()``
  /// once what was pushed is handed over. One reader only.
  public var batches: Batches {
    signals.map { [pending] in
      pending.withLock { items in
        defer { items = [] }
        return items
      }
    }.filter { !$0.isEmpty }
  }

  /// How many elements wait.
  public var backlog: Int { pending.withLock(\.count) }

  /// Queues `element` for the reader.
  public func push(_ element: Element) {
    pending.withLock { $0.append(element) }
    signal.yield()
  }

  /// Ends ``batches`` once what is queued is handed over.
  public func finish() { signal.finish() }
}
