import ChatCore
import Domain
import Foundation
import LocalServer
import Logging
import NetworkKit
import Persistence
import Repositories
import RepositoriesLive

// P6: delivery through the server and the client engine on loopback. A sender's `/realtime`
// socket (`SocketChatChannel`, no engine) sends into a group room; the receiver runs the full
// live engine (`ChatSync` over its own socket, an in-memory store). A message counts as
// delivered when the receiver's engine has stored it: the engine reads its channel's events
// one at a time, so the moment it asks for the next event the previous one is stored.

/// Nanoseconds on the monotonic clock both sides share (one process).
func monotonicNanos() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Notes when the engine finished with each message it was given.
final class DeliveryRecorder: @unchecked Sendable {
  // Guarded by `lock`.
  private let lock = NSLock()
  private var handled: [(text: String, at: UInt64)] = []
  private var current: [String] = []

  /// The engine asked for the next event: the previous one is fully handled.
  func finishCurrent() {
    let now = monotonicNanos()
    lock.withLock {
      for text in current { handled.append((text, now)) }
      current = []
    }
  }

  func handing(_ event: ChatChannelEvent?) {
    if case .messages(let messages) = event { lock.withLock { current = messages.map(\.text) } }
  }

  /// Every handled message with the time it was done.
  var deliveries: [(text: String, at: UInt64)] { lock.withLock { handled } }
}

/// A channel that passes every event of `inner` to the engine through a recorder.
final class TimingChannel: ChatChannel {
  let inner: SocketChatChannel
  let recorder = DeliveryRecorder()
  let events: AsyncStream<ChatChannelEvent>

  init(_ inner: SocketChatChannel) {
    self.inner = inner
    let iterator = UncheckedBox(inner.events.makeAsyncIterator())
    let recorder = recorder
    events = AsyncStream {
      recorder.finishCurrent()
      let event = await iterator.value.next()
      recorder.handing(event)
      return event
    }
  }

  var deliveries: [(text: String, at: UInt64)] { recorder.deliveries }

  func open() async { await inner.open() }
  func close() async { await inner.close() }
  func subscribe(to room: ChatRoom.ID, afterSeq: Int64, on link: ConnectionLink) async throws {
    try await inner.subscribe(to: room, afterSeq: afterSeq, on: link)
  }
  func unsubscribe(from room: ChatRoom.ID, on link: ConnectionLink) async throws {
    try await inner.unsubscribe(from: room, on: link)
  }
  func send(
    _ text: String, to room: ChatRoom.ID, clientMessageID: UUID, on link: ConnectionLink
  ) async throws {
    try await inner.send(text, to: room, clientMessageID: clientMessageID, on: link)
  }
  func typing(in room: ChatRoom.ID, on link: ConnectionLink) async throws {
    try await inner.typing(in: room, on: link)
  }
}

/// Lets the stream's unfolding closure own a mutable iterator (only the engine reads it).
final class UncheckedBox<Value>: @unchecked Sendable {
  var value: Value
  init(_ value: Value) { self.value = value }
}

struct DeliveryRig {
  let server: QappleServer
  let sender: SocketChatChannel
  /// The sender's socket, which its sends name (a reconnect fails them: the run is void).
  let link: ConnectionLink
  let receiver: ChatSync
  let timing: TimingChannel
  let room: ChatRoom.ID
  /// Reads the sender's events (its acks), so they do not pile up for the whole run.
  let draining: Task<Void, Never>

  static func start() async throws -> DeliveryRig {
    let (server, url) = try await startBenchmarkServer()
    let (senderBackend, senderUser) = try await signedIn("demo-1", at: url)
    let (receiverBackend, receiverUser) = try await signedIn("demo-2", at: url)
    let group = try await senderBackend.repositories.studyGroups.createGroup(
      StudyGroupDraft(name: "P6 bench"))
    _ = try await receiverBackend.repositories.studyGroups.joinGroup(group.id)
    guard
      let room = try await receiverBackend.repositories.chat.fetchRooms(PageRequest(limit: 100))
        .items.first(where: { $0.kind == .group(group.id) })
    else { throw BenchmarkError("P6: the group has no room") }

    let sender = SocketChatChannel(backend: senderBackend, for: senderUser.id)
    let timing = TimingChannel(SocketChatChannel(backend: receiverBackend, for: receiverUser.id))
    let store = try ChatStore(at: .inMemory, owner: receiverUser.id)
    let receiver = ChatSync(
      store: store, me: receiverUser.summary, channel: timing,
      server: receiverBackend.repositories.chat,
      options: ChatSyncOptions(logger: quietLogger, retryDelay: { _ in .milliseconds(100) }))
    await receiver.start()
    await receiver.open(room.id)
    // Wait until both sockets are up and the receiver is subscribed (its catch-up is done).
    let (link, draining) = try await openDraining(sender)
    while receiver.connectionState != .connected { try await Task.sleep(for: .milliseconds(5)) }
    try await Task.sleep(for: .milliseconds(200))
    return DeliveryRig(
      server: server, sender: sender, link: link, receiver: receiver, timing: timing,
      room: room.id, draining: draining)
  }

