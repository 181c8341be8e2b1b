import ChatCore
import Domain
import Foundation
import NetworkKit
import NetworkKitTesting
import Persistence
import Repositories
import RepositoriesLive
import Testing

/// Chaos (issue 7 §5): 4 clients x 2,500 messages into one room, against a `qapple-server --dev`
/// process with sockets dropped at random, 10 % of REST calls answering 503 (every route, not
/// only `/chat`), and frames duplicated and reordered; every client ends with the same 10,000
/// messages in the same `seq` order, none lost, none doubled.
///
/// The fault used to be limited to `/chat` (no reason was written down). The evident one: the
/// setup's sign-ins are POSTs without an `Idempotency-Key`, which no client retries, so under a
/// fault on every route five of them would fail the setup in about 4 runs of 10 (1 - 0.9^5).
/// The setup calls (the test's own, not the chat clients') now go through ``throughFaults(_:)``,
/// and the fault covers every REST call the chat clients make: today all of them are under
/// `/chat` (rooms, history pages, sends while the socket is down), and any other route they come
/// to call (a token refresh, say) is faulted as well.
///
/// It loads both cores for minutes, which would push the time-limited tests running beside it
/// over their limits, so it runs alone: `QAPPLE_CHAOS=1 swift test --skip-build --filter
/// ChatChaosTests` (CI's "chaos" step).
@Suite("Chat chaos against qapple-server --dev")
struct ChatChaosTests {
  @Test(
    "4 clients x 2,500 messages under socket drops, 5xx, duplicates, reordering",
    .enabled(if: ProcessInfo.processInfo.environment["QAPPLE_CHAOS"] == "1"),
    .timeLimit(.minutes(15)))
  func chaos() async throws {
    let server = try await ToolProcess.startServer([
      "--dev", "--seed", "demo", "--rate-limit", "off", "--realtime-frame-limit", "off",
      "--fault", "error-rate=0.1,status=503",
      "--socket-fault", "drop-rate=0.0005,duplicate-rate=0.05,reorder-rate=0.05",
      "--log-level", "error",
    ])
    defer { server.stop() }

    // Four demo members, each with its own live client (REST + socket, real time).
    var members: [(backend: LiveBackend, me: UserSummary)] = []
    for token in ["demo-1", "demo-2", "demo-3", "demo-4"] {
      var configuration = LiveConfiguration(
        baseURL: server.url, credentialStore: InMemoryCredentialStore(), timeout: .seconds(30))
      configuration.logger.logLevel = .critical
      let backend = LiveBackend(configuration: configuration)
      let signIn = try await Self.throughFaults {
        try await backend.repositories.auth.signIn(.dev, token)
      }
      guard case .signedIn(let session) = signIn else {
        throw ServerStartFailure(description: "\(token) is not a demo member")
      }
      members.append(
        (backend, UserSummary(id: session.user.id, nickname: session.user.nickname.rawValue)))
    }
    let owner = members[0].backend.repositories
    // The test's own REST reads (the room, the server's history) go through a checker that
    // retries up to 12 times: 101 history pages with a 10 % fault each and the default 3
    // attempts failed the read about one run in ten (one did, in a fresh-clone CI run).
    var checking = LiveConfiguration(
      baseURL: server.url, credentialStore: InMemoryCredentialStore(), timeout: .seconds(30),
      retryPolicy: RetryPolicy(maxAttempts: 12))
    checking.logger.logLevel = .critical
    let checker = LiveBackend(configuration: checking).repositories
    _ = try await Self.throughFaults { try await checker.auth.signIn(.dev, "demo-1") }
    let group = try await Self.throughFaults {
      try await owner.studyGroups.createGroup(StudyGroupDraft(name: "Chaos"))
    }
    for member in members.dropFirst() {
      _ = try await Self.throughFaults {
        try await member.backend.repositories.studyGroups.joinGroup(group.id)
      }
    }
    let room = try #require(
      try await checker.chat.fetchRooms(.first).items.first { $0.kind == .group(group.id) }
    ).id

