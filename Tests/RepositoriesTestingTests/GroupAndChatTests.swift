import Domain
import Foundation
import Repositories
import RepositoriesTesting
import TestSupport
import Testing

@testable import ServiceEngine

@Suite("Fake study groups")
struct StudyGroupTests {
  @Test("the creator owns the group; joining is idempotent; the owner cannot leave")
  func membership() async throws {
    let (_, alice, bob, _) = try makeCast()
    let group = try await alice.studyGroups.createGroup(
      StudyGroupDraft(name: " 알고리즘 ", description: "매주 화요일"))
    #expect(group.name == "알고리즘")
    #expect(group.owner.nickname == "alice")
    #expect(group.memberCount == 1)
    #expect(group.isMember)
    #expect(try await bob.studyGroups.fetchGroup(group.id).isMember == false)

    #expect(try await bob.studyGroups.joinGroup(group.id).memberCount == 2)
    #expect(try await bob.studyGroups.joinGroup(group.id).memberCount == 2)
    let members = try await bob.studyGroups.fetchMembers(of: group.id, page: .first).items
    #expect(members.map(\.user.nickname) == ["alice", "bob"])
    #expect(members.map(\.role) == [.owner, .member])

    await #expect {
      try await alice.studyGroups.leaveGroup(group.id)
    } throws: { error in
      if case DomainError.conflict = error { true } else { false }
    }
    try await bob.studyGroups.leaveGroup(group.id)
    try await bob.studyGroups.leaveGroup(group.id)
    #expect(try await alice.studyGroups.fetchGroup(group.id).memberCount == 1)
  }

  @Test("only the owner edits or deletes; names are 1-30 characters")
  func ownerOnly() async throws {
    let (_, alice, bob, _) = try makeCast()
    #expect(
      await validationField {
        _ = try await alice.studyGroups.createGroup(StudyGroupDraft(name: " "))
      } == "name")
    #expect(
      await validationField {
        _ = try await alice.studyGroups.createGroup(
          StudyGroupDraft(name: String(repeating: "n", count: 31)))
      } == "name")
    #expect(
      await validationField {
        _ = try await alice.studyGroups.createGroup(
          StudyGroupDraft(name: "ok", description: String(repeating: "d", count: 501)))
      } == "description")
    let group = try await alice.studyGroups.createGroup(StudyGroupDraft(name: "SwiftUI"))
    _ = try await bob.studyGroups.joinGroup(group.id)
    await #expect(throws: DomainError.forbidden) {
      _ = try await bob.studyGroups.updateGroup(group.id, StudyGroupDraft(name: "Mine now"))
    }
    await #expect(throws: DomainError.forbidden) { try await bob.studyGroups.deleteGroup(group.id) }
    let renamed = try await alice.studyGroups.updateGroup(
      group.id, StudyGroupDraft(name: "SwiftUI Study", description: "Weekly"))
    #expect(renamed.name == "SwiftUI Study")
    try await alice.studyGroups.deleteGroup(group.id)
    await #expect(throws: DomainError.notFound) {
      _ = try await bob.studyGroups.fetchGroup(group.id)
    }
    #expect(try await bob.chat.fetchRooms(page: .first).items.isEmpty)
  }

  @Test("search by name or description, newest first")
  func search() async throws {
    let (backend, alice, _, _) = try makeCast()
    _ = try await alice.studyGroups.createGroup(
      StudyGroupDraft(name: "Algorithms", description: "BOJ"))
    backend.advance(by: 1)
    _ = try await alice.studyGroups.createGroup(
      StudyGroupDraft(name: "English", description: "algorithm talk"))
    let found = try await alice.studyGroups.fetchGroups(query: "ALGORITHM", page: .first)
    #expect(found.items.map(\.name) == ["English", "Algorithms"])
    #expect(try await alice.studyGroups.fetchGroups(query: nil, page: .first).items.count == 2)
  }
}

