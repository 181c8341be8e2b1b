import DTO
import Domain
import Foundation
import HummingbirdWebSocket
import Logging
import ServiceEngine

/// How a socket ends; the raw value is its WebSocket close code.
enum SocketClose: UInt16, Sendable, Equatable {
  /// The server is shutting down, or the client sent nothing for too long.
  case goingAway = 1001
  /// The client's frames broke WebSocket's own rules (a continuation with nothing to continue,
  /// a new message before the last one ended).
  case protocolError = 1002
  /// The client broke a rule of the protocol (too many frames).
  case policyViolation = 1008
  /// A message was larger than ``RealtimeLimits/maxMessageBytes``.
  case tooLarge = 1009
  /// The client fell too far behind, or a send failed for now; reconnect (and catch up, and
  /// send again).
  case tryAgainLater = 1013
}

/// One client's socket on `/realtime`: reads its frames, runs them on the engine as its user,
/// and writes answers and the live events of its subscribed rooms (`Docs/Realtime.md`).
///
/// The reader checks and decodes frames and hands them to the handler through an inbox (a
/// `Domain.BatchQueue`); the
/// handler takes every frame that waits at once and runs a run of `send`s as one transaction
/// (so decoding overlaps the database, and a burst costs one commit). The handler (answers),
/// the event forwarder (live messages, typing, ended memberships, moderation) and the writer
/// share one outgoing mailbox; the writer is the only one that touches the socket (so socket faults and
/// the close happen in one place).
struct RealtimeSession: Sendable {
  /// What the writer sends next.
  enum Outgoing: Sendable {
    /// A notice written whatever the backlog holds: the `error` that comes before the server's
    /// close.
    case frame(ServerFrame)
    /// A frame counted in the socket's backlog until the writer takes it, encoded: a live event
    /// (a chat message's is shared by every subscriber: ``MessageFrames``), a replayed message
    /// or an answer to the client's frame.
    case counted(String)
    /// The wait of the frame the reorder fault held back as the connection's frame `number` is
    /// over (``SocketFaults/longestHold``): if it is still held, it goes out alone.
    case releaseHeld(number: Int)
    case close(SocketClose, reason: String)
  }

  /// How many decoded frames may wait for the handler before the reader stops reading.
  static let inboxCapacity = 256
  /// How long a socket the server ends (a slow consumer, a send that failed for now) may take
  /// to end after its close is posted before the connection is dropped (a client that reads
  /// nothing never takes the close frame; one that never answers it keeps the socket open).
  static let closeGrace: Duration = .seconds(5)

  let engine: ServiceEngine
  /// The encoded `message` frames every session of the server shares.
  let frames: MessageFrames
  let viewer: Viewer
  /// The access token of the handshake: the socket ends when its session is revoked.
  let accessToken: String
  let frameLimit: ServerConfiguration.RateLimit?
  /// The server's write limit, which a new message counts against (`nil`: off).
  let writeLimiter: RateLimiter?
  /// How many frames may wait to be written before the socket is cut off
  /// (``ServerConfiguration/realtimeBacklog``).
  let backlogLimit: Int
  /// How many bytes of frames may wait to be written before the socket is cut off
  /// (``ServerConfiguration/realtimeBacklogBytes``).
  let backlogByteLimit: Int
  /// How long the client may send nothing before the socket is closed
  /// (``ServerConfiguration/realtimeIdleTimeout``).
  let idleTimeout: Duration?
  let faults: SocketFaultInjector?
  let logger: Logger
  /// Closes the TCP connection without a close frame (a "dropped" connection).
  let drop: @Sendable () async -> Void
  /// The mailbox, made with the session: a close can be posted before ``run(inbound:outbound:)``.
  private let outgoing = AsyncStream.makeStream(of: Outgoing.self)
  /// The counted frames in the mailbox that the writer has not taken yet, their bytes, whether
  /// the socket was cut off for having too many (the writer skips the rest then), and whether
  /// the client was told (once, by whichever of the handler and the forwarder saw it first).
  private let backlog = Locked((waiting: 0, bytes: 0, cutOff: false, told: false))
  /// Set when the server closed the socket (``closeSocket(_:reason:post:)``) or the handler
  /// ended: the reader then reads what comes, to the client's close, and hands nothing over,
  /// and the handler runs nothing more (nothing after a server-made close is run or answered).
  private let isEnding = Locked(false)
  /// Set when the reader has ended: the connection is over.
  private let readerEnded = Locked(false)
  /// When the reader last took a frame from the client, on the server's clock (``heard()``;
  /// the handshake, at first).
  private let lastHeard = Locked<Date?>(nil)
  /// How often the idle watchdog looks at the server's clock (which tests move by hand).
  static let idleCheckInterval: Duration = .seconds(1)

