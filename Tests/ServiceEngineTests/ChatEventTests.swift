import Domain
import Foundation
import GRDB
import TestSupport
import Testing

@testable import ServiceEngine

/// The real-time side of chat: committed messages reach subscribed listeners in `seq` order,
/// subscriptions start without a gap, memberships end, and group members are notified once.
@Suite("ServiceEngine: chat events")
struct ChatEventTests {
  struct Room {
    let engine: ServiceEngine
    let owner: Viewer
    let member: Viewer
    let outsider: Viewer
    let group: StudyGroup.ID
    let room: ChatRoom.ID
  }

  static func room() throws -> Room {
    let engine = try ServiceEngine()
    let owner = try engine.createUser(nickname: "Mina")
    let member = try engine.createUser(nickname: "Jisoo")
    let outsider = try engine.createUser(nickname: "Outsider")
    let group = try engine.createGroup(StudyGroupDraft(name: "Swift 스터디"), as: owner)
    _ = try engine.joinGroup(group.id, as: member)
    let room = try #require(
      try engine.chatRooms(.first, as: owner).items.first { $0.kind == .group(group.id) })
    return Room(
      engine: engine, owner: owner, member: member, outsider: outsider, group: group.id,
      room: room.id)
  }

  /// Collects `count` events from a listener.
  static func take(_ count: Int, from listener: ChatListener) async -> [ChatEvent] {
    var events: [ChatEvent] = []
    for await event in listener.events {
      events.append(event)
      if events.count == count { break }
    }
    return events
  }

  @Test("a subscribed listener gets every committed message in seq order; retries publish nothing")
  func liveMessages() async throws {
    let r = try Self.room()
    let listener = r.engine.chatListener(as: r.member)
    let start = try r.engine.subscribe(
      listener, to: r.room, afterSeq: nil, replayLimit: 10, as: r.member)
    #expect(start == ChatSubscription(lastSeq: 0, replay: []))
    let ids = (0..<5).map { _ in UUID() }
    for (index, id) in ids.enumerated() {
      _ = try r.engine.sendMessage("m\(index)", to: r.room, clientMessageID: id, as: r.owner)
    }
    // A retry of the first send stores and publishes nothing.
    _ = try r.engine.sendMessage("m0", to: r.room, clientMessageID: ids[0], as: r.owner)
    listener.close()
    var seqs: [Int64] = []
    for await case .message(let message) in listener.events { seqs.append(message.seq ?? -1) }
    #expect(seqs == [1, 2, 3, 4, 5])
  }

  @Test(
    "by default a subscription replays the service's limit of missed messages, the oldest first")
  func defaultReplayLimit() throws {
    let r = try Self.room()
    let sends = (1...(ServiceEngine.replayLimit + 5)).map {
      MessageSend(text: "m\($0)", roomID: r.room, clientMessageID: UUID())
    }
    #expect(r.engine.sendMessages(sends, as: r.owner).allSatisfy { (try? $0.get()) != nil })
    let start = try r.engine.subscribe(
      r.engine.chatListener(as: r.member), to: r.room, afterSeq: 0, as: r.member)
    #expect(ServiceEngine.replayLimit == 200)
    #expect(start.lastSeq == 205)
    #expect(start.replay.map(\.seq) == (1...200).map { Int64($0) })
  }

  @Test("a retry of a stored send answers with it even after a ban or leaving the group")
  func retryAfterBanOrLeave() throws {
    let r = try Self.room()
    let admin = try r.engine.createUser(nickname: "Staff", role: .admin)
    let (first, second) = (UUID(), UUID())
    let sent = try r.engine.sendMessage("hello", to: r.room, clientMessageID: first, as: r.member)
    let later = try r.engine.sendMessage("again", to: r.room, clientMessageID: second, as: r.member)
    // The answers were lost; meanwhile the sender was banned, then left the group.
    _ = try r.engine.banUser(r.member.id, reason: "Spam", until: nil, as: admin)
    let retried = try r.engine.sendMessage(
      "hello", to: r.room, clientMessageID: first, as: r.member)
    #expect(retried.message.id == sent.message.id)
    #expect(!retried.isNew)
    try r.engine.leaveGroup(r.group, as: r.member)
    let retriedAgain = try r.engine.sendMessage(
      "again", to: r.room, clientMessageID: second, as: r.member)
    #expect(retriedAgain.message.id == later.message.id)
    // A new message is still refused.
    #expect(throws: DomainError.banned) {
      try r.engine.sendMessage("new", to: r.room, clientMessageID: UUID(), as: r.member)
    }
  }

  @Test("a batch of sends: one result each, in order; a refused send writes nothing, the rest land")
  func batchOfSends() async throws {
    let r = try Self.room()
    let other = try r.engine.createGroup(StudyGroupDraft(name: "Other"), as: r.owner)
    let otherRoom = try #require(
      try r.engine.chatRooms(.first, as: r.owner).items.first { $0.kind == .group(other.id) })
    let listener = r.engine.chatListener(as: r.member)
    _ = try r.engine.subscribe(listener, to: r.room, afterSeq: nil, replayLimit: 0, as: r.member)
    let (first, second, elsewhere) = (UUID(), UUID(), UUID())
    _ = try r.engine.sendMessage("there", to: otherRoom.id, clientMessageID: elsewhere, as: r.owner)
    let results = r.engine.sendMessages(
      [
        MessageSend(text: "one", roomID: r.room, clientMessageID: first),
        MessageSend(text: "", roomID: r.room, clientMessageID: UUID()),
        MessageSend(text: "one again", roomID: r.room, clientMessageID: first),
        MessageSend(text: "reused", roomID: r.room, clientMessageID: elsewhere),
        MessageSend(text: "nowhere", roomID: "room_999999", clientMessageID: UUID()),
        MessageSend(text: "bad id", roomID: "nonsense", clientMessageID: UUID()),
        MessageSend(text: "two", roomID: r.room, clientMessageID: second),
      ], as: r.owner)
    #expect(results.count == 7)
    #expect(try results[0].get().message.seq == 1)
    #expect(try results[0].get().isNew)
    guard case .failure(.validation(let invalid)) = results[1] else {
      Issue.record("empty text: \(results[1])")
      return
    }
    #expect(invalid.field == "text")
    // The retry inside the same batch finds the message stored just before it.
    #expect(
      try results[2].get() == SentMessage(message: try results[0].get().message, isNew: false))
    guard case .failure(.conflict) = results[3] else {
      Issue.record("reused id: \(results[3])")
      return
    }
    #expect(results[4].failure == .notFound)
    #expect(results[5].failure == .notFound)
    #expect(try results[6].get().message.seq == 2)
    // Not a member: refused.
    let refused = r.engine.sendMessages(
      [MessageSend(text: "hi", roomID: r.room, clientMessageID: UUID())], as: r.outsider)
    #expect(refused[0].failure == .forbidden)
    // Only the two new messages were stored and published, in seq order.
    let stored = try r.engine.messages(
      in: r.room, afterSeq: 0, beforeSeq: nil, limit: 50, as: r.member)
    #expect(stored.map(\.text) == ["one", "two"])
    listener.close()
    var published: [String] = []
    for await case .message(let message) in listener.events { published.append(message.text) }
    #expect(published == ["one", "two"])
  }

  @Test(
    "a burst the database refuses fails every send for now, which ends the link; a rule's refusal does not"
  )
  func failedForNow() throws {
    let r = try Self.room()
    try failInserts(into: "chat_message", when: "NEW.text = 'first'", in: r.engine.writer)
    let sends = ["first", "second"].map {
      MessageSend(text: $0, roomID: r.room, clientMessageID: UUID())
    }
    let results = r.engine.sendMessages(sends, as: r.member)
    #expect(results.allSatisfy { $0.failure?.endsChatLink == true })
    let refused = r.engine.sendMessages([sends[1]], as: r.outsider)
    #expect(refused[0].failure == .forbidden)
    #expect(refused[0].failure?.endsChatLink == false)
    try allowInserts(into: "chat_message", in: r.engine.writer)
    #expect(r.engine.sendMessages(sends, as: r.member).allSatisfy { (try? $0.get()) != nil })
  }

  @Test(
    "the write limit counts a burst's new messages; after its first refusal every later new one is refused, ending the link"
  )
  func writeLimitOfABurst() throws {
    let r = try Self.room()
    let sends = ["one", "two", "three", "four"].map {
      MessageSend(text: $0, roomID: r.room, clientMessageID: UUID())
    }
    // The limit admits two, refuses the third, and would admit the fourth (a slot freed).
    let calls = Locked(0)
    let admit = { () throws(DomainError) in
      let call = calls.withLock { calls in
        calls += 1
        return calls
      }
      if call == 3 { throw DomainError.rateLimited(retryAfter: .seconds(4)) }
    }
    let results = r.engine.sendMessages(sends, as: r.member, admitting: admit)
    #expect(results.map { (try? $0.get())?.message.text } == ["one", "two", nil, nil])
    #expect(results[2].failure == .rateLimited(retryAfter: .seconds(4)))
    #expect(results[3].failure == .rateLimited(retryAfter: .seconds(4)))
    #expect(results.allSatisfy { $0.failure?.endsChatLink ?? true })
    // A resend of a stored message is not a new write: it is answered, not counted.
    let before = calls.withLock { $0 }
    let resent = r.engine.sendMessages([sends[0], sends[2]], as: r.member, admitting: admit)
    #expect(resent.map { (try? $0.get())?.message.text } == ["one", "three"])
    #expect(calls.withLock { $0 } == before + 1)
  }

  @Test("moving a member's unread group_message notification reads one index entry, not a scan")
  func notificationIndex() throws {
    let r = try Self.room()
    let plan = try r.engine.writer.read { db in
      try Row.fetchAll(
        db,
        sql: """
          EXPLAIN QUERY PLAN UPDATE notification SET created_at = ?, actor_id = ?
          WHERE user_id = ? AND kind = ? AND room_id = ? AND NOT is_read
          """, arguments: [0, 1, 2, "group_message", "room_1"]
      ).map { $0["detail"] as String }
    }
    #expect(
      plan.contains {
        $0.contains("notification_unread_by_room (user_id=? AND room_id=? AND kind=?)")
      },
      "\(plan)")
  }

  @Test("subscribing replays what came after the cursor and reports the last seq")
  func replay() throws {
    let r = try Self.room()
    for index in 0..<6 {
      _ = try r.engine.sendMessage("m\(index)", to: r.room, clientMessageID: UUID(), as: r.owner)
    }
    let listener = r.engine.chatListener(as: r.member)
    let start = try r.engine.subscribe(
      listener, to: r.room, afterSeq: 2, replayLimit: 3, as: r.member)
    #expect(start.lastSeq == 6)
    #expect(start.replay.map(\.seq) == [3, 4, 5])
    #expect(listener.rooms == [r.room])
  }

  @Test("a negative sequence number is refused, as the server's query check refuses it")
  func negativeSeqsAreRefused() throws {
    let r = try Self.room()
    for (after, before, field) in [(Int64(-1), nil, "after_seq"), (nil, Int64(-5), "before_seq")] {
      #expect(
        throws: DomainError.validation(
          .outOfRange(field: field, range: 0...Int.max, actual: Int(after ?? before ?? 0)))
      ) {
        try r.engine.messages(
          in: r.room, afterSeq: after, beforeSeq: before, limit: 10, as: r.owner)
      }
    }
    #expect(
      throws: DomainError.validation(.outOfRange(field: "seq", range: 0...Int.max, actual: -1))
    ) {
      try r.engine.markRoomRead(r.room, seq: -1, as: r.owner)
    }
  }

  @Test("a subscribe that fails after the membership check leaves the listener out of the room")
  func failedSubscribeAddsNothing() throws {
    let r = try Self.room()
    let listener = r.engine.chatListener(as: r.member)
    // The replay's read fails: the messages' table is gone.
    try r.engine.writer.write { try $0.execute(sql: "ALTER TABLE chat_message RENAME TO gone") }
    #expect(throws: DomainError.self) {
      try r.engine.subscribe(listener, to: r.room, afterSeq: 0, replayLimit: 10, as: r.member)
    }
    #expect(listener.rooms.isEmpty)
    // A subscribe that works adds the room.
    try r.engine.writer.write { try $0.execute(sql: "ALTER TABLE gone RENAME TO chat_message") }
    _ = try r.engine.subscribe(listener, to: r.room, afterSeq: 0, replayLimit: 10, as: r.member)
    #expect(listener.rooms == [r.room])
  }

  @Test(
    "a listener opened with a session ends when that session is revoked: signed out, or a refresh token replayed"
  )
  func revokedSessionsEndTheirListeners() throws {
    let r = try Self.room()
    let phone = try r.engine.startSession(for: r.member)
    let laptop = try r.engine.startSession(for: r.member)
    let onPhone = r.engine.chatListener(as: r.member, session: phone.accessToken)
    let onLaptop = r.engine.chatListener(as: r.member, session: laptop.accessToken)
    let unnamed = r.engine.chatListener(as: r.member)
    try r.engine.signOut(refreshToken: phone.refreshToken, as: r.member)
    #expect(onPhone.ending == .sessionRevoked)
    #expect(onLaptop.ending == nil)
    #expect(unnamed.ending == nil)
    // One opened later with the signed-out session's token has ended already.
    #expect(
      r.engine.chatListener(as: r.member, session: phone.accessToken).ending == .sessionRevoked)
    // A refresh token used twice revokes its family: the laptop's listener ends too, also one
    // opened with the access token the first refresh issued.
    let refreshed = try r.engine.refresh(refreshToken: laptop.refreshToken)
    let onRefreshed = r.engine.chatListener(as: r.member, session: refreshed.accessToken)
    // The new pair was used (no lost answer to retry): the old refresh token again is a replay.
    _ = try r.engine.checkAccessToken(refreshed.accessToken)
    #expect(onLaptop.ending == nil)
    #expect(throws: DomainError.signedOut) {
      try r.engine.refresh(refreshToken: laptop.refreshToken)
    }
    #expect(onLaptop.ending == .sessionRevoked)
    #expect(onRefreshed.ending == .sessionRevoked)
    #expect(unnamed.ending == nil)
  }

  @Test("only members subscribe; a bad cursor or room is a typed error")
  func subscribeRules() throws {
    let r = try Self.room()
    let listener = r.engine.chatListener(as: r.outsider)
    #expect(throws: DomainError.forbidden) {
      try r.engine.subscribe(listener, to: r.room, afterSeq: nil, replayLimit: 0, as: r.outsider)
    }
    #expect(listener.rooms.isEmpty)
    #expect(throws: DomainError.self) {
      try r.engine.subscribe(listener, to: r.room, afterSeq: -1, replayLimit: 0, as: r.owner)
    }
    #expect(throws: DomainError.self) {
      try r.engine.subscribe(
        listener, to: ChatRoom.ID(rawValue: "nope"), afterSeq: nil, replayLimit: 0, as: r.owner)
    }
    // Another spelling of the room's number names nothing: events carry the issued id, so a
    // listener subscribed under another spelling would never hear of the room.
    let padded = ChatRoom.ID(rawValue: r.room.rawValue.replacingOccurrences(of: "_", with: "_0"))
    #expect(throws: DomainError.notFound) {
      try r.engine.subscribe(listener, to: padded, afterSeq: nil, replayLimit: 0, as: r.owner)
    }
    #expect(listener.rooms.isEmpty)
  }

  @Test("a viewer kept since a socket's handshake is checked again: a ban stops its sends")
  func banAfterHandshake() throws {
    let r = try Self.room()
    let admin = try r.engine.createUser(nickname: "Sora", role: .admin)
    let stale = r.member
    _ = try r.engine.banUser(stale.id, reason: "spam", until: nil, as: admin)
    #expect(throws: DomainError.banned) {
      try r.engine.sendMessage("still here", to: r.room, clientMessageID: UUID(), as: stale)
    }
    #expect(throws: DomainError.banned) { try r.engine.typing(in: r.room, as: stale) }
    #expect(
      try r.engine.messages(in: r.room, afterSeq: 0, beforeSeq: nil, limit: 10, as: r.owner)
        .isEmpty)
  }

  @Test("withdrawal ends the account's listeners; its kept viewer can no longer chat")
  func withdrawalEndsListeners() async throws {
    let r = try Self.room()
    let listener = r.engine.chatListener(as: r.owner)
    _ = try r.engine.subscribe(listener, to: r.room, afterSeq: nil, replayLimit: 0, as: r.owner)
    let others = r.engine.chatListener(as: r.member)
    _ = try r.engine.subscribe(others, to: r.room, afterSeq: nil, replayLimit: 0, as: r.member)
    try r.engine.withdraw(as: r.owner)
    for await _ in listener.events {}
    #expect(listener.ending == .accountClosed)
    #expect(!listener.didOverflow)
    #expect(others.ending == nil)
    #expect(throws: DomainError.signedOut) {
      try r.engine.sendMessage("gone", to: r.room, clientMessageID: UUID(), as: r.owner)
    }
    #expect(throws: DomainError.signedOut) {
      try r.engine.subscribe(
        r.engine.chatListener(as: r.owner), to: r.room, afterSeq: nil, replayLimit: 0,
        as: r.owner)
    }
    // A listener made after the withdrawal with the viewer kept from before (a socket whose
    // handshake came first) has ended already.
    let late = r.engine.chatListener(as: r.owner)
    #expect(late.ending == .accountClosed)
    #expect(r.engine.chatListener(as: r.member).ending == nil)
    #expect(throws: DomainError.signedOut) { try r.engine.typing(in: r.room, as: r.owner) }
    // The group lives on: its other member still chats and listens.
    _ = try r.engine.sendMessage("still here", to: r.room, clientMessageID: UUID(), as: r.member)
    others.close()
    var texts: [String] = []
    for await case .message(let message) in others.events { texts.append(message.text) }
    #expect(texts == ["still here"])
  }

  @Test("leaving the group ends the subscription; other rooms' events never arrive")
  func membershipEnds() async throws {
    let r = try Self.room()
    let listener = r.engine.chatListener(as: r.member)
    _ = try r.engine.subscribe(listener, to: r.room, afterSeq: nil, replayLimit: 0, as: r.member)
    let other = try r.engine.createGroup(StudyGroupDraft(name: "Other"), as: r.owner)
    let otherRoom = try #require(
      try r.engine.chatRooms(.first, as: r.owner).items.first { $0.kind == .group(other.id) })
    _ = try r.engine.sendMessage(
      "elsewhere", to: otherRoom.id, clientMessageID: UUID(), as: r.owner)
    try r.engine.leaveGroup(r.group, as: r.member)
    _ = try r.engine.sendMessage("after", to: r.room, clientMessageID: UUID(), as: r.owner)
    listener.close()
    var events: [ChatEvent] = []
    for await event in listener.events { events.append(event) }
    #expect(events == [.membershipEnded(room: r.room, user: r.member.id)])
    #expect(listener.rooms.isEmpty)
  }

  @Test(
    "typing reaches the other subscribers, never the typist's own listeners, and is stored nowhere; outsiders cannot type"
  )
  func typing() async throws {
    let r = try Self.room()
    let listener = r.engine.chatListener(as: r.owner)
    _ = try r.engine.subscribe(listener, to: r.room, afterSeq: nil, replayLimit: 0, as: r.owner)
    // The owner's own typing does not come back to the owner: the member's comes first.
    try r.engine.typing(in: r.room, as: r.owner)
    try r.engine.typing(in: r.room, as: r.member)
    #expect(throws: DomainError.forbidden) { try r.engine.typing(in: r.room, as: r.outsider) }
    let events = await Self.take(1, from: listener)
    guard case .typing(let room, let user) = events.first else {
      Issue.record("expected typing, got \(events)")
      return
    }
    #expect(room == r.room)
    #expect(user.nickname == "Jisoo")
  }

  @Test("a listener that falls behind its buffer is cut off, not grown without bound")
  func overflow() async throws {
    let r = try Self.room()
    let listener = r.engine.chatListener(as: r.member, bufferLimit: 3)
    _ = try r.engine.subscribe(listener, to: r.room, afterSeq: nil, replayLimit: 0, as: r.member)
    for index in 0..<5 {
      _ = try r.engine.sendMessage("m\(index)", to: r.room, clientMessageID: UUID(), as: r.owner)
    }
    #expect(listener.didOverflow)
    var delivered = 0
    for await _ in listener.events { delivered += 1 }
    #expect(delivered == 3)
  }

  @Test(
    "moderation reaches subscribers: hidden by reports, restored by a dismissal, hidden by a moderator; a decision that changes nothing publishes nothing"
  )
  func moderation() async throws {
    let r = try Self.room()
    let admin = try r.engine.createUser(nickname: "운영팀", role: .admin)
    var reporters: [Viewer] = []
    for index in 1...ModerationPolicy.autoHideThreshold {
      let reporter = try r.engine.createUser(nickname: "reader\(index)")
      _ = try r.engine.joinGroup(r.group, as: reporter)
      reporters.append(reporter)
    }
    var sent: [ChatMessage] = []
    for text in ["fine", "rude", "ruder"] {
      sent.append(
        try r.engine.sendMessage(text, to: r.room, clientMessageID: UUID(), as: r.owner).message)
    }
    let listener = r.engine.chatListener(as: r.member)
    _ = try r.engine.subscribe(listener, to: r.room, afterSeq: nil, replayLimit: 0, as: r.member)
    func hide(_ message: ChatMessage) throws -> ReportCase.ID {
      for reporter in reporters {
        _ = try r.engine.report(.chatMessage(message.id), reason: .spam, as: reporter)
      }
      return try #require(
        try r.engine.reportCases(status: .open, .first, as: admin).items.first {
          $0.target == .chatMessage(message.id)
        }
      ).id
    }
    func hidden(_ message: ChatMessage) -> ChatEvent {
      .messageHidden(room: r.room, message: message.id, seq: message.seq ?? -1)
    }

    // Hidden by reports; the moderator's hide of hidden content then changes nothing.
    let rude = try hide(sent[1])
    _ = try r.engine.resolveReportCase(rude, .hideContent, note: nil, as: admin)
    // Hidden by reports, restored by a dismissal, reported again and hidden by a moderator.
    let ruder = try hide(sent[2])
    _ = try r.engine.resolveReportCase(ruder, .dismiss, note: nil, as: admin)
    _ = try r.engine.report(.chatMessage(sent[2].id), reason: .abuse, as: r.member)
    _ = try r.engine.resolveReportCase(ruder, .hideContent, note: nil, as: admin)
    // A dismissal of a case about visible content changes nothing.
    _ = try r.engine.report(.chatMessage(sent[0].id), reason: .spam, as: r.member)
    let fine = try #require(
      try r.engine.reportCases(status: .open, .first, as: admin).items.first {
        $0.target == .chatMessage(sent[0].id)
      })
    _ = try r.engine.resolveReportCase(fine.id, .dismiss, note: nil, as: admin)

    listener.close()
    var events: [ChatEvent] = []
    for await event in listener.events { events.append(event) }
    #expect(
      events == [hidden(sent[1]), hidden(sent[2]), .messageRestored(sent[2]), hidden(sent[2])])
  }

  @Test("nothing is published for a rolled-back transaction")
  func rollback() async throws {
    let r = try Self.room()
    let listener = r.engine.chatListener(as: r.member)
    _ = try r.engine.subscribe(listener, to: r.room, afterSeq: nil, replayLimit: 0, as: r.member)
    struct Stop: Error {}
    #expect(throws: Stop.self) {
      try r.engine.inOneTransaction(startingAt: r.engine.now) { _ in
        _ = try r.engine.sendMessage("lost", to: r.room, clientMessageID: UUID(), as: r.owner)
        throw Stop()
      }
    }
    _ = try r.engine.sendMessage("kept", to: r.room, clientMessageID: UUID(), as: r.owner)
    let events = await Self.take(1, from: listener)
    guard case .message(let message) = events.first else {
      Issue.record("expected a message, got \(events)")
      return
    }
    #expect(message.text == "kept")
    #expect(message.seq == 1)
  }

  @Test("hasSent tells a client message id the viewer sent, in any room, from others' and new ones")
  func hasSent() throws {
    let r = try Self.room()
    let id = UUID()
    #expect(!r.engine.hasSent(clientMessageID: id, as: r.owner))
    _ = try r.engine.sendMessage("once", to: r.room, clientMessageID: id, as: r.owner)
    #expect(r.engine.hasSent(clientMessageID: id, as: r.owner))
    #expect(!r.engine.hasSent(clientMessageID: id, as: r.member))
    #expect(!r.engine.hasSent(clientMessageID: UUID(), as: r.owner))
  }

  @Test("group members get one unread group_message per room, moved to the newest message")
  func groupMessageNotifications() throws {
    let r = try Self.room()
    for index in 0..<3 {
      _ = try r.engine.sendMessage("m\(index)", to: r.room, clientMessageID: UUID(), as: r.owner)
    }
    let inbox = try r.engine.notifications(.first, as: r.member).items
    #expect(inbox.map(\.kind) == [.groupMessage(r.room)])
    #expect(inbox.first?.message == "New messages in Swift 스터디.")
    #expect(try r.engine.notifications(.first, as: r.owner).items.isEmpty)
    let first = try #require(inbox.first)
    try r.engine.markNotificationRead(first.id, as: r.member)
    _ = try r.engine.sendMessage("again", to: r.room, clientMessageID: UUID(), as: r.owner)
    #expect(try r.engine.unreadNotificationCount(as: r.member) == 1)
    #expect(try r.engine.notifications(.first, as: r.member).items.count == 2)
  }
}

extension Result {
  /// The error of a failure; `nil` for a success.
  fileprivate var failure: Failure? {
    if case .failure(let error) = self { error } else { nil }
  }
}
