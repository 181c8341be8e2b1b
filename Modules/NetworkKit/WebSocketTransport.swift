import Foundation
import HTTPTypes
import Primitives

/// One WebSocket message, sent or received: text or binary. NetworkKit gives no meaning to
/// the payload; the API that uses the socket decides what a frame says.
public enum WebSocketFrame: Sendable, Hashable {
  /// A text message (UTF-8 on the wire).
  case text(String)
  /// A binary message.
  case binary(Data)

  /// The size of the payload on the wire, in bytes.
  public var payloadSize: Int {
    switch self {
    case .text(let text): text.utf8.count
    case .binary(let data): data.count
    }
  }
}

/// A WebSocket close status code (RFC 6455 §7.4); applications may use 4000 to 4999.
public struct WebSocketCloseCode: RawRepresentable, Sendable, Hashable, ExpressibleByIntegerLiteral,
  CustomStringConvertible
{
  /// The code as sent in the close frame.
  public var rawValue: Int

  /// Creates a close code from its number.
  public init(rawValue: Int) {
    self.rawValue = rawValue
  }

  /// Creates a close code from an integer literal, e.g. `4001`.
  public init(integerLiteral value: Int) {
    self.rawValue = value
  }

  /// 1000: the purpose of the connection has been fulfilled.
  public static let normalClosure: WebSocketCloseCode = 1000
  /// 1001: the endpoint is going away (server restart, client leaving, dead connection dropped).
  public static let goingAway: WebSocketCloseCode = 1001
  /// 1002: the peer broke the WebSocket protocol.
  public static let protocolError: WebSocketCloseCode = 1002
  /// 1008: a message violated the endpoint's policy (e.g. an expired session).
  public static let policyViolation: WebSocketCloseCode = 1008
  /// 1009: a message was too large to process.
  public static let messageTooBig: WebSocketCloseCode = 1009
  /// 1011: the server met an unexpected condition.
  public static let internalServerError: WebSocketCloseCode = 1011
  /// 1013: try again later (the server is overloaded, or this client fell behind).
  public static let tryAgainLater: WebSocketCloseCode = 1013

  /// The code's number.
  public var description: String { String(rawValue) }
}

/// Everything that can go wrong with a WebSocket; each case says what to do through
/// `errorDescription`.
public enum WebSocketError: Error, Sendable, Hashable {
  /// The URL is not a `ws`, `wss`, `http` or `https` URL with a host.
  case invalidURL(String)
  /// The server could not be reached (DNS failure, connection refused, no route).
  case offline
  /// The opening handshake did not finish within the transport's handshake timeout.
  case timeout
  /// The server answered the upgrade request without switching to WebSocket. `status` is the
  /// HTTP status when the transport can read it (`URLSessionWebSocketTransport`); it is `nil`
  /// with `HummingbirdWebSocketTransport`, whose client does not report it.
  case handshakeFailed(status: Int?)
  /// The connection is closed: the server closed it with `code` and `reason`, or it dropped
  /// without a close frame (`code == nil`), or this side closed it before the call.
  case closed(code: WebSocketCloseCode?, reason: String?)
  /// A message exceeded the transport's maximum message size: an outgoing one was refused
  /// before it left, an incoming one closed the connection (1009).
  case messageTooLarge
  /// ``WebSocketConnection/send(_:on:)`` was called while no socket is open, or naming a socket
  /// that is no longer the open one.
  case notConnected
  /// The task that waited for the socket was cancelled.
  case cancelled
  /// Another failure of the connection (TLS, protocol violation, ...), described.
  case transport(String)
}

extension WebSocketError: LocalizedError {
  /// A sentence that says what went wrong and what to do next.
  public var errorDescription: String? { description }
}

extension WebSocketError: CustomStringConvertible {
  /// A sentence that says what went wrong and what to do next.
  public var description: String {
    switch self {
    case .invalidURL(let url):
      return "'\(url)' is not a WebSocket URL. Use a ws, wss, http or https URL with a host."
    case .offline:
      return "The WebSocket server could not be reached. Check the network connection; the "
        + "connection retries on its own."
    case .timeout:
      return "The WebSocket handshake did not finish in time. Try again later."
    case .handshakeFailed(401):
      return "The server refused the WebSocket upgrade with status 401: the access token was "
        + "rejected. Refresh it or sign in again."
    case .handshakeFailed(let status?):
      return "The server refused the WebSocket upgrade with status \(status). Check the URL and "
        + "the server; the connection retries on its own."
    case .handshakeFailed(nil):
      return "The server refused the WebSocket upgrade (status unknown). The access token may "
        + "have been rejected or the endpoint is not a WebSocket endpoint."
    case .closed(let code?, let reason):
      let because = reason.map { ": \($0)" } ?? ""
      return "The WebSocket was closed with code \(code)\(because). Reconnect to continue."
    case .closed(nil, _):
      return "The WebSocket connection is closed. Reconnect to continue."
    case .messageTooLarge:
      return "A WebSocket message was larger than the transport's maximum message size. Send "
        + "smaller messages or raise the limit on both sides."
    case .notConnected:
      return "The WebSocket is not connected. Keep the message (an outbox) and send it after "
        + "the connection reports `.connected` again."
    case .cancelled:
      return "The WebSocket operation was cancelled before it finished."
    case .transport(let message):
      return "The WebSocket connection failed (\(message)). The connection retries on its own; "
        + "if it keeps failing, check the server and the network."
    }
  }
}

