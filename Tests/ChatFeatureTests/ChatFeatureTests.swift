import ChatFeature
import Clocks
import Dependencies
import Domain
import Foundation
import ReportFeature
import Repositories
import RepositoriesTesting
import TestSupport
import Testing

/// The chat screens on the fakes, which run the real sync engine: two members in one group
/// room, live messages and typing, the outbox offline and after a refusal, history, the read
/// cursor and the room list.
@MainActor
@Suite("ChatFeature")
struct ChatFeatureTests {
  let backend = FakeBackend(now: { Fixtures.now })
  let clock = TestClock()
  let alice: FakeClient
  let bob: FakeClient
  let group: StudyGroup
  let roomID: ChatRoom.ID

  init() async throws {
    alice = try backend.signedUpClient(nickname: "alice")
    bob = try backend.signedUpClient(nickname: "bob")
    group = try await alice.studyGroups.createGroup(StudyGroupDraft(name: "Swift Study"))
    _ = try await bob.studyGroups.joinGroup(group.id)
    let kind = ChatRoom.Kind.group(group.id)
    let room = try await alice.chat.fetchRooms(.first).items.first { $0.kind == kind }
    roomID = try #require(room).id
  }

  /// Alice's and Bob's screens of the room, running (cancel `screens` at the end) and connected,
  /// Bob's with its first messages read; `nil` (an issue recorded) when they never connect.
  func bothInTheRoom() async -> (
    alice: ChatRoomModel, bob: ChatRoomModel, screens: Task<Void, Never>
  )? {
    let aliceRoom = alice.model(clock: clock) { ChatRoomModel(roomID: roomID) }
    let bobRoom = bob.model(clock: clock) { ChatRoomModel(roomID: roomID) }
    let screens = Task {
      async let aliceScreen: Void = aliceRoom.task()
      async let bobScreen: Void = bobRoom.task()
      _ = await (aliceScreen, bobScreen)
    }
    let connected = await eventually("both are connected") {
      aliceRoom.connection == .connected && bobRoom.connection == .connected && !bobRoom.isLoading
    }
    guard connected else {
      screens.cancel()
      return nil
    }
    return (aliceRoom, bobRoom, screens)
  }

  /// `client` sends `text` straight to the server (as if from another device).
  func serverMessage(_ text: String, from client: FakeClient) async throws -> ChatMessage {
    try await client.chat.sendMessage(text, roomID, UUID())
  }

  @Test func aRoomsScreenReadsItsRoomAloneNotTheRoomList() async throws {
    let listReads = Locked(0)
    let screen = alice.model(
      clock: clock,
      { values in
        let rooms = values.chatRepository.rooms
        values.chatRepository.rooms = {
          listReads.withLock { $0 += 1 }
          return rooms()
        }
      }
    ) { ChatRoomModel(roomID: roomID) }
    let running = Task { await screen.task() }
    defer { running.cancel() }
    // The title comes from the room alone: reading the list would keep its first rooms live.
    guard await eventually("the title shows", { screen.room?.title == "Swift Study" }) else {
      return
    }
    #expect(listReads.withLock { $0 } == 0)
  }