@Suite("Fake chat")
struct ChatTests {
  @Test("group rooms are for members only")
  func groupRoomAccess() async throws {
    let (_, alice, bob, _) = try makeCast()
    let group = try await alice.studyGroups.createGroup(StudyGroupDraft(name: "Algorithms"))
    let room = try #require(try await alice.chat.fetchRooms(page: .first).items.first)
    #expect(room.kind == .group(group.id))
    #expect(room.title == "Algorithms")
    #expect(try await bob.chat.fetchRooms(page: .first).items.isEmpty)
    await #expect(throws: DomainError.forbidden) {
      _ = try await bob.chat.fetchMessages(room.id, nil, nil, 20)
    }
    await #expect(throws: DomainError.forbidden) {
      _ = try await bob.chat.sendMessage("hi", room.id, UUID())
    }
    _ = try await bob.studyGroups.joinGroup(group.id)
    let sent = try await bob.chat.sendMessage("hi", room.id, UUID())
    #expect(sent.seq == 1)
    #expect(sent.sender.nickname == "bob")
  }

  @Test("sends are de-duplicated by client message id; seq grows by one per room")
  func idempotentSend() async throws {
    let (_, alice, bob, _) = try makeCast()
    let room = try await alice.chat.openDirectRoom(with: try bob.userID)
    let id = UUID()
    let first = try await alice.chat.sendMessage("Hello", room.id, id)
    let retry = try await alice.chat.sendMessage("Hello", room.id, id)
    #expect(retry == first)
    let second = try await bob.chat.sendMessage("Hi!", room.id, UUID())
    #expect([first.seq, second.seq] == [1, 2])
    let all = try await alice.chat.fetchMessages(room.id, nil, nil, 100)
    #expect(all.map(\.text) == ["Hello", "Hi!"])
    #expect(all.map(\.deliveryState) == [.sent, .sent])
    #expect(
      await validationField { _ = try await alice.chat.sendMessage("  ", room.id, UUID()) }
        == "text")

    // The same client message id in another room is a conflict, not a silent duplicate.
    let group = try await alice.studyGroups.createGroup(StudyGroupDraft(name: "Elsewhere"))
    let groupRoom = try #require(
      try await alice.chat.fetchRooms(page: .first).items.first { $0.kind == .group(group.id) })
    await #expect {
      _ = try await alice.chat.sendMessage("Hello", groupRoom.id, id)
    } throws: { error in
      if case DomainError.conflict = error { true } else { false }
    }
  }

  @Test("one direct room per pair, from either side; not with oneself")
  func directRooms() async throws {
    let (_, alice, bob, _) = try makeCast()
    let fromAlice = try await alice.chat.openDirectRoom(with: try bob.userID)
    let fromBob = try await bob.chat.openDirectRoom(with: try alice.userID)
    #expect(fromAlice.id == fromBob.id)
    #expect(fromAlice.kind == .direct(try bob.userID))
    #expect(fromBob.kind == .direct(try alice.userID))
    #expect(fromAlice.title == "bob")
    #expect(try await alice.chat.openDirectRoom(with: try bob.userID).id == fromAlice.id)
    #expect(
      await validationField { _ = try await alice.chat.openDirectRoom(with: try alice.userID) }
        == "user_id")
    await #expect(throws: DomainError.notFound) {
      _ = try await alice.chat.openDirectRoom(with: "u_404")
    }
  }

  @Test("history after a seq, before a seq, and the newest page")
  func history() async throws {
    let (_, alice, bob, _) = try makeCast()
    let room = try await alice.chat.openDirectRoom(with: try bob.userID)
    for index in 1...10 { _ = try await alice.chat.sendMessage("m\(index)", room.id, UUID()) }
    func seqs(_ after: Int64?, _ before: Int64?, _ limit: Int) async throws -> [Int64] {
      try await bob.chat.fetchMessages(room.id, after, before, limit).compactMap(\.seq)
    }
    #expect(try await seqs(nil, nil, 3) == [8, 9, 10])
    #expect(try await seqs(4, nil, 3) == [5, 6, 7])
    #expect(try await seqs(nil, 4, 5) == [1, 2, 3])
    #expect(try await seqs(8, nil, 50) == [9, 10])
    #expect(try await seqs(10, nil, 50) == [])
    // A limit outside 1...100 is clamped, as the live client's request clamps it.
    #expect(try await seqs(nil, nil, 0) == [10])
    #expect(try await seqs(nil, nil, 101) == Array(1...10))
    #expect(await validationField { _ = try await seqs(2, 8, 10) } == "before_seq")
    #expect(await validationField { _ = try await seqs(-1, nil, 10) } == "after_seq")
  }

  @Test("rooms are listed newest room first, whatever their activity")
  func roomOrder() async throws {
    let (backend, alice, bob, _) = try makeCast()
    let group = try await alice.studyGroups.createGroup(StudyGroupDraft(name: "Older room"))
    backend.advance(by: 60)
    let direct = try await alice.chat.openDirectRoom(with: try bob.userID)
    backend.advance(by: 60)
    let groupRoom = try #require(
      try await alice.chat.fetchRooms(page: .first).items.first { $0.kind == .group(group.id) })
    _ = try await alice.chat.sendMessage("activity in the older room", groupRoom.id, UUID())
    let rooms = try await alice.chat.fetchRooms(page: .first).items.map(\.id)
    #expect(rooms == [direct.id, groupRoom.id])
  }

  @Test("read cursors drive unread counts; the room list shows the last message")
  func readCursor() async throws {
    let (backend, alice, bob, _) = try makeCast()
    let room = try await alice.chat.openDirectRoom(with: try bob.userID)
    for index in 1...3 {
      backend.advance(by: 1)
      _ = try await alice.chat.sendMessage("m\(index)", room.id, UUID())
    }
    var bobsRoom = try #require(try await bob.chat.fetchRooms(page: .first).items.first)
    #expect(bobsRoom.unreadCount == 3)
    #expect(bobsRoom.lastMessage?.text == "m3")
    // One's own messages count as read.
    let alicesRoom = try #require(try await alice.chat.fetchRooms(page: .first).items.first)
    #expect(alicesRoom.unreadCount == 0)
    #expect(alicesRoom.lastReadSeq == 3)

    try await bob.chat.markRead(room.id, 2)
    bobsRoom = try #require(try await bob.chat.fetchRooms(page: .first).items.first)
    #expect(bobsRoom.unreadCount == 1)
    #expect(bobsRoom.lastReadSeq == 2)
    // The cursor never moves back and stops at the last message.
    try await bob.chat.markRead(room.id, 1)
    try await bob.chat.markRead(room.id, 99)
    bobsRoom = try #require(try await bob.chat.fetchRooms(page: .first).items.first)
    #expect(bobsRoom.lastReadSeq == 3)
    #expect(bobsRoom.unreadCount == 0)
  }
}