/// An open WebSocket, as returned by ``WebSocketTransport/connect(to:headerFields:)``.
public protocol WebSocket: Sendable {
  /// The messages the server sends, in order; iterate it once.
  ///
  /// It ends without error after ``close(_:reason:)`` was called on this side. It throws
  /// ``WebSocketError/closed(code:reason:)`` when the server closes the connection or it drops,
  /// ``WebSocketError/messageTooLarge`` after an oversized message, or another
  /// ``WebSocketError`` for a failure of the connection.
  var frames: WebSocketFrames { get }

  /// Sends one message. Throws ``WebSocketError/messageTooLarge`` (nothing is sent) for a message
  /// over the transport's limit and ``WebSocketError/closed(code:reason:)`` once the socket is
  /// closed.
  func send(_ frame: WebSocketFrame) async throws(WebSocketError)

  /// Starts the closing handshake with `code` and returns when the connection is closed, after
  /// at most the transport's close timeout. Closing a closed socket does nothing.
  func close(_ code: WebSocketCloseCode, reason: String?) async
}

/// Opens WebSockets. Implementations: `HummingbirdWebSocketTransport` (Linux),
/// `URLSessionWebSocketTransport` (Apple platforms), NetworkKitTesting's
/// `ScriptedWebSocketTransport` (tests).
public protocol WebSocketTransport: Sendable {
  /// Opens a WebSocket to `url`, sending `headerFields` with the upgrade request (the bearer
  /// token goes in `Authorization`), and returns once the server accepted the upgrade.
  ///
  /// Throws ``WebSocketError/handshakeFailed(status:)`` when the server refuses the upgrade,
  /// ``WebSocketError/offline`` when it cannot be reached, ``WebSocketError/timeout``,
  /// ``WebSocketError/invalidURL(_:)`` or ``WebSocketError/cancelled``.
  func connect(to url: URL, headerFields: HTTPFields) async throws(WebSocketError) -> any WebSocket
}

#if (canImport(HummingbirdWSClient) && os(Linux)) || canImport(Darwin)
/// The WebSocket transports that ship with NetworkKit.
public enum WebSocketTransports {
  /// The transport for the platform: HummingbirdWSClient on Linux (URLSession has no WebSocket
  /// support there), `URLSessionWebSocketTask` on Apple platforms.
  public static var platformDefault: any WebSocketTransport {
    #if canImport(HummingbirdWSClient) && os(Linux)
    HummingbirdWebSocketTransport.shared
    #else
    URLSessionWebSocketTransport.shared
    #endif
  }
}
#endif

/// The limits the WebSocket transports start with.
public enum WebSocketDefaults {
  /// The largest message sent or accepted, 64 KiB: what the Qapple server accepts.
  public static let maximumMessageSize = 64 * 1024
  /// How long connecting and the opening handshake may take together: 10 s.
  public static let handshakeTimeout: Duration = .seconds(10)
  /// How long ``WebSocket/close(_:reason:)`` waits for the server's close frame: 5 s.
  public static let closeTimeout: Duration = .seconds(5)
}

// MARK: - The inbound sequence

/// The messages received on a ``WebSocket``: an `AsyncSequence` whose errors are
/// ``WebSocketError``s. It supports one iteration.
public struct WebSocketFrames: AsyncSequence, Sendable {
  /// The element, a received message.
  public typealias Element = WebSocketFrame

  private let base: AsyncStream<Result<WebSocketFrame, WebSocketError>>

  /// The writing end, for transports (and test doubles) that produce the frames.
  public struct Continuation: Sendable {
    fileprivate let base: AsyncStream<Result<WebSocketFrame, WebSocketError>>.Continuation

