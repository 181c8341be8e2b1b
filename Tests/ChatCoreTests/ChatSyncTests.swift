import ChatCore
import Clocks
import Domain
import Foundation
import GRDB
import Persistence
import Repositories
import TestSupport
import Testing

/// `ChatSync` on its own: a scripted channel (the test plays the server's real-time half) and
/// an in-memory server model behind the `ChatRepository` server calls.
@Suite("ChatSync over a scripted channel", .timeLimit(.minutes(1)))
struct ChatSyncEngineTests {
  static let room: ChatRoom.ID = "r_1"
  static let me = UserSummary(id: "u_me", nickname: "me")
  static let peer = UserSummary(id: "u_peer", nickname: "peer")

  /// An engine, its channel and its server, with the store empty.
  struct Rig {
    let channel = ScriptedChannel()
    let server = ServerModel()
    let store: ChatStore
    let sync: ChatSync
    /// The retry numbers the engine asked the backoff for, in order.
    let retries = Locked<[Int]>([])

    init(
      clock: any Clock<Duration> = ContinuousClock(), ackTimeout: Duration = .seconds(10),
      retryDelay: Duration = .milliseconds(5), store location: ChatStore.Location = .inMemory
    ) throws {
      store = try ChatStore(at: location, owner: ChatSyncEngineTests.me.id)
      let retries = retries
      sync = ChatSync(
        store: store, me: ChatSyncEngineTests.me, channel: channel, server: server.repository,
        options: ChatSyncOptions(
          clock: clock,
          retryDelay: { retry in
            retries.withLock { $0.append(retry) }
            return retryDelay
          }, ackTimeout: ackTimeout, pageSize: 100))
    }

    /// An engine whose store is the file `chat.sqlite` in `folder`, on a test clock, retrying
    /// after 1 s: for tests that make the store's file fail.
    static func onFile(
      in folder: TemporaryDirectory
    ) throws -> (Rig, path: String, TestClock<Duration>) {
      let path = folder.path("chat.sqlite")
      let clock = TestClock()
      return (
        try Rig(clock: clock, retryDelay: .seconds(1), store: .file(path: path)), path, clock
      )
    }

    /// A screen reading `room`'s messages, returned once it has its first value: the room is
    /// open by then (the stream opens it before it reads the store). Cancel it to close.
    func screen(of room: ChatRoom.ID) async throws -> Task<Void, any Error> {
      let opened = Locked(false)
      let screen = Task {
        for try await _ in sync.messages(in: room, limit: 10) { opened.withLock { $0 = true } }
      }
      try await waitUntil("the screen of \(room) is open") { opened.withLock { $0 } }
      return screen
    }

    /// Returns once the engine has handled every event emitted before this call (events are
    /// handled in order: a typing signal emitted now comes out after them).
    func handledEvents() async {
      let typing = sync.typing(in: ChatSyncEngineTests.room)
      channel.emit(.typing(room: ChatSyncEngineTests.room, user: ChatSyncEngineTests.peer))
      for await _ in typing { break }
    }

    /// A started, connected engine whose room has 120 messages on the server and the newest 20
    /// stored: older history to load.
    static func withNewest20Of120() async throws -> Rig {
      let rig = try Rig()
      await rig.server.add(120, by: ChatSyncEngineTests.peer)
      try rig.store.save(await rig.server.messages(after: 100))
      await rig.connected()
      return rig
    }

    /// Marks `room` (stored) read up to `seq` while the server's read marks fail for now: the
    /// mark is made here only.
    func markReadOffline(_ room: ChatRoom.ID, upTo seq: Int64) async throws {
      try store.saveRooms([
        ChatRoom(
          id: room, kind: .group(StudyGroup.ID(rawValue: "g_\(room.rawValue)")), title: "Room")
      ])
      await server.failReadMarks(true)
      await #expect(throws: DomainError.offline) { try await sync.markRead(room, upTo: seq) }
      await server.failReadMarks(false)
    }

    /// The link goes down and comes back as `link`.
    func reconnect(as link: Int) {
      channel.emit(.state(.waitingToReconnect(retryIn: .zero)))
      channel.emit(.state(.connected, link: ConnectionLink(link)))
    }

    /// Starts the engine and brings the channel up; returns once the engine has seen it up
    /// (else a send right after could take the server call, on a loaded machine).
    func connected() async {
      await sync.start()
      channel.emit(.state(.connected))
      for await state in sync.connectionStates() where state == .connected { break }
    }

    /// The server stores `message` and its ack arrives on the channel; returns once the
    /// outbox no longer holds it.
    func acknowledge(_ message: ChatMessage) async throws {
      let stored = await server.accept(
        message.text, from: ChatSyncEngineTests.me, id: message.clientMessageID)
      channel.emit(.messages([stored]))
      try await waitUntil {
        try !store.outbox().contains { $0.clientMessageID == message.clientMessageID }
      }
    }

    /// How many times `message` went out on the channel.
    func sends(of message: ChatMessage) -> Int {
      channel.calls.filter {
        if case .send(_, _, message.clientMessageID) = $0 { true } else { false }
      }.count
    }

    /// Sends `text` into the room and waits until it went out on the channel.
    func sendOne(_ text: String) async throws -> ChatMessage {
      let message = try await sync.send(text, to: ChatSyncEngineTests.room)
      _ = try await channel.next { $0.send }
      return message
    }

    /// Connects and opens the room; returns once its subscribe went out (not answered yet).
    func openedRoom() async throws {
      await connected()
      await sync.open(ChatSyncEngineTests.room)
      _ = try await channel.next { $0.subscribe }
    }

    /// Connects and opens the room, its subscribe answered (`last_seq` 0) and the reconcile
    /// after it done: a message the server stores after this is not read by that reconcile.
    func subscribedRoom() async throws {
      try await openedRoom()
      channel.emit(.subscribed(room: ChatSyncEngineTests.room, lastSeq: 0))
      try await waitUntil { await server.newestFetches == 1 }
    }

    /// Connects, opens the room (its subscribe answered), closes it and opens it again: the
    /// unsubscribe and the second subscribe go out, neither answered yet.
    func reopened() async throws {
      try await openedRoom()
      channel.emit(.subscribed(room: ChatSyncEngineTests.room, lastSeq: 0))
      await sync.close(ChatSyncEngineTests.room)
      _ = try await channel.next { $0.unsubscribe }
      await sync.open(ChatSyncEngineTests.room)
    }

    /// Connects with 3 messages on the server and subscribes the room, its catch-up's page
    /// held on its way until `server.releaseFetches()`; with `failingReconcile`, the newest
    /// page the catch-up reads after it fails.
    func catchUpHeld(failingReconcile: Bool = false) async throws {
      await connected()
      await server.add(3, by: ChatSyncEngineTests.peer)
      await server.holdFetches()
      if failingReconcile { await server.failNewestFetches() }
      channel.emit(.subscribed(room: ChatSyncEngineTests.room, lastSeq: 3))
      try await waitUntil { await server.heldFetches == 1 }
    }
  }

  @Test("the catch-up page size stays within what the server hands out, when set later too")
  func pageSizeStaysWithinTheServersLimit() {
    var options = ChatSyncOptions(retryDelay: { _ in .zero }, pageSize: 500)
    #expect(options.pageSize == PageRequest.maximumLimit)
    options.pageSize = 150
    #expect(options.pageSize == PageRequest.maximumLimit)
    options.pageSize = 0
    #expect(options.pageSize == 1)
    options.pageSize = 40
    #expect(options.pageSize == 40)
  }

  @Test("a read mark made offline reaches the server on the next link, with no screen open")
  func readMarkAfterReconnect() async throws {
    let rig = try Rig()
    await rig.connected()
    try await rig.markReadOffline(Self.room, upTo: 5)
    #expect(await rig.server.readMarks[Self.room] == nil)
    #expect(try rig.store.rooms().first { $0.id == Self.room }?.lastReadSeq == 5)
    rig.reconnect(as: 1)
    try await waitUntil("the server hears the mark") { await rig.server.readMarks[Self.room] == 5 }
  }

