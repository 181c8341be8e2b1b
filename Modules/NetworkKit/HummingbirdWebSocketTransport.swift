// `os(Linux)` as well: the manifest links HummingbirdWSClient into NetworkKit on Linux only, and
// on macOS the module can still be visible when a test target builds it (HummingbirdWSTesting).
#if canImport(HummingbirdWSClient) && os(Linux)
import Foundation
import HTTPTypes
import HummingbirdWSClient
import Logging
import Primitives

/// A ``WebSocketTransport`` on HummingbirdWSClient (SwiftNIO), the default on Linux, where
/// `URLSessionWebSocketTask` is not available.
///
/// `WebSocketClient.connect` keeps a connection only while its handler runs. Each socket runs the
/// client in its own task: the handler hands the outbound writer over (so ``connect(to:headerFields:)``
/// returns only after the upgrade succeeded), then forwards every inbound message to
/// ``WebSocket/frames`` until the connection ends. Closing the socket, or a server that does not
/// answer the close frame within ``closeTimeout``, ends that task.
///
/// WSClient does not report the status of a refused upgrade, so a refusal is
/// ``WebSocketError/handshakeFailed(status:)`` with a `nil` status. Nor can it abort an upgrade
/// in flight: after ``handshakeTimeout`` `connect` throws ``WebSocketError/timeout`` at once, but
/// the half-open connection lingers until the server answers or closes it.
public struct HummingbirdWebSocketTransport: WebSocketTransport {
  /// A transport with the default limits, shared by everyone who needs no other.
  public static let shared = HummingbirdWebSocketTransport()

  /// The largest message sent or accepted, in bytes (64 KiB by default, the Qapple server's
  /// limit). It is also the largest frame: messages are sent unfragmented.
  public let maximumMessageSize: Int
  /// The largest frame SwiftNIO's decoder reads: 16 times the message size, at least 1 MiB.
  /// Larger messages up to it end the socket with ``WebSocketError/messageTooLarge``; a frame
  /// over it makes NIO drop the connection (``WebSocketError/closed(code:reason:)`` without a
  /// code), since WSClient does not report that case.
  public var frameSizeLimit: Int { max(16 * maximumMessageSize, 1 << 20) }
  /// How long the TCP connection and the upgrade may take together.
  public let handshakeTimeout: Duration
  /// How long ``WebSocket/close(_:reason:)`` waits for the server's close frame.
  public let closeTimeout: Duration
  private let logger: Logger

  /// Creates a transport.
  ///
  /// - Parameters:
  ///   - maximumMessageSize: The largest message sent or accepted, in bytes.
  ///   - handshakeTimeout: How long connecting and upgrading may take.
  ///   - closeTimeout: How long closing waits for the server's close frame.
  ///   - logger: Where WSClient logs (at debug and trace level).
  public init(
    maximumMessageSize: Int = WebSocketDefaults.maximumMessageSize,
    handshakeTimeout: Duration = WebSocketDefaults.handshakeTimeout,
    closeTimeout: Duration = WebSocketDefaults.closeTimeout,
    logger: Logger = Logger(label: "NetworkKit.WebSocket")
  ) {
    self.maximumMessageSize = max(1, maximumMessageSize)
    self.handshakeTimeout = handshakeTimeout
    self.closeTimeout = closeTimeout
    self.logger = logger
  }

  /// Connects and upgrades; returns once the server accepted the upgrade.
  public func connect(
    to url: URL, headerFields: HTTPFields
  ) async throws(WebSocketError) -> any WebSocket {
    let url = try webSocketURL(url)
    let configuration = WebSocketClientConfiguration(
      maxFrameSize: frameSizeLimit,
      additionalHeaders: headerFields,
      closeTimeout: closeTimeout,
      validateUTF8: true
    )
    let socket = HummingbirdWebSocket(
      maximumMessageSize: maximumMessageSize, closeTimeout: closeTimeout)
    let maximumMessageSize = self.maximumMessageSize
    let logger = self.logger
    let client = Task {
      do {
        let closeFrame = try await WebSocketClient.connect(
          url: url.absoluteString, configuration: configuration, logger: logger
        ) { inbound, outbound, _ in
          guard socket.didOpen(outbound) else { return }
          // `maxSize` bounds fragmented messages (WSClient answers 1009 and throws); a single
          // frame is checked here, so it too ends the socket with `.messageTooLarge`.
          for try await message in inbound.messages(maxSize: maximumMessageSize) {
            guard message.size <= maximumMessageSize else {
              socket.willEnd(with: .messageTooLarge)
              try await outbound.close(.messageTooLarge, reason: nil)
              return
            }
            socket.didReceive(message)
          }
        }
        socket.didEnd(
          .closed(
            code: closeFrame.map {
              WebSocketCloseCode(rawValue: Int(UInt16(webSocketErrorCode: $0.closeCode)))
            },
            reason: closeFrame?.reason))
      } catch {
        socket.didEnd(Self.webSocketError(from: error, url: url))
      }
    }
    socket.run(client)
    do {
      try await socket.opened.wait(timeout: handshakeTimeout)
    } catch {
      client.cancel()
      throw error
    }
    return socket
  }

