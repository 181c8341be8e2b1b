import Foundation
import HTTPTypes
import NetworkKit
import Primitives

/// A ``WebSocketTransport`` for tests: each `connect` takes the next scripted answer, and every
/// accepted socket is a ``ScriptedWebSocket`` the test drives (deliver frames, close from the
/// server side, read what was sent).
///
/// A `connect` without a scripted answer waits until the test scripts one (or the task is
/// cancelled), so a test decides exactly when a handshake finishes. The `attempt(_:)` and
/// `socket(_:)` helpers wait for the code under test instead of sleeping; they throw
/// `CancellationError` when the waiting task is cancelled (a test's time limit), so a connect
/// that never comes fails the test instead of hanging the run.
public final class ScriptedWebSocketTransport: WebSocketTransport, Sendable {
  /// How the fake server answers one connect.
  public enum Answer: Sendable, Hashable {
    /// The upgrade succeeds; the socket is appended to the transport's sockets.
    case accept
    /// The connect fails with `error` (e.g. `.handshakeFailed(status: 401)`, `.offline`).
    case refuse(WebSocketError)
  }

  /// One call of `connect`, as the code under test made it.
  public struct Attempt: Sendable, Hashable {
    /// The URL it connected to.
    public var url: URL
    /// The header fields of the upgrade request.
    public var headerFields: HTTPFields
  }

  private struct State: Sendable {
    var script: [Answer] = []
    var attempts: [Attempt] = []
    var sockets: [ScriptedWebSocket] = []
    // Connects waiting for an answer, oldest first.
    var pending: [(id: UUID, continuation: CheckedContinuation<Answer?, Never>)] = []
  }

  private let state = Watched(State())

  /// Creates a transport that gives `answers` to the first connects, in order.
  public init(_ answers: Answer...) {
    state.update { $0.script = answers }
  }

  /// Appends answers for the next connects; a connect already waiting gets the first one.
  public func enqueue(_ answers: Answer...) {
    state.update { state in
      state.script += answers
      while !state.pending.isEmpty, !state.script.isEmpty {
        let waiting = state.pending.removeFirst()
        waiting.continuation.resume(returning: state.script.removeFirst())
      }
    }
  }

  /// Every connect made so far, in order.
  public var attempts: [Attempt] { state.read { $0.attempts } }

  /// Every accepted socket so far, in order.
  public var sockets: [ScriptedWebSocket] { state.read { $0.sockets } }

  /// The `index`-th connect (0-based), waiting until it has been made.
  public func attempt(_ index: Int) async throws -> Attempt {
    try await state.wait { $0.attempts.indices.contains(index) ? $0.attempts[index] : nil }
  }

  /// The `index`-th accepted socket (0-based), waiting until it exists.
  public func socket(_ index: Int) async throws -> ScriptedWebSocket {
    try await state.wait { $0.sockets.indices.contains(index) ? $0.sockets[index] : nil }
  }

  /// Records the attempt and answers with the next scripted answer, waiting for one if needed.
  public func connect(
    to url: URL, headerFields: HTTPFields
  ) async throws(WebSocketError) -> any WebSocket {
    let id = UUID()
    let answer: Answer? = await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        state.update { state in
          state.attempts.append(Attempt(url: url, headerFields: headerFields))
          if Task.isCancelled {
            continuation.resume(returning: nil)
          } else if state.script.isEmpty {
            state.pending.append((id, continuation))
          } else {
            continuation.resume(returning: state.script.removeFirst())
          }
        }
      }
    } onCancel: {
      state.update { state in
        guard let index = state.pending.firstIndex(where: { $0.id == id }) else { return }
        state.pending.remove(at: index).continuation.resume(returning: nil)
      }
    }
    switch answer {
    case nil:
      throw .cancelled
    case .refuse(let error):
      throw error
    case .accept:
      let socket = ScriptedWebSocket()
      state.update { $0.sockets.append(socket) }
      return socket
    }
  }
}

/// A socket of ``ScriptedWebSocketTransport``: the test plays the server.
public final class ScriptedWebSocket: WebSocket, Sendable {
  /// A call of `close(_:reason:)` by the code under test.
  public struct CloseCall: Sendable, Hashable {
    /// The close code.
    public var code: WebSocketCloseCode
    /// The reason.
    public var reason: String?

    /// Creates a close call, e.g. to compare with ``ScriptedWebSocket/closeCalls``.
    public init(code: WebSocketCloseCode, reason: String?) {
      self.code = code
      self.reason = reason
    }
  }

  private struct State: Sendable {
    var sent: [WebSocketFrame] = []
    var closeCalls: [CloseCall] = []
    // Set when either side closed; what `send` throws afterwards.
    var ended: WebSocketError?
  }

