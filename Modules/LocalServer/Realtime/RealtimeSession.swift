import DTO
import Domain
import Foundation
import HummingbirdWebSocket
import Logging
import ServiceEngine

/// How a socket ends, with its WebSocket close code.
enum SocketClose: Sendable, Equatable {
  /// 1000: the client or the server is done.
  case normal
  /// 1001: the server is shutting down.
  case goingAway
  /// 1008: the client broke a rule of the protocol (too many frames).
  case policyViolation
  /// 1009: a message was larger than ``RealtimeLimits/maxMessageBytes``.
  case tooLarge
  /// 1013: the client fell too far behind; reconnect and catch up.
  case tryAgainLater

  var code: UInt16 {
    switch self {
    case .normal: 1000
    case .goingAway: 1001
    case .policyViolation: 1008
    case .tooLarge: 1009
    case .tryAgainLater: 1013
    }
  }
}

/// One client's socket on `/realtime`: reads its frames, runs them on the engine as its user,
/// and writes answers and the live events of its subscribed rooms (`Docs/Realtime.md`).
///
/// Three parts share one outgoing mailbox: the reader (answers), the event forwarder (live
/// messages, typing, ended memberships) and the writer, the only one that touches the socket
/// (so socket faults and the close happen in one place).
struct RealtimeSession: Sendable {
  /// What the writer sends next.
  enum Outgoing: Sendable {
    case frame(ServerFrame)
    case close(SocketClose, reason: String)
  }

  let engine: ServiceEngine
  let viewer: Viewer
  let frameLimit: ServerConfiguration.RateLimit?
  let faults: SocketFaultInjector?
  let logger: Logger
  /// Closes the TCP connection without a close frame (a "dropped" connection).
  let drop: @Sendable () async -> Void

  /// Serves the socket until either side closes it; `register` receives a way to close it from
  /// outside (server shutdown), called before any frame is read.
  func run(
    inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter,
    register: (@escaping @Sendable (SocketClose, String) -> Void) -> Void
  ) async {
    let listener = engine.chatListener(as: viewer)
    let (mailbox, post) = AsyncStream.makeStream(of: Outgoing.self)
    // Subscribing and forwarding events take turns, so a room's replay and `subscribed` are
    // written before any live message of that room.
    let turn = Locked(())
    register { close, reason in post.yield(.close(close, reason: reason)) }
    await withTaskGroup(of: Void.self) { group in
      group.addTask { await write(mailbox, to: outbound) }
      group.addTask { await forward(listener, post: post, turn: turn) }
      await read(inbound, listener: listener, post: post, turn: turn)
      listener.close()
      post.finish()
      await group.waitForAll()
    }
  }

  // MARK: Reading

  private func read(
    _ inbound: WebSocketInboundStream, listener: ChatListener,
    post: AsyncStream<Outgoing>.Continuation, turn: Locked<Void>
  ) async {
    let limiter = frameLimit.map { RateLimiter(count: $0.count, window: $0.window.timeInterval) }
    var message: [UInt8] = []
    var isText = true
    do {
      for try await frame in inbound {
        switch frame.opcode {
        case .text, .binary:
          message.removeAll(keepingCapacity: true)
          isText = frame.opcode == .text
        case .continuation:
          break
        }
        guard message.count + frame.data.readableBytes <= RealtimeLimits.maxMessageBytes else {
          post.yield(
            .frame(
              .error(
                RealtimeErrorDTO(
                  code: "frame_too_large",
                  message:
                    "A message may hold at most \(RealtimeLimits.maxMessageBytes) bytes."))))
          post.yield(.close(.tooLarge, reason: "message too large"))
          return
        }
        message.append(contentsOf: frame.data.readableBytesView)
        guard frame.fin else { continue }
        if let limiter {
          do {
            try limiter.admit("socket", at: engine.now)
          } catch {
            post.yield(
              .frame(
                .error(
                  RealtimeErrorDTO(
                    code: "too_many_frames",
                    message: "Too many frames; reconnect later and send more slowly."))))
            post.yield(.close(.policyViolation, reason: "too many frames"))
            return
          }
        }
        guard isText, let text = String(validating: message, as: UTF8.self) else {
          post.yield(
            .frame(
              .error(
                RealtimeErrorDTO(
                  code: "unknown_frame",
                  message: "Frames are UTF-8 JSON text messages; binary is not part of it."))))
          continue
        }
        handle(text, listener: listener, post: post, turn: turn)
      }
    } catch {
      // The socket failed (reset, protocol error): nothing to answer, the session ends.
      logger.debug("Realtime socket ended: \(error)")
    }
  }