  /// Closes the socket from outside (server shutdown), also before ``run(inbound:outbound:)``
  /// started: the close waits in the mailbox, and nothing after it goes out.
  func close(_ close: SocketClose, reason: String) {
    closeSocket(close, reason: reason, post: outgoing.continuation)
  }

  /// Posts the server's close: every close the server makes goes through here, so that
  /// nothing the client sends after it is run or answered.
  private func closeSocket(
    _ close: SocketClose, reason: String, post: AsyncStream<Outgoing>.Continuation
  ) {
    isEnding.withLock { $0 = true }
    post.yield(.close(close, reason: reason))
  }

  /// Serves the socket until either side closes it.
  func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async {
    let listener = engine.chatListener(as: viewer, session: accessToken)
    let (mailbox, post) = outgoing
    // Subscribing and forwarding events take turns, so a room's replay and `subscribed` are
    // written before any live message of that room.
    let turn = Locked(())
    let inbox = BatchQueue<Inbound>()
    await withTaskGroup(of: Void.self) { group in
      group.addTask { await write(mailbox, to: outbound, post: post) }
      group.addTask { await forward(listener, post: post, turn: turn) }
      async let handled: Void = handle(inbox, listener: listener, post: post, turn: turn)
      let watchdog = Task { await closeWhenIdle(post: post) }
      await read(inbound, into: inbox)
      watchdog.cancel()
      inbox.finish()
      await handled
      listener.close()
      post.finish()
      await group.waitForAll()
    }
  }

  // MARK: Reading

  /// What the reader hands to the handler, in the order the frames came.
  enum Inbound: Sendable {
    /// A decoded frame to run.
    case frame(ClientFrame)
    /// A frame that could not be used: its `error` answer.
    case refused(RealtimeErrorDTO)
    /// A broken rule that ends the connection: its `error` answer and the close.
    case close(RealtimeErrorDTO, SocketClose, reason: String)
  }

  private func read(_ inbound: WebSocketInboundStream, into inbox: BatchQueue<Inbound>) async {
    let limiter = frameLimit.map(RateLimiter.init)
    var message: [UInt8] = []
    var isText = true
    // A message whose last fragment has not come yet.
    var isContinuing = false
    defer { readerEnded.withLock { $0 = true } }
    do {
      for try await frame in inbound {
        heard()
        // The server closed the socket, or the handler ended: what still comes is read (to the
        // client's close) and dropped, never run.
        if isEnding.withLock({ $0 }) { continue }
        // A fragment must continue a message, and a message must not begin inside another.
        guard isContinuing == (frame.opcode == .continuation) else {
          inbox.push(
            .close(
              RealtimeErrorDTO(
                code: "malformed_request",
                message: isContinuing
                  ? "A new message began before the last one's final fragment."
                  : "A continuation frame came with no message to continue."),
              .protocolError, reason: "fragments out of order"))
          return
        }
        if frame.opcode != .continuation {
          message.removeAll(keepingCapacity: true)
          isText = frame.opcode == .text
        }
        isContinuing = !frame.fin
        guard message.count + frame.data.readableBytes <= RealtimeLimits.maxMessageBytes else {
          inbox.push(
            .close(
              RealtimeErrorDTO(
                code: "frame_too_large",
                message: "A message may hold at most \(RealtimeLimits.maxMessageBytes) bytes."),
              .tooLarge, reason: "message too large"))
          return
        }
        message.append(contentsOf: frame.data.readableBytesView)
        guard frame.fin else { continue }
        if let limiter {
          do {
            try limiter.admit("socket", at: engine.now)
          } catch {
            inbox.push(
              .close(
                RealtimeErrorDTO(
                  code: "too_many_frames",
                  message: "Too many frames; reconnect later and send more slowly."),
                .policyViolation, reason: "too many frames"))
            return
          }
        }
        guard isText, let text = String(validating: message, as: UTF8.self) else {
          inbox.push(
            .refused(
              RealtimeErrorDTO(
                code: "unknown_frame",
                message: "Frames are UTF-8 JSON text messages; binary is not part of it.")))
          continue
        }
        do {
          inbox.push(.frame(try ClientFrame(text: text)))
        } catch {
          let code = if case .unknownType = error { "unknown_frame" } else { "malformed_request" }
          inbox.push(
            .refused(RealtimeErrorDTO(code: code, message: error.description, field: error.field)))
        }
        // Backpressure: a client that sends faster than the handler stores waits here (and
        // then in TCP) instead of growing the inbox.
        while inbox.backlog >= Self.inboxCapacity, !isEnding.withLock({ $0 }) {
          try await Task.sleep(for: .milliseconds(1))
        }
      }
    } catch {
      // The socket failed (reset, protocol error): nothing to answer, the session ends.
      logger.debug("Realtime socket ended: \(error)")
    }
  }

