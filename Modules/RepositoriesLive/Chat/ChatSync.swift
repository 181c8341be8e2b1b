import DTO
import Domain
import Endpoints
import Foundation
import Logging
import NetworkKit
import Persistence

/// The live chat engine: keeps the local store (`Persistence.ChatStore`) in step with the
/// server over `/realtime` and REST, and delivers the user's messages exactly once through the
/// store's outbox (`Docs/Realtime.md`).
///
/// Sync never loses or duplicates a message:
/// - **subscribe first**: for every open room the socket subscribes (with the stored cursor as
///   `after_seq`) before anything is fetched, so whatever is sent meanwhile arrives live;
/// - the `subscribed` answer names the room's last `seq`; what lies between the stored cursor
///   and it is fetched over REST, page by page;
/// - every stored message moves the cursor over contiguous `seq`s; a gap seen in live `seq`s
///   is filled over REST; duplicates (replays, retries, duplicated frames) are dropped by `seq`
///   and client message id;
/// - after every reconnect each open room subscribes again from its cursor.
///
/// The outbox: ``send(_:to:)`` stores the message as pending before it goes out (it survives a
/// restart), sends it over the socket (REST when the socket is down), retries with backoff until
/// the server answers, and shows pending -> sending -> sent, or failed with the server's reason
/// (not a member, banned, invalid text) for ``retry(_:)`` or ``delete(_:)``.
public actor ChatSync {
  /// The local store this engine fills.
  public nonisolated let store: ChatStore
  /// The socket connection (state, reconnects).
  public nonisolated let connection: WebSocketConnection
  /// Typing in open rooms, as the server reports it.
  public nonisolated let typing: AsyncStream<(room: ChatRoom.ID, user: UserSummary)>

  private let client: APIClient
  private let me: UserSummary
  private let now: @Sendable () -> Date
  private let clock: any Clock<Duration>
  private let backoff: Backoff
  private let logger: Logger
  private let typingContinuation: AsyncStream<(room: ChatRoom.ID, user: UserSummary)>.Continuation

  private var openRooms: Set<ChatRoom.ID> = []
  private var tasks: [Task<Void, Never>] = []
  private var isConnected = false
  private var flushing = false
  private var flushAgain = false
  private var retryTask: Task<Void, Never>?
  private var failedFlushes = 0
  /// Failed catch-ups in a row, per room (the backoff of the next subscribe).
  private var resyncAttempts: [ChatRoom.ID: Int] = [:]

  /// How many messages a REST catch-up asks for per page.
  static let pageSize = 100
  /// How long a sent frame may wait for its `ack` before the outbox sends it again.
  static let ackTimeout: Duration = .seconds(10)

  /// Creates the engine for the signed-in user of `backend`; nothing runs until ``start()``.
  ///
  /// - Parameters:
  ///   - backend: the live backend (REST client, tokens, base URL).
  ///   - store: the local store of this user.
  ///   - me: the signed-in user (the sender of outgoing messages).
  ///   - transport: opens the sockets; the platform's by default.
  public init(
    backend: LiveBackend, store: ChatStore, me: UserSummary,
    transport: any WebSocketTransport = WebSocketTransports.platformDefault
  ) {
    let configuration = backend.configuration
    self.store = store
    self.me = me
    client = backend.client
    now = configuration.now
    clock = configuration.clock
    logger = configuration.logger
    backoff = Backoff(baseDelay: .milliseconds(500), maxDelay: .seconds(30))
    (typing, typingContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(32))
    let authenticator = backend.authenticator
    connection = WebSocketConnection(
      configuration: .init(
        url: Self.socketURL(configuration.baseURL),
        heartbeat: .init(
          ping: .text(ClientFrame.ping.text),
          isPong: { frame in
            guard case .text(let text) = frame else { return false }
            return (try? ServerFrame(text: text)) == .pong
          })),
      transport: transport, clock: configuration.clock, logger: configuration.logger,
      accessToken: { try await authenticator.validAccessToken() },
      refreshAccessToken: { rejected in
        try await authenticator.accessToken(afterRejecting: rejected)
      })
  }

  /// `ws://host:port/realtime` for `http://host:port` (`wss` for `https`), from the route
  /// table's `ChatAPI.realtime`.
  static func socketURL(_ base: URL) -> URL {
    var components = URLComponents(url: base, resolvingAgainstBaseURL: false) ?? URLComponents()
    components.scheme = components.scheme == "https" ? "wss" : "ws"
    components.path = ChatAPI.realtime.path
    return components.url ?? base
  }

  // MARK: Lifecycle

  /// Connects and starts syncing; the outbox left by an earlier run is sent as soon as possible.
  public func start() async {
    guard tasks.isEmpty else { return }
    let frames = connection.frames
    let states = connection.stateChanges()
    tasks.append(
      Task { [weak self] in
        for await frame in frames {
          guard let self, case .text(let text) = frame else { continue }
          await self.receive(text)
        }
      })
    tasks.append(
      Task { [weak self] in
        for await state in states {
          await self?.connectionChanged(to: state)
        }
      })
    await connection.start()
    flush()
  }

  /// Disconnects for good and stops every task; the store stays open.
  public func stop() async {
    await connection.stop()
    retryTask?.cancel()
    for task in tasks { task.cancel() }
    tasks = []
    typingContinuation.finish()
  }

  // MARK: What the app does

  /// Keeps `room` in sync from now on: subscribes (when connected) and catches up.
  public func open(_ room: ChatRoom.ID) async {
    guard openRooms.insert(room).inserted, isConnected else { return }
    await subscribe(room)
  }

  /// Stops keeping `room` in sync.
  public func close(_ room: ChatRoom.ID) async {
    guard openRooms.remove(room) != nil, isConnected else { return }
    try? await connection.send(.text(ClientFrame.unsubscribe(roomID: room.rawValue).text))
  }

  /// Stores `text` as a pending message of `room` and returns it at once; the outbox sends it.
  @discardableResult
  public func send(_ text: String, to room: ChatRoom.ID) throws -> ChatMessage {
    let text = try validate { () throws(ValidationError) in try ChatMessage.validate(text: text) }
    let message = try store.enqueue(
      text, to: room, clientMessageID: UUID(), sender: me, at: now())
    flush()
    return message
  }

  /// Puts a failed message back in the outbox.
  public func retry(_ clientMessageID: UUID) throws {
    try store.retry(clientMessageID)
    flush()
  }

  /// Deletes a message that was not sent.
  public func delete(_ clientMessageID: UUID) throws {
    try store.deleteUnsent(clientMessageID)
  }

  /// Fetches up to `limit` messages older than the oldest stored one of `room` and stores
  /// them; returns what was fetched (empty at the beginning of the room).
  @discardableResult
  public func loadOlder(in room: ChatRoom.ID, limit: Int = 50) async throws -> [ChatMessage] {
    let oldest = try store.oldestSeq(in: room)
    if oldest == 1 { return [] }
    let older = try await fetch(room, afterSeq: nil, beforeSeq: oldest, limit: limit)
    try store.save(older)
    return older
  }

  /// Marks `room` read up to `seq`, locally at once and on the server.
  public func markRead(_ room: ChatRoom.ID, upTo seq: Int64) async throws {
    try store.markRead(room, upTo: seq)
    try await client.send(ChatAPI.markRead(roomID: room, body: MarkReadRequest(seq: seq)))
  }

  /// Tells the room's other members the user is typing (nothing when offline).
  public func userIsTyping(in room: ChatRoom.ID) async {
    try? await connection.send(.text(ClientFrame.typing(roomID: room.rawValue).text))
  }

  // MARK: The socket

  private func connectionChanged(to state: WebSocketConnection.State) async {
    let connected = state == .connected
    guard connected != isConnected else { return }
    isConnected = connected
    guard connected else { return }
    // A new socket has no subscriptions: subscribe every open room from its cursor, and send
    // what the outbox holds (unacknowledged sends of the last socket included).
    for room in openRooms { await subscribe(room) }
    flush()
  }

  private func subscribe(_ room: ChatRoom.ID) async {
    do {
      let cursor = try store.syncCursor(of: room)
      try await connection.send(
        .text(ClientFrame.subscribe(roomID: room.rawValue, afterSeq: cursor).text))
    } catch {
      logger.debug("Subscribing to \(room.rawValue) failed: \(error)")
    }
  }

  private func receive(_ text: String) async {
    let frame: ServerFrame
    do {
      frame = try ServerFrame(text: text)
    } catch {
      logger.warning("Ignoring a realtime frame: \(error)")
      return
    }
    do {
      switch frame {
      case .subscribed(let room, let lastSeq):
        try await syncing(ChatRoom.ID(rawValue: room)) { room in
          try await catchUp(room, upTo: lastSeq)
        }
      case .message(let message), .ack(_, let message):
        try await syncing(ChatRoom.ID(rawValue: message.roomId)) { _ in
          try await store(message)
        }
      case .typing(let room, let user):
        typingContinuation.yield((ChatRoom.ID(rawValue: room), try user.toDomain()))
      case .unsubscribed(let room):
        openRooms.remove(ChatRoom.ID(rawValue: room))
      case .error(let error):
        try refused(error)
      case .pong:
        break
      }
    } catch {
      logger.warning("Handling a realtime frame failed: \(error)")
    }
  }

  /// Runs a catch-up step of `room`; when it fails (offline, 5xx after the provider's own
  /// retries), subscribes again after a backoff, so the `subscribed` answer restarts the
  /// catch-up from the stored cursor: a failed fetch never leaves a gap behind.
  private func syncing(
    _ room: ChatRoom.ID, _ body: (ChatRoom.ID) async throws -> Void
  ) async throws {
    do {
      try await body(room)
      resyncAttempts[room] = nil
    } catch let error as PersistenceError {
      throw error
    } catch {
      let attempt = resyncAttempts[room, default: 0]
      resyncAttempts[room] = attempt + 1
      let delay = backoff.delay(beforeRetry: attempt)
      logger.info("Catching up \(room.rawValue) failed (\(error)); again in \(delay)")
      let clock = clock
      Task { [weak self] in
        try? await clock.sleep(for: delay)
        await self?.resubscribe(room)
      }
    }
  }

  private func resubscribe(_ room: ChatRoom.ID) async {
    guard openRooms.contains(room), isConnected else { return }
    await subscribe(room)
  }

  private func store(_ wire: ChatMessageDTO) async throws {
    let message = try wire.toDomain()
    try store.save([message])
    try await fillGaps(in: message.roomID)
  }

  /// An `error` frame: a refused send fails its message (with the server's sentence), unless
  /// it is worth trying again later (rate limit).
  private func refused(_ error: RealtimeErrorDTO) throws {
    logger.info("The realtime server refused a frame: \(error.code) \(error.message)")
    guard let client = error.clientMessageId.flatMap(UUID.init(uuidString:)) else { return }
    if error.code == "rate_limited" {
      try store.retry(client)
      scheduleRetry()
    } else {
      try store.markFailed(client, reason: error.message)
    }
  }

  // MARK: Catching up

  /// Fetches over REST everything between the stored cursor and `lastSeq`.
  private func catchUp(_ room: ChatRoom.ID, upTo lastSeq: Int64) async throws {
    var cursor = try store.syncCursor(of: room)
    while cursor < lastSeq {
      let page = try await fetch(room, afterSeq: cursor, beforeSeq: nil, limit: Self.pageSize)
      try store.save(page)
      let next = try store.syncCursor(of: room)
      // Hidden messages leave holes the server never fills: step over what the page covered.
      guard next > cursor else {
        guard let last = page.last?.seq, last > cursor else { return }
        cursor = last
        continue
      }
      cursor = next
    }
  }

  /// Fills the gaps between the stored cursor and the newest stored message of `room`.
  private func fillGaps(in room: ChatRoom.ID) async throws {
    guard let gap = try store.missingSeqs(in: room) else { return }
    try await catchUp(room, upTo: gap.upperBound)
  }

  private func fetch(
    _ room: ChatRoom.ID, afterSeq: Int64?, beforeSeq: Int64?, limit: Int
  ) async throws -> [ChatMessage] {
    try await client.fetchPage(
      ChatAPI.messages(roomID: room, afterSeq: afterSeq, beforeSeq: beforeSeq, limit: limit),
      of: ChatMessageDTO.self
    ).items
  }

  // MARK: The outbox

  /// Sends what the outbox holds; runs once at a time, again if asked meanwhile.
  private func flush() {
    guard !flushing else {
      flushAgain = true
      return
    }
    flushing = true
    Task {
      repeat {
        flushAgain = false
        await flushOnce()
      } while flushAgain
      flushing = false
    }
  }

  private func flushOnce() async {
    let outbox: [ChatMessage]
    do {
      outbox = try store.outbox()
    } catch {
      logger.error("Reading the outbox failed: \(error)")
      return
    }
    var transientFailure = false
    for message in outbox {
      if case .failed = message.deliveryState { continue }
      do {
        try store.markSending(message.clientMessageID)
        if isConnected {
          let frame = ClientFrame.send(
            roomID: message.roomID.rawValue, clientMessageID: message.clientMessageID,
            text: message.text)
          do {
            try await connection.send(.text(frame.text))
            continue
          } catch {
            // The socket went away between the check and the send: use REST.
          }
        }
        let sent = try await client.fetch(
          ChatAPI.send(
            roomID: message.roomID,
            body: SendMessageRequest(clientMessageId: message.clientMessageID, text: message.text)),
          as: ChatMessageDTO.self)
        try store.save([sent])
      } catch let error as DomainError where error.isWorthRetrying {
        transientFailure = true
        try? store.retry(message.clientMessageID)
      } catch let error as DomainError {
        try? store.markFailed(message.clientMessageID, reason: error.description)
      } catch {
        logger.error("Sending \(message.clientMessageID) failed: \(error)")
        transientFailure = true
      }
    }
    failedFlushes = transientFailure ? failedFlushes + 1 : 0
    // Sends over the socket wait for their ack; look again after a while in any case.
    if transientFailure || (try? store.outbox().isEmpty) == false { scheduleRetry() }
  }

  /// Flushes again after the backoff of the failures so far (or the ack timeout).
  private func scheduleRetry() {
    retryTask?.cancel()
    let delay =
      failedFlushes > 0 ? backoff.delay(beforeRetry: failedFlushes) : Self.ackTimeout
    let clock = clock
    retryTask = Task { [weak self] in
      do {
        try await clock.sleep(for: delay)
      } catch {
        return
      }
      await self?.flush()
    }
  }
}

extension DomainError {
  /// `true` for failures that may pass on a later try (offline, timeout, server error, rate
  /// limit); `false` for a refusal the user must act on.
  var isWorthRetrying: Bool {
    switch self {
    case .offline, .timeout, .server, .rateLimited, .signedOut: true
    default: false
    }
  }
}
