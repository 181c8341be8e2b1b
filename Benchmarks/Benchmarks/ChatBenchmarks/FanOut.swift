import DTO
import Domain
import Foundation
import HTTPTypes
import LocalServer
import NetworkKit
import Repositories
import RepositoriesLive

// Fan-out (informational, no goal): one sender's messages to every other member of a group
// room. The nine other demo members listen on raw `/realtime` WebSockets that count `message`
// frames without decoding them, so the client side costs little and the rate is the server's:
// one `send` in, nine `message` frames out per message. Sender, server and receivers share the
// process's two cores.

/// Counts the `message` frames a receiving socket got and notes when it has them all.
final class ArrivalCounter: Sendable {
  private let state = Locked<(count: Int, target: Int, done: UInt64?)>((0, .max, nil))

  func expect(_ target: Int) { state.withLock { $0 = (0, target, nil) } }

  func received() {
    let now = monotonicNanos()
    state.withLock { state in
      state.count += 1
      if state.count >= state.target, state.done == nil { state.done = now }
    }
  }

  /// When the last expected message arrived, if it has.
  var done: UInt64? { state.withLock(\.done) }
}

func fanOut() async throws {
  let (server, url) = try await startBenchmarkServer()
  let (senderBackend, senderUser) = try await signedIn("demo-1", at: url)
  let group = try await senderBackend.repositories.studyGroups.createGroup(
    StudyGroupDraft(name: "Fan-out bench"))
  let socketURL = URL(string: "ws://\(url.host ?? "127.0.0.1"):\(url.port ?? 0)/realtime")!
  let transport = HummingbirdWebSocketTransport()
  var receivers: [(any WebSocket, ArrivalCounter, Task<Void, Never>)] = []
  var room: ChatRoom.ID?
  for index in 2...10 {
    let backend = LiveBackend(
      configuration: LiveConfiguration(
        baseURL: url, credentialStore: MemoryCredentials(), logger: quietLogger))
    guard
      case .signedIn(let session) = try await backend.repositories.auth.signIn(
        .dev, "demo-\(index)")
    else { throw BenchmarkError("fan-out: demo-\(index) is missing") }
    _ = try await backend.repositories.studyGroups.joinGroup(group.id)
    room = try await backend.repositories.chat.fetchRooms(PageRequest(limit: 100)).items
      .first { $0.kind == .group(group.id) }?.id
    var headers = HTTPFields()
    headers[.authorization] = "Bearer \(session.accessToken)"
    let socket = try await transport.connect(to: socketURL, headerFields: headers)
    let counter = ArrivalCounter()
    let counting = Task {
      do {
        for try await frame in socket.frames {
          if case .text(let text) = frame, text.contains(#""type":"message""#) {
            counter.received()
          }
        }
      } catch {}
    }
    receivers.append((socket, counter, counting))
  }
  guard let room else { throw BenchmarkError("fan-out: the group has no room") }
  for (socket, _, _) in receivers {
    try await socket.send(.text(ClientFrame.subscribe(roomID: room.rawValue, afterSeq: nil).text))
  }
  let sender = SocketChatChannel(backend: senderBackend, for: senderUser.id)
  let (link, draining) = try await openDraining(sender)
  try await Task.sleep(for: .milliseconds(200))

  /// Sends `count` messages as fast as the socket takes them; the seconds until every receiver
  /// has all of them.
  func burst(_ label: String, _ count: Int) async throws -> Double {
    for (_, counter, _) in receivers { counter.expect(count) }
    let start = monotonicNanos()
    for index in 0..<count {
      try await sender.send("\(label) \(index)", to: room, clientMessageID: UUID(), on: link)
    }
    let deadline = start + 120_000_000_000
    while receivers.contains(where: { $0.1.done == nil }) {
      guard monotonicNanos() < deadline else {
        throw BenchmarkError("fan-out \(label): a receiver never got every message")
      }
      try await Task.sleep(for: .milliseconds(2))
    }
    let end = receivers.compactMap { $0.1.done }.max() ?? start
    return Double(end - start) / 1e9
  }
  _ = try await burst("warmup", 1_000)
  var rates: [Double] = []
  for run in 0..<3 {
    rates.append(5_000 / (try await burst("run \(run)", 5_000)))
  }
  let best = rates.max() ?? 0
  print(
    String(
      format:
        "Fan-out, 1 sender -> server -> %d raw sockets in one group room, 5,000 messages as "
        + "fast as sent (3 runs): %@ messages/s; best %.0f/s = %.0f frames out/s",
      receivers.count, rates.map { String(format: "%.0f", $0) }.joined(separator: ", "), best,
      best * Double(receivers.count)))
  for (socket, _, counting) in receivers {
    await socket.close(.normalClosure, reason: nil)
    counting.cancel()
  }
  await sender.close()
  draining.cancel()
  await server.stop()
}