  /// Sends `count` messages at `rate` per second (paced against the start, so a late send
  /// does not shift the later ones) and waits until the receiver stored every one of them.
  /// Returns the latency (ns) of each message that arrived over the socket, how many did (the
  /// rest came through a REST catch-up after the server cut the receiver off), and the
  /// achieved send rate.
  func run(
    _ label: String, count: Int, rate: Double
  ) async throws -> (
    latencies: [UInt64], live: Int, sendRate: Double
  ) {
    let before = timing.deliveries.count
    let target = try receiver.store.syncCursor(of: room) + Int64(count)
    let intervalNanos = 1e9 / rate
    let start = monotonicNanos()
    var sentAt: [String: UInt64] = [:]
    sentAt.reserveCapacity(count)
    for index in 0..<count {
      let due = start + UInt64(Double(index) * intervalNanos)
      let now = monotonicNanos()
      if due > now + 50_000 { try await Task.sleep(for: .nanoseconds(Int64(due - now))) }
      let text = "\(label) \(index)"
      sentAt[text] = monotonicNanos()
      try await sender.send(text, to: room, clientMessageID: UUID(), on: link)
    }
    let sendRate = Double(count) / (Double(monotonicNanos() - start) / 1e9)
    let deadline = monotonicNanos() + 120_000_000_000
    while try receiver.store.syncCursor(of: room) < target {
      guard monotonicNanos() < deadline else {
        throw BenchmarkError("P6 \(label): messages were lost (the store never reached #\(target))")
      }
      try await Task.sleep(for: .milliseconds(2))
    }
    try await Task.sleep(for: .milliseconds(20))
    let delivered = timing.deliveries.dropFirst(before)
    let latencies = delivered.compactMap { delivery in
      sentAt[delivery.text].map { delivery.at - $0 }
    }
    return (latencies, latencies.count, sendRate)
  }

  func stop() async {
    await receiver.stop()
    await sender.close()
    draining.cancel()
    await server.stop()
  }
}

/// A logger that says nothing below critical.
let quietLogger: Logger = {
  var logger = Logger(label: "bench")
  logger.logLevel = .critical
  return logger
}()

/// Opens `channel`, whose events nothing else reads: returns the link its first connect named,
/// and the task that reads and drops its later events (acks), so they do not pile up.
func openDraining(
  _ channel: SocketChatChannel
) async throws -> (link: ConnectionLink, draining: Task<Void, Never>) {
  let (links, found) = AsyncStream<ConnectionLink>.makeStream()
  let events = channel.events
  let draining = Task {
    for await event in events {
      if case .state(.connected, let link?) = event { found.yield(link) }
    }
    found.finish()
  }
  await channel.open()
  for await link in links { return (link, draining) }
  throw BenchmarkError("the sender's socket never connected")
}

/// An in-process server with the demo community, no rate limits, listening on loopback.
func startBenchmarkServer() async throws -> (QappleServer, URL) {
  let server = try QappleServer(
    configuration: ServerConfiguration(
      seed: .demo, rateLimit: nil, logLevel: .critical, realtimeFrameLimit: nil))
  return (server, try await server.start())
}

/// A live client of `url` signed in with the demo dev token `token`.
func signedIn(_ token: String, at url: URL) async throws -> (LiveBackend, User) {
  var configuration = LiveConfiguration(
    baseURL: url, credentialStore: MemoryCredentials(), logger: quietLogger)
  configuration.networkLogLevel = .trace
  let backend = LiveBackend(configuration: configuration)
  guard case .signedIn(let session) = try await backend.repositories.auth.signIn(.dev, token)
  else { throw BenchmarkError("the demo account \(token) is missing") }
  return (backend, session.user)
}

struct BenchmarkError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// Credentials in memory (the benchmark's sessions end with it).
actor MemoryCredentials: CredentialStore {
  private var stored: Credentials?
  func credentials() -> Credentials? { stored }
  func save(_ credentials: Credentials) { stored = credentials }
  func clear() { stored = nil }
}

func percentile(_ values: [UInt64], _ p: Double) -> Double {
  let sorted = values.sorted()
  guard !sorted.isEmpty else { return .nan }
  let index = min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)
  return Double(sorted[max(0, index)]) / 1e6
}

func p6() async throws -> Bool {
  let rig = try await DeliveryRig.start()
  // Warm-up: connections, prepared statements, caches.
  _ = try await rig.run("warmup", count: 1_000, rate: 1_000)
  let paced = try await rig.run("paced", count: 5_000, rate: 1_000)
  let p50 = percentile(paced.latencies, 0.50)
  let p99 = percentile(paced.latencies, 0.99)
  let latencyMet = p99 <= 10 && paced.live == 5_000
  print(
    String(
      format:
        "P6 delivery latency, sender socket -> server -> receiver engine stored, 5,000 messages "
        + "at 1,000/s (%d arrived live): p50 %.2f ms, p99 %.2f ms, max %.2f ms, goal p99 <= 10 "
        + "ms: %@", paced.live, p50, p99, percentile(paced.latencies, 1.0),
      latencyMet ? "met" : "MISSED"))
  // Throughput: the highest rate at which one connection keeps every message live (none cut
  // off into a REST catch-up) and the receiver keeps up (p99 under 100 ms).
  var sustained = 0.0
  for rate in [1_500.0, 2_000, 2_500, 3_000, 3_500, 4_000, 4_500, 5_000, 6_000, 7_500, 10_000] {
    let run = try await rig.run("rate \(Int(rate))", count: 10_000, rate: rate)
    let p99 = percentile(run.latencies, 0.99)
    let kept = run.live == 10_000 && p99 < 100 && run.sendRate >= rate * 0.9
    print(
      String(
        format: "P6   %6.0f/s asked, %6.0f/s sent: %5d of 10,000 live, p99 %.1f ms: %@", rate,
        run.sendRate, run.live, p99, kept ? "kept up" : "did not keep up"))
    guard kept else { break }
    sustained = rate
  }
  let rateMet = sustained >= 5_000
  print(
    String(
      format:
        "P6 throughput: one connection sustains %.0f messages/s (every one live, p99 < 100 ms), "
        + "goal >= 5,000: %@", sustained, rateMet ? "met" : "MISSED"))
  await rig.stop()
  return latencyMet && rateMet
}