@Suite("Fake chat sync", .timeLimit(.minutes(1)))
struct FakeChatSyncTests {
  @Test("offline: a send stays pending and goes out once the backend is back; the link follows")
  func offlineOutbox() async throws {
    let (backend, alice, bob, _) = try makeCast()
    let group = try await alice.studyGroups.createGroup(StudyGroupDraft(name: "Offline"))
    _ = try await bob.studyGroups.joinGroup(group.id)
    let room = try #require(try await bob.chat.fetchRooms(page: .first).items.first)
    var states = alice.chat.connectionStates().makeAsyncIterator()
    var messages = alice.chat.messages(in: room.id, limit: 10).makeAsyncIterator()
    #expect(try await messages.next() == [])
    try #require(await states.next(where: { $0 == .connected }) == .connected)

    backend.isOffline = true
    #expect(await states.next() == .waitingToReconnect(retryIn: .zero))
    let pending = try await alice.chat.send(text: "sent while offline", to: room.id)
    var latest = try #require(try await messages.next())
    #expect(latest.map(\.deliveryState) == [.pending])
    // The outbox tries (sending) and waits (pending again) while nothing gets through.
    for state in [ChatMessage.DeliveryState.sending, .pending] {
      repeat {
        latest = try #require(try await messages.next())
      } while latest.last?.deliveryState != state
    }
    let bobViewer = try backend.engine.viewer(try bob.userID)
    #expect(
      try backend.engine.messages(
        in: room.id, afterSeq: nil, beforeSeq: nil, limit: 10, as: bobViewer
      ).isEmpty)

