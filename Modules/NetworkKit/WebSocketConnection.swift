import Foundation
import HTTPTypes
import Logging
import Primitives

/// Keeps one WebSocket open over any ``WebSocketTransport``: authenticates it, watches it with an
/// application-level heartbeat and reconnects with backoff, until ``stop()``.
///
/// - **Authentication.** Every attempt asks `accessToken` for the current token and sends it as
///   `Authorization: Bearer <token>`, so a token refreshed elsewhere is picked up. When the
///   handshake fails in a way that may be an authentication failure (status 401, or a status the
///   transport cannot tell), `refreshAccessToken` is asked for a new token once and the attempt is
///   repeated at once; further failures wait for the backoff. Another refresh is allowed after
///   the next successful connect, or at the next attempt when the refresh itself failed
///   (offline, the server busy).
/// - **Heartbeat.** With ``Heartbeat`` configured, the connection sends the ping frame every
///   `interval` (25 s) from the moment it opened. Only a frame the heartbeat recognises as the
///   pong answers it; other frames do not count as liveness. Without a pong within `timeout`
///   (10 s) the socket is dropped (closed with 1001 in the background) and a reconnect follows.
///   Pongs are consumed, never forwarded to ``events``.
/// - **Reconnect.** After a failed attempt or a lost connection the wait before attempt `n`
///   (1, 2, ...) is ``Backoff/delay(beforeRetry:)`` with retry `n - 1`: full jitter,
///   `random(0 ... min(30 s, 0.5 s * 2^(n-1)))` by default. The counter goes back to 0 when a
///   connection receives a frame (a pong counts) once it has been open for
///   ``Configuration/stableAfter`` (10 s): a socket that dies without delivering anything, or
///   right after answering (a server that replays and closes on every subscribe), keeps the
///   backoff growing instead of reconnecting at once forever.
/// - **State.** ``state`` and ``stateChanges()`` report ``State``; every `.connected` after the
///   first one is a reconnect, the moment for the owner to re-subscribe to what it follows.
/// - **Events.** ``events`` hands over the state changes and the server's frames in the one order
///   they happened: a frame of a socket never comes after the state change that ended that
///   socket, and each `.connected` names its socket (a `ConnectionLink`).
/// - **Sending.** ``send(_:on:)`` throws ``WebSocketError/notConnected`` when no socket is open,
///   or, given a `ConnectionLink`, when that socket is no longer the open one (the frame was meant for a
///   socket that is gone, and must not reach the server over the next one before the owner has
///   handled the reconnect). The connection never buffers outgoing frames.
///
/// Time and randomness come from the injected clock and ``Backoff``, so tests control both.
public actor WebSocketConnection {
  /// Where the connection is in its life.
  public enum State: Sendable, Hashable {
    /// Created; ``start()`` was not called yet.
    case disconnected
    /// Opening a socket; `attempt` counts the attempts since the last stable connection (0 first).
    case connecting(attempt: Int)
    /// A socket is open; ``send(_:on:)`` works.
    case connected
    /// Waiting `retryIn` before attempt `attempt`.
    case waitingToReconnect(attempt: Int, retryIn: Duration)
    /// Stopped for good by ``stop()``; nothing reconnects.
    case closed
  }

  /// The application-level heartbeat: NetworkKit knows no message format, so the frame to send
  /// and the test for the answer are configured (the SDK uses `{"type":"ping"}` and
  /// `{"type":"pong"}`).
  public struct Heartbeat: Sendable {
    /// The frame sent as a ping.
    public var ping: WebSocketFrame
    /// Whether a received frame is the pong; pongs are not forwarded to ``events``.
    public var isPong: @Sendable (WebSocketFrame) -> Bool
    /// The time between pings, counted from the moment the socket opened.
    public var interval: Duration
    /// How long a ping may stay unanswered before the socket is dropped; keep it below
    /// `interval` (the next ping is never sent before the previous one was answered or timed out).
    public var timeout: Duration

    /// Creates a heartbeat; by default a ping every 25 s, dropped after 10 s without a pong.
    public init(
      ping: WebSocketFrame,
      interval: Duration = .seconds(25),
      timeout: Duration = .seconds(10),
      isPong: @escaping @Sendable (WebSocketFrame) -> Bool
    ) {
      self.ping = ping
      self.interval = interval
      self.timeout = timeout
      self.isPong = isPong
    }
  }

  /// Where to connect and how to behave.
  public struct Configuration: Sendable {
    /// The WebSocket URL.
    public var url: URL
    /// Extra header fields for the upgrade request; `Authorization` is set by the connection.
    public var headerFields: HTTPFields
    /// The heartbeat, or `nil` for none.
    public var heartbeat: Heartbeat?
    /// The waits between reconnect attempts (0.5 s base, 30 s cap, full jitter by default).
    public var backoff: Backoff
    /// How long a connection must have been open before a frame it delivers proves it stable
    /// and resets the backoff.
    public var stableAfter: Duration

    /// The default ``stableAfter``: 10 s.
    public static let defaultStableAfter: Duration = .seconds(10)

    /// Creates a configuration.
    public init(
      url: URL,
      headerFields: HTTPFields = [:],
      heartbeat: Heartbeat?,
      backoff: Backoff = Backoff(),
      stableAfter: Duration = defaultStableAfter
    ) {
      self.url = url
      self.headerFields = headerFields
      self.heartbeat = heartbeat
      self.backoff = backoff
      self.stableAfter = stableAfter
    }
  }

  /// Returns the access token to connect with, e.g. `Authenticator.validAccessToken()`.
  public typealias AccessToken = @Sendable () async throws -> String
  /// Returns a new token after the server rejected `rejectedToken`, e.g.
  /// `Authenticator.accessToken(afterRejecting:)`.
  public typealias RefreshAccessToken = @Sendable (_ rejectedToken: String) async throws -> String

  /// The former name of `ConnectionLink` (`Primitives`), the one type for a numbered
  /// connection that this connection's sockets and the chat engine's links share.
  @available(*, deprecated, renamed: "ConnectionLink")
  public typealias Link = ConnectionLink

  /// What ``events`` hands over.
  public enum Event: Sendable, Hashable {
    /// The state changed (as ``stateChanges()`` reports it); `link` names the socket a
    /// `.connected` opened, and is `nil` for every other state.
    case state(State, link: ConnectionLink?)
    /// A frame the server sent on the open socket (pongs excluded).
    case frame(WebSocketFrame)
  }

  /// The state changes and the server's frames, in the order they happened, across reconnects
  /// (pongs excluded): every frame of a socket comes before the state change that ended it. It
  /// begins with the first change after creation and ends after ``stop()`` (with `.closed`).
  /// Iterate it once: it buffers until read.
  public nonisolated let events: AsyncStream<Event>

  private let configuration: Configuration
  private let transport: any WebSocketTransport
  private let timeline: Timeline
  private let logger: Logger
  private let accessToken: AccessToken
  private let refreshAccessToken: RefreshAccessToken
  private let states = Broadcaster<State>(replaysLatest: true, initial: .disconnected)
  private let eventsContinuation: AsyncStream<Event>.Continuation

  private var runLoop: Task<Void, Never>?
  private var socket: (any WebSocket)?
  // The open socket's link (set with `socket`), and how many sockets have opened.
  private var link: ConnectionLink?
  private var socketsOpened = 0
  private var isStopped = false
  private var stopping: Task<Void, Never>?
  // Failed attempts and lost connections since the last stable connection.
  private var failures = 0
  // When the open socket opened (on `timeline`), for the stability rule.
  private var sessionOpenedAt: Duration = .zero
  // One token refresh per streak of failed handshakes.
  private var mayRefresh = true
  private var awaitingPong = false
  // Sockets dropped by the heartbeat, closing in the background; `stop()` waits for them.
  private var closing: [UUID: Task<Void, Never>] = [:]

  /// Creates a connection; nothing happens until ``start()``.
  ///
  /// - Parameters:
  ///   - configuration: URL, header fields, heartbeat and backoff.
  ///   - transport: Opens the sockets, e.g. `WebSocketTransports.platformDefault`.
  ///   - clock: Measures the heartbeat and the backoff.
  ///   - logger: Receives connects, failures and reconnects (never tokens).
  ///   - accessToken: The token for each attempt.
  ///   - refreshAccessToken: A new token after a handshake that may have been refused for the
  ///     token.
  public init(
    configuration: Configuration,
    transport: any WebSocketTransport,
    clock: any Clock<Duration> = ContinuousClock(),
    logger: Logger = Logger(label: "NetworkKit.WebSocketConnection"),
    accessToken: @escaping AccessToken,
    refreshAccessToken: @escaping RefreshAccessToken
  ) {
    self.configuration = configuration
    self.transport = transport
    self.timeline = Timeline(clock)
    self.logger = logger
    self.accessToken = accessToken
    self.refreshAccessToken = refreshAccessToken
    (events, eventsContinuation) = AsyncStream<Event>.makeStream()
  }

  // MARK: - Public API

  /// The current state.
  public nonisolated var state: State { states.current ?? .disconnected }

  /// A new stream of states, starting with the current one; each subscriber gets its own stream,
  /// which ends after ``stop()``.
  public nonisolated func stateChanges() -> AsyncStream<State> {
    states.subscribe()
  }

  /// Starts connecting; does nothing when already started or stopped.
  public func start() {
    guard runLoop == nil, !isStopped else { return }
    runLoop = Task { await self.run() }
  }

  /// Closes the socket with 1000 (normal closure), stops reconnecting for good and ends
  /// ``events`` and the state streams; returns once everything has ended (also when called
  /// again while stopping).
  public func stop() async {
    if let stopping {
      await stopping.value
      return
    }
    isStopped = true
    let stopping = Task { await self.shutDown() }
    self.stopping = stopping
    await stopping.value
  }

  private func shutDown() async {
    let socket = self.socket
    self.socket = nil
    link = nil
    // Close first so the server receives 1000; the run loop sees its frames end and returns.
    if let socket { await socket.close(.normalClosure, reason: nil) }
    runLoop?.cancel()
    await runLoop?.value
    while let (id, task) = closing.first {
      await task.value
      closing[id] = nil
    }
    setState(.closed)
    eventsContinuation.finish()
    states.finish()
  }

  /// Sends `frame` on the open socket; throws ``WebSocketError/notConnected`` when there is
  /// none, or the socket's error (e.g. ``WebSocketError/messageTooLarge``).
  ///
  /// - Parameter link: The socket the frame is meant for, as a `.connected` event named it: when
  ///   the connection has moved on to another socket since (or has none), the send throws
  ///   ``WebSocketError/notConnected`` instead of writing the frame to a socket its owner does
  ///   not know of yet. `nil` sends on whichever socket is open.
  public func send(
    _ frame: WebSocketFrame, on link: ConnectionLink? = nil
  ) async throws(WebSocketError) {
    guard let socket, state == .connected, link == nil || link == self.link else {
      throw .notConnected
    }
    try await socket.send(frame)
  }

  // MARK: - Run loop

  private func run() async {
    while !isStopped {
      setState(.connecting(attempt: failures))
      let opened = await open()
      if isStopped {
        if case .success(let socket) = opened { await socket.close(.normalClosure, reason: nil) }
        return
      }
      switch opened {
      case .success(let socket):
        mayRefresh = true
        self.socket = socket
        socketsOpened += 1
        link = ConnectionLink(socketsOpened)
        setState(.connected)
        logger.info("WebSocket connected", metadata: ["url": "\(configuration.url)"])
        let attemptsBefore = failures
        // The session returns once its reader has ended: every frame of this socket is handed
        // over before the state change that ends it.
        let end = await session(on: socket)
        self.socket = nil
        self.link = nil
        if isStopped { return }
        // The server asked for fewer frames or a later try (its error frame came first, and
        // would have counted as stability): the backoff keeps growing.
        if end.asksToBackOff { failures = max(failures, attemptsBefore) }
        if end.dropsSocket { drop(socket, because: end) }
        logger.notice("WebSocket connection lost", metadata: ["reason": "\(end)"])
      case .failure(let failure):
        logger.notice("WebSocket connect failed", metadata: ["reason": "\(failure)"])
      }
      failures += 1
      let delay = configuration.backoff.delay(beforeRetry: failures - 1)
      let wakeUp = timeline.now() + delay
      setState(.waitingToReconnect(attempt: failures, retryIn: delay))
      do {
        try await timeline.sleep(until: wakeUp)
      } catch {
        return
      }
    }
  }

  /// One attempt: the current token, and one refresh and immediate retry when the handshake
  /// may have failed for the token.
  private func open() async -> Result<any WebSocket, AttemptFailure> {
    let token: String
    do {
      token = try await accessToken()
    } catch {
      return .failure(.token(error))
    }
    let first = await connect(with: token)
    guard case .failure(.handshake(.handshakeFailed(let status))) = first,
      status == nil || status == 401, mayRefresh, !isStopped
    else { return first }
    mayRefresh = false
    logger.info("WebSocket handshake refused; refreshing the access token once")
    let refreshed: String
    do {
      refreshed = try await refreshAccessToken(token)
    } catch {
      // The refresh itself failed (offline, the server busy): the next attempt, after the
      // backoff, may refresh again, or it would keep sending the refused token.
      mayRefresh = true
      return .failure(.token(error))
    }
    if isStopped { return first }
    return await connect(with: refreshed)
  }

  private func connect(with token: String) async -> Result<any WebSocket, AttemptFailure> {
    var headerFields = configuration.headerFields
    headerFields[.authorization] = "Bearer \(token)"
    do {
      return .success(
        try await transport.connect(to: configuration.url, headerFields: headerFields))
    } catch {
      return .failure(.handshake(error))
    }
  }

  // MARK: - Session

  /// Runs the receive loop and the heartbeat until one of them ends the session.
  private func session(on socket: any WebSocket) async -> SessionEnd {
    let openedAt = timeline.now()
    sessionOpenedAt = openedAt
    awaitingPong = false
    let heartbeat = configuration.heartbeat
    return await withTaskGroup(of: SessionEnd.self) { group in
      group.addTask { await self.receive(from: socket) }
      if let heartbeat {
        group.addTask { await self.beat(heartbeat, on: socket, from: openedAt) }
      }
      let end = await group.next() ?? .closedHere
      group.cancelAll()
      return end
    }
  }

  /// Reads the socket's frames; nonisolated so the iterator never crosses into the actor.
  private nonisolated func receive(from socket: any WebSocket) async -> SessionEnd {
    do {
      for try await frame in socket.frames {
        await received(frame)
      }
      return .closedHere
    } catch {
      return .failed(error)
    }
  }

  private func received(_ frame: WebSocketFrame) {
    // The stability rule: a connection open long enough that delivered a frame resets the
    // backoff.
    if timeline.now() - sessionOpenedAt >= configuration.stableAfter { failures = 0 }
    if let heartbeat = configuration.heartbeat, heartbeat.isPong(frame) {
      awaitingPong = false
      return
    }
    eventsContinuation.yield(.frame(frame))
  }

  /// Sends a ping at `openedAt + k * interval` and checks for the pong `timeout` after the ping
  /// went out.
  private func beat(
    _ heartbeat: Heartbeat, on socket: any WebSocket, from openedAt: Duration
  ) async -> SessionEnd {
    var pingAt = openedAt
    while true {
      pingAt += heartbeat.interval
      do {
        try await timeline.sleep(until: pingAt)
      } catch {
        return .closedHere
      }
      awaitingPong = true
      do {
        try await socket.send(heartbeat.ping)
      } catch {
        return .pingFailed(error)
      }
      // The pong has `timeout` from when the ping went out: a send that took long (queued
      // behind a large frame, a slow link) does not eat into it.
      let sentAt = max(pingAt, timeline.now())
      do {
        try await timeline.sleep(until: sentAt + heartbeat.timeout)
      } catch {
        return .closedHere
      }
      if awaitingPong { return .pongTimedOut }
    }
  }

  /// Closes a socket that may still be open in the background, so the reconnect need not wait
  /// for a dead server's close frame.
  private func drop(_ socket: any WebSocket, because end: SessionEnd) {
    let id = UUID()
    closing[id] = Task {
      await socket.close(.goingAway, reason: end.description)
      self.closing[id] = nil
    }
  }

  private func setState(_ new: State) {
    guard states.publishIfChanged(new) else { return }
    eventsContinuation.yield(.state(new, link: new == .connected ? link : nil))
  }
}

