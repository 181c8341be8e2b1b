import Domain
import Foundation
import Repositories
import TestSupport
import Testing

/// Chat through the sync endpoints of `ChatRepository`: the local store, live delivery between
/// clients, the outbox's states, typing, unread counts and sign-out. The live backend runs
/// them over `/realtime` and HTTP, the fakes over the service engine; both run `ChatSync`.
enum ChatScenarios {
  /// A newcomer's room starts with its history read, also after leaving and joining again:
  /// the unread count counts what comes after the join.
  static func joinStartsRead(_ backend: any ScenarioBackend) async throws {
    let mina = try await backend.makeMember(nickname: "mina")
    let jun = try await backend.makeMember(nickname: "jun")
    let group = try await mina.studyGroups.createGroup(StudyGroupDraft(name: "Algorithms"))
    let roomID = try #require(
      try await mina.chat.fetchRooms(.first).items.first { $0.kind == .group(group.id) }?.id)
    for text in ["One", "Two", "Three"] {
      _ = try await mina.chat.sendMessage(text, roomID, UUID())
    }
    func junsRow() async throws -> ChatRoom? {
      try await jun.chat.fetchRooms(.first).items.first { $0.id == roomID }
    }
    _ = try await jun.studyGroups.joinGroup(group.id)
    var row = try #require(try await junsRow())
    #expect(row.unreadCount == 0 && row.lastReadSeq == 3 && row.lastMessage?.text == "Three")
    _ = try await mina.chat.sendMessage("Welcome, jun", roomID, UUID())
    #expect(try await junsRow()?.unreadCount == 1)
    // Joining again changes nothing; leaving and joining again starts read once more.
    _ = try await jun.studyGroups.joinGroup(group.id)
    #expect(try await junsRow()?.unreadCount == 1)
    try await jun.studyGroups.leaveGroup(group.id)
    _ = try await mina.chat.sendMessage("Anyone?", roomID, UUID())
    _ = try await jun.studyGroups.joinGroup(group.id)
    row = try #require(try await junsRow())
    #expect(row.unreadCount == 0 && row.lastReadSeq == 5)
  }

  /// A direct room whose other user withdrew keeps its history readable and takes no more
  /// messages (`conflict`).
  static func directRoomAfterWithdrawal(_ backend: any ScenarioBackend) async throws {
    let mina = try await backend.makeMember(nickname: "mina")
    let jun = try await backend.makeMember(nickname: "jun")
    let room = try await mina.chat.openDirectRoom(try await jun.profile.fetchMe().id)
    _ = try await mina.chat.sendMessage("Lunch?", room.id, UUID())
    try await jun.auth.withdraw()
    await expectConflict("sending to a withdrawn user") {
      try await mina.chat.sendMessage("Are you there?", room.id, UUID())
    }
    let history = try await mina.chat.fetchMessages(room.id, nil, nil, 10)
    #expect(history.map(\.text) == ["Lunch?"])
  }

  static func liveChat(_ backend: any ScenarioBackend) async throws {
    let mina = try await backend.makeMember(nickname: "mina")
    let jun = try await backend.makeMember(nickname: "jun")
    let outsider = try await backend.makeMember(nickname: "sol")
    let minaID = try await mina.profile.fetchMe().id
    let group = try await mina.studyGroups.createGroup(StudyGroupDraft(name: "Algorithms"))
    _ = try await jun.studyGroups.joinGroup(group.id)
    let room = try #require(
      try await jun.chat.fetchRooms(.first).items.first { $0.kind == .group(group.id) })
    // One message from before anybody opened the room: the catch-up brings it.
    _ = try await mina.chat.sendMessage("Welcome!", room.id, UUID())

    let minaMessages = Watched(mina.chat.messages(in: room.id, limit: 50))
    let junMessages = Watched(jun.chat.messages(in: room.id, limit: 50))
    let junStates = Watched(jun.chat.connectionStates())
    try await junStates.wait("jun connected") { $0 == .connected }
    try await junMessages.wait("jun caught up") { $0.map(\.text) == ["Welcome!"] }

    // Sending: pending at once, then sent with the server's seq, on both screens.
    let sent = try await mina.chat.send(text: "  Who solved #3?  ", to: room.id)
    #expect(sent.deliveryState == .pending && sent.seq == nil)
    #expect(sent.text == "Who solved #3?")
    try await minaMessages.wait("mina sees hers sent") {
      $0.last?.clientMessageID == sent.clientMessageID && $0.last?.deliveryState == .sent
        && $0.last?.seq == 2
    }
    try await junMessages.wait("jun sees it live") {
      $0.map(\.text) == ["Welcome!", "Who solved #3?"] && $0.last?.sender.id == minaID
    }
    await expectValidation(field: "text") { try await mina.chat.send(text: " ", to: room.id) }

    // Typing reaches the other member.
    let junTyping = Watched(jun.chat.typing(in: room.id))
    try await waitUntil("jun sees mina typing", step: every(.milliseconds(10))) {
      await mina.chat.userIsTyping(in: room.id)
      return junTyping.values.contains { $0.user.id == minaID }
    }

    // The room list: unread counts from the store (every listed room is kept in sync while the
    // list is read), a read cursor that moves.
    let junID = try await jun.profile.fetchMe().id
    let direct = try await mina.chat.openDirectRoom(junID)
    _ = try await mina.chat.sendMessage("Lunch?", direct.id, UUID())
    let junRooms = Watched(jun.chat.rooms())
    try await junRooms.wait("jun has 2 unread in the group, 1 in the direct room") {
      $0.first { $0.id == room.id }?.unreadCount == 2
        && $0.first { $0.id == direct.id }?.unreadCount == 1
    }
    try await jun.chat.markRead(room: room.id, seq: 2)
    try await junRooms.wait("jun read everything") {
      $0.first { $0.id == room.id }?.unreadCount == 0
    }
    #expect(
      try await jun.chat.fetchRooms(.first).items.first { $0.id == room.id }?.lastReadSeq == 2)
    // The list is live for rooms no screen shows: a new direct message updates its row.
    _ = try await mina.chat.sendMessage("Still hungry?", direct.id, UUID())
    try await junRooms.wait("the direct room's row shows the new message") {
      let row = $0.first { $0.id == direct.id }
      return row?.lastMessage?.text == "Still hungry?" && row?.unreadCount == 2
    }

    // A send the server refuses fails with the reason; retry and delete.
    let refused = try await outsider.chat.send(text: "Let me in", to: room.id)
    let outsiderMessages = Watched(outsider.chat.messages(in: room.id, limit: 50))
    let reason = DomainError.forbidden.description
    try await outsiderMessages.wait("the outsider's send failed") {
      $0.last?.deliveryState == .failed(reason: reason)
    }
    try await outsider.chat.retry(clientMessageID: refused.clientMessageID)
    try await outsiderMessages.wait("failed again after retry") {
      $0.last?.deliveryState == .failed(reason: reason)
    }
    // While a try is on its way the message may already be with the server, so deleting it
    // is refused; once the try has failed, it goes.
    try await waitUntil("the failed message is deleted", step: every(.milliseconds(10))) {
      do {
        try await outsider.chat.deleteUnsent(clientMessageID: refused.clientMessageID)
        return true
      } catch DomainError.conflict {
        return false
      }
    }
    try await outsiderMessages.wait("deleted") { $0.isEmpty }
    #expect(try await mina.chat.fetchMessages(room.id, nil, nil, 50).count == 2)

    // Everything was stored: nothing older to load.
    #expect(try await jun.chat.loadOlder(in: room.id, limit: 50) == 0)

    // Signing out stops the engine: the streams end.
    try await mina.auth.signOut()
    let ending = try await minaMessages.waitForEnd("mina's stream ends at sign-out")
    #expect(ending == nil, "the stream failed instead of finishing: \(String(describing: ending))")
    await #expect(throws: DomainError.signedOut) {
      try await mina.chat.send(text: "after sign-out", to: room.id)
    }
    for watched in [minaMessages, junMessages] as [any Cancellable] { watched.cancel() }
    junStates.cancel()
    junTyping.cancel()
    junRooms.cancel()
    outsiderMessages.cancel()
  }
}

