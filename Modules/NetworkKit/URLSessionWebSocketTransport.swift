#if canImport(Darwin)
import Foundation
import HTTPTypes

/// A ``WebSocketTransport`` on `URLSessionWebSocketTask`, the default on Apple platforms.
///
/// ``connect(to:headerFields:)`` returns when the task's delegate reports the open connection;
/// a refused upgrade is ``WebSocketError/handshakeFailed(status:)`` with the status of the
/// server's `HTTPURLResponse`. (On Linux `URLSessionWebSocketTask` is not supported by libcurl;
/// `HummingbirdWebSocketTransport` is used there.)
public final class URLSessionWebSocketTransport: WebSocketTransport {
  /// A transport on an ephemeral session without cookies or caching, with the default limits.
  public static let shared = URLSessionWebSocketTransport()

  /// The largest message sent or accepted, in bytes (64 KiB by default).
  public let maximumMessageSize: Int
  /// How long connecting and the upgrade may take together.
  public let handshakeTimeout: Duration
  /// How long ``WebSocket/close(_:reason:)`` waits for the connection to end.
  public let closeTimeout: Duration
  private let session: URLSession

  /// Creates a transport on `session`.
  ///
  /// - Parameters:
  ///   - session: The session that creates the WebSocket tasks.
  ///   - maximumMessageSize: The largest message sent or accepted, in bytes.
  ///   - handshakeTimeout: How long connecting and upgrading may take.
  ///   - closeTimeout: How long closing waits for the connection to end.
  public init(
    session: URLSession,
    maximumMessageSize: Int = WebSocketDefaults.maximumMessageSize,
    handshakeTimeout: Duration = WebSocketDefaults.handshakeTimeout,
    closeTimeout: Duration = WebSocketDefaults.closeTimeout
  ) {
    self.session = session
    self.maximumMessageSize = max(1, maximumMessageSize)
    self.handshakeTimeout = handshakeTimeout
    self.closeTimeout = closeTimeout
  }

  /// Creates a transport on an ephemeral session that stores no cookies and caches nothing, so
  /// authentication stays with the `Authorization` header.
  public convenience init(
    maximumMessageSize: Int = WebSocketDefaults.maximumMessageSize,
    handshakeTimeout: Duration = WebSocketDefaults.handshakeTimeout,
    closeTimeout: Duration = WebSocketDefaults.closeTimeout
  ) {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpCookieStorage = nil
    configuration.httpShouldSetCookies = false
    configuration.urlCache = nil
    self.init(
      session: URLSession(configuration: configuration), maximumMessageSize: maximumMessageSize,
      handshakeTimeout: handshakeTimeout, closeTimeout: closeTimeout)
  }

  /// Starts a WebSocket task and returns once its delegate reports the open connection.
  public func connect(
    to url: URL, headerFields: HTTPFields
  ) async throws(WebSocketError) -> any WebSocket {
    let url = try webSocketURL(url)
    // The request keeps URLSession's default idle timeout (60 s): the handshake has its own
    // deadline below, and an open socket with a heartbeat is never idle that long.
    var request = URLRequest(url: url)
    for field in headerFields {
      request.addValue(field.value, forHTTPHeaderField: field.name.rawName)
    }
    let task = session.webSocketTask(with: request)
    task.maximumMessageSize = maximumMessageSize
    let socket = URLSessionWebSocket(
      task: task, maximumMessageSize: maximumMessageSize, closeTimeout: closeTimeout)
    // A task-specific delegate (iOS 15, macOS 12) so a shared session needs no delegate.
    task.delegate = socket.delegate
    task.resume()
    do {
      try await socket.delegate.opened.wait(timeout: handshakeTimeout)
    } catch {
      task.cancel()
      throw error
    }
    socket.startReceiving()
    return socket
  }

  /// The error for a task that completed before it opened: the refusing status when the
  /// server answered, otherwise the connection failure.
  static func handshakeError(response: URLResponse?, error: (any Error)?) -> WebSocketError {
    if let response = response as? HTTPURLResponse, response.statusCode != 101 {
      return .handshakeFailed(status: response.statusCode)
    }
    guard let error else { return .handshakeFailed(status: nil) }
    return webSocketError(from: error)
  }

