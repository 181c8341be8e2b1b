import DTO
import Domain
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import Logging
import ServiceEngine

/// The open `/realtime` sockets of a server, so shutdown can close them with 1001 and wait
/// until they are gone.
final class SocketRegistry: Sendable {
  private struct State {
    var next = 0
    var all: [Int: @Sendable (SocketClose, String) -> Void] = [:]
    var waiters: [ResumeOnce] = []
  }

  /// A continuation resumed by whichever comes first: the last socket ending, or the timeout.
  private final class ResumeOnce: Sendable {
    private let continuation: Locked<CheckedContinuation<Void, Never>?>
    init(_ continuation: CheckedContinuation<Void, Never>) {
      self.continuation = Locked(continuation)
    }
    func resume() {
      continuation.withLock { continuation in
        continuation?.resume()
        continuation = nil
      }
    }
  }

  private let state = Locked(State())

  /// Adds a socket's close function; returns its key for ``remove(_:)``.
  func add(_ close: @escaping @Sendable (SocketClose, String) -> Void) -> Int {
    state.withLock { state in
      state.next += 1
      state.all[state.next] = close
      return state.next
    }
  }

  /// Forgets a socket that has ended.
  func remove(_ key: Int) {
    let waiters = state.withLock { state -> [ResumeOnce] in
      state.all.removeValue(forKey: key)
      guard state.all.isEmpty else { return [] }
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Asks every open socket to close, then waits until all have ended (at most `timeout`).
  func closeAll(_ close: SocketClose, reason: String, timeout: Duration = .seconds(2)) async {
    for closer in state.withLock({ Array($0.all.values) }) { closer(close, reason) }
    await withCheckedContinuation { continuation in
      let waiter = ResumeOnce(continuation)
      let empty = state.withLock { state in
        if !state.all.isEmpty { state.waiters.append(waiter) }
        return state.all.isEmpty
      }
      guard !empty else { return waiter.resume() }
      Task {
        try? await Task.sleep(for: timeout)
        waiter.resume()
      }
    }
  }
}

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
  /// - Parameter drop: closes the TCP connection without a close frame (socket faults).
  static func realtimeUpgrade(
    _ head: HTTPRequest, core: ServerCore, drop: @escaping @Sendable () async -> Void
  ) -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
    let path = head.path?.split(separator: "?", maxSplits: 1).first.map(String.init)
    guard path == RealtimeLimits.path,
      let viewer = try? AuthenticationMiddleware.viewer(
        authorization: head.headerFields[.authorization], engine: core.engine)
    else { return .dontUpgrade }
    let session = RealtimeSession(
      engine: core.engine, frames: core.messageFrames, viewer: viewer,
      frameLimit: core.configuration.realtimeFrameLimit,
      faults: core.configuration.devMode ? core.socketFaults : nil, logger: core.logger,
      drop: drop)
    return .upgrade([:]) { inbound, outbound, _ in
      var key: Int?
      await session.run(inbound: inbound, outbound: outbound) { close in
        key = core.sockets.add(close)
      }
      if let key { core.sockets.remove(key) }
    }
  }
}