  /// Maps WSClient and SwiftNIO errors to ``WebSocketError``.
  static func webSocketError(from error: any Error, url: URL) -> WebSocketError {
    switch error {
    case let error as WebSocketClientError:
      switch error {
      case .webSocketUpgradeFailed: return .handshakeFailed(status: nil)
      case .invalidURL: return .invalidURL(url.absoluteString)
      case .serverSentMessageTooLarge: return .messageTooLarge
      default: return .transport(error.description)
      }
    case is CancellationError:
      return .cancelled
    default:
      // An incoming frame over `maxFrameSize` fails NIO's frame decoder (which answers 1009).
      // Recognised by name so this module need not import NIOWebSocket.
      if String(reflecting: type(of: error)).hasSuffix("NIOWebSocketError"),
        String(describing: error) == "invalidFrameLength"
      {
        return .messageTooLarge
      }
      return isUnreachableError(error) ? .offline : .transport(String(describing: error))
    }
  }
}

extension WebSocketMessage {
  /// The payload size in bytes.
  fileprivate var size: Int {
    switch self {
    case .text(let text): text.utf8.count
    case .binary(let buffer): buffer.readableBytes
    }
  }
}

/// A connection made by ``HummingbirdWebSocketTransport``; its client task lives as long as the
/// connection.
private final class HummingbirdWebSocket: WebSocket, Sendable {
  let frames: WebSocketFrames
  let opened = HandshakeGate<Void>()
  private let continuation: WebSocketFrames.Continuation
  private let maximumMessageSize: Int
  private let closeTimeout: Duration

  private struct State {
    var outbound: WebSocketOutboundWriter?
    var client: Task<Void, Never>?
    var closeRequested = false
    var ending: WebSocketError?
  }
  // The client task, `send` and `close` run concurrently.
  private let state = Locked(State())

  init(maximumMessageSize: Int, closeTimeout: Duration) {
    (frames, continuation) = WebSocketFrames.makeStream()
    self.maximumMessageSize = maximumMessageSize
    self.closeTimeout = closeTimeout
  }

  func run(_ client: Task<Void, Never>) {
    state.withLock { $0.client = client }
  }

  /// The upgrade succeeded; returns `false` when `connect` gave up already (timeout, cancel), in
  /// which case the handler returns at once and WSClient closes the connection.
  func didOpen(_ outbound: WebSocketOutboundWriter) -> Bool {
    state.withLock { $0.outbound = outbound }
    return opened.settle(.success(()))
  }

  func didReceive(_ message: WebSocketMessage) {
    switch message {
    case .text(let text): continuation.yield(.text(text))
    case .binary(let buffer): continuation.yield(.binary(Data(buffer.readableBytesView)))
    }
  }

  /// The handler found a reason to end the connection that wins over how it then closes.
  func willEnd(with error: WebSocketError) {
    state.withLock { $0.ending = error }
  }

  /// The client task ended with `error`: the handshake failed, or the open connection ended.
  func didEnd(_ error: WebSocketError) {
    let (closedHere, error) = state.withLock { state -> (Bool, WebSocketError) in
      let reason = state.ending ?? error
      state.ending = reason
      state.outbound = nil
      return (state.closeRequested, reason)
    }
    opened.settle(.failure(error))
    if closedHere {
      continuation.finish()
    } else {
      continuation.finish(throwing: error)
    }
  }

  func send(_ frame: WebSocketFrame) async throws(WebSocketError) {
    try frame.checkSize(limit: maximumMessageSize)
    let (writer, ended) = state.withLock { state -> (WebSocketOutboundWriter?, WebSocketError?) in
      if state.closeRequested { return (nil, .closed(code: nil, reason: nil)) }
      return (state.outbound, state.ending)
    }
    guard let writer else { throw Self.closedError(after: ended) }
    do {
      switch frame {
      case .text(let text): try await writer.write(.text(text))
      case .binary(let data): try await writer.write(.binary(.init(bytes: data)))
      }
    } catch {
      // The connection went away while writing; report how it ended when that is known.
      throw Self.closedError(after: state.withLock { $0.ending })
    }
  }

  /// What `send` throws on an ended socket: always `.closed`, with the server's code if any.
  private static func closedError(after ending: WebSocketError?) -> WebSocketError {
    switch ending {
    case .closed(let code, let reason): .closed(code: code, reason: reason)
    case .messageTooLarge: .closed(code: .messageTooBig, reason: nil)
    default: .closed(code: nil, reason: nil)
    }
  }

  func close(_ code: WebSocketCloseCode, reason: String?) async {
    let (writer, client, first) = state.withLock {
      state -> (WebSocketOutboundWriter?, Task<Void, Never>?, Bool) in
      defer { state.closeRequested = true }
      return (state.outbound, state.client, !state.closeRequested)
    }
    guard let client else { return }
    if first, let writer {
      // The client keeps reading until the server answers the close frame; a failed write
      // means the connection is already gone, which the wait below observes.
      try? await writer.close(.init(codeNumber: code.rawValue), reason: reason)
    }
    await awaitEnd(of: client, within: closeTimeout)
  }
}
#endif
