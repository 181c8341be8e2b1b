import ChatCore
import Domain
import Foundation
import Logging
import Persistence
import Repositories
import TestSupport
import Testing

/// `ChatHost`: one engine per signed-in user, whatever the timing of the calls that ask for it.
@Suite("ChatHost", .timeLimit(.minutes(1)))
struct ChatHostTests {
  /// A channel whose `close()` waits until the test opens its gate (a socket slow to close).
  final class SlowClosingChannel: ChatChannel, Sendable {
    let events: AsyncStream<ChatChannelEvent>
    private let continuation: AsyncStream<ChatChannelEvent>.Continuation
    private let gate = Locked<(isOpen: Bool, waiting: [CheckedContinuation<Void, Never>])>(
      (false, []))

    init() { (events, continuation) = AsyncStream.makeStream() }

    /// Lets every waiting and later `close()` finish.
    func openGate() {
      let waiting = gate.withLock { gate in
        gate.isOpen = true
        defer { gate.waiting = [] }
        return gate.waiting
      }
      for closing in waiting { closing.resume() }
    }

    func open() async {}
    func close() async {
      await withCheckedContinuation { closing in
        let isOpen = gate.withLock { gate in
          if !gate.isOpen { gate.waiting.append(closing) }
          return gate.isOpen
        }
        if isOpen { closing.resume() }
      }
      continuation.finish()
    }
    func subscribe(to room: ChatRoom.ID, afterSeq: Int64, on link: ConnectionLink) async throws {
      throw DomainError.offline
    }
    func unsubscribe(from room: ChatRoom.ID, on link: ConnectionLink) async throws {
      throw DomainError.offline
    }
    func send(
      _ text: String, to room: ChatRoom.ID, clientMessageID: UUID, on link: ConnectionLink
    ) async throws {
      throw DomainError.offline
    }
    func typing(in room: ChatRoom.ID, on link: ConnectionLink) async throws {
      throw DomainError.offline
    }
  }

  static func user(_ id: String) -> User {
    User(id: User.ID(rawValue: id), nickname: Nickname(trusted: id), joinedAt: Date())
  }

  @Test("a directory storage opens each file once per process, again after it was closed")
  func oneStorePerFile() throws {
    let folder = try TemporaryDirectory("storage")
    defer { folder.remove() }
    let storage = ChatStorage.directory(folder.url)
    let logger = Logger(label: "test")
    let first = try storage.open(for: "u_a", logger: logger)
    #expect(try storage.open(for: "u_a", logger: logger) === first)
    #expect(try storage.open(for: "u_b", logger: logger) !== first)
    try first.saveRooms([ChatRoom(id: "room_1", kind: .group("g_1"), title: "Study")])
    try first.close()
    #expect(first.isClosed)
    let reopened = try storage.open(for: "u_a", logger: logger)
    #expect(reopened !== first)
    #expect(try reopened.rooms().map(\.title) == ["Study"])
  }

  @Test("a store found damaged after opening is started over by the next engine")
  func damagedStoreStartsOver() async throws {
    let folder = try TemporaryDirectory("host")
    defer { folder.remove() }
    // A cache whose schema pages are whole but whose table pages are overwritten.
    let path = folder.path("u_a.sqlite")
    let written = try ChatStore(at: .file(path: path), owner: "u_a")
    try written.saveRooms([ChatRoom(id: "room_1", kind: .group("g_1"), title: "Study")])
    try written.close()
    try damageTables(["room", "message"], ofDatabaseAt: path)

    let channel = SlowClosingChannel()
    channel.openGate()
    let host = ChatHost(
      ChatHost.Environment(
        sessionStates: {
          Broadcaster<SessionState>(replaysLatest: true, initial: .signedIn(Self.user("u_a")))
            .subscribe()
        },
        storage: .directory(folder.url), makeChannel: { _ in channel }, server: ChatRepository(),
        options: ChatSyncOptions(retryDelay: { _ in .seconds(1) })))
    let first = try await host.engine()
    #expect(throws: PersistenceError.self) { try first.store.rooms() }
    #expect(first.store.damaged != nil)

    let second = try await host.engine()
    #expect(second !== first)
    #expect(try second.store.rooms().isEmpty)
    #expect(FileManager.default.fileExists(atPath: path + ".broken"))
    await host.stop()
  }