  @Test func aMessageAndTypingReachTheOtherMemberLive() async throws {
    guard let room = await bothInTheRoom() else { return }
    let (aliceRoom, bobRoom) = (room.alice, room.bob)
    defer { room.screens.cancel() }
    #expect(aliceRoom.connectionBanner == nil)
    #expect(!aliceRoom.canSend)

    // Typing: shown at bob's (not at alice's own screen) until 5 s after the last signal
    // (before any message: a message from alice would end it at once).
    await aliceRoom.draftChanged("Hello")
    guard
      await eventually(
        "bob sees alice typing", { bobRoom.typingUsers.map(\.nickname) == ["alice"] })
    else { return }
    #expect(aliceRoom.typingUsers.isEmpty)
    await clock.advance(by: .milliseconds(4_900))
    #expect(bobRoom.typingUsers.map(\.nickname) == ["alice"])
    await clock.advance(by: .milliseconds(200))
    #expect(await eventually("alice's typing disappears", { bobRoom.typingUsers.isEmpty }))

    await aliceRoom.draftChanged("Hello bob")
    #expect(aliceRoom.canSend)
    await aliceRoom.sendButtonTapped()
    #expect(aliceRoom.draft == "")
    #expect(aliceRoom.failure == nil)
    guard await eventually("bob sees the message", { bobRoom.messages.last?.text == "Hello bob" })
    else { return }
    let received = try #require(bobRoom.messages.last)
    #expect(received.sender.nickname == "alice")
    #expect(received.deliveryState == .sent)
    #expect(received.seq != nil)
    #expect(!bobRoom.isMine(received) && bobRoom.canSeeMore(received))
    #expect(!bobRoom.canRetry(received) && !bobRoom.canDelete(received))
    guard
      await eventually(
        "alice's copy is sent",
        {
          aliceRoom.messages.last?.deliveryState == .sent
        })
    else { return }
    let sent = try #require(aliceRoom.messages.last)
    #expect(aliceRoom.isMine(sent) && !aliceRoom.canSeeMore(sent))
    #expect(sent.clientMessageID == received.clientMessageID)
    #expect(await eventually("the room's title shows", { bobRoom.room?.title == "Swift Study" }))

    let events = try await alice.uploadedEvents()
    #expect(events.map(\.name) == ["screen_viewed", "chat_message_sent"])
    #expect(events.first?.properties == ["screen": "chat_room"])
  }

  @Test func aMessageFromSomeoneTypingEndsTheirIndicatorAtOnce() async throws {
    let carol = try backend.signedUpClient(nickname: "carol")
    _ = try await carol.studyGroups.joinGroup(group.id)
    // An earlier message of carol's: only a message that arrives ends an indicator.
    _ = try await serverMessage("Hi all", from: carol)
    guard let room = await bothInTheRoom() else { return }
    let (aliceRoom, bobRoom) = (room.alice, room.bob)
    defer { room.screens.cancel() }
    let carolRoom = carol.model(clock: clock) { ChatRoomModel(roomID: roomID) }
    let carolScreen = Task { await carolRoom.task() }
    defer { carolScreen.cancel() }
    guard await eventually("carol is connected", { carolRoom.connection == .connected }) else {
      return
    }

    await aliceRoom.draftChanged("On my")
    await carolRoom.draftChanged("Me")
    guard
      await eventually(
        "bob sees alice and carol typing",
        { Set(bobRoom.typingUsers.map(\.nickname)) == ["alice", "carol"] })
    else { return }
    // Alice sends what she typed. The test clock never moves, so no timer ends an indicator:
    // only her message can end hers, and carol's stays.
    await aliceRoom.draftChanged("On my way")
    await aliceRoom.sendButtonTapped()
    guard
      await eventually("bob sees alice's message", { bobRoom.messages.last?.text == "On my way" })
    else { return }
    #expect(bobRoom.typingUsers.map(\.nickname) == ["carol"])
  }