  /// Notes that the client was heard from now (the server's clock): at the handshake
  /// (``QappleServer/realtimeUpgrade``), then at every frame.
  func heard() {
    let now = engine.now
    lastHeard.withLock { $0 = now }
  }

  /// Closes the socket with 1001 once the client has sent nothing for ``idleTimeout`` on the
  /// server's clock (looked at every ``idleCheckInterval``, or sooner when due sooner), and
  /// drops the connection if it has not ended ``closeGrace`` later (a client gone without a
  /// word never answers the close). Ends when cancelled (the reader is done).
  private func closeWhenIdle(post: AsyncStream<Outgoing>.Continuation) async {
    guard let idleTimeout else { return }
    do {
      while true {
        let silent = engine.now.timeIntervalSince(lastHeard.withLock { $0 } ?? engine.now)
        let left = idleTimeout - .seconds(silent)
        if left <= .zero { break }
        try await Task.sleep(for: min(left, Self.idleCheckInterval))
      }
      logger.info("Closing a realtime socket that sent nothing for \(idleTimeout)")
      closeSocket(.goingAway, reason: "idle", post: post)
      try await Task.sleep(for: Self.closeGrace)
      await drop()
    } catch {
      // Cancelled: the client closed, or the connection ended, first.
    }
  }

  // MARK: Handling

  /// Runs what the reader hands over until it is done; stops at a close.
  private func handle(
    _ inbox: BatchQueue<Inbound>, listener: ChatListener, post: AsyncStream<Outgoing>.Continuation,
    turn: Locked<Void>
  ) async {
    defer { isEnding.withLock { $0 = true } }
    for await batch in inbox.batches {
      // A run of sends is one engine call (one transaction), answered before what follows.
      var sends: [MessageSend] = []
      for item in batch {
        // The server closed the socket (while the frame waited): it is not run.
        if isEnding.withLock({ $0 }) { return listener.close() }
        if case .frame(.send(let room, let id, let text)) = item {
          sends.append(Self.request(room: room, id: id, text: text))
          continue
        }
        guard sends.isEmpty || send(sends, listener: listener, post: post) else {
          return listener.close()
        }
        sends = []
        switch item {
        case .frame(let frame):
          guard handle(frame, listener: listener, post: post, turn: turn) else {
            return endAsSlowConsumer(listener, post: post)
          }
        case .refused(let error):
          guard answer(.error(error), post: post) else {
            return endAsSlowConsumer(listener, post: post)
          }
        case .close(let error, let close, let reason):
          post.yield(.frame(.error(error)))
          closeSocket(close, reason: reason, post: post)
          return
        }
      }
      if isEnding.withLock({ $0 }) { return listener.close() }
      guard sends.isEmpty || send(sends, listener: listener, post: post) else {
        return listener.close()
      }
    }
  }

  private static func request(room: String, id: UUID, text: String) -> MessageSend {
    MessageSend(text: text, roomID: ChatRoom.ID(rawValue: room), clientMessageID: id)
  }

  /// Runs sends in one transaction and answers each: its `ack`, or its refusal. A send that
  /// failed for now (the database refused the transaction) ends the socket, and `false` tells
  /// the handler to run nothing more: a later send of the client stored before the client
  /// sends that one again would break the order its messages were written in. So does a
  /// backlog that the answers fill (the socket is cut off as a slow consumer).
  private func send(
    _ sends: [MessageSend], listener: ChatListener, post: AsyncStream<Outgoing>.Continuation
  ) -> Bool {
    let results = engine.sendMessages(
      sends, as: viewer, admitting: writeLimiter?.admitting(viewer.id) { [engine] in engine.now })
    var isCutOff = false
    for (send, result) in zip(sends, results) where !isCutOff {
      let clientMessageID = send.clientMessageID
      let frame: ServerFrame =
        switch result {
        case .success(let sent):
          .ack(
            clientMessageID: clientMessageID.lowercasedText, message: ChatMessageDTO(sent.message)
          )
        case .failure(let error):
          refusal(error, of: "send", room: send.roomID.rawValue, clientMessageID: clientMessageID)
        }
      isCutOff = !answer(frame, post: post)
    }
    let failedForNow = results.contains { result in
      if case .failure(let error) = result { error.endsChatLink } else { false }
    }
    if isCutOff {
      endAsSlowConsumer(listener, post: post)
    } else if failedForNow {
      end(.tryAgainLater, reason: "a send failed; send it again", post: post)
    }
    return !failedForNow && !isCutOff
  }

