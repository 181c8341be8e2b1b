import ChatCore
import Domain
import Foundation
import Repositories
import TestSupport
import Testing

/// What the engine asked of a ``ScriptedChannel``.
enum ChannelCall: Hashable, Sendable {
  case subscribe(ChatRoom.ID, afterSeq: Int64)
  case unsubscribe(ChatRoom.ID)
  case send(ChatRoom.ID, String, UUID)
  case typing(ChatRoom.ID)

  var subscribe: ChannelCall? { if case .subscribe = self { self } else { nil } }
  var unsubscribe: ChannelCall? { if case .unsubscribe = self { self } else { nil } }
  var send: ChannelCall? { if case .send = self { self } else { nil } }
  var isSubscription: Bool { subscribe != nil }
}

/// A channel the test drives: it records every call and emits what the test tells it to.
/// Calls throw `DomainError.offline` unless the last emitted state is `.connected` and the call
/// names its link (``moveOn(to:)`` changes the link without telling the engine yet).
final class ScriptedChannel: ChatChannel, @unchecked Sendable {
  let events: AsyncStream<ChatChannelEvent>
  private let continuation: AsyncStream<ChatChannelEvent>.Continuation
  // Guarded by `lock`.
  private let lock = NSLock()
  private var recorded: [ChannelCall] = []
  private var consumed = 0
  private var connected = false
  private var link = ConnectionLink(0)
  private var holdsSends = false
  private var holdsUnsubscribe = false
  private var heldSend: CheckedContinuation<Void, any Error>?

  init() {
    (events, continuation) = AsyncStream.makeStream()
  }

  /// Every call so far.
  var calls: [ChannelCall] { lock.withLock { recorded } }

  /// Sends `event` to the engine.
  func emit(_ event: ChatChannelEvent) {
    if case .state(let state, let link) = event {
      lock.withLock {
        connected = state == .connected
        self.link = link ?? ConnectionLink(0)  // the engine reads a `.connected` without one so
      }
    }
    continuation.yield(event)
  }

  /// Connects on `link` (a reconnect) without telling the engine: its calls naming the link
  /// it last heard of fail until the test emits `.state(.connected, link: link)`.
  func moveOn(to link: ConnectionLink) {
    lock.withLock {
      connected = true
      self.link = link
    }
  }

  /// The next call not returned yet that `match` accepts (earlier ones it skips).
  func next(_ match: @escaping (ChannelCall) -> ChannelCall?) async throws -> ChannelCall {
    var found: ChannelCall?
    let made = await poll {
      found = lock.withLock {
        while consumed < recorded.count {
          defer { consumed += 1 }
          if let call = match(recorded[consumed]) { return call }
        }
        return nil
      }
      return found != nil
    }
    guard made, let found else {
      throw ScriptError(description: "the engine made no such call; calls: \(calls)")
    }
    return found
  }

  private func record(_ call: ChannelCall, on link: ConnectionLink) throws {
    try lock.withLock {
      guard connected, link == self.link else { throw DomainError.offline }
      recorded.append(call)
    }
  }

  func open() async {}
  func close() async { continuation.finish() }
  func subscribe(to room: ChatRoom.ID, afterSeq: Int64, on link: ConnectionLink) async throws {
    try record(.subscribe(room, afterSeq: afterSeq), on: link)
  }
  func unsubscribe(from room: ChatRoom.ID, on link: ConnectionLink) async throws {
    try record(.unsubscribe(room), on: link)
    try await withCheckedThrowingContinuation { continuation in
      let waits = lock.withLock {
        defer { holdsUnsubscribe = false }
        if holdsUnsubscribe { heldSend = continuation }
        return holdsUnsubscribe
      }
      if !waits { continuation.resume() }
    }
  }
  func send(
    _ text: String, to room: ChatRoom.ID, clientMessageID: UUID, on link: ConnectionLink
  ) async throws {
    try record(.send(room, text, clientMessageID), on: link)
    try await withCheckedThrowingContinuation { continuation in
      let waits = lock.withLock {
        if holdsSends { heldSend = continuation }
        return holdsSends
      }
      if !waits { continuation.resume() }
    }
  }

  /// Makes the next send wait, once recorded, until ``releaseHeldSend()`` (a frame still being
  /// written while its answer is already handled).
  func holdSends() { lock.withLock { holdsSends = true } }