  /// Maps URLSession's errors to ``WebSocketError`` (through the HTTP transport's mapping).
  static func webSocketError(from error: any Error) -> WebSocketError {
    if let error = error as? URLError, error.code == .badServerResponse {
      return .handshakeFailed(status: nil)
    }
    let nsError = error as NSError
    if nsError.domain == NSPOSIXErrorDomain, nsError.code == Int(EMSGSIZE) {
      // What `receive()` fails with when a message exceeds `maximumMessageSize`.
      return .messageTooLarge
    }
    switch URLSessionTransport.networkError(from: error) {
    case .offline: return .offline
    case .timeout: return .timeout
    case .cancelled: return .cancelled
    default: return .transport(error.localizedDescription)
    }
  }
}

/// Receives the task's open and completion callbacks.
private final class WebSocketTaskDelegate: NSObject, URLSessionWebSocketDelegate,
  @unchecked Sendable
{
  // Only the gate is stored, and it is thread-safe.
  let opened = HandshakeGate<Void>()

  func urlSession(
    _ session: URLSession, webSocketTask: URLSessionWebSocketTask,
    didOpenWithProtocol protocol: String?
  ) {
    opened.settle(.success(()))
  }

  func urlSession(
    _ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?
  ) {
    // Ignored by the gate once the socket opened; before that it is the handshake's failure.
    opened.settle(
      .failure(URLSessionWebSocketTransport.handshakeError(response: task.response, error: error)))
  }
}

/// A connection made by ``URLSessionWebSocketTransport``.
private final class URLSessionWebSocket: WebSocket, @unchecked Sendable {
  let frames: WebSocketFrames
  let delegate = WebSocketTaskDelegate()
  private let continuation: WebSocketFrames.Continuation
  private let task: URLSessionWebSocketTask
  private let maximumMessageSize: Int
  private let closeTimeout: Duration

  // Guarded by `lock`: the receive loop, `send` and `close` run concurrently.
  private let lock = NSLock()
  private var receiver: Task<Void, Never>?
  private var closeRequested = false

  init(task: URLSessionWebSocketTask, maximumMessageSize: Int, closeTimeout: Duration) {
    (frames, continuation) = WebSocketFrames.makeStream()
    self.task = task
    self.maximumMessageSize = maximumMessageSize
    self.closeTimeout = closeTimeout
  }

  /// Starts the loop that forwards received messages to ``frames``.
  func startReceiving() {
    let receiver = Task {
      while true {
        let message: URLSessionWebSocketTask.Message
        do {
          message = try await self.task.receive()
        } catch {
          self.didEnd(after: error)
          return
        }
        switch message {
        case .string(let text): self.continuation.yield(.text(text))
        case .data(let data): self.continuation.yield(.binary(data))
        @unknown default: continue
        }
      }
    }
    lock.withLock { self.receiver = receiver }
  }

  private func didEnd(after error: any Error) {
    if lock.withLock({ closeRequested }) {
      continuation.finish()
    } else {
      continuation.finish(throwing: endError(after: error))
    }
  }

  /// How the connection ended: the server's close frame when there was one.
  private func endError(after error: any Error) -> WebSocketError {
    guard task.closeCode != .invalid else {
      return URLSessionWebSocketTransport.webSocketError(from: error)
    }
    return .closed(
      code: WebSocketCloseCode(rawValue: task.closeCode.rawValue),
      reason: task.closeReason.map { String(decoding: $0, as: UTF8.self) })
  }

  func send(_ frame: WebSocketFrame) async throws(WebSocketError) {
    try frame.checkSize(limit: maximumMessageSize)
    if lock.withLock({ closeRequested }) { throw .closed(code: nil, reason: nil) }
    let message: URLSessionWebSocketTask.Message
    switch frame {
    case .text(let text): message = .string(text)
    case .binary(let data): message = .data(data)
    }
    do {
      try await task.send(message)
    } catch {
      throw endError(after: error)
    }
  }

  func close(_ code: WebSocketCloseCode, reason: String?) async {
    let (first, receiver) = lock.withLock { () -> (Bool, Task<Void, Never>?) in
      defer { closeRequested = true }
      return (!closeRequested, self.receiver)
    }
    if first {
      let closeCode = URLSessionWebSocketTask.CloseCode(rawValue: code.rawValue) ?? .normalClosure
      task.cancel(with: closeCode, reason: reason.map { Data($0.utf8) })
    }
    if let receiver { await awaitEnd(of: receiver, within: closeTimeout) }
  }
}
#endif
