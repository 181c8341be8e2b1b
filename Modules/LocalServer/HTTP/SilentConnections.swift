import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore

/// The server's connections: `Base` (HTTP/1 with the `/realtime` upgrade) serves each one, and
/// every connection that has not sent a byte yet is counted in `silent` with the function that
/// closes it, until its first bytes arrive or it closes.
///
/// Hummingbird waits for the first request of a connection before it can tell whether it
/// upgrades, and a shutdown does not end that wait: a client that connected and never sent a
/// request kept the server's task running until the client closed it. AsyncHTTPClient did
/// (most likely a connection it opened for a request that another connection then served,
/// kept silent in its pool until its 60 s idle timeout). ``QappleServer/stop()`` closes these
/// connections once the requests in flight are done. A connection that spoke is left to
/// Hummingbird: it closes an idle one after its current response; one that sent only part of
/// a request (its head, or its head and part of its body) is waited for until the stop's
/// bounds end that wait (`QappleServer.inFlightBound`, then 2 s). A request whose
/// first bytes arrive just as the stop closes the silent connections is cut off.
struct SilenceTrackingChannel<Base: ServerChildChannel>: ServerChildChannel {
  typealias Value = Base.Value

  let base: Base
  let silent: InProgress<@Sendable () -> Void>

  func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
    // Counted before the base sets its handlers up, so a stop that ends the count meanwhile
    // closes this connection too (``InProgress/add(_:)``).
    let key = silent.add { channel.close(promise: nil) }
    channel.closeFuture.whenComplete { [silent] _ in silent.remove(key) }
    do {
      try channel.pipeline.syncOperations.addHandler(
        FirstBytes { [silent] in silent.remove(key) }, position: .first)
    } catch {
      return channel.eventLoop.makeFailedFuture(error)
    }
    return base.setup(channel: channel, logger: logger)
  }

  func handle(value: Value, logger: Logger) async {
    await base.handle(value: value, logger: logger)
  }
}

/// Calls `arrived` when the first bytes of its connection are read, then leaves the pipeline.
///
/// A connection that closes before sending a byte (a client's idle pooled connection, or one
/// the stop closes) tells the handlers after it that its input closed. The upgrade handler then
/// ends its wait for a first request as "input closed", which Hummingbird passes over, instead
/// of failing it when the pipeline is torn down, which Hummingbird logs as an error ("Error
/// handling upgrade result").
private final class FirstBytes: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = NIOAny

  private let arrived: @Sendable () -> Void

  init(arrived: @escaping @Sendable () -> Void) {
    self.arrived = arrived
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    arrived()
    context.fireChannelRead(data)
    context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
  }

  func channelInactive(context: ChannelHandlerContext) {
    context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
    context.fireChannelInactive()
  }
}

extension HTTPServerBuilder {
  /// HTTP/1 with the WebSocket upgrade (as `http1WebSocketUpgrade(configuration:shouldUpgrade:)`),
  /// each connection counted in `silent` until it sends its first bytes
  /// (``SilenceTrackingChannel``).
  static func http1WebSocketUpgrade(
    configuration: HTTP1WebSocketUpgradeChannel.Configuration,
    silent: InProgress<@Sendable () -> Void>,
    shouldUpgrade:
      @escaping @Sendable (HTTPRequest, any Channel, Logger) async throws
      -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>>
  ) -> HTTPServerBuilder {
    HTTPServerBuilder { responder in
      SilenceTrackingChannel(
        base: HTTP1WebSocketUpgradeChannel(
          responder: responder, configuration: configuration, shouldUpgrade: shouldUpgrade),
        silent: silent)
    }
  }
}