  @Test("a read mark the server refuses for good (the user left the room) is not sent again")
  func refusedReadMarkIsDropped() async throws {
    let rig = try Rig()
    await rig.connected()
    try await rig.markReadOffline(Self.room, upTo: 5)
    await rig.server.refuseReadMarks(in: Self.room)
    rig.reconnect(as: 1)
    try await waitUntil("the mark is sent again") { await rig.server.readMarkCalls == 2 }
    // Refused for good: the next link sends only a later room's mark (marks go in room order,
    // so a kept mark of r_1 would go before r_2's).
    let later: ChatRoom.ID = "r_2"
    try await rig.markReadOffline(later, upTo: 3)
    rig.reconnect(as: 2)
    try await waitUntil("the later mark is sent") { await rig.server.readMarks[later] == 3 }
    #expect(await rig.server.readMarkCalls == 4)
    await rig.sync.stop()
  }

  @Test("a room-list read sends the read marks the server is behind on (made before a restart)")
  func readMarkFromTheStore() async throws {
    let rig = try Rig()
    try rig.store.saveRooms([ChatRoom(id: Self.room, kind: .group("g_1"), title: "Room")])
    try rig.store.markRead(Self.room, upTo: 7)
    await rig.connected()
    try await rig.sync.refreshRooms()
    try await waitUntil("the server hears the mark") { await rig.server.readMarks[Self.room] == 7 }
    #expect(try rig.store.rooms().first { $0.id == Self.room }?.lastReadSeq == 7)
  }

  @Test("overlapping room-list reads are applied in the order they started; none after stop")
  func roomReadsInOrder() async throws {
    let store = try ChatStore(at: .inMemory, owner: Self.me.id)
    let kept = ChatRoom(id: "r_a", kind: .group("g_a"), title: "A")
    let left = ChatRoom(id: "r_g", kind: .group("g_g"), title: "G")
    // The first and third reads wait for their gate; the first still lists the room left.
    let gates = [AsyncStream<Void>.makeStream(), AsyncStream<Void>.makeStream()]
    let calls = Locked(0)
    var server = ChatRepository()
    server.fetchRooms = { _ in
      let call = calls.withLock {
        $0 += 1
        return $0
      }
      switch call {
      case 1:
        for await _ in gates[0].stream {}
        return Page(items: [kept, left])
      case 3:
        for await _ in gates[1].stream {}
        return Page(items: [left])
      default:
        return Page(items: [kept])
      }
    }
    let sync = ChatSync(
      store: store, me: Self.me, channel: ScriptedChannel(), server: server,
      options: ChatSyncOptions(retryDelay: { _ in .milliseconds(5) }))
    let slow = Task { try await sync.refreshRooms() }
    try await waitUntil("the first read reaches the server") { calls.withLock { $0 } == 1 }
    try await sync.refreshRooms()
    #expect(try store.rooms().map(\.id) == [kept.id])
    gates[0].continuation.finish()
    try await slow.value
    #expect(try store.rooms().map(\.id) == [kept.id], "the older read came back the room left")

    let late = Task { try await sync.refreshRooms() }
    try await waitUntil("the third read reaches the server") { calls.withLock { $0 } == 3 }
    await sync.stop()
    gates[1].continuation.finish()
    try await late.value
    #expect(try store.rooms().map(\.id) == [kept.id], "a read landed after stop")
  }

  @Test("subscribes first, then fetches only what lies after the cursor, page by page")
  func subscribeFirst() async throws {
    let rig = try Rig()
    await rig.server.add(250, by: Self.peer)
    await rig.connected()
    await rig.sync.open(Self.room)
    let subscribe = try await rig.channel.next { $0.subscribe }
    #expect(subscribe == .subscribe(Self.room, afterSeq: 0))
    rig.channel.emit(.subscribed(room: Self.room, lastSeq: 250))
    try await waitUntil { try rig.store.syncCursor(of: Self.room) == 250 }
    #expect(await rig.server.fetches == [0, 100, 200])
    // Reconnect: subscribe again from the stored cursor, and nothing is fetched twice.
    rig.channel.emit(.state(.waitingToReconnect(retryIn: .zero)))
    rig.channel.emit(.state(.connected))
    #expect(try await rig.channel.next { $0.subscribe } == .subscribe(Self.room, afterSeq: 250))
    rig.channel.emit(.subscribed(room: Self.room, lastSeq: 250))
    try await Task.sleep(for: .milliseconds(20))
    #expect(await rig.server.fetches == [0, 100, 200])
  }

  @Test("a gap in live seqs is filled from the server; duplicates are dropped")
  func gapFill() async throws {
    let rig = try Rig()
    await rig.server.add(2, by: Self.peer)
    await rig.connected()
    await rig.sync.open(Self.room)
    rig.channel.emit(.subscribed(room: Self.room, lastSeq: 2))
    // The catch-up's reconcile has read the newest page (else it could bring 3-5 itself).
    try await waitUntil { await rig.server.newestFetches == 1 }
    // 3 and 4 are sent while their live frames get lost; 5 arrives (twice).
    await rig.server.add(3, by: Self.peer)
    let fifth = await rig.server.message(5)
    rig.channel.emit(.messages([fifth]))
    rig.channel.emit(.messages([fifth]))
    try await waitUntil { try rig.store.syncCursor(of: Self.room) == 5 }
    let stored = try rig.store.latestMessages(in: Self.room, limit: 50)
    #expect(stored.compactMap(\.seq) == [1, 2, 3, 4, 5])
    #expect(await rig.server.fetches == [0, 2])
  }

  @Test("hidden messages the server leaves out move the cursor for good: later gaps fetch nothing")
  func hiddenMessages() async throws {
    let rig = try Rig()
    await rig.server.add(300, by: Self.peer)
    await rig.server.hide(5, 150)
    try await rig.openedRoom()
    rig.channel.emit(.subscribed(room: Self.room, lastSeq: 300))
    try await waitUntil { try rig.store.syncCursor(of: Self.room) == 300 }
    #expect(await rig.server.fetches == [0, 101, 202])
    // Live messages after it find no gap: nothing is fetched again.
    await rig.server.add(2, by: Self.peer)
    rig.channel.emit(.messages([await rig.server.message(301)]))
    rig.channel.emit(.messages([await rig.server.message(302)]))
    try await waitUntil { try rig.store.syncCursor(of: Self.room) == 302 }
    #expect(await rig.server.fetches == [0, 101, 202])
    // A whole page of hidden messages at the end: the short answer proves them hidden too.
    await rig.server.add(3, by: Self.peer)
    await rig.server.hide(303, 304)
    rig.channel.emit(.messages([await rig.server.message(305)]))
    try await waitUntil { try rig.store.syncCursor(of: Self.room) == 305 }
    #expect(await rig.server.fetches == [0, 101, 202, 302])
  }

