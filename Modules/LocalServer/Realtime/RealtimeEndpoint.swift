import DTO
import Domain
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import ServiceEngine

extension QappleServer {
  /// The WebSocket configuration of `/realtime`: frames up to 1 MiB reach the session, which
  /// refuses messages over 64 KiB with an `error` frame before closing; larger frames are
  /// closed by the WebSocket layer (1009). Liveness is the protocol's own ping/pong.
  static let webSocketConfiguration = HTTP1WebSocketUpgradeChannel.Configuration(
    ws: .init(maxFrameSize: 1 << 20, autoPing: .disabled))

  /// Whether a request upgrades to `/realtime`: one for that path whose bearer token is valid
  /// becomes a WebSocket served by a ``RealtimeSession``; any other request (a bad token
  /// included) goes on to the router, which answers it (401 for a bad token, 426 for a plain
  /// GET with a good one).
  ///
  /// - Parameters:
  ///   - whenClosed: runs its argument once the connection is closed, however it ends.
  ///   - drop: closes the TCP connection without a close frame (socket faults).
  static func realtimeUpgrade(
    _ head: HTTPRequest, core: ServerCore,
    whenClosed: (@escaping @Sendable () -> Void) -> Void,
    drop: @escaping @Sendable () async -> Void
  ) -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
    let path = head.path?.split(separator: "?", maxSplits: 1).first.map(String.init)
    guard path == RealtimeLimits.path,
      let viewer = try? AuthenticationMiddleware.viewer(
        authorization: head.headerFields[.authorization], engine: core.engine)
    else { return .dontUpgrade }
    let session = RealtimeSession(
      engine: core.engine, frames: core.messageFrames, viewer: viewer,
      frameLimit: core.configuration.realtimeFrameLimit,
      backlogLimit: max(1, core.configuration.realtimeBacklog),
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