    var clients: [(store: ChatStore, sync: ChatSync)] = []
    // Each client's count of connections made: more than one means a socket was dropped and
    // the engine reconnected (proof that the socket faults fired).
    var connections: [Task<Int, Never>] = []
    for member in members {
      let store = try ChatStore(at: .inMemory, owner: member.me.id)
      let sync = ChatSync(backend: member.backend, store: store, me: member.me)
      let states = sync.connectionStates()
      connections.append(
        Task {
          var count = 0
          for await state in states where state == .connected { count += 1 }
          return count
        })
      await sync.start()
      await sync.open(room)
      clients.append((store, sync))
    }
    let perClient = 2_500
    let total = perClient * clients.count
    let started = ContinuousClock.now
    try await withThrowingTaskGroup(of: Void.self) { group in
      for (index, client) in clients.enumerated() {
        group.addTask {
          for number in 1...perClient {
            try await client.sync.send("c\(index)-\(number)", to: room)
          }
        }
      }
      try await group.waitForAll()
    }
    // Wait (up to 5 minutes) until every store's cursor covers all messages.
    let deadline = ContinuousClock.now + .seconds(300)
    for client in clients {
      while try client.store.syncCursor(of: room) < Int64(total)
        || !(try client.store.outbox().isEmpty)
      {
        guard ContinuousClock.now < deadline else { break }
        try await Task.sleep(for: .milliseconds(200))
      }
    }
    let elapsed = ContinuousClock.now - started
    var orders: [[String]] = []
    for client in clients {
      let messages = try client.store.latestMessages(in: room, limit: total + 100)
      #expect(messages.count == total)
      #expect(messages.map(\.seq) == (1...total).map { Optional(Int64($0)) })
      #expect(messages.allSatisfy { $0.deliveryState == .sent })
      orders.append(messages.map(\.text))
      await client.sync.stop()
    }
    #expect(Set(orders.map { $0.joined(separator: ",") }).count == 1, "clients disagree")
    #expect(Set(orders[0]).count == total, "a message is missing or doubled")
    // Each sender's messages keep the order they were written in.
    var outOfOrder = 0
    for index in clients.indices {
      let numbers = orders[0].compactMap { text -> Int? in
        guard text.hasPrefix("c\(index)-") else { return nil }
        return Int(text.dropFirst("c\(index)-".count))
      }
      outOfOrder += zip(numbers, numbers.dropFirst()).filter { $0 >= $1 }.count
    }
    #expect(outOfOrder == 0, "a sender's messages were stored out of the order they were sent")
    // The server's own history agrees: exactly the 10,000 messages, once each.
    var history: [ChatMessage] = []
    var after: Int64 = 0
    while true {
      let page = try await checker.chat.fetchMessages(room, after, nil, 100)
      history += page
      guard let last = page.last?.seq, page.count == 100 else { break }
      after = last
    }
    #expect(history.map(\.text) == orders[0])
    var connected: [Int] = []
    for task in connections { connected.append(await task.value) }
    #expect(
      connected.reduce(0, +) > clients.count, "no socket was dropped: the faults did not fire")
    print(
      "chat chaos (qapple-server --dev process): \(clients.count) clients x \(perClient) "
        + "messages, \(orders[0].count) in every store, \(total - Set(orders[0]).count) lost or "
        + "doubled, \(outOfOrder) out of their sender's order, server history \(history.count), connections per client \(connected), "
        + "\(elapsed)")
  }

  /// One setup call of the test itself (not of a chat client under test), tried until it gets
  /// through the injected 503s: the server fails a call before handling it, so a retry is safe,
  /// and 20 tries all failing at 10 % is a 1e-20 event.
  private static func throughFaults<Value>(_ call: () async throws -> Value) async throws -> Value {
    for _ in 1..<20 {
      do {
        return try await call()
      } catch {
        continue
      }
    }
    return try await call()
  }
}
