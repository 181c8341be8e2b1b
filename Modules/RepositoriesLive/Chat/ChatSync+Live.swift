import ChatCore
import Domain
import Foundation
import NetworkKit
import Persistence

extension ChatSync {
  /// The live engine of the signed-in user of `backend`: `/realtime` through a
  /// ``SocketChatChannel`` and the live chat server calls, both in `me`'s sessions only (while
  /// someone else is signed in they fail instead of going out as that user), with the backend's
  /// logger and a full-jitter backoff (0.5 s base, 30 s cap).
  ///
  /// - Parameters:
  ///   - backend: the live backend (REST client, tokens, base URL).
  ///   - store: the local store of this user.
  ///   - me: the signed-in user (the sender of outgoing messages).
  ///   - transport: opens the sockets; the platform's by default.
  ///   - clock: the socket's heartbeat and every backoff of the engine.
  public init(
    backend: LiveBackend, store: ChatStore, me: UserSummary,
    transport: any WebSocketTransport = WebSocketTransports.platformDefault,
    clock: any Clock<Duration> = ContinuousClock()
  ) {
    // The socket and the server calls run in `me`'s sessions only.
    let binding = backend.binding(for: me.id)
    self.init(
      store: store, me: me,
      channel: SocketChatChannel(
        baseURL: backend.configuration.baseURL, authenticator: backend.authenticator,
        binding: binding, logger: backend.configuration.logger, transport: transport,
        clock: clock),
      server: .live(client: backend.client.bound(to: binding)),
      options: ChatSyncOptions.live(backend.configuration, clock: clock))
  }
}

extension ChatSyncOptions {
  /// The live client's options: its logger and wall clock, `clock` for waits, and NetworkKit's
  /// full-jitter backoff with its defaults (0.5 s base, 30 s cap), as HTTP retries use.
  static func live(_ configuration: LiveConfiguration, clock: any Clock<Duration>) -> Self {
    let backoff = Backoff()
    return ChatSyncOptions(
      clock: clock, now: configuration.now, logger: configuration.logger,
      retryDelay: { backoff.delay(beforeRetry: $0) })
  }
}
