import ChatCore
import Domain
import Foundation
import LocalServer
import Persistence
import Repositories
import RepositoriesLive
import TestSupport
import Testing

/// The live chat engine end to end: `ChatSync` + `ChatStore` + `/realtime` + REST against an
/// in-process server, with real sockets and real time (the socket's heartbeat and reconnects
/// run on a continuous clock).
@Suite("Chat sync over /realtime (live)", .timeLimit(.minutes(3)))
struct ChatSyncTests {
  /// A server, two members in one group room, and a way to make their clients.
  struct World {
    let server: LiveScenarioBackend
    let owner: Member
    let member: Member
    let room: ChatRoom.ID

    /// A new member with a chat-capable client (a continuous clock: the heartbeat must not
    /// spin on the scenarios' immediate clock).
    func newMember(_ nickname: String) async throws -> Member {
      try await ChatSyncTests.member(nickname, on: server)
    }
  }

  struct Member {
    let backend: LiveBackend
    let user: User
    var summary: UserSummary { UserSummary(id: user.id, nickname: user.nickname.rawValue) }
  }

  static func member(_ nickname: String, on server: LiveScenarioBackend) async throws -> Member {
    let backend = server.makeLiveClient(retryClock: ContinuousClock())
    let user = try await server.signUp(backend.repositories, nickname: nickname)
    return Member(backend: backend, user: user)
  }

  static func world(
    socketFaults: SocketFaults = SocketFaults(),
    database: ServerConfiguration.Database = .inMemory
  ) async throws -> World {
    let server = try await LiveScenarioBackend.start(
      socketFaults: socketFaults, database: database)
    let owner = try await member("Owner", on: server)
    let member = try await member("Member", on: server)
    let group = try await owner.backend.repositories.studyGroups.createGroup(
      StudyGroupDraft(name: "Sync"))
    _ = try await member.backend.repositories.studyGroups.joinGroup(group.id)
    let rooms = try await owner.backend.repositories.chat.fetchRooms(.first)
    let room = try #require(rooms.items.first { $0.kind == .group(group.id) })
    return World(server: server, owner: owner, member: member, room: room.id)
  }

  /// A started engine of `member` on `store`, with `room` open.
  static func started(_ member: Member, _ store: ChatStore, room: ChatRoom.ID) async -> ChatSync {
    let sync = ChatSync(backend: member.backend, store: store, me: member.summary)
    await sync.start()
    await sync.open(room)
    return sync
  }

  /// Started engines of the world's owner and member, each on its own in-memory store.
  static func startedPair(
    _ world: World
  ) async throws -> (
    ownerStore: ChatStore, memberStore: ChatStore, owner: ChatSync, member: ChatSync
  ) {
    let ownerStore = try ChatStore(at: .inMemory, owner: world.owner.user.id)
    let memberStore = try ChatStore(at: .inMemory, owner: world.member.user.id)
    let owner = await started(world.owner, ownerStore, room: world.room)
    let member = await started(world.member, memberStore, room: world.room)
    return (ownerStore, memberStore, owner, member)
  }