extension ChatScenarios {
  /// An admin; mina and jun in a group's room; and enough other members of it to hide a
  /// message by their reports.
  private static func moderatedRoom(
    _ backend: any ScenarioBackend
  ) async throws -> (
    admin: RepositorySet, mina: RepositorySet, jun: RepositorySet, reporters: [RepositorySet],
    room: ChatRoom
  ) {
    let admin = try await backend.makeAdmin()
    let mina = try await backend.makeMember(nickname: "mina")
    let jun = try await backend.makeMember(nickname: "jun")
    let group = try await mina.studyGroups.createGroup(StudyGroupDraft(name: "Reading"))
    _ = try await jun.studyGroups.joinGroup(group.id)
    var reporters: [RepositorySet] = []
    for index in 1...ModerationPolicy.autoHideThreshold {
      let reporter = try await backend.makeMember(nickname: "reader\(index)")
      _ = try await reporter.studyGroups.joinGroup(group.id)
      reporters.append(reporter)
    }
    let room = try #require(
      try await jun.chat.fetchRooms(.first).items.first { $0.kind == .group(group.id) })
    return (admin, mina, jun, reporters, room)
  }

  /// Moderation reaches the members' stores: a message hidden after a member stored it leaves
  /// that member's store, and comes back once the moderators restore it, the next time the room
  /// is subscribed (the engine reconciles its newest page, `ChatStore.reconcile`).
  static func moderatedMessages(_ backend: any ScenarioBackend) async throws {
    let (admin, mina, jun, reporters, room) = try await moderatedRoom(backend)
    var sent: [ChatMessage] = []
    for text in ["one", "two", "three"] {
      sent.append(try await mina.chat.sendMessage(text, room.id, UUID()))
    }
    let target = ReportTarget.chatMessage(sent[1].id)

    /// Opens jun's room screen again and again until it shows `expected`: an opening
    /// subscribes anew once the previous screen's room was closed.
    func reopenUntil(_ expected: [String], _ what: String) async throws {
      for _ in 0..<20 {
        let screen = Watched(jun.chat.messages(in: room.id, limit: 50))
        defer { screen.cancel() }
        for _ in 0..<50 {
          if screen.values.last?.map(\.text) == expected { return }
          try await Task.sleep(for: .milliseconds(10))
        }
      }
      throw ScenarioFailure(description: "timed out waiting until \(what)")
    }
    try await reopenUntil(["one", "two", "three"], "jun stored the three messages")

    // Hidden by reports: gone from jun's store at the next subscription.
    for reporter in reporters { _ = try await reporter.reports.report(target, .spam) }
    try await reopenUntil(["one", "three"], "the hidden message left jun's store")

    // The moderators dismiss the case: restored, and back in jun's store (the sync cursor had
    // stepped over it).
    let reported = try #require(
      try await admin.admin.fetchReportCases(.open, .first).items.first { $0.target == target })
    _ = try await admin.admin.resolveReportCase(reported.id, .dismiss, nil)
    try await reopenUntil(["one", "two", "three"], "the restored message is back in jun's store")

    // Reported again and hidden by a moderator's decision.
    _ = try await jun.reports.report(target, .abuse)
    _ = try await admin.admin.resolveReportCase(reported.id, .hideContent, nil)
    try await reopenUntil(["one", "three"], "the message hidden by a moderator left jun's store")
  }
}