  /// Runs `frame` and answers it; `false` when the answers filled the backlog (the caller
  /// cuts the socket off as a slow consumer).
  private func handle(
    _ frame: ClientFrame, listener: ChatListener, post: AsyncStream<Outgoing>.Continuation,
    turn: Locked<Void>
  ) -> Bool {
    switch frame {
    case .ping:
      return answer(.pong, post: post)
    case .subscribe(let room, let afterSeq):
      return turn.withLock { _ in
        do throws(DomainError) {
          let start = try engine.subscribe(
            listener, to: ChatRoom.ID(rawValue: room), afterSeq: afterSeq,
            as: viewer)
          // Replays are encoded afresh: loaded now, they carry today's names, which a frame
          // cached when the message was sent may not. They count in the backlog like live
          // events: a client that subscribes again and again without reading is cut off too.
          for message in start.replay {
            guard answer(.message(ChatMessageDTO(message)), post: post) else { return false }
          }
          return answer(.subscribed(roomID: room, lastSeq: start.lastSeq), post: post)
        } catch {
          return answer(refusal(error, of: frame.type, room: room), post: post)
        }
      }
    case .unsubscribe(let room):
      listener.unsubscribe(from: ChatRoom.ID(rawValue: room))
      return answer(.unsubscribed(roomID: room), post: post)
    case .send:
      assertionFailure("The handler runs sends in batches, before the frames after them.")
      return true
    case .typing(let room):
      do {
        try engine.typing(in: ChatRoom.ID(rawValue: room), as: viewer)
        return true
      } catch {
        return answer(refusal(error, of: frame.type, room: room), post: post)
      }
    }
  }

  /// Posts the answer `frame`, counted in the backlog; `false` (nothing posted) once the
  /// socket is cut off for having too much waiting: a client that sends but never reads piles
  /// up answers as one that never reads its rooms piles up events.
  private func answer(_ frame: ServerFrame, post: AsyncStream<Outgoing>.Continuation) -> Bool {
    let text = frame.text
    guard admitToBacklog(text) else { return false }
    post.yield(.counted(text))
    return true
  }

  /// The `error` frame of an engine refusal of a frame of type `frameType`: the REST code and
  /// sentence of the same error.
  private func refusal(
    _ error: DomainError, of frameType: String, room: String, clientMessageID: UUID? = nil
  ) -> ServerFrame {
    // A ban is worded with its end as it is now: the socket's viewer is the one of its
    // handshake, maybe from before the ban.
    let current = error == .banned ? (try? engine.viewer(viewer.id)) ?? viewer : viewer
    let envelope = APIError(error, viewer: current)
    return .error(
      RealtimeErrorDTO(
        code: envelope.code.rawValue, message: envelope.message, field: envelope.field,
        validation: envelope.validation, roomId: room,
        clientMessageId: clientMessageID?.lowercasedText, frameType: frameType))
  }

  // MARK: Live events

  private func forward(
    _ listener: ChatListener, post: AsyncStream<Outgoing>.Continuation, turn: Locked<Void>
  ) async {
    do {
      var cutOff = false
      for await event in listener.events {
        let text: String? =
          switch event {
          case .message(let message): frames.text(of: message)
          case .typing(let room, let user):
            ServerFrame.typing(roomID: room.rawValue, user: UserSummaryDTO(user)).text
          case .membershipEnded(let room, _): ServerFrame.unsubscribed(roomID: room.rawValue).text
          case .messageHidden(let room, let message, let seq):
            ServerFrame.messageHidden(roomID: room.rawValue, messageID: message.rawValue, seq: seq)
              .text
          case .messageRestored(let message):
            ServerFrame.messageRestored(ChatMessageDTO(message)).text
          }
        guard let text else { continue }
        // Counted before it is posted, so the writer never takes more than was counted.
        cutOff = !admitToBacklog(text)
        if cutOff { break }
        turn.withLock { _ in _ = post.yield(.counted(text)) }
      }
      if cutOff {
        endAsSlowConsumer(listener, post: post)
        return
      }
      switch listener.ending {
      case .overflow:
        endAsSlowConsumer(listener, post: post)
      case .accountClosed, .sessionRevoked:
        let (message, reason) =
          listener.ending == .accountClosed
          ? ("This account was withdrawn; the connection ends.", "account withdrawn")
          : ("This session was signed out or revoked; the connection ends.", "session revoked")
        post.yield(
          .frame(
            .error(RealtimeErrorDTO(code: ErrorCodeDTO.unauthorized.rawValue, message: message))))
        closeSocket(.policyViolation, reason: reason, post: post)
      case nil:
        break
      }
    }
  }