  @Test func messagesSentBeforeSomeoneBeganTypingDoNotEndTheirIndicator() async throws {
    // Bob's screen reads scripted streams: carol's typing signal says the room had 3 messages
    // then, and a catch-up stores her messages 2 and 3 only after it.
    let carol = UserSummary(id: "u_carol", nickname: "carol")
    let (typing, typist) = AsyncStream.makeStream(of: ChatTyping.self)
    let (lists, lister) = AsyncThrowingStream.makeStream(of: [ChatMessage].self)
    func message(_ seq: Int64) -> ChatMessage {
      ChatMessage(
        id: ChatMessage.ID(rawValue: "m_\(seq)"), roomID: roomID, seq: seq,
        clientMessageID: UUID(), sender: carol, text: "message \(seq)", createdAt: Fixtures.now)
    }
    let bobRoom = bob.model(clock: clock) {
      $0.chatRepository.typing = { _ in typing }
      $0.chatRepository.messages = { _, _ in lists }
    } _: {
      ChatRoomModel(roomID: roomID)
    }
    let screen = Task { await bobRoom.task() }
    defer { screen.cancel() }
    lister.yield([message(1)])
    guard await eventually("the first list shows", { bobRoom.messages.count == 1 }) else { return }
    typist.yield(ChatTyping(user: carol, afterSeq: 3))
    guard await eventually("carol types", { bobRoom.typingUsers == [carol] }) else { return }
    lister.yield([message(1), message(2), message(3)])
    guard await eventually("the catch-up shows", { bobRoom.messages.count == 3 }) else { return }
    #expect(bobRoom.typingUsers == [carol])
    lister.yield([message(1), message(2), message(3), message(4)])
    #expect(await eventually("her new message ends it", { bobRoom.typingUsers.isEmpty }))
  }

  @Test func unsentMessagesDoNotMakeTheFirstLoadOlderOnlyWidenTheWindow() async throws {
    // 30 sent messages and 20 typed offline: the store holds nothing older than it shows, so
    // "load older" asks the server at once.
    let (lists, lister) = AsyncThrowingStream.makeStream(of: [ChatMessage].self)
    let asked = LockIsolated(0)
    let me = try bob.userID
    let sender = UserSummary(id: me, nickname: "bob")
    let sent = (1...30).map { seq in
      ChatMessage(
        id: ChatMessage.ID(rawValue: "m_\(seq)"), roomID: roomID, seq: Int64(seq + 100),
        clientMessageID: UUID(), sender: sender, text: "sent \(seq)", createdAt: Fixtures.now)
    }
    let unsent = (1...20).map { index in
      ChatMessage(
        id: ChatMessage.ID(rawValue: "local_\(index)"), roomID: roomID, seq: nil,
        clientMessageID: UUID(), sender: sender, text: "unsent \(index)", createdAt: Fixtures.now,
        deliveryState: .pending)
    }
    let bobRoom = bob.model(clock: clock) {
      $0.chatRepository.messages = { _, _ in lists }
      $0.chatRepository.loadOlder = { _, _ in
        asked.withValue { $0 += 1 }
        return 0
      }
    } _: {
      ChatRoomModel(roomID: roomID)
    }
    let screen = Task { await bobRoom.task() }
    defer { screen.cancel() }
    lister.yield(sent + unsent)
    guard await eventually("the list shows", { bobRoom.messages.count == 50 }) else { return }
    await bobRoom.loadOlderTapped()
    #expect(asked.value == 1)
    #expect(bobRoom.isAtBeginning)
  }

  @Test func typingIsToldAtMostOncePerInterval() async throws {
    let signals = LockIsolated<[ChatRoom.ID]>([])
    let room = alice.model(
      clock: clock,
      {
        $0.chatRepository.userIsTyping = { room in signals.withValue { $0.append(room) } }
      }
    ) {
      ChatRoomModel(roomID: roomID)
    }
    await room.draftChanged("   ")
    #expect(signals.value.isEmpty)
    await room.draftChanged("H")
    await room.draftChanged("He")
    await room.draftChanged("Hel")
    #expect(signals.value == [roomID])
    await clock.advance(by: .milliseconds(2_900))
    await room.draftChanged("Hell")
    #expect(signals.value == [roomID])
    // Past the end of the quiet period (a timer that starts sleeping late, exactly at its
    // deadline, would wait for the next advance on a test clock).
    await clock.advance(by: .milliseconds(200))
    // The quiet period's end runs on its own task: type until the next signal goes out.
    try await waitUntil(
      "a second signal goes out",
      step: {
        await room.draftChanged("Hello")
        try? await Task.sleep(for: .milliseconds(10))
      }
    ) { signals.value.count >= 2 }
    #expect(signals.value == [roomID, roomID])
    #expect(room.draft == "Hello")
  }