extension ChatScenarios {
  /// Moderation reaches a room a member has open, without reopening it: the realtime
  /// `message_hidden` and `message_restored` take the message out of the screen and the room
  /// list, and put it back.
  static func moderatedLive(_ backend: any ScenarioBackend) async throws {
    let (admin, mina, jun, reporters, room) = try await moderatedRoom(backend)
    let screen = Watched(jun.chat.messages(in: room.id, limit: 50))
    defer { screen.cancel() }
    let states = Watched(jun.chat.connectionStates())
    defer { states.cancel() }
    try await states.wait("jun connected") { $0 == .connected }
    var sent: [ChatMessage] = []
    for text in ["one", "two"] {
      sent.append(try await mina.chat.sendMessage(text, room.id, UUID()))
    }
    try await screen.wait("jun sees both") { $0.map(\.text) == ["one", "two"] }
    let target = ReportTarget.chatMessage(sent[1].id)
    let rooms = Watched(jun.chat.rooms())
    defer { rooms.cancel() }
    let row = { (rooms: [ChatRoom]) in rooms.first { $0.id == room.id } }
    try await rooms.wait("the list shows two unread") { row($0)?.unreadCount == 2 }

    // Hidden by reports: it leaves the open screen, and the room list's last message and
    // unread count with it.
    for reporter in reporters { _ = try await reporter.reports.report(target, .spam) }
    try await screen.wait("the hidden message left the open screen") { $0.map(\.text) == ["one"] }
    try await rooms.wait("the list shows the message before it, one unread") {
      row($0)?.lastMessage?.text == "one" && row($0)?.unreadCount == 1
    }

    // Dismissed: back in its place, after a later message.
    _ = try await mina.chat.sendMessage("three", room.id, UUID())
    try await screen.wait("jun sees three") { $0.map(\.text) == ["one", "three"] }
    let reported = try #require(
      try await admin.admin.fetchReportCases(.open, .first).items.first { $0.target == target })
    _ = try await admin.admin.resolveReportCase(reported.id, .dismiss, nil)
    try await screen.wait("the restored message is back in its place") {
      $0.map(\.text) == ["one", "two", "three"]
    }
    try await rooms.wait("three unread") { row($0)?.unreadCount == 3 }

