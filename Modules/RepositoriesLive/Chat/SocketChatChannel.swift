import ChatCore
import DTO
import Domain
import Endpoints
import Foundation
import Logging
import NetworkKit

/// The live chat engine's real-time link: `/realtime` over a ``NetworkKit/WebSocketConnection``
/// (the access token of the backend's authenticator, in its user's session only, one refresh
/// after a refused handshake,
/// heartbeat, reconnects with full-jitter backoff), speaking the frames of `DTO.ClientFrame` and
/// `DTO.ServerFrame` (`Docs/Realtime.md`).
public final class SocketChatChannel: ChatChannel {
  /// The socket connection (state, reconnects).
  public let connection: WebSocketConnection
  /// The server's frames and the socket's states, as the engine's events.
  public var events: AsyncStream<ChatChannelEvent> { queue.events }
  private let queue = ChatEventQueue()
  private let logger: Logger
  private let tasks = TaskBag()

  /// A channel to the server of `backend`, as `user`, who must be signed in: it runs in that
  /// user's sessions only (see ``ChatSync/init(backend:store:me:transport:clock:)``).
  ///
  /// - Parameters:
  ///   - backend: the live backend (base URL, tokens, logger, session).
  ///   - user: the user whose engine the channel serves.
  ///   - transport: opens the sockets; the platform's by default.
  ///   - clock: measures the heartbeat and the reconnect backoff (a real clock: the backend's
  ///     retry clock may be one whose sleeps return at once in tests).
  public convenience init(
    backend: LiveBackend, for user: User.ID,
    transport: any WebSocketTransport = WebSocketTransports.platformDefault,
    clock: any Clock<Duration> = ContinuousClock()
  ) {
    self.init(
      baseURL: backend.configuration.baseURL, authenticator: backend.authenticator,
      binding: backend.binding(for: user), logger: backend.configuration.logger,
      transport: transport, clock: clock)
  }

  init(
    baseURL: URL, authenticator: Authenticator, binding: SessionBinding, logger: Logger,
    transport: any WebSocketTransport, clock: any Clock<Duration>
  ) {
    self.logger = logger
    connection = WebSocketConnection(
      configuration: .init(
        url: Self.socketURL(baseURL),
        heartbeat: .init(
          ping: .text(ClientFrame.ping.text),
          isPong: { frame in
            guard case .text(let text) = frame else { return false }
            return (try? ServerFrame(text: text)) == .pong
          })),
      transport: transport, clock: clock, logger: logger,
      // Tokens of the engine's user only: while someone else is signed in (or nobody),
      // reconnects fail with `sessionEnded` instead of opening the engine's socket, and sending
      // its outbox, with another user's token.
      accessToken: {
        try await authenticator.sessionToken(in: try await binding.session()).accessToken
      },
      refreshAccessToken: { rejected in
        try await authenticator.accessToken(afterRejecting: rejected, in: binding.session())
      })
  }

  /// `ws://host:port/<base path>/realtime` for `http://host:port/<base path>` (`wss` for
  /// `https`, by NetworkKit's `webSocketURL`): the route table's `ChatAPI.realtime`, joined to
  /// the base URL as every REST request is (`TargetType.encodedRequest(baseURL:)`). A base URL
  /// no socket can use is left as it is, for the transport to refuse with `invalidURL`.
  static func socketURL(_ base: URL) -> URL {
    guard let head = try? ChatAPI.realtime.encodedRequest(baseURL: base).request,
      let authority = head.authority, let path = head.path,
      let url = URL(string: "\(head.scheme ?? "")://\(authority)\(path)")
    else { return base }
    return (try? webSocketURL(url)) ?? url
  }

