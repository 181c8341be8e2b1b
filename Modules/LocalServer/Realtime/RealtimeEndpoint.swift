import DTO
import Domain
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1
import ServiceEngine

extension QappleServer {
  /// The WebSocket configuration of `/realtime`: frames up to 1 MiB reach the session, which
  /// refuses messages over 64 KiB with an `error` frame before closing; larger frames are
  /// closed by the WebSocket layer (1009). Liveness is the protocol's own ping/pong.
  static let webSocketConfiguration = HTTP1WebSocketUpgradeChannel.Configuration(
    ws: .init(maxFrameSize: 1 << 20, autoPing: .disabled))

  /// Whether an upgrade request becomes a WebSocket: one for `/realtime` whose bearer token is
  /// valid is served by a ``RealtimeSession``. One for `/realtime` with a missing, bad or
  /// expired token is refused with the error envelope a plain request gets (401 `unauthorized`
  /// or `token_expired`, through `refuse`), so a client can tell a token to refresh; any other
  /// path gets Hummingbird's empty 400. (A request without `Upgrade` never comes here: the
  /// router answers it, 426 for a plain GET of `/realtime` with a good token.)
  ///
  /// - Parameters:
  ///   - whenClosed: runs its argument once the connection is closed, however it ends.
  ///   - refuse: answers the refused handshake with this reply instead of the empty 400
  ///     (``HandshakeRefusal``).
  ///   - drop: closes the TCP connection without a close frame (socket faults).
  static func realtimeUpgrade(
    _ head: HTTPRequest, core: ServerCore,
    whenClosed: (@escaping @Sendable () -> Void) -> Void,
    refuse: (Reply) async -> Void,
    drop: @escaping @Sendable () async -> Void
  ) async -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
    let path = head.path?.split(separator: "?", maxSplits: 1).first.map(String.init)
    guard path == RealtimeLimits.path else { return .dontUpgrade }
    let viewer: Viewer
    let accessToken: String
    do {
      (viewer, accessToken) = try AuthenticationMiddleware.session(
        authorization: head.headerFields[.authorization], engine: core.engine)
    } catch {
      let refusal = APIError.of(error)
      if refusal == nil {
        core.logger.error("Checking a realtime handshake's token failed: \(error)")
      }
      await refuse(.envelope(refusal ?? .serverFailed))
      return .dontUpgrade
    }
    let session = RealtimeSession(
      engine: core.engine, frames: core.messageFrames, viewer: viewer, accessToken: accessToken,
      frameLimit: core.configuration.realtimeFrameLimit, writeLimiter: core.rateLimiter,
      backlogLimit: max(1, core.configuration.realtimeBacklog),
      backlogByteLimit: max(
        RealtimeLimits.maxMessageBytes, core.configuration.realtimeBacklogBytes),
      idleTimeout: core.configuration.realtimeIdleTimeout,
      faults: core.configuration.devMode ? core.socketFaults : nil, logger: core.logger,
      drop: drop)
    session.heard()
    // Counted from here, not from when the session starts: a stop that comes while the
    // handshake finishes still closes this socket with 1001 (and waits for it) before the
    // process ends. A session that runs is forgotten when it is done (it may still answer
    // frames after the connection closed); one that never ran, when the connection closes.
    let key = core.sockets.add { session.close($0, reason: $1) }
    let started = Locked(false)
    whenClosed { if !started.withLock({ $0 }) { core.sockets.remove(key) } }
    return .upgrade([:]) { inbound, outbound, _ in
      started.withLock { $0 = true }
      await session.run(inbound: inbound, outbound: outbound)
      core.sockets.remove(key)
    }
  }
}

/// Rewrites the response to a refused `/realtime` handshake into `reply`.
///
/// Hummingbird answers an upgrade that `shouldUpgrade` refused with an empty `400` and closes
/// the connection, whatever the reason. ``QappleServer/realtimeUpgrade(_:core:whenClosed:refuse:drop:)``
/// adds this handler to the connection's pipeline when it refuses a token, before Hummingbird
/// puts its HTTP handlers behind it, so the one response written on that connection passes
/// through here: its head becomes `reply`'s status and headers (with the length of its body
/// and `Connection: close`), and its end carries `reply`'s body first.
final class HandshakeRefusal: ChannelOutboundHandler, RemovableChannelHandler {
  typealias OutboundIn = HTTPServerResponsePart
  typealias OutboundOut = HTTPServerResponsePart

  private let reply: Reply

  init(_ reply: Reply) {
    self.reply = reply
  }

  func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
    switch unwrapOutboundIn(data) {
    case .head(var head):
      head.status = HTTPResponseStatus(statusCode: reply.status.code)
      head.headers = HTTPHeaders(reply.headers.map { ($0.name.rawName, $0.value) })
      head.headers.replaceOrAdd(name: "Content-Length", value: String(reply.body.count))
      head.headers.replaceOrAdd(name: "Connection", value: "close")
      context.write(wrapOutboundOut(.head(head)), promise: promise)
    case .body:
      // The refused upgrade's answer has no body of its own; the reply's goes before the end.
      promise?.succeed(())
    case .end(let trailers):
      context.write(
        wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: reply.body)))),
        promise: nil)
      context.write(wrapOutboundOut(.end(trailers)), promise: promise)
    }
  }
}