    backend.isOffline = false
    repeat {
      latest = try #require(try await messages.next())
    } while latest.last?.deliveryState != .sent
    #expect(latest.map(\.clientMessageID) == [pending.clientMessageID])
    #expect(latest.last?.seq == 1)
    let onServer = try await bob.chat.fetchMessages(room.id, nil, nil, 10)
    #expect(onServer.map(\.clientMessageID) == [pending.clientMessageID])
  }

  @Test(
    "a send the database fails for now ends the link, as on the server: the later send is not stored first"
  )
  func sendFailedForNowKeepsTheOrder() async throws {
    let (backend, alice, _, _) = try makeCast()
    _ = try await alice.studyGroups.createGroup(StudyGroupDraft(name: "Order"))
    let room = try #require(try await alice.chat.fetchRooms(page: .first).items.first)
    var states = alice.chat.connectionStates().makeAsyncIterator()
    var messages = alice.chat.messages(in: room.id, limit: 10).makeAsyncIterator()
    #expect(try await messages.next() == [])
    try #require(await states.next(where: { $0 == .connected }) == .connected)

    // Storing "first" fails, as a full disk would make it, until the trigger goes.
    try failInserts(into: "chat_message", when: "NEW.text = 'first'", in: backend.engine.writer)
    _ = try await alice.chat.send(text: "first", to: room.id)
    _ = try await alice.chat.send(text: "second", to: room.id)
    // The refusal ends the link (the engine sees it go down); nothing is stored meanwhile.
    try #require(await states.next(where: { $0 != .connected }) != nil)
    let aliceViewer = try backend.engine.viewer(try alice.userID)
    #expect(
      try backend.engine.messages(
        in: room.id, afterSeq: nil, beforeSeq: nil, limit: 10, as: aliceViewer
      ).isEmpty)

    try allowInserts(into: "chat_message", in: backend.engine.writer)
    var latest: [ChatMessage] = []
    while latest.count < 2 || latest.contains(where: { $0.deliveryState != .sent }) {
      latest = try #require(try await messages.next())
    }
    #expect(latest.map(\.text) == ["first", "second"])
    #expect(latest.compactMap(\.seq) == [1, 2])
  }

  @Test(
    "a send over the write limit ends the link, as on the server: it goes again, in order, once the window passed"
  )
  func sendOverTheWriteLimitKeepsTheOrder() async throws {
    let (backend, alice, _, _) = try makeCast()
    _ = try await alice.studyGroups.createGroup(StudyGroupDraft(name: "Limited"))
    let room = try #require(try await alice.chat.fetchRooms(page: .first).items.first)
    var states = alice.chat.connectionStates().makeAsyncIterator()
    var messages = alice.chat.messages(in: room.id, limit: 10).makeAsyncIterator()
    #expect(try await messages.next() == [])
    try #require(await states.next(where: { $0 == .connected }) == .connected)

    backend.rateLimit = FakeRateLimit(maximumWrites: 2, per: .seconds(10))
    for text in ["one", "two", "three"] { _ = try await alice.chat.send(text: text, to: room.id) }
    // The third is over the limit: the refusal ends the link; the first two are stored.
    try #require(await states.next(where: { $0 != .connected }) != nil)
    let aliceViewer = try backend.engine.viewer(try alice.userID)
    #expect(
      try backend.engine.messages(
        in: room.id, afterSeq: nil, beforeSeq: nil, limit: 10, as: aliceViewer
      ).map(\.text) == ["one", "two"])

    backend.advance(by: 11)
    var latest: [ChatMessage] = []
    while latest.count < 3 || latest.contains(where: { $0.deliveryState != .sent }) {
      latest = try #require(try await messages.next())
    }
    #expect(latest.map(\.text) == ["one", "two", "three"])
    #expect(latest.compactMap(\.seq) == [1, 2, 3])
  }

  @Test("two fake clients chat live; each has its own store")
  func liveBetweenClients() async throws {
    let (_, alice, bob, _) = try makeCast()
    let group = try await alice.studyGroups.createGroup(StudyGroupDraft(name: "Live"))
    _ = try await bob.studyGroups.joinGroup(group.id)
    let room = try #require(try await bob.chat.fetchRooms(page: .first).items.first)
    var bobs = bob.chat.messages(in: room.id, limit: 10).makeAsyncIterator()
    #expect(try await bobs.next() == [])
    for text in ["one", "two", "three"] { _ = try await alice.chat.send(text: text, to: room.id) }
    var seen: [ChatMessage] = []
    while seen.count < 3 { seen = try #require(try await bobs.next()) }
    #expect(seen.map(\.text) == ["one", "two", "three"])
    #expect(seen.compactMap(\.seq) == [1, 2, 3])
  }
}

extension AsyncStream<ChatConnectionState>.Iterator {
  /// The next state that `matches`, skipping the others; `nil` when the stream ends first.
  mutating func next(
    where matches: (ChatConnectionState) -> Bool
  ) async -> ChatConnectionState? {
    while let state = await next() {
      if matches(state) { return state }
    }
    return nil
  }
}