    // Hidden by a moderator's decision.
    _ = try await jun.reports.report(target, .abuse)
    _ = try await admin.admin.resolveReportCase(reported.id, .hideContent, nil)
    try await screen.wait("the message a moderator hid left the open screen") {
      $0.map(\.text) == ["one", "three"]
    }
  }
}

protocol Cancellable: Sendable {
  func cancel()
}

/// Reads a stream in the background and keeps every value, so a scenario can wait for a state.
final class Watched<Element: Sendable>: Cancellable, @unchecked Sendable {
  // Guarded by `lock`.
  private let lock = NSLock()
  private var received: [Element] = []
  private var ended = false
  private var failure: (any Error)?
  private var task: Task<Void, Never>?

  init(_ stream: AsyncThrowingStream<Element, any Error>) {
    task = Task { [weak self] in
      do {
        for try await value in stream { self?.append(value) }
        self?.finish()
      } catch {
        self?.finish(failing: error)
      }
    }
  }

  init(_ stream: AsyncStream<Element>) {
    task = Task { [weak self] in
      for await value in stream { self?.append(value) }
      self?.finish()
    }
  }

  private func append(_ value: Element) { lock.withLock { received.append(value) } }
  private func finish(failing error: (any Error)? = nil) {
    lock.withLock {
      ended = true
      failure = error
    }
  }

  /// Every value so far.
  var values: [Element] { lock.withLock { received } }

  /// Waits (`TestSupport.waitUntil`) for a value that satisfies `condition` (the latest one is
  /// checked).
  func wait(
    _ what: String, sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: @escaping (Element) -> Bool
  ) async throws {
    try await waitUntil(what, sourceLocation: sourceLocation) {
      self.values.last.map(condition) ?? false
    }
  }

  /// Waits (`TestSupport.waitUntil`) for the stream to end; returns the error it ended with,
  /// `nil` when it finished.
  @discardableResult
  func waitForEnd(
    _ what: String, sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> (any Error)? {
    try await waitUntil(what, sourceLocation: sourceLocation) {
      self.lock.withLock { self.ended }
    }
    return lock.withLock { failure }
  }

  func cancel() { task?.cancel() }
}
