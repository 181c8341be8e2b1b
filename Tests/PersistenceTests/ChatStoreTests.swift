import Domain
import Foundation
import TestSupport
import Testing

@testable import Persistence

let mina = UserSummary(id: "u_1", nickname: "Mina")
let joon = UserSummary(id: "u_2", nickname: "Joon")
let room: ChatRoom.ID = "room_1"
let epoch = Date(timeIntervalSince1970: 1_773_622_800)

/// A message the server stored.
func sent(
  _ seq: Int64, by sender: UserSummary = joon, in room: ChatRoom.ID = room, client: UUID = UUID()
)
  -> ChatMessage
{
  ChatMessage(
    id: ChatMessage.ID(rawValue: "m_\(room.rawValue)_\(seq)"), roomID: room, seq: seq,
    clientMessageID: client, sender: sender, text: "message \(seq)",
    createdAt: epoch.addingTimeInterval(Double(seq)))
}

/// Whether `error` is the store's damage error, ``PersistenceError/corrupt(path:reason:)``.
func isCorrupt(_ error: any Error) -> Bool {
  if case .corrupt = error as? PersistenceError { true } else { false }
}

/// A store file at `path` holding one unsent `text` and one queued event, moved aside as a
/// start-over that stopped there leaves it, last changed `age` seconds ago; returns its path.
func leaveAside(_ text: String, at path: String, age: TimeInterval) throws -> String {
  let manager = FileManager.default
  let store = try ChatStore(at: .file(path: path), owner: mina.id)
  try store.enqueue(text, to: room, clientMessageID: UUID(), sender: mina, at: epoch)
  try store.enqueue(events: try screenViews(1))
  try store.close()
  let aside = "\(path).broken-\(UUID().uuidString)"
  for (file, moved) in zip(ChatStore.files(at: path), ChatStore.files(at: aside))
  where manager.fileExists(atPath: file) {
    try manager.moveItem(atPath: file, toPath: moved)
  }
  try manager.setAttributes(
    [.modificationDate: Date().addingTimeInterval(-age)], ofItemAtPath: aside)
  return aside
}

/// `count` screen views a second apart, numbered by their `index` property.
func screenViews(_ count: Int) throws -> [AnalyticsEvent] {
  try (0..<count).map {
    try AnalyticsEvent(
      name: "screen_viewed", properties: ["index": "\($0)"],
      occurredAt: epoch.addingTimeInterval(Double($0)), sessionID: "s_1")
  }
}