  /// Makes the next unsubscribe (only that one) wait, once recorded, until
  /// ``releaseHeldSend(throwing:)``.
  func holdNextUnsubscribe() { lock.withLock { holdsUnsubscribe = true } }

  /// Lets the waiting send return, or throw `error` (the link went away while the frame was
  /// written); later sends do not wait.
  func releaseHeldSend(throwing error: DomainError? = nil) {
    let held = lock.withLock {
      holdsSends = false
      defer { heldSend = nil }
      return heldSend
    }
    if let error { held?.resume(throwing: error) } else { held?.resume() }
  }
  func typing(in room: ChatRoom.ID, on link: ConnectionLink) async throws {
    try record(.typing(room), on: link)
  }
}

struct ScriptError: Error, CustomStringConvertible {
  var description: String
}

/// The server's REST half for one room: numbered messages, `fetchMessages` as the server
/// answers it, and counters of what the engine asked.
actor ServerModel {
  private var stored: [ChatMessage] = []
  /// The `after_seq` of every forward fetch.
  private(set) var fetches: [Int64] = []
  /// How many fetches asked for the newest page (the reconcile after a catch-up).
  private(set) var newestFetches = 0
  /// How many messages came through `sendMessage`.
  private(set) var restSends = 0
  /// How many times `fetchRooms` was asked.
  private(set) var roomListings = 0
  /// How many `sendMessage` calls began (some may still wait for ``releaseSends()``).
  private(set) var restCalls = 0
  /// `seq`s moderation hid: fetches leave them out, as the service does.
  private var hidden: Set<Int64> = []
  /// How many of the next `sendMessage` calls store the message but lose the answer
  /// (`DomainError.timeout`).
  private var answersToLose = 0
  /// Errors the next `sendMessage` calls throw without storing anything, in order.
  private var sendFailures: [DomainError] = []
  /// `fetchMessages` answers wait while this holds (each read when it was asked);
  /// `heldFetches` counts those waiting.
  private var isHoldingFetches = false
  /// Fetches of the newest page (a catch-up's reconcile) fail with `.offline` while set.
  private var isFailingNewest = false
  private var fetchWaiters: [CheckedContinuation<Void, Never>] = []
  var heldFetches: Int { fetchWaiters.count }
  /// `sendMessage` calls wait while this holds.
  private var isHoldingSends = false
  private var heldSends: [CheckedContinuation<Void, Never>] = []
  /// The read cursor `markRead` moved, per room (never back); rooms are listed with it.
  private(set) var readMarks: [ChatRoom.ID: Int64] = [:]
  /// `markRead` fails with `.offline` while set.
  var isFailingReadMarks = false
  /// `markRead` of these rooms is refused for good (`forbidden`: the user left them).
  var refusingReadMarks: Set<ChatRoom.ID> = []
  /// How many `markRead` calls came.
  private(set) var readMarkCalls = 0
  /// The rooms `fetchRooms` lists, in order.
  private(set) var rooms = [
    ChatRoom(id: ChatSyncEngineTests.room, kind: .group("g_1"), title: "Room")
  ]

  /// Lists `count` rooms, `r_1` ... `r_<count>`.
  func listRooms(_ count: Int) {
    rooms = (1...count).map {
      ChatRoom(
        id: ChatRoom.ID(rawValue: "r_\($0)"), kind: .group(StudyGroup.ID(rawValue: "g_\($0)")),
        title: "Room \($0)")
    }
  }

  /// Lists no room (the user left them all).
  func unlistRooms() { rooms = [] }

  /// Lists `room` again (a rejoin).
  func relist(_ room: ChatRoom) { rooms = [room] }

  /// The rooms, counting the listing.
  func listed() -> [ChatRoom] {
    roomListings += 1
    return rooms.map { room in
      var room = room
      room.lastReadSeq = readMarks[room.id] ?? room.lastReadSeq
      return room
    }
  }

  func failReadMarks(_ failing: Bool) { isFailingReadMarks = failing }

  func refuseReadMarks(in room: ChatRoom.ID) { refusingReadMarks.insert(room) }

  func markedRead(_ room: ChatRoom.ID, _ seq: Int64) throws {
    readMarkCalls += 1
    if isFailingReadMarks { throw DomainError.offline }
    if refusingReadMarks.contains(room) { throw DomainError.forbidden }
    readMarks[room] = max(readMarks[room] ?? 0, seq)
  }

  /// Appends `count` messages by `sender`.
  func add(_ count: Int, by sender: UserSummary) {
    for _ in 0..<count { _ = accept("message \(stored.count + 1)", from: sender, id: UUID()) }
  }

  /// Stores a message (once per client id) and returns it.
  func accept(_ text: String, from sender: UserSummary, id: UUID) -> ChatMessage {
    if let existing = stored.first(where: { $0.clientMessageID == id }) { return existing }
    let seq = Int64(stored.count + 1)
    let message = ChatMessage(
      id: ChatMessage.ID(rawValue: "m_\(seq)"), roomID: ChatSyncEngineTests.room, seq: seq,
      clientMessageID: id, sender: sender, text: text,
      createdAt: Date(timeIntervalSince1970: TimeInterval(seq)))
    stored.append(message)
    return message
  }

  func message(_ seq: Int64) -> ChatMessage { stored[Int(seq) - 1] }

  /// Hides stored messages: fetches no longer return them.
  func hide(_ seqs: Int64...) { hidden.formUnion(seqs) }

  /// The next `count` `sendMessage` calls store their message, then throw `.timeout`.
  func loseAnswers(_ count: Int) { answersToLose = count }

  /// The next `sendMessage` calls throw `errors`, one each, storing nothing.
  func failSends(with errors: DomainError...) { sendFailures += errors }

  /// Makes `fetchMessages` answers wait until ``releaseFetches()``.
  func holdFetches() { isHoldingFetches = true }

  /// Makes fetches of the newest page fail from now on.
  func failNewestFetches() { isFailingNewest = true }

  /// Lets every waiting and later `fetchMessages` call go on.
  func releaseFetches() {
    isHoldingFetches = false
    for waiter in fetchWaiters { waiter.resume() }
    fetchWaiters = []
  }

  /// Makes `sendMessage` calls wait until ``releaseSends()``.
  func holdSends() { isHoldingSends = true }

  /// Lets every waiting and later `sendMessage` call go on.
  func releaseSends() {
    isHoldingSends = false
    for held in heldSends { held.resume() }
    heldSends = []
  }

  func messages(after seq: Int64) -> [ChatMessage] { stored.filter { $0.seq! > seq } }

  func fetch(after: Int64?, before: Int64?, limit: Int) async throws -> [ChatMessage] {
    if after == nil, before == nil {
      newestFetches += 1
      if isFailingNewest { throw DomainError.offline }
    }
    let visible = stored.filter { !hidden.contains($0.seq!) }
    let page: [ChatMessage]
    if let after {
      fetches.append(after)
      page = Array(visible.filter { $0.seq! > after }.prefix(limit))
    } else {
      page = Array(visible.filter { $0.seq! < (before ?? .max) }.suffix(limit))
    }
    if isHoldingFetches { await withCheckedContinuation { fetchWaiters.append($0) } }
    return page
  }

  func sentOverREST(_ text: String, id: UUID) async throws -> ChatMessage {
    restCalls += 1
    if isHoldingSends { await withCheckedContinuation { heldSends.append($0) } }
    if !sendFailures.isEmpty { throw sendFailures.removeFirst() }
    restSends += 1
    let stored = accept(text, from: ChatSyncEngineTests.me, id: id)
    guard answersToLose == 0 else {
      answersToLose -= 1
      throw DomainError.timeout
    }
    return stored
  }

  /// The server calls of a chat repository over this model.
  nonisolated var repository: ChatRepository {
    var chat = ChatRepository()
    chat.fetchRooms = { _ in Page(items: await self.listed()) }
    chat.fetchMessages = { _, after, before, limit in
      try await self.fetch(after: after, before: before, limit: limit)
    }
    chat.sendMessage = { text, _, id in try await self.sentOverREST(text, id: id) }
    chat.markRead = { room, seq in try await self.markedRead(room, seq) }
    return chat
  }
}

/// A continuous clock that counts the engine's sleeps (its timers).
final class CountingClock: Clock, Sendable {
  typealias Instant = ContinuousClock.Instant
  private let base = ContinuousClock()
  private let count = Locked(0)

  /// How many sleeps began so far.
  var sleeps: Int { count.withLock { $0 } }
  var now: Instant { base.now }
  var minimumResolution: Duration { base.minimumResolution }

  func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    count.withLock { $0 += 1 }
    try await base.sleep(until: deadline, tolerance: tolerance)
  }
}