  private func handle(
    _ text: String, listener: ChatListener, post: AsyncStream<Outgoing>.Continuation,
    turn: Locked<Void>
  ) {
    let frame: ClientFrame
    do {
      frame = try ClientFrame(text: text)
    } catch {
      let code = if case .unknownType = error { "unknown_frame" } else { "malformed_request" }
      post.yield(
        .frame(.error(RealtimeErrorDTO(code: code, message: error.description, field: error.field)))
      )
      return
    }
    switch frame {
    case .ping:
      post.yield(.frame(.pong))
    case .subscribe(let room, let afterSeq):
      turn.withLock { _ in
        do throws(DomainError) {
          let start = try engine.subscribe(
            listener, to: ChatRoom.ID(rawValue: room), afterSeq: afterSeq,
            replayLimit: RealtimeLimits.replayLimit, as: viewer)
          for message in start.replay { post.yield(.frame(.message(ChatMessageDTO(message)))) }
          post.yield(.frame(.subscribed(roomID: room, lastSeq: start.lastSeq)))
        } catch {
          post.yield(.frame(refusal(error, room: room)))
        }
      }
    case .unsubscribe(let room):
      listener.unsubscribe(from: ChatRoom.ID(rawValue: room))
      post.yield(.frame(.unsubscribed(roomID: room)))
    case .send(let room, let clientMessageID, let text):
      do {
        let sent = try engine.sendMessage(
          text, to: ChatRoom.ID(rawValue: room), clientMessageID: clientMessageID, as: viewer)
        post.yield(
          .frame(
            .ack(
              clientMessageID: clientMessageID.uuidString.lowercased(),
              message: ChatMessageDTO(sent.message))))
      } catch {
        post.yield(.frame(refusal(error, room: room, clientMessageID: clientMessageID)))
      }
    case .typing(let room):
      do {
        try engine.typing(in: ChatRoom.ID(rawValue: room), as: viewer)
      } catch {
        post.yield(.frame(refusal(error, room: room)))
      }
    }
  }

  /// The `error` frame of an engine refusal: the REST code and sentence of the same error.
  private func refusal(
    _ error: DomainError, room: String, clientMessageID: UUID? = nil
  ) -> ServerFrame {
    let envelope = APIError(error, viewer: viewer)
    return .error(
      RealtimeErrorDTO(
        code: envelope.code, message: envelope.message, field: envelope.field, roomId: room,
        clientMessageId: clientMessageID?.uuidString.lowercased()))
  }

  // MARK: Live events

  private func forward(
    _ listener: ChatListener, post: AsyncStream<Outgoing>.Continuation, turn: Locked<Void>
  ) async {
    do {
      for await event in listener.events {
        turn.withLock { _ in
          switch event {
          case .message(let message):
            post.yield(.frame(.message(ChatMessageDTO(message))))
          case .typing(let room, let user) where user.id != viewer.id:
            post.yield(.frame(.typing(roomID: room.rawValue, user: UserSummaryDTO(user))))
          case .typing:
            break
          case .membershipEnded(let room, _):
            post.yield(.frame(.unsubscribed(roomID: room.rawValue)))
          }
        }
      }
      if listener.didOverflow {
        post.yield(
          .frame(
            .error(
              RealtimeErrorDTO(
                code: "slow_consumer",
                message: "This connection fell too far behind; reconnect and catch up."))))
        post.yield(.close(.tryAgainLater, reason: "slow consumer"))
      }
    }
  }

  // MARK: Writing

  private func write(
    _ mailbox: AsyncStream<Outgoing>, to outbound: WebSocketOutboundWriter
  ) async {
    var sent = 0
    var heldBack: String?
    do {
      for await item in mailbox {
        switch item {
        case .frame(let frame):
          sent += 1
          let decision = faults?.decide(sent: sent) ?? .init()
          if decision.delay > .zero { try await Task.sleep(for: decision.delay) }
          if decision.drop {
            await drop()
            return
          }
          let text = frame.text
          if decision.holdBack, heldBack == nil {
            heldBack = text
            continue
          }
          try await outbound.write(.text(text))
          if decision.duplicate { try await outbound.write(.text(text)) }
          if let held = heldBack {
            heldBack = nil
            try await outbound.write(.text(held))
          }
        case .close(let close, let reason):
          if let held = heldBack { try await outbound.write(.text(held)) }
          try await outbound.close(.init(codeNumber: Int(close.code)), reason: reason)
          return
        }
      }
    } catch {
      logger.debug("Realtime write failed: \(error)")
    }
  }
}