    /// Delivers a received message.
    public func yield(_ frame: WebSocketFrame) {
      base.yield(.success(frame))
    }

    /// Ends the sequence without error (this side closed the socket).
    public func finish() {
      base.finish()
    }

    /// Ends the sequence with `error` (the server closed, the connection dropped or failed).
    public func finish(throwing error: WebSocketError) {
      base.yield(.failure(error))
      base.finish()
    }
  }

  /// A new sequence and the continuation that feeds it; it buffers without limit, so a reader
  /// that starts late loses nothing.
  public static func makeStream() -> (frames: WebSocketFrames, continuation: Continuation) {
    let (stream, continuation) = AsyncStream<Result<WebSocketFrame, WebSocketError>>.makeStream()
    return (WebSocketFrames(base: stream), Continuation(base: continuation))
  }

  /// The iterator; `next()` throws only ``WebSocketError``.
  public struct AsyncIterator: AsyncIteratorProtocol {
    fileprivate var base: AsyncStream<Result<WebSocketFrame, WebSocketError>>.AsyncIterator

    /// The next message, `nil` at the end; cancelling the calling task ends the iteration.
    public mutating func next() async throws(WebSocketError) -> WebSocketFrame? {
      guard let result = await base.next() else { return nil }
      return try result.get()
    }
  }

  /// Creates the iterator.
  public func makeAsyncIterator() -> AsyncIterator {
    AsyncIterator(base: base.makeAsyncIterator())
  }
}

// MARK: - Helpers shared by the transports

extension WebSocketFrame {
  /// Throws ``WebSocketError/messageTooLarge`` when the payload exceeds `limit` bytes.
  func checkSize(limit: Int) throws(WebSocketError) {
    if payloadSize > limit { throw .messageTooLarge }
  }
}

/// Checks that `url` can carry a WebSocket and returns it with a `ws`/`wss` scheme (`http` and
/// `https`, in any case, are accepted as aliases): the one rule the transports connect by, and
/// a client that derives its socket's URL from a REST base URL uses.
public func webSocketURL(_ url: URL) throws(WebSocketError) -> URL {
  guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true),
    let host = components.host, !host.isEmpty
  else { throw .invalidURL(url.absoluteString) }
  switch components.scheme?.lowercased() {
  case "ws", "http": components.scheme = "ws"
  case "wss", "https": components.scheme = "wss"
  default: throw .invalidURL(url.absoluteString)
  }
  guard let normalized = components.url else { throw .invalidURL(url.absoluteString) }
  return normalized
}

/// A one-shot result that a transport's callbacks settle and `connect` awaits: the first
/// settlement wins, later ones are ignored.
final class HandshakeGate<Value: Sendable>: Sendable {
  private typealias Waiter = CheckedContinuation<Result<Value, WebSocketError>, Never>
  // Callbacks from the transport race with the waiting task.
  private let state = Locked<(result: Result<Value, WebSocketError>?, waiter: Waiter?)>((nil, nil))

  /// Settles the gate; returns `false` when it was already settled.
  @discardableResult
  func settle(_ outcome: Result<Value, WebSocketError>) -> Bool {
    let (stored, waiting) = state.withLock { state -> (Bool, Waiter?) in
      guard state.result == nil else { return (false, nil) }
      state.result = outcome
      defer { state.waiter = nil }
      return (true, state.waiter)
    }
    waiting?.resume(returning: outcome)
    return stored
  }

  /// Waits for the outcome, at most `timeout`; settles with `.timeout` or `.cancelled` itself
  /// when the time runs out or the calling task is cancelled.
  func wait(timeout: Duration) async throws(WebSocketError) -> Value {
    let timer = Task { [weak self] in
      try await Task.sleep(for: timeout)
      self?.settle(.failure(.timeout))
    }
    defer { timer.cancel() }
    let outcome = await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let settled = state.withLock { state -> Result<Value, WebSocketError>? in
          if state.result == nil { state.waiter = continuation }
          return state.result
        }
        if let settled { continuation.resume(returning: settled) }
      }
    } onCancel: {
      settle(.failure(.cancelled))
    }
    return try outcome.get()
  }
}

/// Waits for `task` to end, at most `timeout`, then cancels it; used by `close` so a server that
/// never answers the close frame cannot hold the caller.
func awaitEnd(of task: Task<Void, Never>, within timeout: Duration) async {
  await withTaskGroup(of: Void.self) { group in
    group.addTask { await task.value }
    // The sleep throws only when the task ended first and the group cancels it.
    group.addTask { try? await Task.sleep(for: timeout) }
    await group.next()
    task.cancel()
    group.cancelAll()
  }
}