  /// Counts one more frame waiting for the writer (a live event, a replayed message, an
  /// answer), `text`; `false` once the socket is cut off as a slow consumer for having more
  /// than ``backlogLimit`` frames or ``backlogByteLimit`` bytes waiting (the frame is then not
  /// posted).
  private func admitToBacklog(_ text: String) -> Bool {
    !backlog.withLock { state in
      state.waiting += 1
      state.bytes += text.utf8.count
      if state.waiting > backlogLimit || state.bytes > backlogByteLimit { state.cutOff = true }
      return state.cutOff
    }
  }

  /// Ends a socket too far behind: the frames already waiting stay unwritten (the writer skips
  /// them; the client catches up over REST after reconnecting), the client is told
  /// `slow_consumer` and the socket closes with 1013, or the connection is dropped if the close
  /// is not written within ``closeGrace``.
  private func endAsSlowConsumer(
    _ listener: ChatListener, post: AsyncStream<Outgoing>.Continuation
  ) {
    listener.close()
    let told = backlog.withLock { state in
      defer { state.told = true }
      return state.told
    }
    if told { return }
    post.yield(
      .frame(
        .error(
          RealtimeErrorDTO(
            code: "slow_consumer",
            message: "This connection fell too far behind; reconnect and catch up."))))
    end(.tryAgainLater, reason: "slow consumer", post: post)
  }

  /// Closes the socket with `close` after what the mailbox holds, or drops the connection if
  /// it has not ended ``closeGrace`` later.
  private func end(
    _ close: SocketClose, reason: String, post: AsyncStream<Outgoing>.Continuation
  ) {
    Task { [readerEnded, drop] in
      try? await Task.sleep(for: Self.closeGrace)
      if !readerEnded.withLock({ $0 }) { await drop() }
    }
    closeSocket(close, reason: reason, post: post)
  }

  // MARK: Writing

  /// Writes what the mailbox hands over, with the socket faults; `post` is the mailbox's own
  /// input, for the end of a held frame's wait.
  private func write(
    _ mailbox: AsyncStream<Outgoing>, to outbound: WebSocketOutboundWriter,
    post: AsyncStream<Outgoing>.Continuation
  ) async {
    var sent = 0
    // The frame the reorder fault holds back, and its number: it goes out after the next frame,
    // or alone once its wait is over (a held `pong` on an idle socket must not wait for the
    // client's heartbeat to give up on the connection).
    var held: (number: Int, text: String)?
    do {
      for await item in mailbox {
        let text: String
        switch item {
        case .frame(let frame): text = frame.text
        case .counted(let counted):
          let skip = backlog.withLock { state in
            state.waiting -= 1
            state.bytes -= counted.utf8.count
            return state.cutOff
          }
          if skip { continue }
          text = counted
        case .releaseHeld(let number):
          if let frame = held, frame.number == number {
            held = nil
            try await outbound.write(.text(frame.text))
          }
          continue
        case .close(let close, let reason):
          if let held { try await outbound.write(.text(held.text)) }
          try await outbound.close(.init(codeNumber: Int(close.rawValue)), reason: reason)
          return
        }
        sent += 1
        let decision = faults?.decide(sent: sent) ?? .init()
        if decision.delay > .zero { try await Task.sleep(for: decision.delay) }
        if decision.drop {
          await drop()
          return
        }
        if decision.holdBack, held == nil {
          held = (sent, text)
          Task { [sent] in
            try? await Task.sleep(for: SocketFaults.longestHold)
            post.yield(.releaseHeld(number: sent))
          }
          continue
        }
        try await outbound.write(.text(text))
        if decision.duplicate { try await outbound.write(.text(text)) }
        if let frame = held {
          held = nil
          try await outbound.write(.text(frame.text))
        }
      }
    } catch {
      logger.debug("Realtime write failed: \(error)")
    }
  }
}