  /// Waits until the store's room holds `count` sent messages (and returns them); records an
  /// issue and returns what it holds after 120 s.
  static func waitForSent(
    _ count: Int, in store: ChatStore, room: ChatRoom.ID,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> [ChatMessage] {
    var latest: [ChatMessage] = []
    let sent = { latest.filter { $0.deliveryState == .sent } }
    let reached = try await eventually(
      "the store holds \(count) sent messages", timeout: .seconds(120),
      step: every(.milliseconds(10)), sourceLocation: sourceLocation
    ) {
      latest = try store.latestMessages(in: room, limit: count + 10)
      return sent().count >= count
    }
    return reached ? sent() : latest
  }

  @Test("sent, received live, caught up after being away: every message once, in seq order")
  func liveAndCatchUp() async throws {
    let world = try await Self.world()
    defer { Task { await world.server.shutdown() } }
    let (ownerStore, memberStore, ownerSync, firstMemberSync) = try await Self.startedPair(world)
    var memberSync = firstMemberSync

    for index in 1...30 { try await ownerSync.send("live \(index)", to: world.room) }
    let live = try await Self.waitForSent(30, in: memberStore, room: world.room)
    #expect(live.map(\.seq) == (1...30).map { Optional(Int64($0)) })
    #expect(live.map(\.text) == (1...30).map { "live \($0)" })
    let mine = try await Self.waitForSent(30, in: ownerStore, room: world.room)
    #expect(mine.map(\.seq) == (1...30).map { Optional(Int64($0)) })
    #expect(try ownerStore.outbox().isEmpty)

    // The member goes away; 20 more arrive; a new engine on the same store catches up.
    await memberSync.stop()
    for index in 31...50 { try await ownerSync.send("while away \(index)", to: world.room) }
    _ = try await Self.waitForSent(50, in: ownerStore, room: world.room)
    memberSync = await Self.started(world.member, memberStore, room: world.room)
    let all = try await Self.waitForSent(50, in: memberStore, room: world.room)
    #expect(all.map(\.seq) == (1...50).map { Optional(Int64($0)) })
    #expect(try memberStore.syncCursor(of: world.room) == 50)
    await ownerSync.stop()
    await memberSync.stop()
  }

  /// The outbox a closed app left (nothing went out before) is sent after the restart, once
  /// each. A restart after sends whose answers were lost with the process is
  /// `ToolsTests/ChatCrashTests` (a real process killed mid-send).
  @Test("an outbox written before a restart is delivered after it, once each, in order")
  func outboxAcrossRestart() async throws {
    let world = try await Self.world()
    defer { Task { await world.server.shutdown() } }
    let folder = try TemporaryDirectory("chat-sync")
    defer { folder.remove() }
    let path = folder.path("cache.sqlite")
    do {
      // Written while the engine never started: pending, on disk.
      let store = try ChatStore(at: .file(path: path), owner: world.owner.user.id)
      let sync = ChatSync(backend: world.owner.backend, store: store, me: world.owner.summary)
      for index in 1...5 { try await sync.send("queued \(index)", to: world.room) }
      #expect(try store.outbox().count == 5)
      #expect(try store.outbox().allSatisfy { $0.deliveryState != .sent })
      try store.close()
    }
    let store = try ChatStore(at: .file(path: path), owner: world.owner.user.id)
    let sync = ChatSync(backend: world.owner.backend, store: store, me: world.owner.summary)
    await sync.start()
    await sync.open(world.room)
    let sent = try await Self.waitForSent(5, in: store, room: world.room)
    #expect(sent.map(\.text) == (1...5).map { "queued \($0)" })
    let history = try await world.member.backend.repositories.chat.fetchMessages(
      world.room, 0, nil, 100)
    #expect(history.map(\.seq) == [1, 2, 3, 4, 5])
    await sync.stop()
    try store.close()
  }

  @Test(
    "a send the server's database fails for now goes again before the later one: the history keeps the order they were written in"
  )
  func sendFailedForNowKeepsTheOrder() async throws {
    let folder = try TemporaryDirectory("chat-sync")
    defer { folder.remove() }
    let path = folder.path("server.sqlite")
    let world = try await Self.world(database: .file(path: path))
    defer { Task { await world.server.shutdown() } }
    let store = try ChatStore(at: .inMemory, owner: world.owner.user.id)
    let sync = await Self.started(world.owner, store, room: world.room)
    var states = sync.connectionStates().makeAsyncIterator()
    while let state = await states.next(), state != .connected {}

    try failInserts(into: "chat_message", when: "NEW.text = 'first'", ofDatabaseAt: path)
    try await sync.send("first", to: world.room)
    try await sync.send("second", to: world.room)
    // The server refuses "first" and closes the socket, running nothing after it.
    while let state = await states.next(), state == .connected {}
    try allowInserts(into: "chat_message", ofDatabaseAt: path)

    let sent = try await Self.waitForSent(2, in: store, room: world.room)
    #expect(sent.map(\.text) == ["first", "second"])
    let history = try await world.member.backend.repositories.chat.fetchMessages(
      world.room, 0, nil, 100)
    #expect(history.map(\.text) == ["first", "second"])
    #expect(history.map(\.seq) == [1, 2])
    await sync.stop()
  }

  @Test("a refused send fails with the server's reason and can be deleted")
  func refusedSend() async throws {
    let world = try await Self.world()
    defer { Task { await world.server.shutdown() } }
    let outsider = try await world.newMember("Outsider")
    let store = try ChatStore(at: .inMemory, owner: outsider.user.id)
    let sync = ChatSync(backend: outsider.backend, store: store, me: outsider.summary)
    await sync.start()
    let pending = try await sync.send("let me in", to: world.room)
    #expect(pending.deliveryState == .pending)
    var failure: String?
    for try await outbox in store.observeOutbox() {
      if case .failed(let reason) = outbox.first?.deliveryState {
        failure = reason
        break
      }
    }
    #expect(failure?.isEmpty == false)
    try await sync.delete(pending.clientMessageID)
    #expect(try store.outbox().isEmpty)
    await sync.stop()
  }

  @Test("under socket faults (duplicates, reordering, drops) nothing is lost or doubled")
  func underSocketFaults() async throws {
    let world = try await Self.world(
      socketFaults: SocketFaults(dropRate: 0.02, duplicateRate: 0.2, reorderRate: 0.2))
    defer { Task { await world.server.shutdown() } }
    let (ownerStore, memberStore, ownerSync, memberSync) = try await Self.startedPair(world)
    for index in 1...100 { try await ownerSync.send("m\(index)", to: world.room) }
    let received = try await Self.waitForSent(100, in: memberStore, room: world.room)
    let sent = try await Self.waitForSent(100, in: ownerStore, room: world.room)
    #expect(received.map(\.seq) == (1...100).map { Optional(Int64($0)) })
    #expect(Set(received.map(\.text)) == Set((1...100).map { "m\($0)" }))
    #expect(sent.map(\.seq) == received.map(\.seq))
    let history = try await world.member.backend.repositories.chat.fetchMessages(
      world.room, 0, nil, 100)
    #expect(history.count == 100)
    await ownerSync.stop()
    await memberSync.stop()
  }
}