  /// Starts connecting (and reconnecting until ``close()``). The connection's states and
  /// frames become events in the one order they happened: an old socket's answer is never
  /// handled after the reconnect that ended it.
  public func open() async {
    let events = connection.events
    let queue = queue
    let logger = logger
    tasks.add(
      Task {
        for await event in events {
          switch event {
          case .state(let state, let link):
            queue.push(.state(Self.state(state), link: link))
          case .frame(.text(let text)):
            do {
              if let event = try Self.event(ServerFrame(text: text)) { queue.push(event) }
            } catch {
              logger.warning("Ignoring a realtime frame: \(error)")
            }
          case .frame:
            continue
          }
        }
      })
    await connection.start()
  }

  /// Closes the socket for good and ends ``events``.
  public func close() async {
    await connection.stop()
    tasks.cancelAll()
    queue.push(.state(.offline))
    queue.finish()
  }

  /// Sends `subscribe` with `after_seq` on the socket `link` names.
  public func subscribe(to room: ChatRoom.ID, afterSeq: Int64, on link: ConnectionLink) async throws
  {
    try await send(.subscribe(roomID: room.rawValue, afterSeq: afterSeq), on: link)
  }

  /// Sends `unsubscribe` on the socket `link` names.
  public func unsubscribe(from room: ChatRoom.ID, on link: ConnectionLink) async throws {
    try await send(.unsubscribe(roomID: room.rawValue), on: link)
  }

  /// Sends `send` with the client message id on the socket `link` names (the answer is an
  /// `ack` or an `error`).
  public func send(
    _ text: String, to room: ChatRoom.ID, clientMessageID: UUID, on link: ConnectionLink
  ) async throws {
    try await send(
      .send(roomID: room.rawValue, clientMessageID: clientMessageID, text: text), on: link)
  }

  /// Sends `typing` on the socket `link` names.
  public func typing(in room: ChatRoom.ID, on link: ConnectionLink) async throws {
    try await send(.typing(roomID: room.rawValue), on: link)
  }

  /// Writes `frame` to the socket `link` names; throws `notConnected` when the connection has
  /// no socket or has opened another since (the engine has not handled that reconnect yet).
  private func send(_ frame: ClientFrame, on link: ConnectionLink) async throws {
    try await connection.send(.text(frame.text), on: link)
  }

  /// The engine's event for a server frame (`nil` for a pong).
  static func event(_ frame: ServerFrame) throws -> ChatChannelEvent? {
    switch frame {
    case .subscribed(let room, let lastSeq):
      return .subscribed(room: ChatRoom.ID(rawValue: room), lastSeq: lastSeq)
    case .unsubscribed(let room):
      return .unsubscribed(room: ChatRoom.ID(rawValue: room))
    case .message(let message), .ack(_, let message):
      return .messages([try message.toDomain()])
    case .messageRestored(let message):
      return .restored(try message.toDomain())
    case .messageHidden(let room, _, let seq):
      return .messageHidden(room: ChatRoom.ID(rawValue: room), seq: seq)
    case .typing(let room, let user):
      return .typing(room: ChatRoom.ID(rawValue: room), user: try user.toDomain())
    case .error(let error):
      return .refused(
        clientMessageID: error.clientMessageId.flatMap(UUID.init(uuidString:)),
        room: error.roomId.map(ChatRoom.ID.init(rawValue:)),
        frame: error.frameType.map { ChatChannelEvent.ClientFrameKind(rawValue: $0) ?? .unknown },
        error: LiveErrorMapping.domainError(realtime: error))
    case .pong:
      return nil
    }
  }

  static func state(_ state: WebSocketConnection.State) -> ChatConnectionState {
    switch state {
    case .disconnected, .closed: .offline
    case .connecting: .connecting
    case .connected: .connected
    case .waitingToReconnect(_, let retryIn): .waitingToReconnect(retryIn: retryIn)
    }
  }
}

/// Tasks to cancel together.
final class TaskBag: Sendable {
  private let tasks = Locked<[Task<Void, Never>]>([])

  func add(_ task: Task<Void, Never>) {
    tasks.withLock { $0.append(task) }
  }

  func cancelAll() {
    let all = tasks.withLock { tasks in
      defer { tasks = [] }
      return tasks
    }
    for task in all { task.cancel() }
  }
}