  @Test("session states the last engine's watcher hears late never stop the next user's engine")
  func staleSessionStatesLeaveTheNewEngine() async throws {
    let session = Broadcaster<SessionState>(
      replaysLatest: true, initial: .signedIn(Self.user("u_a")))
    // The first engine's watcher (the second reader) hears what happens only when the test
    // lets it: after the next user's engine has started.
    let late = AsyncStream.makeStream(of: SessionState.self)
    late.continuation.yield(.signedIn(Self.user("u_a")))
    let readers = Locked(0)
    let sessionStates: @Sendable () -> AsyncStream<SessionState> = {
      let reader = readers.withLock { count in
        count += 1
        return count
      }
      return reader == 2 ? late.stream : session.subscribe()
    }
    let host = ChatHost(
      ChatHost.Environment(
        sessionStates: sessionStates, storage: .inMemory,
        makeChannel: { _ in
          let channel = SlowClosingChannel()
          channel.openGate()
          return channel
        },
        server: ChatRepository(), options: ChatSyncOptions(retryDelay: { _ in .seconds(1) })))
    #expect(try await host.engine().me.id == "u_a")
    // A signs out and B signs in, back to back; the screen asks for B's engine at once.
    session.publish(.signedOut)
    session.publish(.signedIn(Self.user("u_b")))
    let b = try await host.engine()
    #expect(b.me.id == "u_b")
    // Now the old watcher hears A's sign-out and B's sign-in: old news for B's engine.
    late.continuation.yield(.signedOut)
    late.continuation.yield(.signedIn(Self.user("u_b")))
    let stopped = await poll(timeout: .milliseconds(500)) { await host.runningEngine == nil }
    #expect(!stopped, "B's engine was stopped by A's sign-out")
    #expect(await host.runningEngine === b)
    // B's own sign-out still stops it: its streams end.
    let states = b.connectionStates()
    session.publish(.signedOut)
    for await _ in states {}
    late.continuation.finish()
  }

  @Test("two calls while the last user's engine is still closing get the new user's one engine")
  func oneEnginePerUser() async throws {
    let session = Broadcaster<SessionState>(
      replaysLatest: true, initial: .signedIn(Self.user("u_a")))
    // The host's own session watcher (the second reader) hears of the change late, so the
    // engine calls stop the last user's engine themselves.
    let readers = Locked(0)
    let sessionStates: @Sendable () -> AsyncStream<SessionState> = {
      let reader = readers.withLock { count in
        count += 1
        return count
      }
      guard reader == 2 else { return session.subscribe() }
      return AsyncStream { $0.yield(.signedIn(Self.user("u_a"))) }
    }
    let channels = Locked<[User.ID: [SlowClosingChannel]]>([:])
    let host = ChatHost(
      ChatHost.Environment(
        sessionStates: sessionStates, storage: .inMemory,
        makeChannel: { user in
          let channel = SlowClosingChannel()
          channels.withLock { $0[user, default: []].append(channel) }
          return channel
        },
        server: ChatRepository(), options: ChatSyncOptions(retryDelay: { _ in .seconds(1) })))
    let first = try await host.engine()
    #expect(first.me.id == "u_a")
    // Another user signs in; two reads ask for the engine while the old one closes slowly.
    // The first to ask stops it; the second starts the new engine meanwhile.
    session.publish(.signedIn(Self.user("u_b")))
    async let one = host.engine()
    async let two = host.engine()
    try await Task.sleep(for: .milliseconds(50))
    channels.withLock { $0["u_a"]?.forEach { $0.openGate() } }
    let (a, b) = try await (one, two)
    #expect(a === b)
    #expect(a.me.id == "u_b")
    #expect(channels.withLock { $0["u_b"]?.count } == 1)
    channels.withLock { $0["u_b"]?.forEach { $0.openGate() } }
    await host.stop()
  }
}