@Suite("ChatStore: messages, cursors, outbox, rooms, analytics, files")
struct ChatStoreTests {
  @Test(
    "a client message id is unique per sender: another member's message reusing it is stored, and leaves the owner's unsent one alone"
  )
  func clientIDsArePerSender() throws {
    let store = try ChatStore(at: .inMemory, owner: mina.id)
    let id = UUID()
    let mine = try store.enqueue("mine", to: room, clientMessageID: id, sender: mina, at: epoch)
    // Joon's message with the same client id (the server keeps ids per sender).
    let theirs = sent(1, by: joon, client: id)
    #expect(try store.save([theirs]) == SaveResult(stored: 1, duplicates: 0))
    #expect(try store.outbox().map(\.clientMessageID) == [mine.clientMessageID])
    #expect(try store.outbox().first?.text == "mine")
    // Mina's own, stored by the server, makes her unsent one sent.
    var acked = sent(2, by: mina, client: id)
    acked.text = "mine"
    #expect(try store.save([acked]) == SaveResult(stored: 1, duplicates: 0))
    #expect(try store.outbox().isEmpty)
    #expect(
      try store.latestMessages(in: room).map { "\($0.sender.nickname): \($0.text)" } == [
        "Joon: message 1", "Mina: mine",
      ])
    // The same message again is a duplicate.
    #expect(try store.save([theirs]) == SaveResult(stored: 0, duplicates: 1))
  }

  @Test("a message arriving twice is stored once; the sync cursor stops at the first gap")
  func dedupeAndCursor() throws {
    let store = try ChatStore(at: .inMemory, owner: mina.id)
    let first = try store.save([sent(1), sent(2), sent(3), sent(5)])
    #expect(first == SaveResult(stored: 4, duplicates: 0))
    #expect(try store.syncCursor(of: room) == 3)
    #expect(try store.missingSeqs(in: room) == 4...4)
    let again = try store.save([sent(2), sent(5), sent(4)])
    #expect(again == SaveResult(stored: 1, duplicates: 2))
    #expect(try store.syncCursor(of: room) == 5)
    #expect(try store.missingSeqs(in: room) == nil)
    #expect(try store.latestMessages(in: room).compactMap(\.seq) == [1, 2, 3, 4, 5])
    #expect(try store.latestMessages(in: room, limit: 2).compactMap(\.seq) == [4, 5])
    #expect(try store.messages(in: room, before: 4, limit: 2).compactMap(\.seq) == [2, 3])
    // A limit below 1 is none, not SQLite's "no limit" for a negative one.
    #expect(try store.latestMessages(in: room, limit: -1).isEmpty)
    #expect(try store.messages(in: room, before: 4, limit: -1).isEmpty)
    #expect(try store.syncCursor(of: "room_unknown") == 0)
    #expect(try store.oldestSeq(in: room) == 1)
    #expect(try store.oldestSeq(in: "room_unknown") == nil)
  }

  @Test("outbox: pending, sending, failed, retried, then confirmed by the server's copy")
  func outbox() throws {
    let store = try ChatStore(at: .inMemory, owner: mina.id)
    let id = UUID()
    let pending = try store.enqueue("hi", to: room, clientMessageID: id, sender: mina, at: epoch)
    #expect(pending.deliveryState == .pending && pending.seq == nil)
    try store.enqueue("hi", to: room, clientMessageID: id, sender: mina, at: epoch)
    #expect(try store.outbox().count == 1)
    #expect(try store.markSending(id))
    #expect(try store.outbox().first?.deliveryState == .sending)
    #expect(try store.attempts(of: id) == 1)
    // On its way: it may already be with the server, so it is not deleted.
    try store.deleteUnsent(id)
    #expect(try store.outbox().count == 1)
    try store.markFailed(id, reason: "offline")
    #expect(try store.outbox().first?.deliveryState == .failed(reason: "offline"))
    // A failed message is not sent by a flush that read the outbox before it failed.
    #expect(try !store.markSending(id))
    try store.retry(id)
    #expect(try store.outbox().first?.deliveryState == .pending)
    // The server's copy (a live broadcast or the ack) turns it into a sent message, once.
    try store.save([sent(1, by: mina, client: id)])
    #expect(try store.outbox().isEmpty)
    let messages = try store.latestMessages(in: room)
    #expect(messages.count == 1 && messages[0].seq == 1 && messages[0].deliveryState == .sent)
    // Deleting only touches unsent messages.
    try store.deleteUnsent(id)
    #expect(try store.latestMessages(in: room).count == 1)
  }

  @Test("rooms: the server's order, newest message, unread others' messages after the cursor")
  func rooms() throws {
    let store = try ChatStore(at: .inMemory, owner: mina.id)
    try store.saveRooms([
      ChatRoom(id: room, kind: .group("g_1"), title: "Study", lastReadSeq: 1),
      ChatRoom(id: "room_2", kind: .direct(joon.id), title: "Joon"),
    ])
    try store.save([sent(1), sent(2), sent(3, by: mina), sent(4)])
    var rooms = try store.rooms()
    #expect(rooms.map(\.title) == ["Study", "Joon"])
    // Mina's own message at 3 counts as read, with everything before it (as on the server).
    #expect(rooms[0].unreadCount == 1 && rooms[0].lastMessage?.seq == 4)
    #expect(rooms[0].lastReadSeq == 3)
    try store.markRead(room, upTo: 4)
    try store.markRead(room, upTo: 2)
    rooms = try store.rooms()
    #expect(rooms[0].unreadCount == 0 && rooms[0].lastReadSeq == 4)
    #expect(rooms[1].kind == .direct(joon.id))

    // A room whose messages were never synced shows the server's count until it is read.
    try store.saveRooms([
      ChatRoom(id: room, kind: .group("g_1"), title: "Study", lastReadSeq: 4),
      ChatRoom(id: "room_2", kind: .direct(joon.id), title: "Joon", unreadCount: 3),
    ])
    #expect(try store.rooms().map(\.unreadCount) == [0, 3])
    try store.markRead("room_2", upTo: 3)
    #expect(try store.rooms().map(\.unreadCount) == [0, 0])
    // A list read before the server applied that read is behind the local cursor: its count
    // is stale and does not come back.
    try store.saveRooms([
      ChatRoom(id: room, kind: .group("g_1"), title: "Study", lastReadSeq: 4),
      ChatRoom(id: "room_2", kind: .direct(joon.id), title: "Joon", unreadCount: 3),
    ])
    #expect(try store.rooms().map(\.unreadCount) == [0, 0])
    #expect(try store.rooms().map(\.lastReadSeq) == [4, 3])
    // Two more arrived meanwhile: of the server's 5, at most 3 are the ones read here.
    try store.saveRooms([
      ChatRoom(id: room, kind: .group("g_1"), title: "Study", lastReadSeq: 4),
      ChatRoom(id: "room_2", kind: .direct(joon.id), title: "Joon", unreadCount: 5),
    ])
    #expect(try store.rooms().map(\.unreadCount) == [0, 2])
  }

  @Test(
    "the list shows the server's newest message until the room is synced that far; never a hidden one"
  )
  func listedNewestMessage() throws {
    let store = try ChatStore(at: .inMemory, owner: mina.id)
    func list(_ last: ChatMessage?) throws {
      try store.saveRooms([
        ChatRoom(id: room, kind: .group("g_1"), title: "Study", lastMessage: last)
      ])
    }
    func shown() throws -> String? { try store.rooms().first?.lastMessage?.text }
    // A room nobody opened: the server's newest message, not stored among the room's messages.
    let five = sent(5)
    try list(five)
    #expect(try store.rooms().first?.lastMessage == five)
    #expect(try store.latestMessages(in: room).isEmpty && store.syncCursor(of: room) == 0)
    // Synced part of the way: the listed one is still newer.
    try store.save([sent(1), sent(2), sent(3)])
    #expect(try shown() == "message 5")
    // Synced past it: the stored messages show.
    try store.save([sent(4), sent(5), sent(6)])
    #expect(try shown() == "message 6")
    // Hidden after it was listed (the realtime `message_hidden`): it is gone at once.
    try list(sent(8))
    #expect(try shown() == "message 8")
    try store.removeHidden(8, in: room)
    #expect(try shown() == "message 6")
    // Listed, then stepped over by a catch-up that never got it (hidden): not shown.
    try list(sent(9))
    try store.skip(in: room, through: 9)
    #expect(try shown() == "message 6")
    // An unsent message is the newest; a list with no newest message forgets the listed one.
    try list(sent(12))
    let unsent = try store.enqueue(
      "draft", to: room, clientMessageID: UUID(), sender: mina, at: epoch)
    #expect(try shown() == "draft")
    try store.markFailed(unsent.clientMessageID, reason: "no")
    try store.deleteUnsent(unsent.clientMessageID)
    #expect(try shown() == "message 12")
    try list(nil)
    #expect(try shown() == "message 6")
    // A room the whole list no longer holds takes its listed message with it.
    try list(sent(12))
    try store.replaceRooms([])
    #expect(
      try store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM listed_message") } == 0
    )
  }

  @Test("the owner's own message, from any device, moves the read cursor to it; others' do not")
  func ownMessageIsRead() throws {
    let store = try ChatStore(at: .inMemory, owner: mina.id)
    try store.saveRooms([
      ChatRoom(id: room, kind: .group("g_1"), title: "Study", unreadCount: 7, lastReadSeq: 0)
    ])
    try store.save([sent(1), sent(2)])
    #expect(try store.rooms().map(\.unreadCount) == [7])
    try store.save([sent(3, by: mina)])
    #expect(try store.rooms().map(\.unreadCount) == [0])
    try store.save([sent(4), sent(5)])
    #expect(try store.rooms().map(\.unreadCount) == [2])
    // An older own message arriving late moves nothing back.
    try store.save([sent(2, by: mina)])
    #expect(try store.rooms().map(\.lastReadSeq) == [3])
  }

  @Test("one room's observation: nil until listed, then the room as the list shows it")
  func observeRoom() async throws {
    let store = try ChatStore(at: .inMemory, owner: mina.id)
    var iterator = store.observeRoom(room).makeAsyncIterator()
    #expect(try await iterator.next() == .some(nil))
    try store.saveRooms([
      ChatRoom(id: "room_2", kind: .direct(joon.id), title: "Joon"),
      ChatRoom(id: room, kind: .group("g_1"), title: "Study"),
    ])
    #expect(try await iterator.next()??.title == "Study")
    try store.save([sent(1)])
    #expect(try await iterator.next()??.lastMessage?.seq == 1)
  }

  @Test(
    "a row of the wrong type (a file changed outside the app) never traps: an event is dropped, a message is damage"
  )
  func mistypedRowsDoNotTrap() throws {
    let folder = try TemporaryDirectory("store")
    defer { folder.remove() }
    let path = folder.path("cache.sqlite")
    let store = try ChatStore(at: .file(path: path), owner: mina.id)
    try store.enqueue(events: try screenViews(3))
    try store.enqueue("hello", to: room, clientMessageID: UUID(), sender: mina, at: epoch)
    try store.close()
    try execute("UPDATE analytics_event SET occurred_at = 'soon' WHERE id = 2", in: path)
    try execute("UPDATE message SET created_at = x'00'", in: path)

    let reopened = try ChatStore(at: .file(path: path), owner: mina.id)
    let batch = try #require(try reopened.nextEventBatch(size: 10, newKey: "batch-1"))
    #expect(batch.events.count == 2)
    #expect(try reopened.queuedEventCount() == 2)
    #expect {
      try reopened.outbox()
    } throws: { isCorrupt($0) }
    #expect(reopened.damaged != nil)
    try reopened.close()
  }

  @Test("a room row of the wrong type is damage too, not a trap")
  func mistypedRoomIsDamage() throws {
    let folder = try TemporaryDirectory("store")
    defer { folder.remove() }
    let path = folder.path("cache.sqlite")
    let store = try ChatStore(at: .file(path: path), owner: mina.id)
    try store.saveRooms([ChatRoom(id: room, kind: .group("g_1"), title: "Study")])
    try store.close()
    try execute("UPDATE room SET sync_seq = 'seven'", in: path)

    let reopened = try ChatStore(at: .file(path: path), owner: mina.id)
    // A single-column read goes through SQLite's conversion (text that is no number reads as
    // 0): the room syncs from its start, and nothing traps.
    #expect(try reopened.syncCursor(of: room) == 0)
    #expect {
      try reopened.rooms()
    } throws: { isCorrupt($0) }
    #expect(reopened.damaged != nil)
    try reopened.close()
  }

  @Test("a later page of the room list is ordered after the rooms stored, not among them")
  func laterPagesFollowEarlierOnes() throws {
    let store = try ChatStore(at: .inMemory, owner: mina.id)
    try store.saveRooms([
      ChatRoom(id: "room_a", kind: .group("g_a"), title: "A"),
      ChatRoom(id: "room_b", kind: .group("g_b"), title: "B"),
    ])
    try store.saveRooms(
      [
        ChatRoom(id: "room_c", kind: .group("g_c"), title: "C"),
        ChatRoom(id: "room_d", kind: .group("g_d"), title: "D"),
      ], continuing: true)
    #expect(try store.rooms().map(\.id) == ["room_a", "room_b", "room_c", "room_d"])
  }

  @Test("the whole room list drops the rooms it no longer holds, unless unsent messages wait")
  func replaceRooms() throws {
    let store = try ChatStore(at: .inMemory, owner: mina.id)
    try store.saveRooms([
      ChatRoom(id: room, kind: .group("g_1"), title: "Study"),
      ChatRoom(id: "room_2", kind: .direct(joon.id), title: "Joon"),
      ChatRoom(id: "room_3", kind: .group("g_3"), title: "Left"),
    ])
    try store.save([sent(1)])
    let waiting = UUID()
    try store.enqueue("wait", to: "room_2", clientMessageID: waiting, sender: mina, at: epoch)
    // A page of the list drops nothing.
    try store.saveRooms([ChatRoom(id: room, kind: .group("g_1"), title: "Study")])
    #expect(try store.rooms().count == 3)
    // The whole list: room_3 is gone; room_2 keeps its unsent message until it is resolved.
    try store.replaceRooms([ChatRoom(id: room, kind: .group("g_1"), title: "Study")])
    #expect(try store.rooms().map(\.id) == [room, "room_2"])
    try store.markFailed(waiting, reason: "not a member")
    try store.deleteUnsent(waiting)
    try store.replaceRooms([ChatRoom(id: room, kind: .group("g_1"), title: "Study")])
    #expect(try store.rooms().map(\.id) == [room])
    #expect(try store.latestMessages(in: room).count == 1)
  }

  @Test("observation: the current messages first, then every change, in order")
  func observation() async throws {
    let store = try ChatStore(at: .inMemory, owner: mina.id)
    var iterator = store.observeMessages(in: room, limit: 10).makeAsyncIterator()
    #expect(try await iterator.next() == [])
    try store.save([sent(1)])
    #expect(try await iterator.next()?.compactMap(\.seq) == [1])
    try store.enqueue("yo", to: room, clientMessageID: UUID(), sender: mina, at: epoch)
    #expect(try await iterator.next()?.map(\.deliveryState) == [.sent, .pending])
    var outbox = store.observeOutbox().makeAsyncIterator()
    #expect(try await outbox.next()?.count == 1)
  }

  @Test("a file store keeps the outbox, cursors and analytics queue across a restart")
  func restart() throws {
    let folder = try TemporaryDirectory("store")
    defer { folder.remove() }
    let path = folder.path("cache.sqlite")
    let id = UUID()
    do {
      let store = try ChatStore(at: .file(path: path), owner: mina.id)
      try store.save([sent(1), sent(2)])
      try store.enqueue("later", to: room, clientMessageID: id, sender: mina, at: epoch)
      try store.enqueue(events: [
        try AnalyticsEvent(name: "room_opened", occurredAt: epoch),
        try AnalyticsEvent(name: "message_sent", occurredAt: epoch),
      ])
      // The first event was put in a batch whose upload never finished.
      #expect(try store.nextEventBatch(size: 1, newKey: "batch-1")?.key == "batch-1")
      try store.close()
    }
    let store = try ChatStore(at: .file(path: path), owner: mina.id)
    #expect(try store.outbox().map(\.clientMessageID) == [id])
    #expect(try store.syncCursor(of: room) == 2)
    #expect(try store.queuedEventCount() == 2)
    // The batch goes again under its key, then the rest under a new one.
    let batch = try #require(try store.nextEventBatch(size: 100, newKey: "batch-2"))
    #expect(batch.key == "batch-1")
    #expect(batch.events.map(\.name) == ["room_opened"])
    try store.removeEventBatch(batch.key)
    let rest = try #require(try store.nextEventBatch(size: 100, newKey: "batch-2"))
    #expect(
      rest
        == QueuedEventBatch(
          key: "batch-2",
          events: [
            try AnalyticsEvent(name: "message_sent", occurredAt: epoch)
          ]))
    try store.removeEventBatch(rest.key)
    #expect(try store.queuedEventCount() == 0)
    #expect(try store.nextEventBatch(size: 100, newKey: "batch-3") == nil)
  }

  @Test("reconcile: the newest page drops hidden messages and brings restored ones back")
  func reconcile() throws {
    let store = try ChatStore(at: .inMemory, owner: mina.id)
    try store.save((1...6).map { sent($0) })
    try store.enqueue("unsent", to: room, clientMessageID: UUID(), sender: mina, at: epoch)
    // The server's newest page (limit 3) shows 3, 5, 6 of the 6: 4 was hidden since. 1 and 2
    // lie before the page's stretch and stay.
    let result = try store.reconcile(
      room, newest: [sent(3), sent(5), sent(6)], isWholeHistory: false, lastSeq: 6)
    #expect(result.removed == 1 && result.restored == 0)
    #expect(try store.latestMessages(in: room).map(\.seq) == [1, 2, 3, 5, 6, nil])
    // A page holding the whole history (not full) also speaks for what lies before it: 1 is
    // hidden too, 4 came back; 7 arrived after the server's last seq was read and stays.
    try store.save([sent(7)])
    let whole = try store.reconcile(
      room, newest: [sent(2), sent(3), sent(4), sent(5), sent(6)], isWholeHistory: true,
      lastSeq: 6)
    #expect(whole.removed == 1 && whole.restored == 1)
    #expect(try store.latestMessages(in: room).map(\.seq) == [2, 3, 4, 5, 6, 7, nil])
    #expect(try store.syncCursor(of: room) == 7)
    // Every visible message hidden: an empty whole page clears the stretch up to the last seq.
    #expect(try store.reconcile(room, newest: [], isWholeHistory: true, lastSeq: 7).removed == 6)
    #expect(try store.latestMessages(in: room).map(\.text) == ["unsent"])
    // A message after the last seq the server named is new, not restored.
    let later = try store.reconcile(room, newest: [sent(8)], isWholeHistory: false, lastSeq: 7)
    #expect(later.removed == 0 && later.restored == 0)
    #expect(try store.latestMessages(in: room).map(\.seq) == [8, nil])
  }

  @Test("removeHidden takes out one stored message; the cursor, the outbox and others stay")
  func removeHidden() throws {
    let store = try ChatStore(at: .inMemory, owner: mina.id)
    try store.save((1...3).map { sent($0) })
    try store.enqueue("unsent", to: room, clientMessageID: UUID(), sender: mina, at: epoch)
    #expect(try store.removeHidden(2, in: room))
    #expect(try !store.removeHidden(2, in: room))
    #expect(try !store.removeHidden(9, in: room))
    #expect(try store.latestMessages(in: room).map(\.seq) == [1, 3, nil])
    #expect(try store.syncCursor(of: room) == 3)
    #expect(try store.missingSeqs(in: room) == nil)
  }

  @Test(
    "saveDelivered leaves out what moderation hid on its way: the hides told already, and any seq the sync cursor passed that is not stored; an own message left out leaves the outbox"
  )
  func saveDeliveredLeavesHiddenOut() throws {
    let store = try ChatStore(at: .inMemory, owner: mina.id)
    let ids = (0..<5).map { _ in UUID() }
    for (index, id) in ids.enumerated() {
      try store.enqueue("mine \(index)", to: room, clientMessageID: id, sender: mina, at: epoch)
    }
    // A catch-up stored 1 and stepped over 2 and 3 (hidden): the cursor is at 3.
    try store.save([sent(1)])
    try store.skip(in: room, through: 3)
    // The answer to mine 0 is seq 2, stepped over: left out, and out of the outbox. The
    // answer to mine 1 is seq 4, after the cursor: stored. Joon's 3, stepped over too, is
    // left out. Mine 2 is seq 5 and Joon's 6, whose hides came first: left out.
    let result = try store.saveDelivered(
      [
        sent(2, by: mina, client: ids[0]), sent(4, by: mina, client: ids[1]), sent(3),
        sent(5, by: mina, client: ids[2]), sent(6),
      ], in: room,
      hidden: [5, 6])
    #expect(result.leftOut == [2, 3, 5, 6])
    #expect(result.stored == 1)
    #expect(try store.latestMessages(in: room).compactMap(\.seq) == [1, 4])
    #expect(try store.outbox().map(\.clientMessageID) == [ids[3], ids[4]])
    // Moderation takes 4 out after it was stored: a later copy of it (the sender's ack after
    // the room's copy) is left out.
    try store.removeHidden(4, in: room)
    #expect(try store.saveDelivered([sent(4, by: mina, client: ids[1])], in: room).leftOut == [4])
    // A restore is stored with save(_:), below the cursor too.
    try store.save([sent(3)])
    #expect(try store.latestMessages(in: room).compactMap(\.seq) == [1, 3])
    // After the cursor nothing is left out unless told, and another member's message that
    // reuses an id of the owner's unsent one leaves that one alone.
    let theirs = try store.saveDelivered([sent(7, client: ids[3])], in: room)
    #expect(theirs.stored == 1 && theirs.leftOut.isEmpty)
    #expect(try store.outbox().map(\.clientMessageID) == [ids[3], ids[4]])
    // The hidden seqs are the room's: a message of another room is refused, nothing stored.
    #expect {
      try store.saveDelivered([sent(8), sent(1, in: "room_2")], in: room, hidden: [1])
    } throws: { error in
      guard case .database(let reason) = error as? PersistenceError else { return false }
      return reason.contains("room_2")
    }
    #expect(try store.latestMessages(in: room).compactMap(\.seq) == [1, 3, 7])
    #expect(try store.latestMessages(in: "room_2").isEmpty)
  }

  @Test("analytics batches: oldest first, a failed batch before new ones, none taken twice")
  func analyticsBatches() throws {
    let store = try ChatStore(at: .inMemory, owner: mina.id)
    let events = try screenViews(5)
    try store.enqueue(events: events)
    let first = try #require(try store.nextEventBatch(size: 2, newKey: "a"))
    #expect(first.events == Array(events[0..<2]))
    // While "a" uploads, the next call makes a new batch of the following events.
    let second = try #require(try store.nextEventBatch(size: 2, newKey: "b", excluding: ["a"]))
    #expect(second.events == Array(events[2..<4]))
    // "a" failed and is no longer in flight: it comes first again, with its events and key.
    #expect(try store.nextEventBatch(size: 2, newKey: "c", excluding: ["b"]) == first)
    try store.removeEventBatch("a")
    try store.removeEventBatch("b")
    #expect(try store.nextEventBatch(size: 2, newKey: "c")?.events == [events[4]])
  }

  @Test("the analytics queue is bounded by dropping the oldest events outside batches")
  func analyticsBound() throws {
    let store = try ChatStore(at: .inMemory, owner: mina.id)
    let events = try screenViews(6)
    try store.enqueue(events: events)
    let batch = try #require(try store.nextEventBatch(size: 2, newKey: "a"))
    #expect(try store.dropOldestEvents(keeping: 3) == 3)
    #expect(try store.queuedEventCount() == 3)
    // The batch keeps its events (its key names them); of the rest, the newest stay.
    #expect(try store.nextEventBatch(size: 10, newKey: "b") == batch)
    try store.removeEventBatch("a")
    #expect(try store.nextEventBatch(size: 10, newKey: "b")?.events == [events[5]])
    #expect(try store.dropOldestEvents(keeping: 3) == 0)
  }

  @Test("a queued row that is not an event is deleted instead of failing every upload")
  func undecodableEvent() throws {
    let store = try ChatStore(at: .inMemory, owner: mina.id)
    // Two rows that are not events (written by something else than `enqueue(events:)`).
    func insertBadRows() throws {
      try store.write { db in
        try db.execute(
          sql: """
            INSERT INTO analytics_event (name, properties, occurred_at) VALUES
              ('Not A Name!', '{}', 0), ('app_opened', 'not json', 0)
            """)
      }
    }
    try insertBadRows()
    try store.enqueue(events: [try AnalyticsEvent(name: "app_opened", occurredAt: epoch)])
    let batch = try #require(try store.nextEventBatch(size: 10, newKey: "a"))
    #expect(batch.events.map(\.occurredAt) == [epoch])
    try store.removeEventBatch("a")
    #expect(try store.queuedEventCount() == 0)
    // A whole batch's worth of bad rows does not hide the events after them.
    try insertBadRows()
    try store.enqueue(events: [try AnalyticsEvent(name: "app_opened", occurredAt: epoch)])
    let after = try #require(try store.nextEventBatch(size: 2, newKey: "b"))
    #expect(after.events.map(\.occurredAt) == [epoch])
  }

  @Test("a file store and its journal are the owner's alone (0600)")
  func privateFiles() throws {
    let folder = try TemporaryDirectory("store")
    defer { folder.remove() }
    let path = folder.path("chat/local/u_1.sqlite")
    let store = try ChatStore(at: .file(path: path), owner: mina.id)
    try store.saveRooms([ChatRoom(id: room, kind: .group("g_1"), title: "Study")])
    for file in [path, path + "-wal"] {
      #expect(try permissions(of: URL(fileURLWithPath: file)) == 0o600, "\(file)")
    }
    try store.close()
  }

  @Test("a damaged file is a typed error, and the app can start over with an empty store")
  func corruptFile() throws {
    let folder = try TemporaryDirectory("store")
    defer { folder.remove() }
    let path = folder.path("cache.sqlite")
    try Data(repeating: 0x42, count: 4096).write(to: URL(fileURLWithPath: path))
    #expect {
      _ = try ChatStore(at: .file(path: path), owner: mina.id)
    } throws: { isCorrupt($0) }
    let (store, discarded) = try ChatStore.openOrStartOver(at: path, owner: mina.id)
    #expect(discarded != nil)
    #expect(try store.outbox().isEmpty)
    #expect(FileManager.default.fileExists(atPath: path + ".broken"))
  }

  @Test("damage found after opening is a typed error, remembered, and the file can start over")
  func damageAfterOpening() throws {
    let (store, cleanUp) = try MigrationTests.open(2)
    defer { cleanUp() }
    let path = try #require(
      { if case .file(let path) = store.location { path } else { nil } }())
    try store.close()
    try damageTables(["room", "message"], ofDatabaseAt: path)

    let damaged = try ChatStore(at: .file(path: path), owner: mina.id)
    #expect(damaged.damaged == nil)
    #expect {
      _ = try damaged.rooms()
    } throws: { error in
      if case .corrupt(path, _) = error as? PersistenceError { true } else { false }
    }
    guard case .corrupt = damaged.damaged else {
      Issue.record("the store did not remember the damage: \(String(describing: damaged.damaged))")
      return
    }
    try? damaged.close()
    let fresh = try ChatStore.startOver(at: path, owner: mina.id)
    #expect(try fresh.rooms().isEmpty)
    #expect(fresh.damaged == nil)
    #expect(FileManager.default.fileExists(atPath: path + ".broken"))
    #expect(ChatStore.files(at: path) == [path, path + "-wal", path + "-shm"])
  }

  @Test("starting over carries the unsent messages and queued events over from a damaged file")
  func startOverSalvages() throws {
    let folder = try TemporaryDirectory("store")
    defer { folder.remove() }
    let path = folder.path("cache.sqlite")
    let store = try ChatStore(at: .file(path: path), owner: mina.id)
    try store.saveRooms([ChatRoom(id: room, kind: .group("g_1"), title: "Study")])
    try store.save((1...3).map { sent($0) })
    let (pending, sending, failed) = (UUID(), UUID(), UUID())
    for (text, id) in [("pending", pending), ("sending", sending), ("failed", failed)] {
      try store.enqueue(text, to: room, clientMessageID: id, sender: mina, at: epoch)
    }
    #expect(try store.markSending(sending))
    try store.markFailed(failed, reason: "Not a member.")
    try store.enqueue(events: try screenViews(3))
    let batch = try #require(try store.nextEventBatch(size: 2, newKey: "batch-1"))
    try store.close()
    // Overwrite the room table's only page: the file opens, reading the rooms fails.
    try overwriteRootPage(of: "room", in: path)
    let damaged = try ChatStore(at: .file(path: path), owner: mina.id)
    #expect(throws: PersistenceError.self) { try damaged.rooms() }
    #expect(damaged.damaged != nil)
    try? damaged.close()

    let fresh = try ChatStore.startOver(at: path, owner: mina.id)
    #expect(fresh.salvaged == ChatStore.Salvage(messages: 3, events: 3))
    let outbox = try fresh.outbox()
    #expect(outbox.map(\.clientMessageID) == [pending, sending, failed])
    // The message that was being sent may be with the server already: it stays sending.
    #expect(
      outbox.map(\.deliveryState) == [.pending, .sending, .failed(reason: "Not a member.")])
    #expect(outbox.map(\.text) == ["pending", "sending", "failed"])
    // The batch keeps its key and events; the third event waits for the next batch.
    #expect(try fresh.nextEventBatch(size: 10, newKey: "batch-2") == batch)
    #expect(try fresh.queuedEventCount() == 3)
    // Sent messages and rooms come back with the next sync.
    #expect(try fresh.latestMessages(in: room).allSatisfy { $0.seq == nil })
    #expect(try fresh.rooms().isEmpty)
    // A file that is not a database at all has nothing to give.
    try fresh.close()
    try Data(repeating: 0x42, count: 4096).write(to: URL(fileURLWithPath: path))
    let (empty, discarded) = try ChatStore.openOrStartOver(at: path, owner: mina.id)
    #expect(discarded != nil)
    #expect(empty.salvaged == ChatStore.Salvage(messages: 0, events: 0))
  }

  /// A closed store file at `path` whose outbox holds `count` messages of about 200 bytes (many
  /// pages of the message table), oldest first; returns their client message ids.
  static func storeFilling(_ count: Int, at path: String) throws -> [UUID] {
    let store = try ChatStore(at: .file(path: path), owner: mina.id)
    let ids = (0..<count).map { _ in UUID() }
    for (index, id) in ids.enumerated() {
      try store.enqueue(
        "message \(index) " + String(repeating: "x", count: 200), to: room, clientMessageID: id,
        sender: mina, at: epoch)
    }
    try store.close()
    return ids
  }

  @Test(
    "damage inside the message table and its outbox index loses only the messages on the damaged page; a mistyped row is skipped"
  )
  func startOverSalvagesAroundDamage() throws {
    let folder = try TemporaryDirectory("store")
    defer { folder.remove() }
    let path = folder.path("cache.sqlite")
    let ids = try Self.storeFilling(400, at: path)
    try execute("UPDATE message SET created_at = x'00' WHERE row = 400", in: path)
    let destroyed = try overwriteChildPages(of: "message", in: path) { $0 == $1 / 2 }
    try overwriteRootPage(of: "message_outbox", in: path)

    let fresh = try ChatStore.startOver(at: path, owner: mina.id)
    let salvaged = try #require(fresh.salvaged)
    let outbox = try fresh.outbox().map(\.clientMessageID)
    #expect(salvaged.messages == outbox.count)
    // The page's messages are lost, and the mistyped last one; the rest keep their order.
    #expect(destroyed > 5)
    #expect(outbox.count == 400 - destroyed - 1)
    #expect(outbox == ids.filter(outbox.contains))
    #expect(!outbox.contains(ids[399]))
  }

  @Test("every damaged page of a table costs its own rows only, however many there are")
  func startOverSalvagesAroundManyDamagedPages() throws {
    let folder = try TemporaryDirectory("store")
    defer { folder.remove() }
    let path = folder.path("cache.sqlite")
    let ids = try Self.storeFilling(600, at: path)
    // Every third page, from the second on: one good page between damaged ones, and more.
    let destroyed = try overwriteChildPages(of: "message", in: path) { index, _ in
      index % 3 == 1
    }

    let fresh = try ChatStore.startOver(at: path, owner: mina.id)
    let outbox = try fresh.outbox().map(\.clientMessageID)
    #expect(destroyed > 100)
    #expect(outbox.count == 600 - destroyed)
    #expect(outbox == ids.filter(outbox.contains))
  }

  @Test(
    "a file a start-over moved aside but did not carry over (it failed, or the app ended first) is carried over by the next open or start-over, never deleted first"
  )
  func filesAsideAreCarriedOverLater() throws {
    let folder = try TemporaryDirectory("store")
    defer { folder.remove() }
    let path = folder.path("cache.sqlite")
    let manager = FileManager.default
    func leftAside(_ text: String, age: TimeInterval) throws -> String {
      try leaveAside(text, at: path, age: age)
    }

    let first = try leftAside("first", age: 60)
    let (reopened, discarded) = try ChatStore.openOrStartOver(at: path, owner: mina.id)
    #expect(discarded == nil)
    #expect(reopened.salvaged == ChatStore.Salvage(messages: 1, events: 1))
    #expect(try reopened.outbox().map(\.text) == ["first"])
    #expect(!manager.fileExists(atPath: first))
    #expect(manager.fileExists(atPath: path + ".broken"))
    try reopened.close()
    // Nothing is carried over twice: not when opened again, nor when the file is still aside
    // (the app ended between the carry-over and setting the file aside for good).
    try manager.moveItem(atPath: path + ".broken", toPath: first)
    let (again, _) = try ChatStore.openOrStartOver(at: path, owner: mina.id)
    #expect(again.salvaged == ChatStore.Salvage(messages: 0, events: 0))
    #expect(try again.queuedEventCount() == 1)
    #expect(!manager.fileExists(atPath: first))
    try again.close()
    let (thirdTime, _) = try ChatStore.openOrStartOver(at: path, owner: mina.id)
    #expect(thirdTime.salvaged == nil)
    try thirdTime.close()
    // One that cannot be opened stays aside for a later try.
    let unopenable = "\(path).broken-\(UUID().uuidString)"
    try manager.createDirectory(atPath: unopenable, withIntermediateDirectories: false)
    let (later, _) = try ChatStore.openOrStartOver(at: path, owner: mina.id)
    #expect(later.salvaged == ChatStore.Salvage(messages: 0, events: 0))
    #expect(manager.fileExists(atPath: unopenable))
    try later.close()
    try manager.removeItem(atPath: unopenable)

    // A start-over while an older file still waits aside (an earlier one failed to open its
    // new store): both are carried over, the older first.
    for file in ChatStore.files(at: path) where manager.fileExists(atPath: file) {
      try manager.removeItem(atPath: file)
    }
    let older = try leftAside("second", age: 60)
    let current = try ChatStore(at: .file(path: path), owner: mina.id)
    try current.enqueue("third", to: room, clientMessageID: UUID(), sender: mina, at: epoch)
    try current.close()
    let fresh = try ChatStore.startOver(at: path, owner: mina.id)
    #expect(fresh.salvaged == ChatStore.Salvage(messages: 2, events: 1))
    #expect(try fresh.outbox().map(\.text) == ["second", "third"])
    #expect(!manager.fileExists(atPath: older))
    #expect(ChatStore.filesAside(of: path).isEmpty)
    // What deleting the store removes: the copy kept aside and the one waiting (the store
    // itself went aside with it).
    let waiting = try leftAside("fourth", age: 0)
    let existing = Set(ChatStore.existingFiles(at: path))
    #expect(existing.isSuperset(of: [path + ".broken", waiting]))
    #expect(existing.allSatisfy { $0.hasPrefix(path) && manager.fileExists(atPath: $0) })
  }

  @Test(
    "a start-over the app ended between its renames (the database aside, its -wal not) loses nothing the -wal held",
    arguments: [false, true])
  func startOverEndedBetweenItsRenames(emptyFileCreatedSince: Bool) throws {
    let folder = try TemporaryDirectory("store")
    defer { folder.remove() }
    let (path, killed) = (folder.path("cache.sqlite"), folder.path("killed.sqlite"))
    let manager = FileManager.default
    let store = try ChatStore(at: .file(path: path), owner: mina.id)
    let id = UUID()
    try store.enqueue("only in the wal", to: room, clientMessageID: id, sender: mina, at: epoch)
    // The store is open: the row is in its -wal. A copy now is what a killed app leaves.
    #expect(manager.fileExists(atPath: path + "-wal"))
    for (file, copy) in zip(ChatStore.files(at: path), ChatStore.files(at: killed))
    where manager.fileExists(atPath: file) {
      try manager.copyItem(atPath: file, toPath: copy)
    }
    try store.close()
    // A start-over moved the database aside and ended there (and a later launch may have
    // created an empty database in its place before it was opened).
    try manager.moveItem(atPath: killed, toPath: "\(killed).broken-\(UUID().uuidString)")
    if emptyFileCreatedSince { manager.createFile(atPath: killed, contents: nil) }

    let (reopened, discarded) = try ChatStore.openOrStartOver(at: killed, owner: mina.id)
    #expect(discarded == nil)
    #expect(reopened.salvaged == ChatStore.Salvage(messages: 1, events: 0))
    #expect(try reopened.outbox().map(\.clientMessageID) == [id])
    try reopened.close()
  }

  @Test("deleting a store finds every file a start-over left, also a -wal a rename left behind")
  func existingFilesFindWhatRenamesLeftBehind() throws {
    let folder = try TemporaryDirectory("store")
    defer { folder.remove() }
    let path = folder.path("cache.sqlite")
    let manager = FileManager.default
    try ChatStore(at: .file(path: path), owner: mina.id).close()
    // The app ended between a file aside's renames to `.broken`: its -wal stayed behind.
    let leftovers = ["\(path).broken-\(UUID().uuidString)-wal", "\(path).broken"]
    let others = [folder.path("cache.sqlite2.broken"), folder.path("other.sqlite.broken")]
    for file in leftovers + others { manager.createFile(atPath: file, contents: Data("x".utf8)) }
    let existing = Set(ChatStore.existingFiles(at: path))
    #expect(existing.isSuperset(of: leftovers + [path]))
    #expect(existing.isDisjoint(with: others))
  }

  @Test(
    "messages carried over late (the store queued its own since) are sent first, the older file's first, and carry over again in that order"
  )
  func lateCarryOverKeepsOrder() throws {
    let folder = try TemporaryDirectory("store")
    defer { folder.remove() }
    let path = folder.path("cache.sqlite")
    _ = try leaveAside("first", at: path, age: 120)
    _ = try leaveAside("second", at: path, age: 60)
    // The carry-over did not happen when the new store opened; the app queued more since.
    let store = try ChatStore(at: .file(path: path), owner: mina.id)
    try store.saveRooms([ChatRoom(id: room, kind: .group("g_1"), title: "Study")])
    for text in ["third", "fourth"] {
      try store.enqueue(text, to: room, clientMessageID: UUID(), sender: mina, at: epoch)
    }
    try store.close()

    let (reopened, _) = try ChatStore.openOrStartOver(at: path, owner: mina.id)
    #expect(reopened.salvaged == ChatStore.Salvage(messages: 2, events: 2))
    let order = ["first", "second", "third", "fourth"]
    #expect(try reopened.outbox().map(\.text) == order)
    #expect(try reopened.rooms().first?.lastMessage?.text == "fourth")
    try reopened.enqueue("fifth", to: room, clientMessageID: UUID(), sender: mina, at: epoch)
    try reopened.close()
    // Damaged again: every row, those below zero too, carries over in its order.
    let fresh = try ChatStore.startOver(at: path, owner: mina.id)
    #expect(try fresh.outbox().map(\.text) == order + ["fifth"])
    try fresh.close()
  }

  @Test(
    "a file the store that carried it over lists gives nothing when both wait aside (that store was damaged too): nothing arrives twice"
  )
  func chainedCarryOverTakesNothingTwice() throws {
    let folder = try TemporaryDirectory("store")
    defer { folder.remove() }
    let path = folder.path("cache.sqlite")
    let first = try leaveAside("first", at: path, age: 120)
    let (carrying, _) = try ChatStore.openOrStartOver(at: path, owner: mina.id)
    #expect(carrying.salvaged == ChatStore.Salvage(messages: 1, events: 1))
    try carrying.enqueue("second", to: room, clientMessageID: UUID(), sender: mina, at: epoch)
    try carrying.enqueue(events: try screenViews(1))
    try carrying.close()
    // The app ended before the first file was set aside for good, and the store that carried
    // it over is damaged and starts over: both files wait aside.
    try FileManager.default.moveItem(atPath: path + ".broken", toPath: first)
    let fresh = try ChatStore.startOver(at: path, owner: mina.id)
    #expect(fresh.salvaged == ChatStore.Salvage(messages: 2, events: 2))
    #expect(try fresh.outbox().map(\.text) == ["first", "second"])
    #expect(try fresh.queuedEventCount() == 2)
    #expect(ChatStore.filesAside(of: path).isEmpty)
    try fresh.close()
  }

  @Test(
    "a client message id the owner has unsent in one room is refused in another, which keeps both apart"
  )
  func clientIDInAnotherRoom() throws {
    let store = try ChatStore(at: .inMemory, owner: mina.id)
    let id = UUID()
    try store.enqueue("hello", to: room, clientMessageID: id, sender: mina, at: epoch)
    #expect {
      try store.enqueue("again", to: "room_2", clientMessageID: id, sender: mina, at: epoch)
    } throws: { error in
      guard case .database(let reason) = error as? PersistenceError else { return false }
      return reason.contains(id.lowercasedText) && reason.contains(room.rawValue)
    }
    // The same room again changes nothing, and the one message fails alone.
    #expect(
      try store.enqueue("hello", to: room, clientMessageID: id, sender: mina, at: epoch).text
        == "hello")
    try store.markFailed(id, reason: "offline")
    #expect(try store.outbox().map(\.roomID) == [room])
    // Once it is sent, the id may reach the server again from another room: the server
    // refuses it there, and only that copy fails.
    try store.save([sent(1, by: mina, client: id)])
    try store.enqueue("again", to: "room_2", clientMessageID: id, sender: mina, at: epoch)
    try store.markFailed(id, reason: "used")
    let outbox = try store.outbox()
    #expect(outbox.map(\.roomID) == ["room_2"])
    #expect(outbox.map(\.deliveryState) == [.failed(reason: "used")])
    #expect(try store.latestMessages(in: room, limit: 5).map(\.deliveryState) == [.sent])
  }

  @Test("a file from a newer app version is refused by name")
  func newerSchema() throws {
    let folder = try TemporaryDirectory("store")
    defer { folder.remove() }
    let path = folder.path("cache.sqlite")
    let store = try ChatStore(at: .file(path: path), owner: mina.id)
    try store.write { db in
      try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v9: the future')")
    }
    try store.close()
    #expect(throws: PersistenceError.newerSchema(path: path, migration: "v9: the future")) {
      _ = try ChatStore(at: .file(path: path), owner: mina.id)
    }
  }
}