  /// The frames the server sends; see ``deliver(_:)`` and ``closeFromServer(code:reason:)``.
  public let frames: WebSocketFrames
  private let continuation: WebSocketFrames.Continuation
  private let state = Watched(State())

  init() {
    (frames, continuation) = WebSocketFrames.makeStream()
  }

  /// The frames the code under test sent, in order.
  public var sentFrames: [WebSocketFrame] { state.read { $0.sent } }

  /// The close calls made by the code under test, in order.
  public var closeCalls: [CloseCall] { state.read { $0.closeCalls } }

  /// Delivers `frame` as if the server had sent it.
  public func deliver(_ frame: WebSocketFrame) {
    continuation.yield(frame)
  }

  /// Closes from the server side: ``frames`` throws `.closed(code:reason:)` and later sends
  /// fail with the same error.
  public func closeFromServer(code: WebSocketCloseCode?, reason: String? = nil) {
    end(with: .closed(code: code, reason: reason))
  }

  /// Fails the connection: ``frames`` throws `error` and later sends fail with it.
  public func fail(_ error: WebSocketError) {
    end(with: error)
  }

  /// The `index`-th sent frame (0-based), waiting until it has been sent.
  public func sentFrame(_ index: Int) async throws -> WebSocketFrame {
    try await state.wait { $0.sent.indices.contains(index) ? $0.sent[index] : nil }
  }

  /// The first close call, waiting until it has been made.
  public func closed() async throws -> CloseCall {
    try await state.wait { $0.closeCalls.first }
  }

  /// Records the frame; throws how the socket ended once it is closed.
  public func send(_ frame: WebSocketFrame) async throws(WebSocketError) {
    let ended = state.update { state -> WebSocketError? in
      if let ended = state.ended { return ended }
      state.sent.append(frame)
      return nil
    }
    if let ended { throw ended }
  }

  /// Records the call and ends ``frames`` without error (a closed socket stays closed).
  public func close(_ code: WebSocketCloseCode, reason: String?) async {
    let first = state.update { state -> Bool in
      state.closeCalls.append(CloseCall(code: code, reason: reason))
      guard state.ended == nil else { return false }
      state.ended = .closed(code: code, reason: reason)
      return true
    }
    if first { continuation.finish() }
  }

  private func end(with error: WebSocketError) {
    let first = state.update { state -> Bool in
      guard state.ended == nil else { return false }
      state.ended = error
      return true
    }
    if first { continuation.finish(throwing: error) }
  }
}

/// A value behind a lock whose readers can wait for a condition; every update wakes the waiters
/// whose condition now holds, and a cancelled reader stops waiting.
final class Watched<Value: Sendable>: Sendable {
  private struct Waiter: Sendable {
    var id: UUID
    /// Resumes the reader and returns `true` when the value now holds its condition.
    var offer: @Sendable (Value) -> Bool
    /// Resumes the reader with `CancellationError`.
    var cancel: @Sendable () -> Void
  }

  private let state: Locked<(value: Value, waiters: [Waiter])>

  init(_ value: Value) {
    state = Locked((value, []))
  }

  func read<Result>(_ body: (Value) -> Result) -> Result {
    state.withLock { body($0.value) }
  }

  @discardableResult
  func update<Result>(_ body: (inout Value) -> Result) -> Result {
    state.withLock { state in
      let result = body(&state.value)
      let value = state.value
      state.waiters.removeAll { $0.offer(value) }
      return result
    }
  }

  /// Returns the first non-nil `extract(value)`, waiting for updates until there is one;
  /// throws `CancellationError` once the task is cancelled.
  func wait<Result: Sendable>(
    for extract: @escaping @Sendable (Value) -> Result?
  ) async throws -> Result {
    let id = UUID()
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        state.withLock { state in
          if let result = extract(state.value) {
            continuation.resume(returning: result)
          } else if Task.isCancelled {
            continuation.resume(throwing: CancellationError())
          } else {
            let offer: @Sendable (Value) -> Bool = { value in
              guard let result = extract(value) else { return false }
              continuation.resume(returning: result)
              return true
            }
            state.waiters.append(
              Waiter(
                id: id, offer: offer, cancel: { continuation.resume(throwing: CancellationError()) }
              ))
          }
        }
      }
    } onCancel: {
      // Under the lock, so the reader is resumed once: by an update or here, never both.
      state.withLock { state in
        guard let index = state.waiters.firstIndex(where: { $0.id == id }) else { return }
        state.waiters.remove(at: index).cancel()
      }
    }
  }
}
