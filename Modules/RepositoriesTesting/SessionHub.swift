import Domain
import Foundation
import ServiceEngine

/// The `sessionStates` streams of every client. It has its own lock, taken after the backend's
/// (never before), so a stream ending while the backend is busy cannot deadlock.
final class SessionHub: Sendable {
  private let subscribers =
    Locked<[FakeClient.ID: [UUID: AsyncStream<SessionState>.Continuation]]>([:])

  /// A stream that yields `current` first and then every change of `client`'s state.
  func stream(for client: FakeClient.ID, current: SessionState) -> AsyncStream<SessionState> {
    let (stream, continuation) = AsyncStream.makeStream(
      of: SessionState.self, bufferingPolicy: .unbounded)
    let key = UUID()
    continuation.yield(current)
    subscribers.withLock { $0[client, default: [:]][key] = continuation }
    continuation.onTermination = { [subscribers] _ in
      subscribers.withLock { _ = $0[client]?.removeValue(forKey: key) }
    }
    return stream
  }

  /// Sends `state` to every subscriber of `client`.
  func yield(_ state: SessionState, to client: FakeClient.ID) {
    let continuations = subscribers.withLock { Array(($0[client] ?? [:]).values) }
    for continuation in continuations { continuation.yield(state) }
  }

  /// How many streams of `client` are open (for tests of the fake itself).
  func subscriberCount(of client: FakeClient.ID) -> Int {
    subscribers.withLock { $0[client]?.count ?? 0 }
  }
}