@Suite("ChatStore migrations: a file of every released schema opens with nothing lost")
struct MigrationTests {
  static let fixtures = Bundle.module.url(forResource: "Fixtures", withExtension: nil)!

  /// A copy of the committed file of schema `version`, opened.
  static func open(_ version: Int) throws -> (ChatStore, cleanUp: () -> Void) {
    let folder = try TemporaryDirectory("store")
    let copy = folder.path("cache.sqlite")
    try FileManager.default.copyItem(
      at: Self.fixtures.appendingPathComponent("v\(version).qapple-cache"),
      to: URL(fileURLWithPath: copy))
    return (try ChatStore(at: .file(path: copy), owner: mina.id), folder.remove)
  }

  /// Opens a copy of the fixture of `version`, checks what the fixtures of every version hold,
  /// then runs the version's own checks.
  static func withFixture(_ version: Int, _ checks: (ChatStore) throws -> Void) throws {
    let (store, cleanUp) = try open(version)
    defer { cleanUp() }
    #expect(try store.latestMessages(in: room).compactMap(\.seq) == [1, 2, 3])
    #expect(try store.syncCursor(of: room) == 3)
    #expect(try store.outbox().map(\.text) == ["unsent"])
    #expect(try store.rooms().map(\.title) == ["Study"])
    try checks(store)
  }