  @Test("a send to an empty room id is refused before anything is queued")
  func sendToAnEmptyRoom() async throws {
    let rig = try Rig()
    await #expect(throws: DomainError.validation(.empty(field: "room_id"))) {
      try await rig.sync.send("hello", to: "")
    }
    #expect(try rig.store.outbox().isEmpty)
  }

  @Test("a message deleted while an earlier one was being sent is not sent")
  func deletedWhileFlushing() async throws {
    let rig = try Rig()
    await rig.sync.start()
    await rig.server.holdSends()
    let first = try await rig.sync.send("first", to: Self.room)
    let second = try await rig.sync.send("second", to: Self.room)
    try await waitUntil { await rig.server.restCalls == 1 }
    // The first is on its way and cannot be recalled; the second can still be deleted.
    await #expect(throws: DomainError.self) { try await rig.sync.delete(first.clientMessageID) }
    try await rig.sync.delete(second.clientMessageID)
    await rig.server.releaseSends()
    try await waitUntil { try rig.store.outbox().isEmpty }
    try await Task.sleep(for: .milliseconds(50))
    #expect(await rig.server.restSends == 1)
    #expect(
      try rig.store.latestMessages(in: Self.room).map(\.clientMessageID) == [first.clientMessageID]
    )
  }

  /// A started engine (retries a minute apart) whose first message the server stored but
  /// whose answer was lost; returned once that send's flush is over (it set its retry timer).
  func lostAnswerRig() async throws -> (Rig, ChatMessage) {
    let clock = CountingClock()
    let rig = try Rig(clock: clock, retryDelay: .seconds(60))
    await rig.sync.start()
    await rig.server.loseAnswers(1)
    let message = try await rig.sync.send("maybe stored", to: Self.room)
    try await waitUntil { clock.sleeps > 0 }
    return (rig, message)
  }

  @Test("a send whose answer was lost stays sending, not deletable, until a later try settles it")
  func lostAnswer() async throws {
    let (rig, message) = try await lostAnswerRig()
    #expect(try rig.store.outbox().map(\.deliveryState) == [.sending])
    await #expect(throws: DomainError.self) { try await rig.sync.delete(message.clientMessageID) }
    // The next flush (a new message's) sends it again; the server knows it by its client id.
    let next = try await rig.sync.send("next", to: Self.room)
    try await waitUntil { try rig.store.outbox().isEmpty }
    #expect(
      try rig.store.latestMessages(in: Self.room).map(\.clientMessageID) == [
        message.clientMessageID, next.clientMessageID,
      ])
    #expect(await rig.server.restSends == 3)
    await rig.sync.stop()
  }

  @Test("retry leaves a message that may be stored as it is: it stays sending, not deletable")
  func retryKeepsTheDoubt() async throws {
    let (rig, message) = try await lostAnswerRig()
    try await rig.sync.retry(message.clientMessageID)
    #expect(try rig.store.outbox().map(\.deliveryState) == [.sending])
    await #expect(throws: DomainError.self) { try await rig.sync.delete(message.clientMessageID) }
    await rig.sync.stop()
  }

  @Test(
    "a message that may be stored stays sending when a later try fails offline; the room's next one waits behind it"
  )
  func doubtOutlivesAnOfflineTry() async throws {
    let (rig, message) = try await lostAnswerRig()
    // Its next try fails before reaching the server; a new message's flush makes that try.
    await rig.server.failSends(with: .offline)
    let next = try await rig.sync.send("next", to: Self.room)
    try await waitUntil { await rig.server.restCalls == 2 }
    try await Task.sleep(for: .milliseconds(100))
    #expect(await rig.server.restCalls == 2)
    #expect(
      try rig.store.outbox().map(\.clientMessageID) == [
        message.clientMessageID, next.clientMessageID,
      ])
    #expect(try rig.store.outbox().map(\.deliveryState) == [.sending, .pending])
    await #expect(throws: DomainError.self) { try await rig.sync.delete(message.clientMessageID) }
    await rig.sync.stop()
  }

  @Test(
    "a channel send left without its ack stays sending when its resend is rate limited, also when the refusal is handled before that send returns"
  )
  func doubtOutlivesARefusedResend() async throws {
    let clock = TestClock()
    let rig = try Rig(clock: clock, ackTimeout: .seconds(10))
    await rig.connected()
    let message = try await rig.sendOne("maybe stored")
    // No ack in time: it goes out again (the clock moves until the ack timer, set after the
    // send, has fired); that send is still being written when the server refuses it for now.
    rig.channel.holdSends()
    try await waitUntil(step: { await clock.advance(by: .seconds(10)) }) {
      rig.channel.calls.filter { $0.send != nil }.count >= 2
    }
    rig.channel.emit(
      .refused(clientMessageID: message.clientMessageID, error: .rateLimited(retryAfter: nil)))
    await rig.handledEvents()
    rig.channel.releaseHeldSend()
    #expect(try rig.store.outbox().map(\.deliveryState) == [.sending])
    await #expect(throws: DomainError.self) { try await rig.sync.delete(message.clientMessageID) }
    await rig.sync.stop()
  }

  @Test(
    "a room closed and opened again whose subscribe overtook the unsubscribe subscribes again"
  )
  func crossedUnsubscribeSubscribesAgain() async throws {
    let rig = try Rig()
    try await rig.reopened()
    // The server got the subscribe first: it answers it, then ends it for the unsubscribe.
    rig.channel.emit(.subscribed(room: Self.room, lastSeq: 0))
    rig.channel.emit(.unsubscribed(room: Self.room))
    try await waitUntil("the room is subscribed again") {
      rig.channel.calls.filter { $0.subscribe != nil }.count == 3
    }
    await rig.sync.stop()
  }

  @Test(
    "an unsubscribe of an old link that fails late does not count off the next link's: the room opened again stays open"
  )
  func lateFailedUnsubscribeOfAnOldLink() async throws {
    let rig = try Rig()
    try await rig.subscribedRoom()
    // The room's unsubscribe is still being written when the link goes away.
    rig.channel.holdNextUnsubscribe()
    let closing = Task { await rig.sync.close(Self.room) }
    _ = try await rig.channel.next { $0.unsubscribe }
    rig.channel.emit(.state(.offline))
    rig.channel.emit(.state(.connected, link: ConnectionLink(1)))
    // On the next link the room is opened and closed again: its unsubscribe goes out.
    await rig.sync.open(Self.room)
    _ = try await rig.channel.next { $0.subscribe }
    rig.channel.emit(.subscribed(room: Self.room, lastSeq: 0))
    await rig.sync.close(Self.room)
    _ = try await rig.channel.next { $0.unsubscribe }
    // Now the old link's unsubscribe fails; the room is opened again, and the server answers
    // the new link's unsubscribe: an answer the engine asked for, not the end of the room.
    rig.channel.releaseHeldSend(throwing: .offline)
    await closing.value
    await rig.sync.open(Self.room)
    _ = try await rig.channel.next { $0.subscribe }
    rig.channel.emit(.unsubscribed(room: Self.room))
    rig.channel.emit(.subscribed(room: Self.room, lastSeq: 0))
    // Still open: a reconnect subscribes it again.
    rig.channel.emit(.state(.offline))
    rig.channel.emit(.state(.connected, link: ConnectionLink(2)))
    _ = try await rig.channel.next { $0.subscribe }
    await rig.sync.stop()
  }

  @Test(
    "a second copy of the answer to our unsubscribe does not end the room opened again; it subscribes again"
  )
  func duplicatedUnsubscribeAnswer() async throws {
    let rig = try Rig()
    try await rig.reopened()
    _ = try await rig.channel.next { $0.subscribe }
    rig.channel.emit(.unsubscribed(room: Self.room))
    rig.channel.emit(.subscribed(room: Self.room, lastSeq: 0))
    // The answer again (frames may come twice): asked again, not ended.
    rig.channel.emit(.unsubscribed(room: Self.room))
    _ = try await rig.channel.next { $0.subscribe }
    rig.channel.emit(.subscribed(room: Self.room, lastSeq: 0))
    // Still open: a reconnect subscribes it again.
    rig.channel.emit(.state(.waitingToReconnect(retryIn: .zero)))
    rig.channel.emit(.state(.connected))
    _ = try await rig.channel.next { $0.subscribe }
    // The server refuses the room (the user left it): it ends for good.
    rig.channel.emit(.refused(clientMessageID: nil, room: Self.room, error: .forbidden))
    rig.channel.emit(.state(.waitingToReconnect(retryIn: .zero)))
    rig.channel.emit(.state(.connected))
    try await Task.sleep(for: .milliseconds(50))
    #expect(rig.channel.calls.filter { $0.subscribe != nil }.count == 4)
    await rig.sync.stop()
  }

  @Test("a running ack timeout is not pushed later by later sends: a lost ack's message goes again")
  func ackTimeoutIsNotPushedBack() async throws {
    let clock = TestClock()
    let rig = try Rig(clock: clock, ackTimeout: .seconds(10))
    await rig.connected()
    let lost = try await rig.sendOne("its ack is lost")
    // Six seconds later (the ack timer armed) another message goes out and is acknowledged.
    try await clock.advanceOnceSomethingSleeps(by: .seconds(6))
    let acked = try await rig.sync.send("acknowledged", to: Self.room)
    _ = try await rig.channel.next {
      if case .send(_, _, acked.clientMessageID) = $0 { $0 } else { nil }
    }
    try await rig.acknowledge(acked)
    // Ten seconds after the first send, it goes out again (not sixteen).
    try await clock.advanceOnceSomethingSleeps(by: .seconds(5))
    try await waitUntil("the lost one went again", timeout: .seconds(5)) {
      rig.sends(of: lost) == 2
    }
    await rig.sync.stop()
  }

  @Test("a send made just before an earlier send's ack timer fires waits for its own timeout")
  func aLaterSendWaitsForItsOwnTimeout() async throws {
    let clock = TestClock()
    let rig = try Rig(clock: clock, ackTimeout: .seconds(10))
    await rig.connected()
    let first = try await rig.sendOne("acknowledged at once")
    try await rig.acknowledge(first)
    try await clock.advanceOnceSomethingSleeps(by: .seconds(9))
    let later = try await rig.sync.send("sent at 9 s", to: Self.room)
    try await waitUntil { rig.sends(of: later) == 1 }
    // At 10.5 s the first timer has fired: the later send is not 10 s old, it stays waiting.
    await clock.advance(by: .milliseconds(1_500))
    try await clock.waitForSleeper()
    #expect(rig.sends(of: later) == 1)
    // At 19 s its own timeout has passed: it goes again.
    await clock.advance(by: .milliseconds(8_500))
    try await waitUntil("the later send went again") { rig.sends(of: later) == 2 }
    await rig.sync.stop()
  }

  @Test(
    "a message in doubt whose resend falls back to the server call stays sending through a refusal of an earlier send"
  )
  func doubtOutlivesTheFallback() async throws {
    let clock = TestClock()
    let rig = try Rig(clock: clock, ackTimeout: .seconds(10))
    await rig.connected()
    let message = try await rig.sendOne("maybe stored")
    // No ack in time: it goes out again, and that frame fails to go out (the link dropped
    // while it was written), so the server call takes over; that call waits.
    rig.channel.holdSends()
    await rig.server.holdSends()
    try await waitUntil(step: { await clock.advance(by: .seconds(10)) }) {
      rig.channel.calls.filter { $0.send != nil }.count >= 2
    }
    rig.channel.releaseHeldSend(throwing: .offline)
    try await waitUntil { await rig.server.restCalls == 1 }
    // The first frame's refusal comes while the server call is under way.
    rig.channel.emit(
      .refused(clientMessageID: message.clientMessageID, error: .rateLimited(retryAfter: nil)))
    let typing = rig.sync.typing(in: Self.room)
    rig.channel.emit(.typing(room: Self.room, user: Self.peer))
    for await _ in typing { break }
    #expect(try rig.store.outbox().map(\.deliveryState) == [.sending])
    await #expect(throws: DomainError.self) { try await rig.sync.delete(message.clientMessageID) }
    await rig.server.failSends(with: .offline)
    await rig.server.releaseSends()
    await rig.sync.stop()
  }

  @Test("a hide that comes while the room's catch-up page is on its way applies after the page")
  func hideAfterThePage() async throws {
    let rig = try Rig()
    // The reconcile after the catch-up, which would mend the order, cannot run.
    try await rig.catchUpHeld(failingReconcile: true)
    await rig.server.hide(2)
    rig.channel.emit(.messageHidden(room: Self.room, seq: 2))
    await rig.server.releaseFetches()
    // The hide applied once the list was read again after it.
    try await waitUntil { await rig.server.roomListings > 0 }
    #expect(try rig.store.latestMessages(in: Self.room).compactMap(\.seq) == [1, 3])
    #expect(try rig.store.syncCursor(of: Self.room) == 3)
    await rig.sync.stop()
  }

  @Test("an older page that comes after stop is not stored, and the call says it was cancelled")
  func loadOlderAfterStop() async throws {
    let rig = try await Rig.withNewest20Of120()
    await rig.server.holdFetches()
    let older = Task { try await rig.sync.loadOlder(in: Self.room, limit: 60) }
    try await waitUntil { await rig.server.heldFetches == 1 }
    await rig.sync.stop()
    await rig.server.releaseFetches()
    await #expect(throws: CancellationError.self) { try await older.value }
    #expect(try rig.store.oldestSeq(in: Self.room) == 101)
  }

  @Test("a hide that comes while an older page is on its way leaves the message out of it")
  func hideDuringLoadOlder() async throws {
    let rig = try await Rig.withNewest20Of120()
    /// Loads `limit` older messages; moderation hides `seq` after the page was read with it in
    /// it, before the page arrives.
    func loadOlder(_ limit: Int, hiding seq: Int64) async throws -> [Int64] {
      await rig.server.holdFetches()
      let older = Task { try await rig.sync.loadOlder(in: Self.room, limit: limit) }
      try await waitUntil { await rig.server.heldFetches == 1 }
      await rig.server.hide(seq)
      rig.channel.emit(.messageHidden(room: Self.room, seq: seq))
      await rig.handledEvents()
      await rig.server.releaseFetches()
      return try await older.value.compactMap(\.seq)
    }
    let expected = Array(Int64(41)...100).filter { $0 != 45 }
    #expect(try await loadOlder(60, hiding: 45) == expected)
    #expect(
      try rig.store.messages(in: Self.room, before: 101, limit: 100).compactMap(\.seq) == expected)
    // A page hidden whole on its way is not the room's beginning: the page before it comes.
    #expect(try await loadOlder(1, hiding: 40) == [39])
    await rig.sync.stop()
  }

  @Test(
    "a hide that overtakes its message leaves the message out when it comes, and every later copy, until a restore"
  )
  func hideBeforeTheMessage() async throws {
    let rig = try Rig()
    try await rig.subscribedRoom()
    await rig.server.add(2, by: Self.peer)
    await rig.server.hide(1)
    // The frames came out of order: the hide of 1 first, then 1 itself, then 2; then another
    // copy of 1.
    rig.channel.emit(.messageHidden(room: Self.room, seq: 1))
    rig.channel.emit(.messages([await rig.server.message(1)]))
    rig.channel.emit(.messages([await rig.server.message(2)]))
    try await waitUntil { try rig.store.syncCursor(of: Self.room) == 2 }
    rig.channel.emit(.messages([await rig.server.message(1)]))
    // A peer's message after it, stored after that copy in the room's turn.
    await rig.server.add(1, by: Self.peer)
    rig.channel.emit(.messages([await rig.server.message(3)]))
    try await waitUntil { try rig.store.syncCursor(of: Self.room) == 3 }
    #expect(try rig.store.latestMessages(in: Self.room).compactMap(\.seq) == [2, 3])
    // A second copy of the hide, of a message long gone, leaves its restore alone.
    rig.channel.emit(.messageHidden(room: Self.room, seq: 1))
    rig.channel.emit(.restored(await rig.server.message(1)))
    try await waitUntil { try rig.store.latestMessages(in: Self.room).count == 3 }
    #expect(try rig.store.latestMessages(in: Self.room).compactMap(\.seq) == [1, 2, 3])
    await rig.sync.stop()
  }

  @Test(
    "a send whose server call is answered after its hide came leaves the outbox and is not stored"
  )
  func serverCallAnsweredAfterItsHide() async throws {
    let rig = try Rig()
    await rig.sync.start()
    await rig.server.holdSends()
    _ = try await rig.sync.send("hidden on its way", to: Self.room)
    try await waitUntil { await rig.server.restCalls == 1 }
    // The server stored it as seq 1, moderation hid it, and the hide came before the answer.
    await rig.server.hide(1)
    rig.channel.emit(.messageHidden(room: Self.room, seq: 1))
    await rig.handledEvents()
    await rig.server.releaseSends()
    try await waitUntil { try rig.store.outbox().isEmpty }
    #expect(try rig.store.latestMessages(in: Self.room).isEmpty)
    // A later message is stored as usual, and the hidden one was not sent again.
    _ = try await rig.sync.send("next", to: Self.room)
    try await waitUntil { try rig.store.outbox().isEmpty }
    #expect(try rig.store.latestMessages(in: Self.room).map(\.text) == ["next"])
    #expect(await rig.server.restSends == 2)
    await rig.sync.stop()
  }

  @Test(
    "an ack that comes after its message's hide leaves the outbox: the message is not sent again"
  )
  func ackAfterItsHide() async throws {
    let clock = TestClock()
    let rig = try Rig(clock: clock)
    try await rig.subscribedRoom()
    let message = try await rig.sendOne("hidden on its way")
    let stored = await rig.server.accept(
      message.text, from: Self.me, id: message.clientMessageID)
    await rig.server.hide(1)
    rig.channel.emit(.messageHidden(room: Self.room, seq: 1))
    rig.channel.emit(.messages([stored]))
    try await waitUntil { try rig.store.outbox().isEmpty }
    #expect(try rig.store.latestMessages(in: Self.room).isEmpty)
    // Its ack timeout passes: nothing goes out again.
    await clock.advance(by: .seconds(30))
    try await Task.sleep(for: .milliseconds(50))
    #expect(rig.sends(of: message) == 1)
    await rig.sync.stop()
  }

  @Test(
    "the room's copy of an own message, then its hide, then the sender's ack: the ack is left out; so is the room's copy after the hide and the ack"
  )
  func ackAfterTheRoomsCopyAndItsHide() async throws {
    let rig = try Rig()
    try await rig.subscribedRoom()
    let first = try await rig.sendOne("first")
    let second = try await rig.sendOne("second")
    let one = await rig.server.accept(first.text, from: Self.me, id: first.clientMessageID)
    let two = await rig.server.accept(second.text, from: Self.me, id: second.clientMessageID)
    await rig.server.hide(1, 2)
    // 1: the room's copy is stored, the hide takes it out, then the ack comes.
    rig.channel.emit(.messages([one]))
    try await waitUntil { try rig.store.syncCursor(of: Self.room) == 1 }
    rig.channel.emit(.messageHidden(room: Self.room, seq: 1))
    rig.channel.emit(.messages([one]))
    // 2: the hide first, then the room's copy, then the ack, each on its own.
    rig.channel.emit(.messageHidden(room: Self.room, seq: 2))
    rig.channel.emit(.messages([two]))
    await rig.handledEvents()
    rig.channel.emit(.messages([two]))
    // A peer's message after them, stored after all of that in the room's turn: its gap fill
    // steps over the hidden two.
    await rig.server.add(1, by: Self.peer)
    rig.channel.emit(.messages([await rig.server.message(3)]))
    try await waitUntil { try rig.store.syncCursor(of: Self.room) == 3 }
    #expect(try rig.store.latestMessages(in: Self.room).compactMap(\.seq) == [3])
    #expect(try rig.store.outbox().isEmpty)
    await rig.sync.stop()
  }

  @Test(
    "a hide told on one link still leaves out the copy a later link brings: the ack of the message sent again"
  )
  func hideOutlivesTheLink() async throws {
    let rig = try Rig()
    try await rig.subscribedRoom()
    // A peer's 1 that has not come yet, then the user's 2, sent on this link, hidden at once.
    await rig.server.add(1, by: Self.peer)
    let message = try await rig.sendOne("hidden on its way")
    let two = await rig.server.accept(message.text, from: Self.me, id: message.clientMessageID)
    await rig.server.hide(2)
    rig.channel.emit(.messageHidden(room: Self.room, seq: 2))
    // The link drops before the ack: on the next one the message goes again, and its ack comes
    // (before the room's catch-up).
    rig.channel.emit(.state(.waitingToReconnect(retryIn: .zero)))
    rig.channel.emit(.state(.connected))
    try await waitUntil { rig.sends(of: message) == 2 }
    rig.channel.emit(.messages([two]))
    try await waitUntil { try rig.store.outbox().isEmpty }
    #expect(try rig.store.latestMessages(in: Self.room).isEmpty)
    await rig.sync.stop()
  }

  @Test(
    "a resend answered with a message the catch-up found hidden leaves the outbox; the room's next message is stored"
  )
  func resendAnsweredWithAHiddenMessage() async throws {
    let (rig, _) = try await lostAnswerRig()
    // The lost answer's message is seq 1 on the server; moderation hid it, and a catch-up
    // stepped over it.
    await rig.server.hide(1)
    rig.channel.emit(.subscribed(room: Self.room, lastSeq: 1))
    try await waitUntil { try rig.store.syncCursor(of: Self.room) == 1 }
    #expect(try rig.store.outbox().map(\.deliveryState) == [.sending])
    // The next flush sends it again; the server answers with the hidden message.
    let next = try await rig.sync.send("next", to: Self.room)
    try await waitUntil { try rig.store.outbox().isEmpty }
    #expect(
      try rig.store.latestMessages(in: Self.room).map(\.clientMessageID) == [next.clientMessageID])
    #expect(await rig.server.restCalls == 3)
    await rig.sync.stop()
  }

  @Test("a catch-up waiting for the server holds back neither typing nor another room")
  func catchUpBesideTheHandler() async throws {
    let rig = try Rig()
    let typists = Locked<[UserSummary]>([])
    let typing = rig.sync.typing(in: Self.room)
    let watching = Task {
      for await signal in typing { typists.withLock { $0.append(signal.user) } }
    }
    defer { watching.cancel() }
    try await rig.catchUpHeld()
    rig.channel.emit(.typing(room: Self.room, user: Self.peer))
    let other: ChatRoom.ID = "r_2"
    rig.channel.emit(
      .messages([
        ChatMessage(
          id: "m_other", roomID: other, seq: 1, clientMessageID: UUID(), sender: Self.peer,
          text: "meanwhile", createdAt: Date())
      ]))
    try await waitUntil { typists.withLock { $0 } == [Self.peer] }
    try await waitUntil { try rig.store.latestMessages(in: other).map(\.text) == ["meanwhile"] }
    #expect(try rig.store.syncCursor(of: Self.room) == 0)
    await rig.server.releaseFetches()
    try await waitUntil { try rig.store.syncCursor(of: Self.room) == 3 }
    await rig.sync.stop()
  }

  @Test("stop ends the outbox: a flush under way sends nothing more")
  func stopEndsTheFlush() async throws {
    let rig = try Rig()
    await rig.sync.start()
    await rig.server.holdSends()
    try await rig.sync.send("first", to: Self.room)
    try await rig.sync.send("second", to: Self.room)
    try await waitUntil { await rig.server.restCalls == 1 }
    await rig.sync.stop()
    await rig.server.releaseSends()
    try await Task.sleep(for: .milliseconds(100))
    #expect(await rig.server.restCalls == 1)
  }

  @Test("a send over the link that fails after stop does not fall back to the server call")
  func stopEndsAFailedLinkSend() async throws {
    let rig = try Rig()
    await rig.connected()
    rig.channel.holdSends()
    let message = try await rig.sync.send("first", to: Self.room)
    _ = try await rig.channel.next { $0.send }
    await rig.sync.stop()
    // The socket's write fails once the engine has stopped (its close ended the link).
    rig.channel.releaseHeldSend(throwing: .offline)
    try await Task.sleep(for: .milliseconds(100))
    #expect(await rig.server.restCalls == 0)
    #expect(try rig.store.outbox().map(\.clientMessageID) == [message.clientMessageID])
  }

  @Test("sends waiting for their ack are not sent again by the next flush, only after the timeout")
  func noResendBeforeTheAckTimeout() async throws {
    let clock = TestClock()
    let rig = try Rig(clock: clock, ackTimeout: .seconds(10))
    await rig.connected()
    for index in 0..<10 { try await rig.sync.send("m\(index)", to: Self.room) }
    try await waitUntil { rig.channel.calls.filter { $0.send != nil }.count >= 10 }
    try await Task.sleep(for: .milliseconds(50))
    #expect(rig.channel.calls.filter { $0.send != nil }.count == 10)
    // No ack in time: each goes out once more.
    try await clock.advanceOnceSomethingSleeps(by: .seconds(10))
    try await waitUntil { rig.channel.calls.filter { $0.send != nil }.count == 20 }
  }

  @Test("a failed message waits for the user: no timer keeps running for it")
  func failedMessagesKeepNoTimer() async throws {
    let clock = CountingClock()
    let rig = try Rig(clock: clock, ackTimeout: .milliseconds(5))
    await rig.connected()
    let message = try await rig.sendOne("no")
    rig.channel.emit(.refused(clientMessageID: message.clientMessageID, error: .forbidden))
    try await waitUntil {
      if case .failed = try rig.store.outbox().first?.deliveryState { true } else { false }
    }
    try await Task.sleep(for: .milliseconds(50))
    let sleeps = clock.sleeps
    try await Task.sleep(for: .milliseconds(100))
    #expect(clock.sleeps == sleeps)
  }

  @Test("send: pending at once, over the channel when connected, sent on the ack")
  func sendOverChannel() async throws {
    let rig = try Rig()
    await rig.connected()
    let pending = try await rig.sync.send("hello", to: Self.room)
    #expect(pending.deliveryState == .pending && pending.seq == nil)
    let sent = try await rig.channel.next { $0.send }
    #expect(sent == .send(Self.room, "hello", pending.clientMessageID))
    let stored = await rig.server.accept("hello", from: Self.me, id: pending.clientMessageID)
    rig.channel.emit(.messages([stored]))
    try await waitUntil { try rig.store.outbox().isEmpty }
    #expect(try rig.store.latestMessages(in: Self.room).map(\.deliveryState) == [.sent])
    #expect(await rig.server.restSends == 0)
  }

  @Test("send while the channel is down goes over the server call")
  func sendOverServerCall() async throws {
    let rig = try Rig()
    await rig.sync.start()
    let pending = try await rig.sync.send("offline hello", to: Self.room)
    try await waitUntil { try rig.store.outbox().isEmpty }
    #expect(await rig.server.restSends == 1)
    let stored = try rig.store.latestMessages(in: Self.room)
    #expect(stored.map(\.clientMessageID) == [pending.clientMessageID])
    #expect(stored.first?.seq == 1)
  }

  @Test(
    "a message whose server call failed for now holds the room's later ones back: the order stays")
  func aFailedSendHoldsTheRoomsLaterMessages() async throws {
    let clock = TestClock()
    let rig = try Rig(clock: clock, retryDelay: .seconds(1))
    // Two messages written while the link is down; the first one's call fails for now.
    let first = try rig.store.enqueue(
      "first", to: Self.room, clientMessageID: UUID(), sender: Self.me, at: Date())
    let second = try rig.store.enqueue(
      "second", to: Self.room, clientMessageID: UUID(), sender: Self.me, at: Date())
    await rig.server.failSends(with: .offline)
    await rig.sync.start()
    try await waitUntil("the first call failed") { await rig.server.restCalls == 1 }
    try await waitUntil(step: { await clock.advance(by: .seconds(1)) }) {
      try rig.store.outbox().isEmpty
    }
    #expect(await rig.server.message(1).clientMessageID == first.clientMessageID)
    #expect(await rig.server.message(2).clientMessageID == second.clientMessageID)
    await rig.sync.stop()
  }

  @Test(
    "a send the link cannot take while an earlier message of the room awaits its ack waits for it on the next link, not the server call",
    arguments: [false, true])
  func aLinkFailureHoldsTheRoomsLaterMessages(channelMovedOn: Bool) async throws {
    let rig = try Rig()
    await rig.connected()
    let first = try await rig.sendOne("first")
    let second: ChatMessage
    if channelMovedOn {
      // The channel reconnected (the first one may be lost with the old link) and the engine
      // has not handled it yet: the call naming the old link is refused.
      rig.channel.moveOn(to: ConnectionLink(1))
      second = try await rig.sync.send("second", to: Self.room)
    } else {
      // The link goes away while the second one is written (the engine does not know yet).
      rig.channel.holdSends()
      second = try await rig.sync.send("second", to: Self.room)
      _ = try await rig.channel.next { $0.send }
      rig.channel.releaseHeldSend(throwing: .offline)
    }
    try await waitUntil("the second one is settled for now") {
      try rig.store.outbox().first { $0.clientMessageID == second.clientMessageID }?
        .deliveryState != .sending
    }
    #expect(await rig.server.restCalls == 0)
    #expect(rig.sends(of: second) == (channelMovedOn ? 0 : 1))
    // On the next link both go out again, first one first (the moved-on channel tells of its
    // new link with no state between: the engine sees the link change all the same).
    if !channelMovedOn { rig.channel.emit(.state(.offline)) }
    rig.channel.emit(.state(.connected, link: ConnectionLink(1)))
    #expect(
      try await rig.channel.next { $0.send } == .send(Self.room, "first", first.clientMessageID))
    #expect(
      try await rig.channel.next { $0.send } == .send(Self.room, "second", second.clientMessageID))
    await rig.sync.stop()
  }

  @Test("a refused send fails with the reason; retry sends it again; delete removes it")
  func refusedSend() async throws {
    let rig = try Rig()
    await rig.connected()
    let first = try await rig.sendOne("one")
    rig.channel.emit(.refused(clientMessageID: first.clientMessageID, error: .forbidden))
    try await waitUntil {
      try rig.store.outbox().first?.deliveryState
        == .failed(reason: DomainError.forbidden.description)
    }
    try await rig.sync.retry(first.clientMessageID)
    #expect(
      try await rig.channel.next { $0.send } == .send(Self.room, "one", first.clientMessageID))
    rig.channel.emit(.refused(clientMessageID: first.clientMessageID, error: .banned))
    try await waitUntil {
      if case .failed = try rig.store.outbox().first?.deliveryState { true } else { false }
    }
    try await rig.sync.delete(first.clientMessageID)
    #expect(try rig.store.outbox().isEmpty)
    #expect(try rig.store.latestMessages(in: Self.room).isEmpty)
  }

  @Test("a rate-limited send waits and goes out again")
  func rateLimitedSend() async throws {
    let rig = try Rig()
    await rig.connected()
    let message = try await rig.sendOne("soon")
    rig.channel.emit(
      .refused(clientMessageID: message.clientMessageID, error: .rateLimited(retryAfter: nil)))
    #expect(
      try await rig.channel.next { $0.send } == .send(Self.room, "soon", message.clientMessageID))
  }

  @Test("while the server keeps refusing a send for now, each try waits longer than the last")
  func backoffGrowsUnderRefusals() async throws {
    let clock = TestClock()
    let rig = try Rig(clock: clock, retryDelay: .seconds(1))
    await rig.connected()
    let message = try await rig.sendOne("soon")
    for round in 1...3 {
      rig.channel.emit(
        .refused(clientMessageID: message.clientMessageID, error: .rateLimited(retryAfter: nil)))
      try await waitUntil(step: { await clock.advance(by: .seconds(1)) }) {
        rig.sends(of: message) > round
      }
    }
    // The resends in between went out over the channel without failing: they end no run.
    #expect(rig.retries.withLock { $0 } == [0, 1, 2])
    try await rig.acknowledge(message)
    await rig.sync.stop()
  }

  @Test("the retry of a server call refused as rate limited waits as long as the server asked")
  func retryAfterIsWaitedOut() async throws {
    let clock = TestClock()
    let rig = try Rig(clock: clock, retryDelay: .seconds(1))
    await rig.sync.start()
    // The link is down: the message goes by the server call, which answers 429, Retry-After 30.
    await rig.server.failSends(with: .rateLimited(retryAfter: .seconds(30)))
    _ = try await rig.sync.send("soon", to: Self.room)
    try await waitUntil("the server call failed") { await rig.server.restCalls == 1 }
    try await clock.advanceOnceSomethingSleeps(by: .seconds(29))
    try await Task.sleep(for: .milliseconds(50))
    #expect(await rig.server.restCalls == 1)
    await clock.advance(by: .seconds(1))
    try await waitUntil { try rig.store.outbox().isEmpty }
    #expect(await rig.server.restCalls == 2)
    await rig.sync.stop()
  }

  @Test("a flush that cannot read the outbox looks again after a backoff")
  func unreadableOutboxIsReadAgain() async throws {
    let folder = try TemporaryDirectory("outbox")
    defer { folder.remove() }
    let (rig, path, clock) = try Rig.onFile(in: folder)
    let message = try rig.store.enqueue(
      "left from the last run", to: Self.room, clientMessageID: UUID(), sender: Self.me,
      at: Date())
    // Another connection takes the messages' table away for a while: reads of it fail.
    let other = try DatabaseQueue(path: path)
    try await other.write { try $0.execute(sql: "ALTER TABLE message RENAME TO message_away") }
    await rig.sync.start()
    try await waitUntil { rig.retries.withLock { !$0.isEmpty } }
    try await other.write { try $0.execute(sql: "ALTER TABLE message_away RENAME TO message") }
    try await waitUntil(step: { await clock.advance(by: .seconds(1)) }) {
      try rig.store.outbox().isEmpty
    }
    #expect(await rig.server.restSends == 1)
    #expect(
      try rig.store.latestMessages(in: Self.room).map(\.clientMessageID) == [
        message.clientMessageID
      ])
    await rig.sync.stop()
  }

  @Test(
    "a server call's answer the store cannot keep leaves the message sending; a try after a backoff stores it"
  )
  func answerTheStoreCannotKeep() async throws {
    let folder = try TemporaryDirectory("answer")
    defer { folder.remove() }
    let (rig, path, clock) = try Rig.onFile(in: folder)
    await rig.sync.start()
    await rig.server.holdSends()
    let message = try await rig.sync.send("kept on the second try", to: Self.room)
    try await waitUntil { await rig.server.restCalls == 1 }
    // The server stores it, and the store refuses its answer (a full disk, say).
    try failInserts(into: "message", ofDatabaseAt: path)
    await rig.server.releaseSends()
    // Each try is answered and cannot be stored: the backoff grows.
    try await waitUntil(step: { await clock.advance(by: .seconds(1)) }) {
      rig.retries.withLock { $0.count >= 3 }
    }
    #expect(rig.retries.withLock { Array($0.prefix(3)) } == [0, 1, 2])
    #expect(try rig.store.outbox().map(\.deliveryState) == [.sending])
    try allowInserts(into: "message", ofDatabaseAt: path)
    try await waitUntil(step: { await clock.advance(by: .seconds(1)) }) {
      try rig.store.outbox().isEmpty
    }
    #expect(
      try rig.store.latestMessages(in: Self.room).map(\.clientMessageID) == [
        message.clientMessageID
      ])
    #expect(await rig.server.restCalls >= 4)
    await rig.sync.stop()
  }

  @Test("the room list shows the stored rooms at once, then the server's once its read returns")
  func storedRoomsShowBeforeTheRefresh() async throws {
    let store = try ChatStore(at: .inMemory, owner: Self.me.id)
    let stored = ChatRoom(id: "r_a", kind: .group("g_a"), title: "A")
    let joined = ChatRoom(id: "r_b", kind: .group("g_b"), title: "B")
    try store.saveRooms([stored])
    let (gate, open) = AsyncStream<Void>.makeStream()
    var server = ChatRepository()
    server.fetchRooms = { _ in
      for await _ in gate {}
      return Page(items: [joined, stored])
    }
    let sync = ChatSync(
      store: store, me: Self.me, channel: ScriptedChannel(), server: server,
      options: ChatSyncOptions(retryDelay: { _ in .milliseconds(5) }))
    let seen = Locked<[[ChatRoom.ID]]>([])
    let reading = Task {
      for try await rooms in sync.rooms() {
        seen.withLock { $0.append(rooms.map(\.id)) }
      }
    }
    // Before, nothing came until the server answered.
    try await waitUntil("the stored list shows") { seen.withLock { $0.first } == ["r_a"] }
    open.finish()
    try await waitUntil("the server's list shows") {
      seen.withLock { $0.last.map(Set.init) } == ["r_a", "r_b"]
    }
    reading.cancel()
    await sync.stop()

    // An empty store waits for the server: no empty list first.
    let empty = try ChatStore(at: .inMemory, owner: Self.me.id)
    server.fetchRooms = { _ in Page(items: [joined]) }
    let fresh = ChatSync(
      store: empty, me: Self.me, channel: ScriptedChannel(), server: server,
      options: ChatSyncOptions(retryDelay: { _ in .milliseconds(5) }))
    for try await rooms in fresh.rooms() {
      #expect(rooms.map(\.id) == ["r_b"])
      break
    }
    await fresh.stop()
  }

  @Test("a room-list refresh is given up with its reader")
  func roomRefreshEndsWithItsReader() async throws {
    let started = Locked(false)
    let cancelled = Locked(false)
    var server = ChatRepository()
    server.fetchRooms = { _ in
      started.withLock { $0 = true }
      let (never, _) = AsyncStream<Void>.makeStream()
      for await _ in never {}
      cancelled.withLock { $0 = Task.isCancelled }
      throw CancellationError()
    }
    let sync = ChatSync(
      store: try ChatStore(at: .inMemory, owner: Self.me.id), me: Self.me,
      channel: ScriptedChannel(), server: server,
      options: ChatSyncOptions(retryDelay: { _ in .milliseconds(5) }))
    let reading = Task { for try await _ in sync.rooms() {} }
    try await waitUntil("the refresh runs") { started.withLock { $0 } }
    reading.cancel()
    try await waitUntil("the refresh was cancelled") { cancelled.withLock { $0 } }
    await sync.stop()
  }

  @Test("invalid text is refused before anything is stored")
  func invalidText() async throws {
    let rig = try Rig()
    await #expect(throws: DomainError.self) { try await rig.sync.send("   ", to: Self.room) }
    #expect(try rig.store.outbox().isEmpty)
  }

  @Test("loadOlder stores what lies before the oldest stored message, then reports the start")
  func loadOlder() async throws {
    let rig = try Rig()
    await rig.server.add(120, by: Self.peer)
    let latest = await rig.server.messages(after: 100)
    try rig.store.save(latest)
    #expect(try await rig.sync.loadOlder(in: Self.room, limit: 60).count == 60)
    #expect(try rig.store.oldestSeq(in: Self.room) == 41)
    #expect(try await rig.sync.loadOlder(in: Self.room, limit: 60).count == 40)
    #expect(try await rig.sync.loadOlder(in: Self.room, limit: 60).isEmpty)
  }

  @Test("two readers of a room subscribe once; the last one to leave unsubscribes")
  func readersShareASubscription() async throws {
    let rig = try Rig()
    await rig.connected()
    let first = try await rig.screen(of: Self.room)
    let second = try await rig.screen(of: Self.room)
    _ = try await rig.channel.next { $0.subscribe }
    first.cancel()
    try await Task.sleep(for: .milliseconds(50))
    #expect(rig.channel.calls.filter { $0.isSubscription }.count == 1)
    second.cancel()
    #expect(try await rig.channel.next { $0.unsubscribe } == .unsubscribe(Self.room))
  }

  @Test("the room list keeps every listed room in sync while it is read, sharing subscriptions")
  func roomListKeepsRoomsLive() async throws {
    let rig = try Rig()
    await rig.server.add(1, by: Self.peer)
    await rig.connected()
    let lists = Locked<[[ChatRoom]]>([])
    let list = Task {
      for try await rooms in rig.sync.rooms() { lists.withLock { $0.append(rooms) } }
    }
    // Listed, so subscribed and caught up like an open room.
    #expect(try await rig.channel.next { $0.subscribe } == .subscribe(Self.room, afterSeq: 0))
    rig.channel.emit(.subscribed(room: Self.room, lastSeq: 1))
    try await waitUntil { try rig.store.syncCursor(of: Self.room) == 1 }
    // A live message of the room reaches the list: its newest message and unread count.
    await rig.server.add(1, by: Self.peer)
    rig.channel.emit(.messages([await rig.server.message(2)]))
    try await waitUntil {
      let room = lists.withLock { $0.last?.first }
      return room?.lastMessage?.seq == 2 && room?.unreadCount == 2
    }
    // A screen of the room shares the subscription; the list ending keeps it for the screen.
    let screen = try await rig.screen(of: Self.room)
    list.cancel()
    try await Task.sleep(for: .milliseconds(50))
    #expect(rig.channel.calls.filter(\.isSubscription).count == 1)
    #expect(!rig.channel.calls.contains(.unsubscribe(Self.room)))
    screen.cancel()
    #expect(try await rig.channel.next { $0.unsubscribe } == .unsubscribe(Self.room))
  }

  @Test("the room list keeps only its first rooms in sync, however many it lists")
  func roomListLimit() async throws {
    let rig = try Rig()
    await rig.server.listRooms(ChatSync.liveListLimit + 5)
    await rig.connected()
    let list = Task { for try await _ in rig.sync.rooms() {} }
    try await waitUntil {
      rig.channel.calls.filter(\.isSubscription).count == ChatSync.liveListLimit
    }
    try await Task.sleep(for: .milliseconds(50))
    let subscribed = Set(
      rig.channel.calls.compactMap { call -> ChatRoom.ID? in
        if case .subscribe(let room, _) = call { room } else { nil }
      })
    #expect(
      subscribed == Set((1...ChatSync.liveListLimit).map { ChatRoom.ID(rawValue: "r_\($0)") }))
    list.cancel()
    try await waitUntil {
      rig.channel.calls.filter { $0.unsubscribe != nil }.count == ChatSync.liveListLimit
    }
  }

  @Test(
    "one room's stream fetches the list once when the room is not stored, and keeps no room live")
  func oneRoom() async throws {
    let rig = try Rig()
    await rig.server.listRooms(3)
    await rig.connected()
    let shown = Locked<[ChatRoom?]>([])
    let reader = Task {
      for try await room in rig.sync.room("r_2") { shown.withLock { $0.append(room) } }
    }
    defer { reader.cancel() }
    try await waitUntil { shown.withLock { $0.last??.title } == "Room 2" }
    // Already stored: a second reader asks the server for nothing.
    let again = Task { for try await _ in rig.sync.room("r_2") {} }
    defer { again.cancel() }
    try await Task.sleep(for: .milliseconds(50))
    #expect(await rig.server.roomListings == 1)
    #expect(!rig.channel.calls.contains { $0.isSubscription })
  }

  @Test("a room the server ended leaves the list's count: a screen opening it again keeps it")
  func endedRoomLeavesTheList() async throws {
    let rig = try Rig()
    await rig.connected()
    let list = Task { for try await _ in rig.sync.rooms() {} }
    _ = try await rig.channel.next { $0.subscribe }
    // Unasked (the user left the room, then came back): a screen opens it again.
    rig.channel.emit(.unsubscribed(room: Self.room))
    await rig.handledEvents()
    await rig.sync.open(Self.room)
    _ = try await rig.channel.next { $0.subscribe }
    // The list ending does not take the screen's count with it.
    list.cancel()
    try await Task.sleep(for: .milliseconds(50))
    #expect(!rig.channel.calls.contains(.unsubscribe(Self.room)))
    await rig.sync.close(Self.room)
    #expect(try await rig.channel.next { $0.unsubscribe } == .unsubscribe(Self.room))
  }

  @Test("a screen the server ended closing later does not close a screen that reopened the room")
  func endedScreenClosesLate() async throws {
    let rig = try Rig()
    try await rig.openedRoom()
    rig.channel.emit(.unsubscribed(room: Self.room))
    await rig.handledEvents()
    // The user rejoined: a second screen opens the room; then the first screen goes away.
    await rig.sync.open(Self.room)
    _ = try await rig.channel.next { $0.subscribe }
    await rig.sync.close(Self.room)
    try await Task.sleep(for: .milliseconds(50))
    #expect(!rig.channel.calls.contains(.unsubscribe(Self.room)))
    await rig.sync.close(Self.room)
    #expect(try await rig.channel.next { $0.unsubscribe } == .unsubscribe(Self.room))
  }

  @Test("the answer to our own unsubscribe keeps a room reopened meanwhile; an unasked one ends it")
  func unsubscribedAnswers() async throws {
    let rig = try Rig()
    try await rig.openedRoom()
    await rig.sync.close(Self.room)
    _ = try await rig.channel.next { $0.unsubscribe }
    await rig.sync.open(Self.room)
    _ = try await rig.channel.next { $0.subscribe }
    rig.channel.emit(.unsubscribed(room: Self.room))  // the answer to the close above
    // Still open: a reconnect subscribes it again.
    rig.channel.emit(.state(.waitingToReconnect(retryIn: .zero)))
    rig.channel.emit(.state(.connected))
    _ = try await rig.channel.next { $0.subscribe }
    // Unasked (the user left the room): a reconnect leaves it alone.
    rig.channel.emit(.unsubscribed(room: Self.room))
    rig.channel.emit(.state(.waitingToReconnect(retryIn: .zero)))
    rig.channel.emit(.state(.connected))
    try await Task.sleep(for: .milliseconds(50))
    #expect(rig.channel.calls.filter(\.isSubscription).count == 3)
  }

  @Test(
    "a subscription refused for passing trouble is asked again; one the user may not read ends; a refused typing frame changes nothing"
  )
  func refusedSubscriptions() async throws {
    let rig = try Rig()
    await rig.connected()
    let list = Task { for try await _ in rig.sync.rooms() {} }
    _ = try await rig.channel.next { $0.subscribe }
    rig.channel.emit(.subscribed(room: Self.room, lastSeq: 0))
    await rig.sync.open(Self.room)
    // Refused typing frames name the room too; with no subscription awaiting its answer, they
    // change nothing: the room stays open (a reconnect subscribes it again).
    rig.channel.emit(.refused(clientMessageID: nil, room: Self.room, error: .server("busy")))
    rig.channel.emit(.refused(clientMessageID: nil, room: Self.room, error: .forbidden))
    try await Task.sleep(for: .milliseconds(30))
    #expect(rig.channel.calls.filter(\.isSubscription).count == 1)
    rig.channel.emit(.state(.waitingToReconnect(retryIn: .zero)))
    rig.channel.emit(.state(.connected))
    _ = try await rig.channel.next { $0.subscribe }
    // A refusal the server names as a typing frame's is not the pending subscription's
    // answer, even now (a banned user who left the room: typing is refused).
    rig.channel.emit(
      .refused(clientMessageID: nil, room: Self.room, frame: .typing, error: .forbidden))
    // Server trouble: subscribed again after the backoff, with no reconnect.
    rig.channel.emit(
      .refused(clientMessageID: nil, room: Self.room, frame: .subscribe, error: .server("busy")))
    _ = try await rig.channel.next { $0.subscribe }
    // The user may no longer read the room (left on another device while this link was
    // down): neither the screen nor the list keeps it; a change of the list and a reconnect
    // leave it alone.
    let listed = await rig.server.rooms
    await rig.server.unlistRooms()
    rig.channel.emit(.refused(clientMessageID: nil, room: Self.room, error: .forbidden))
    try await Task.sleep(for: .milliseconds(20))
    await rig.server.add(1, by: Self.peer)
    rig.channel.emit(.messages([await rig.server.message(1)]))
    try await waitUntil { try rig.store.syncCursor(of: Self.room) == 1 }
    try await Task.sleep(for: .milliseconds(30))
    rig.channel.emit(.state(.waitingToReconnect(retryIn: .zero)))
    rig.channel.emit(.state(.connected))
    try await Task.sleep(for: .milliseconds(50))
    #expect(rig.channel.calls.filter(\.isSubscription).count == 3)
    // The screen closing later unsubscribes nothing: the subscription is gone already.
    await rig.sync.close(Self.room)
    try await Task.sleep(for: .milliseconds(50))
    #expect(!rig.channel.calls.contains(.unsubscribe(Self.room)))
    // The list read after the refusal no longer has the room; a rejoin lists it again, and
    // the list keeps it live anew.
    try await waitUntil { try rig.store.rooms().isEmpty }
    await rig.server.relist(listed[0])
    let reread = Task { for try await _ in rig.sync.rooms() {} }  // reads the list anew
    _ = try await rig.channel.next { $0.subscribe }
    reread.cancel()
    list.cancel()
  }

  @Test(
    "a typing signal carries the newest seq the link told of in its room, from live messages and subscriptions"
  )
  func typingCarriesTheAnnouncedSeq() async throws {
    let rig = try Rig()
    var typing = rig.sync.typing(in: Self.room).makeAsyncIterator()
    await rig.connected()
    rig.channel.emit(.typing(room: Self.room, user: Self.peer))
    #expect(await typing.next() == ChatTyping(user: Self.peer, afterSeq: 0))
    rig.channel.emit(
      .messages([
        ChatMessage(
          id: "m_5", roomID: Self.room, seq: 5, clientMessageID: UUID(), sender: Self.peer,
          text: "live", createdAt: Date()),
        ChatMessage(
          id: "m_9", roomID: "r_other", seq: 9, clientMessageID: UUID(), sender: Self.peer,
          text: "elsewhere", createdAt: Date()),
      ]))
    rig.channel.emit(.typing(room: Self.room, user: Self.peer))
    #expect(await typing.next() == ChatTyping(user: Self.peer, afterSeq: 5))
    // A subscription's answer tells of messages a catch-up has still to fetch.
    rig.channel.emit(.subscribed(room: Self.room, lastSeq: 7))
    rig.channel.emit(.typing(room: Self.room, user: Self.peer))
    #expect(await typing.next() == ChatTyping(user: Self.peer, afterSeq: 7))
    // Seqs only grow: an older answer lowers nothing.
    rig.channel.emit(.subscribed(room: Self.room, lastSeq: 6))
    rig.channel.emit(.typing(room: Self.room, user: Self.peer))
    #expect(await typing.next() == ChatTyping(user: Self.peer, afterSeq: 7))
    await rig.sync.stop()
  }

  @Test("typing and connection states reach every reader; stop ends the streams")
  func broadcastsAndStop() async throws {
    let rig = try Rig()
    var states = rig.sync.connectionStates().makeAsyncIterator()
    #expect(await states.next() == .offline)
    var typing = rig.sync.typing(in: Self.room).makeAsyncIterator()
    var messages = rig.sync.messages(in: Self.room, limit: 10).makeAsyncIterator()
    #expect(try await messages.next() == [])
    await rig.connected()
    #expect(await states.next() == .connected)
    rig.channel.emit(.typing(room: "r_other", user: Self.peer))
    rig.channel.emit(.typing(room: Self.room, user: Self.peer))
    #expect(await typing.next()?.user == Self.peer)
    await rig.sync.stop()
    #expect(await states.next() == .offline)
    #expect(await states.next() == nil)
    #expect(await typing.next() == nil)
    #expect(try await messages.next() == nil)
  }
}
