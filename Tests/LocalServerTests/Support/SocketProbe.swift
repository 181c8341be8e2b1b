import DTO
import Foundation
import Hummingbird
import HummingbirdWSClient
import Logging
import NIOWebSocket
import Synchronization
import Testing

/// A raw WebSocket client for testing `/realtime` frame by frame: it sends exactly what a test
/// gives it (frames, broken JSON, binary, oversized text) and hands back every text message and
/// the close code. One test drives one probe at a time (not safe for concurrent readers).
final class SocketProbe: @unchecked Sendable {
  /// What arrives from the server.
  enum Event: Sendable, Equatable {
    case text(String)
    /// The socket ended; the server's close code, or `nil` for a connection dropped without one.
    case closed(code: Int?)
  }

  private enum Outgoing: Sendable {
    case text(String)
    case binary([UInt8])
    case frame(WebSocketFrame)
    /// Reached once everything sent before it was written to the connection.
    case written(Int)
    case close
  }

  private var events: AsyncStream<Event>.Iterator
  private let outgoing: AsyncStream<Outgoing>.Continuation
  private let task: Task<Void, Never>

  /// Thrown when the handshake is refused (bad token, wrong path).
  struct Refused: Error {}

  /// Opens `/realtime` of the server at `base` with `token`; throws ``Refused`` if the server
  /// does not upgrade.
  static func open(
    _ base: URL, token: String?, path: String = RealtimeLimits.path
  ) async throws
    -> SocketProbe
  {
    let (events, post) = AsyncStream.makeStream(of: Event.self)
    let (outbox, send) = AsyncStream.makeStream(of: Outgoing.self)
    let (opened, open) = AsyncStream.makeStream(of: Bool.self)
    let gate = ReadGate()
    let marks = WriteMarks()
    var headers: HTTPFields = [:]
    if let token { headers[.authorization] = "Bearer \(token)" }
    let url = "ws://127.0.0.1:\(base.port ?? 0)\(path)"
    let task = Task {
      do {
        let close = try await WebSocketClient.connect(
          url: url,
          configuration: .init(maxFrameSize: 1 << 20, additionalHeaders: headers),
          logger: Logger(label: "socket-probe")
        ) { inbound, outbound, _ in
          open.yield(true)
          try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
              for try await message in inbound.messages(maxSize: 1 << 20) {
                // While paused, the message waits here and nothing more is read: the socket's
                // buffers fill and the server's writes wait, as with a client that stalled.
                await gate.passed()
                if case .text(let text) = message { post.yield(.text(text)) }
              }
            }
            group.addTask {
              for await item in outbox {
                switch item {
                case .text(let text): try await outbound.write(.text(text))
                case .binary(let bytes): try await outbound.write(.binary(.init(bytes: bytes)))
                case .frame(let frame): try await outbound.write(.custom(frame))
                case .written(let mark): marks.reached(mark)
                case .close:
                  try await outbound.close(.normalClosure, reason: nil)
                  return
                }
              }
            }
            try await group.next()
            group.cancelAll()
          }
        }
        post.yield(.closed(code: close.map { Int(UInt16(webSocketErrorCode: $0.closeCode)) }))
      } catch {
        post.yield(.closed(code: nil))
      }
      open.yield(false)
      post.finish()
      marks.endAll()
    }
    var iterator = opened.makeAsyncIterator()
    guard await iterator.next() == true else {
      task.cancel()
      throw Refused()
    }
    return SocketProbe(
      events: events.makeAsyncIterator(), outgoing: send, task: task, gate: gate, marks: marks)
  }

  private let gate: ReadGate
  private let marks: WriteMarks

  private init(
    events: AsyncStream<Event>.Iterator, outgoing: AsyncStream<Outgoing>.Continuation,
    task: Task<Void, Never>, gate: ReadGate, marks: WriteMarks
  ) {
    self.events = events
    self.outgoing = outgoing
    self.task = task
    self.gate = gate
    self.marks = marks
  }

  /// Stops reading from the socket (the next message waits) until ``resumeReading()``.
  func pauseReading() async { await gate.close() }

  /// Reads again after ``pauseReading()``.
  func resumeReading() async { await gate.open() }

  /// Sends a frame of the protocol.
  func send(_ frame: ClientFrame) { outgoing.yield(.text(frame.text)) }

  /// Sends any text, valid or not.
  func send(text: String) { outgoing.yield(.text(text)) }

  /// Sends a binary message.
  func send(binary: [UInt8]) { outgoing.yield(.binary(binary)) }

  /// Sends one WebSocket frame as given (fragments, in or out of order).
  func send(frame: WebSocketFrame) { outgoing.yield(.frame(frame)) }

  /// Returns once everything sent so far was written to the connection (the server may not
  /// have read the last of it yet: the sockets' buffers hold some megabytes), or the
  /// connection ended first.
  func written() async {
    await withCheckedContinuation { continuation in
      if let mark = marks.add(continuation) { outgoing.yield(.written(mark)) }
    }
  }

  /// The next event; fails the test after 30 s without one (a hang, not a timing check).
  func next(
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> Event {
    let timeout = Task {
      try await Task.sleep(for: .seconds(30))
      outgoing.yield(.close)
    }
    defer { timeout.cancel() }
    var iterator = events
    defer { events = iterator }
    guard let event = await iterator.next() else {
      Issue.record("the socket ended without a close event", sourceLocation: sourceLocation)
      return .closed(code: nil)
    }
    return event
  }

  /// The next server frame; fails the test if the socket closes instead.
  func frame(sourceLocation: SourceLocation = #_sourceLocation) async throws -> ServerFrame {
    let event = try await next(sourceLocation: sourceLocation)
    guard case .text(let text) = event else {
      Issue.record("expected a frame, got \(event)", sourceLocation: sourceLocation)
      throw Refused()
    }
    return try ServerFrame(text: text)
  }

  /// Closes the socket normally and waits until it has ended.
  func close() async {
    outgoing.yield(.close)
    await task.value
  }
}

/// Whether the probe's reader may go on; closed, it waits until opened again.
private actor ReadGate {
  private var isOpen = true
  private var waiting: [CheckedContinuation<Void, Never>] = []

  func passed() async {
    guard !isOpen else { return }
    await withCheckedContinuation { waiting.append($0) }
  }

  func close() { isOpen = false }

  func open() {
    isOpen = true
    for continuation in waiting { continuation.resume() }
    waiting.removeAll()
  }
}

/// The waits of ``SocketProbe/written()``: each ends when the writer reaches its mark, or when
/// the connection ends (a wait never outlives the connection).
private final class WriteMarks: Sendable {
  private let state = Mutex(
    (next: 0, ended: false, waiting: [Int: CheckedContinuation<Void, Never>]()))

  /// The mark to post for `continuation`; `nil` (it is resumed at once) after the connection ended.
  func add(_ continuation: CheckedContinuation<Void, Never>) -> Int? {
    let mark = state.withLock { state -> Int? in
      guard !state.ended else { return nil }
      state.next += 1
      state.waiting[state.next] = continuation
      return state.next
    }
    if mark == nil { continuation.resume() }
    return mark
  }

  func reached(_ mark: Int) {
    state.withLock { $0.waiting.removeValue(forKey: mark) }?.resume()
  }

  func endAll() {
    let waiting = state.withLock { state in
      state.ended = true
      defer { state.waiting = [:] }
      return state.waiting
    }
    for continuation in waiting.values { continuation.resume() }
  }
}