  @Test("every released schema has its committed file")
  func everySchemaHasAFixture() {
    for version in 1...StoreSchema.migrations.count {
      let file = Self.fixtures.appendingPathComponent("v\(version).qapple-cache")
      #expect(FileManager.default.fileExists(atPath: file.path), "no fixture for v\(version)")
    }
  }

  @Test("v1 (rooms, messages, cursors, outbox, analytics queue)")
  func v1() throws {
    try Self.withFixture(1) { store throws in
      #expect(
        try store.nextEventBatch(size: 10, newKey: "new")?.events.map(\.name) == ["app_opened"])
    }
  }

  @Test("v2 (analytics batches keep their keys)")
  func v2() throws {
    try Self.withFixture(2) { store throws in
      #expect(try store.queuedEventCount() == 2)
      let batch = try #require(try store.nextEventBatch(size: 10, newKey: "new"))
      #expect(batch.key == "fixture-batch")
      #expect(batch.events.map(\.name) == ["app_opened"])
    }
  }

  @Test("v3 (a client message id is unique per sender)")
  func v3() throws {
    try Self.withFixture(3) { store throws in
      #expect(try store.queuedEventCount() == 2)
    }
  }

  @Test("v4 (a room keeps the newest message the server listed)")
  func v4() throws {
    try Self.withFixture(4) { store throws in
      #expect(try store.queuedEventCount() == 2)
      // The listed message (seq 4) is newer than the synced ones; the unsent one is newer still.
      let unsent = try #require(try store.outbox().first)
      try store.markFailed(unsent.clientMessageID, reason: "no")
      try store.deleteUnsent(unsent.clientMessageID)
      #expect(try store.rooms().first?.lastMessage?.seq == 4)
    }
  }

  @Test("v5 (damaged files carried over)")
  func v5() throws {
    try Self.withFixture(5) { store throws in
      #expect(try store.queuedEventCount() == 2)
    }
  }

  /// Writes the fixture of the current schema (run once per released schema, with
  /// `QAPPLE_WRITE_STORE_FIXTURE=<folder>`, and commit the file).
  @Test(
    "writes the current schema's fixture when asked",
    .enabled(if: ProcessInfo.processInfo.environment["QAPPLE_WRITE_STORE_FIXTURE"] != nil))
  func writeFixture() throws {
    let folder = try #require(ProcessInfo.processInfo.environment["QAPPLE_WRITE_STORE_FIXTURE"])
    let path = folder + "/v\(StoreSchema.migrations.count).qapple-cache"
    try? FileManager.default.removeItem(atPath: path)
    let store = try ChatStore(at: .file(path: path), owner: mina.id)
    try store.saveRooms([
      ChatRoom(id: room, kind: .group("g_1"), title: "Study", lastMessage: sent(4))
    ])
    try store.save([sent(1), sent(2), sent(3)])
    try store.enqueue("unsent", to: room, clientMessageID: UUID(), sender: mina, at: epoch)
    try store.enqueue(events: [
      try AnalyticsEvent(name: "app_opened", occurredAt: epoch),
      try AnalyticsEvent(name: "screen_viewed", occurredAt: epoch),
    ])
    _ = try store.nextEventBatch(size: 1, newKey: "fixture-batch")
    try store.close()
  }
}