// MARK: - Internals

extension WebSocketConnection {
  /// Why an attempt produced no socket.
  private enum AttemptFailure: Error, CustomStringConvertible {
    case token(any Error)
    case handshake(WebSocketError)

    var description: String {
      switch self {
      case .token(let error): "no access token: \(error)"
      case .handshake(let error): "\(error)"
      }
    }
  }

  /// Why a session ended.
  private enum SessionEnd: Sendable, CustomStringConvertible {
    /// This side closed the socket (``stop()``), or the session was cancelled.
    case closedHere
    /// The frames ended with an error: the server closed, or the connection failed.
    case failed(WebSocketError)
    /// The ping could not be sent.
    case pingFailed(WebSocketError)
    /// No pong within the heartbeat's timeout.
    case pongTimedOut

    /// Whether the server closed with 1008 (policy: too many frames, or the account is gone) or
    /// 1013 (try again later): the next try waits longer, whatever the session delivered.
    var asksToBackOff: Bool {
      guard case .failed(.closed(let code?, _)) = self else { return false }
      return code == .policyViolation || code == .tryAgainLater
    }

    /// Whether the socket may still be open and must be closed by this side.
    var dropsSocket: Bool {
      switch self {
      case .pingFailed, .pongTimedOut: true
      case .closedHere, .failed: false
      }
    }

    var description: String {
      switch self {
      case .closedHere: "closed by the client"
      case .failed(let error): "\(error)"
      case .pingFailed(let error): "the heartbeat ping failed: \(error)"
      case .pongTimedOut: "heartbeat timeout: no pong"
      }
    }
  }
}

/// The injected clock as offsets from the moment the connection was created, so deadlines are
/// computed once (when an event happens) and a late sleeper still wakes at the right instant.
private struct Timeline: Sendable {
  let now: @Sendable () -> Duration
  private let sleepUntil: @Sendable (Duration) async throws -> Void

  init<C: Clock<Duration>>(_ clock: C) {
    let origin = clock.now
    now = { origin.duration(to: clock.now) }
    sleepUntil = { offset in
      try Task.checkCancellation()
      let deadline = origin.advanced(by: offset)
      guard clock.now < deadline else { return }
      try await clock.sleep(until: deadline, tolerance: nil)
    }
  }

  /// Returns at `offset` (at once when it has passed); throws when the task is cancelled.
  func sleep(until offset: Duration) async throws {
    try await sleepUntil(offset)
  }
}