  @Test func aMessageSentOfflineWaitsThenIsDelivered() async throws {
    guard let room = await bothInTheRoom() else { return }
    let (aliceRoom, bobRoom) = (room.alice, room.bob)
    defer { room.screens.cancel() }

    backend.isOffline = true
    guard await eventually("alice sees she is offline", { aliceRoom.connectionBanner != nil })
    else { return }
    if case .offline = aliceRoom.connectionBanner {
    } else {
      Issue.record("banner: \(String(describing: aliceRoom.connectionBanner))")
    }
    await aliceRoom.draftChanged("Sent from the subway")
    await aliceRoom.sendButtonTapped()
    #expect(aliceRoom.failure == nil)
    guard
      await eventually(
        "the message shows at once",
        {
          aliceRoom.messages.last?.text == "Sent from the subway"
        })
    else { return }
    let waiting = try #require(aliceRoom.messages.last)
    #expect(waiting.seq == nil)
    #expect(waiting.deliveryState == .pending || waiting.deliveryState == .sending)
    // Waiting, it can be deleted; while a try is on its way it might already be stored.
    #expect(aliceRoom.canDelete(waiting) == (waiting.deliveryState == .pending))
    #expect(!aliceRoom.canRetry(waiting))
    #expect(!bobRoom.messages.contains { $0.text == "Sent from the subway" })

    backend.isOffline = false
    #expect(
      await eventually(
        "it is delivered once online",
        {
          aliceRoom.messages.last?.deliveryState == .sent && aliceRoom.messages.last?.seq != nil
        }))
    #expect(
      await eventually(
        "bob gets it",
        {
          bobRoom.messages.filter { $0.text == "Sent from the subway" }.count == 1
        }))
    #expect(aliceRoom.connectionBanner == nil)
  }

  @Test func aRefusedMessageFailsAndCanBeRetriedOrDeleted() async throws {
    let moderator = try backend.signedUpClient(nickname: "keeper", role: .admin)
    guard let room = await bothInTheRoom() else { return }
    let (aliceRoom, bobRoom) = (room.alice, room.bob)
    defer { room.screens.cancel() }

    _ = try await moderator.admin.banUser(try alice.userID, "Spam", nil)
    for text in ["First try", "Never mind"] {
      await aliceRoom.draftChanged(text)
      await aliceRoom.sendButtonTapped()
    }
    guard
      await eventually(
        "both are refused",
        {
          aliceRoom.messages.filter { aliceRoom.canRetry($0) }.count == 2
        })
    else { return }
    let failed = aliceRoom.messages.filter { aliceRoom.canRetry($0) }
    #expect(
      failed.map(\.deliveryState)
        == Array(repeating: .failed(reason: DomainError.banned.description), count: 2))

    _ = try await moderator.admin.unbanUser(try alice.userID)
    await aliceRoom.retryTapped(failed[0])
    await aliceRoom.deleteTapped(failed[1])
    #expect(aliceRoom.failure == nil)
    #expect(
      await eventually(
        "the retried one is sent",
        {
          aliceRoom.messages.contains { $0.text == "First try" && $0.deliveryState == .sent }
        }))
    #expect(
      await eventually(
        "the deleted one is gone",
        {
          !aliceRoom.messages.contains { $0.text == "Never mind" }
        }))
    #expect(
      await eventually(
        "bob gets the retried one",
        {
          bobRoom.messages.contains { $0.text == "First try" }
        }))
    #expect(!bobRoom.messages.contains { $0.text == "Never mind" })
    let names = try await alice.uploadedEvents().map(\.name)
    #expect(
      names == [
        "screen_viewed", "chat_message_sent", "chat_message_sent", "chat_message_retried",
        "chat_message_discarded",
      ])
  }

  @Test func aTooLongMessageIsRefusedAndKept() async throws {
    let room = alice.model(clock: clock) { ChatRoomModel(roomID: roomID) }
    let text = String(repeating: "a", count: 1_001)
    await room.draftChanged(text)
    await room.sendButtonTapped()
    guard case .validation = room.failure else {
      Issue.record("failure: \(String(describing: room.failure))")
      return
    }
    #expect(room.draft == text)
    room.failureDismissed()
    #expect(room.failure == nil)
  }

  @Test func someoneWhoIsNotAMemberIsToldSo() async throws {
    let carol = try backend.signedUpClient(nickname: "carol")
    let room = carol.model(clock: clock) { ChatRoomModel(roomID: roomID) }
    await room.task()  // returns by itself: nothing to follow
    #expect(room.failure == .forbidden)
    #expect(room.messages.isEmpty)
    #expect(!room.isLoading)
  }

  @Test("the messages show while the check that the user may read the room is on its way")
  func theMessagesShowBeforeTheCheckAnswers() async throws {
    _ = try await serverMessage("Welcome!", from: bob)
    let gate = Gate()
    let room = alice.model(clock: clock) { values in
      let fetch = values.chatRepository.fetchMessages
      values.chatRepository.fetchMessages = { room, after, before, limit in
        await gate.wait()
        return try await fetch(room, after, before, limit)
      }
    } _: {
      ChatRoomModel(roomID: roomID)
    }
    let running = Task { await room.task() }
    defer { running.cancel() }
    try await gate.waitForArrivals()
    #expect(await eventually("the message shows", { room.messages.map(\.text) == ["Welcome!"] }))
    #expect(!room.isLoading)
    await gate.open()
    _ = try await serverMessage("Still here?", from: bob)
    #expect(await eventually("the room is followed", { room.messages.count == 2 }))
    #expect(room.failure == nil)
  }

  @Test("a refusal that comes after the messages showed takes them away and ends the screen")
  func aLateRefusalEndsTheScreen() async throws {
    _ = try await serverMessage("Welcome!", from: bob)
    let gate = Gate()
    let room = alice.model(clock: clock) { values in
      values.chatRepository.fetchMessages = { _, _, _, _ in
        await gate.wait()
        throw DomainError.forbidden
      }
    } _: {
      ChatRoomModel(roomID: roomID)
    }
    let running = Task { await room.task() }
    #expect(await eventually("the message shows", { room.messages.map(\.text) == ["Welcome!"] }))
    await gate.open()
    await running.value  // Returns by itself: nothing to follow.
    #expect(room.failure == .forbidden)
    #expect(room.messages.isEmpty)
    #expect(room.room == nil)
    #expect(!room.isLoading)
  }

  @Test func serverTroubleShowsTheStoredRoomAndFollowsIt() async throws {
    _ = try await serverMessage("Welcome!", from: bob)
    let room = alice.model(
      clock: clock,
      { values in
        values.chatRepository.fetchMessages = { _, _, _, _ in throw DomainError.server("503") }
      }
    ) { ChatRoomModel(roomID: roomID) }
    let running = Task { await room.task() }
    defer { running.cancel() }
    #expect(await eventually("the message shows", { room.messages.map(\.text) == ["Welcome!"] }))
    #expect(room.failure == .server("503"))
    _ = try await serverMessage("Still here?", from: bob)
    #expect(await eventually("the room is followed", { room.messages.count == 2 }))
  }

  @Test func aMarkReadOnItsWayHoldsNoMessageBack() async throws {
    _ = try await serverMessage("Welcome!", from: bob)
    let released = Locked(false)
    let asked = Locked(0)
    let room = alice.model(
      clock: clock,
      { values in
        let markRead = values.chatRepository.markRead
        values.chatRepository.markRead = { id, seq in
          asked.withLock { $0 += 1 }
          while !released.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
          try await markRead(id, seq)
        }
      }
    ) { ChatRoomModel(roomID: roomID) }
    let running = Task { await room.task() }
    defer {
      released.withLock { $0 = true }
      running.cancel()
    }
    guard await eventually("the first mark-read is on its way", { asked.withLock { $0 } == 1 })
    else { return }
    await room.draftChanged("On my way")
    await room.sendButtonTapped()
    #expect(
      await eventually(
        "my message shows while the mark-read waits",
        { room.messages.last?.text == "On my way" }))
    _ = try await serverMessage("Great", from: bob)
    #expect(await eventually("and so does bob's", { room.messages.last?.text == "Great" }))
  }

  @Test func aMarkReadGivenUpWithTheScreenIsNoFailure() async throws {
    _ = try await serverMessage("Welcome!", from: bob)
    let asked = Locked(false)
    let room = alice.model(
      clock: clock,
      { values in
        values.chatRepository.markRead = { _, _ in
          asked.withLock { $0 = true }
          try await Task.sleep(for: .seconds(60))
        }
      }
    ) { ChatRoomModel(roomID: roomID) }
    let running = Task { await room.task() }
    guard await eventually("the mark-read is on its way", { asked.withLock { $0 } }) else {
      running.cancel()
      return
    }
    running.cancel()
    await running.value
    #expect(room.failure == nil)
  }

  @Test func aSignedOutUserIsToldSo() async throws {
    try await bob.auth.signOut()
    let room = bob.model(clock: clock) { ChatRoomModel(roomID: roomID) }
    await room.task()
    #expect(room.failure == .signedOut)
  }

  @Test func signingOutWhileTheScreensAreOpenEndsThemWithAFailure() async throws {
    let list = bob.model(clock: clock) { ChatRoomsModel() }
    let room = bob.model(clock: clock) { ChatRoomModel(roomID: roomID) }
    let returned = LockIsolated(0)
    let listTask = Task {
      await list.task()
      returned.withValue { $0 += 1 }
    }
    let roomTask = Task {
      await room.task()
      returned.withValue { $0 += 1 }
    }
    defer {
      listTask.cancel()
      roomTask.cancel()
    }
    guard
      await eventually(
        "both screens are live",
        {
          !list.rooms.isEmpty && !room.isLoading && room.connection == .connected
        })
    else { return }
    try await bob.auth.signOut()
    #expect(await eventually("the room says so", { room.failure == .signedOut }))
    #expect(await eventually("the list says so", { list.failure == .signedOut }))
    // Both tasks return by themselves: nothing is followed any more.
    #expect(await eventually("both tasks return", { returned.value == 2 }))
    list.failureDismissed()
    #expect(list.failure == nil)
  }

  @Test func aSignedOutUserSeesNoRooms() async throws {
    try await bob.auth.signOut()
    let list = bob.model(clock: clock) { ChatRoomsModel() }
    await list.task()
    #expect(list.failure == .signedOut)
    #expect(list.rooms.isEmpty && !list.isLoading)
  }

  @Test func olderMessagesLoadUntilTheBeginning() async throws {
    for number in 1...60 { _ = try await serverMessage("Message \(number)", from: alice) }
    let room = bob.model(clock: clock) { ChatRoomModel(roomID: roomID) }
    let task = Task { await room.task() }
    defer { task.cancel() }
    guard
      await eventually(
        "the newest page shows",
        {
          room.messages.count == ChatRoomModel.pageSize && room.messages.last?.seq == 60
        })
    else { return }
    #expect(room.messages.first?.seq == 11)
    #expect(!room.isAtBeginning)
    await room.loadOlderTapped()
    #expect(
      await eventually(
        "all messages show",
        {
          room.messages.count == 60 && room.messages.first?.text == "Message 1"
        }))
    #expect(room.isAtBeginning)
    await room.loadOlderTapped()
    #expect(room.messages.count == 60)
    #expect(room.failure == nil)
  }

  @Test func openingARoomMarksItReadInTheRoomList() async throws {
    _ = try await serverMessage("Welcome!", from: alice)
    _ = try await serverMessage("Meeting at 7", from: alice)
    let list = bob.model(clock: clock) { ChatRoomsModel() }
    var opened: [DeepLink] = []
    list.onNavigate = { opened.append($0) }
    let listTask = Task { await list.task() }
    defer { listTask.cancel() }
    guard await eventually("the room is listed", { !list.rooms.isEmpty }) else { return }
    let listed = try #require(list.rooms.first { $0.id == roomID })
    #expect(listed.title == "Swift Study")
    #expect(listed.unreadCount == 2)
    #expect(listed.lastMessage?.text == "Meeting at 7")
    #expect(list.unreadCount == 2)
    #expect(await eventually("the link is up", { list.connectionBanner == nil }))

    list.roomTapped(roomID)
    #expect(opened == [.chatRoom(roomID)])
    let room = bob.model(clock: clock) { ChatRoomModel(roomID: roomID) }
    let roomTask = Task { await room.task() }
    defer { roomTask.cancel() }
    #expect(await eventually("the list shows it read", { list.unreadCount == 0 }))
    // While the room is open, a new message reaches the list live, and is read at once.
    _ = try await serverMessage("See you there", from: alice)
    #expect(
      await eventually(
        "the new message shows in the list",
        {
          list.rooms.first { $0.id == roomID }?.lastMessage?.text == "See you there"
        }))
    #expect(await eventually("and it is read", { list.unreadCount == 0 }))
    // The server's cursor follows the local one.
    var onServer: ChatRoom?
    try await waitUntil("the server's read cursor is 3", step: every(.milliseconds(10))) {
      onServer = try await bob.chat.fetchRooms(.first).items.first { $0.id == roomID }
      return onServer?.lastReadSeq == 3
    }
    #expect(onServer?.unreadCount == 0)
    let names = try await bob.uploadedEvents()
    #expect(names.first?.properties == ["screen": "chat_rooms"])
  }

  @Test func theRoomListIsLiveForRoomsNoScreenShows() async throws {
    let list = bob.model(clock: clock) { ChatRoomsModel() }
    let listTask = Task { await list.task() }
    defer { listTask.cancel() }
    guard await eventually("the room is listed", { !list.rooms.isEmpty }) else { return }
    #expect(await eventually("the link is up", { list.connectionBanner == nil }))
    // No screen of the room is open: the message still reaches its row and the badge.
    _ = try await serverMessage("Anyone awake?", from: alice)
    #expect(
      await eventually("the row shows the new message, unread") {
        let row = list.rooms.first { $0.id == roomID }
        return row?.lastMessage?.text == "Anyone awake?" && row?.unreadCount == 1
      })
    #expect(list.unreadCount == 1)
  }

  /// Alice's messages "one" and "two" in the room, and as many members as it takes to hide
  /// "two" by reporting it (`ModerationPolicy.autoHideThreshold`).
  func twoMessagesAndTheirReporters() async throws -> (
    hidden: ChatMessage, reporters: [FakeClient]
  ) {
    _ = try await serverMessage("one", from: alice)
    let hidden = try await serverMessage("two", from: alice)
    var reporters: [FakeClient] = []
    for index in 1...ModerationPolicy.autoHideThreshold {
      let reporter = try backend.signedUpClient(nickname: "reader\(index)")
      _ = try await reporter.studyGroups.joinGroup(group.id)
      reporters.append(reporter)
    }
    return (hidden, reporters)
  }

  @Test func aMessageModerationHidesLeavesTheRoomListRow() async throws {
    let (hidden, reporters) = try await twoMessagesAndTheirReporters()
    // The list opens with "two" as the room's newest message, on the server and in the store.
    let list = bob.model(clock: clock) { ChatRoomsModel() }
    let listTask = Task { await list.task() }
    defer { listTask.cancel() }
    let row = { list.rooms.first { $0.id == roomID }?.lastMessage?.text }
    guard
      await eventually(
        "the row shows two, synced", { row() == "two" && list.connection == .connected })
    else { return }
    for reporter in reporters {
      _ = try await reporter.reports.report(.chatMessage(hidden.id), .spam)
    }
    #expect(await eventually("the row shows the message before it") { row() == "one" })
  }

  @Test func aListedMessageModerationHidesBeforeTheListArrivesStaysOut() async throws {
    let (hidden, reporters) = try await twoMessagesAndTheirReporters()
    // The server lists "two" as the room's newest message; that answer comes late.
    let gate = Gate()
    let answered = Locked(false)
    let list = bob.model(clock: clock) { values in
      let fetch = gate.answering(values.chatRepository.fetchRooms)
      values.chatRepository.fetchRooms = { request in
        defer { answered.withLock { $0 = true } }
        return try await fetch(request)
      }
    } _: {
      ChatRoomsModel()
    }
    let listTask = Task { await list.task() }
    defer { listTask.cancel() }
    try await gate.waitForArrivals()
    let row = { list.rooms.first { $0.id == roomID }?.lastMessage?.text }
    guard await eventually("the store shows two", { row() == "two" }) else {
      return await gate.open()
    }
    for reporter in reporters {
      _ = try await reporter.reports.report(.chatMessage(hidden.id), .spam)
    }
    guard await eventually("the row shows the message before it", { row() == "one" }) else {
      return await gate.open()
    }
    await gate.open()
    try await waitUntil("the list's answer came") { answered.withLock { $0 } }
    // A second of real time for the answer to reach the row, where it must not show.
    let cameBack = await poll(timeout: .seconds(1)) { row() == "two" }
    #expect(!cameBack)
    #expect(row() == "one")
  }

  @Test func theRoomListShowsWhenTheLinkIsDown() async throws {
    let list = bob.model(clock: clock) { ChatRoomsModel() }
    let task = Task { await list.task() }
    defer { task.cancel() }
    guard await eventually("the link is up", { list.connection == .connected }) else { return }
    backend.isOffline = true
    #expect(await eventually("offline shows", { list.connectionBanner != nil }))
    backend.isOffline = false
    #expect(await eventually("online again", { list.connectionBanner == nil }))
  }

  @Test func seeMoreOnSomeoneElsesMessageReportsIt() async throws {
    let message = try await serverMessage("Buy followers here", from: alice)
    let room = bob.model(clock: clock) { ChatRoomModel(roomID: roomID) }
    let task = Task { await room.task() }
    defer { task.cancel() }
    guard await eventually("the message shows", { room.messages.count == 1 }) else { return }
    let shown = try #require(room.messages.first)
    room.seeMoreTapped(shown)
    guard case .seeMore(let sheet) = room.destination else {
      Issue.record("no see-more sheet")
      return
    }
    #expect(sheet.target == .chatMessage(message.id))
    #expect(sheet.options == [.report])
    sheet.reportButtonTapped()
    guard case .report(let report) = sheet.destination else {
      Issue.record("no report flow")
      return
    }
    report.reasonTapped(.spam)
    await report.confirmButtonTapped()
    report.closeButtonTapped()
    #expect(room.destination == nil)
    #expect(
      try await bob.reports.fetchMyReports(.first).items.map(\.target) == [.chatMessage(message.id)]
    )

    // Alice's own message offers nothing.
    let aliceRoom = alice.model(clock: clock) { ChatRoomModel(roomID: roomID) }
    let aliceTask = Task { await aliceRoom.task() }
    defer { aliceTask.cancel() }
    guard await eventually("alice's screen loads", { aliceRoom.messages.count == 1 }) else {
      return
    }
    aliceRoom.seeMoreTapped(try #require(aliceRoom.messages.first))
    #expect(aliceRoom.destination == nil)
  }
}
