import Dependencies
import Domain
import Foundation
import Observation
import ReportFeature
import Repositories

/// One chat room over the sync engine (`qapple://chat/ID`): live messages, compose and send
/// through the outbox (pending, sending, sent or failed per message, with retry and delete),
/// older history, who is typing, and the read cursor.
///
/// Everything live is read while ``task()`` runs; it returns when the screen goes away (the
/// task is cancelled) or the user signs out. Timers (typing) run on
/// `@Dependency(\.continuousClock)`.
@MainActor @Observable
public final class ChatRoomModel: Identifiable {
  /// What the room presents on top of itself.
  public enum Destination {
    /// The see-more sheet of someone else's message (report it).
    case seeMore(SeeMoreModel)
  }

  /// How many messages the room shows at first, and how many more each "load older" adds.
  public static let pageSize = 50
  /// The user's typing is told to the others at most once per this interval.
  public static let typingSignalInterval: Duration = .seconds(3)
  /// How long someone shows as typing after their last signal.
  public static let typingDisplayDuration: Duration = .seconds(5)

  /// The room.
  public let roomID: ChatRoom.ID
  /// The room as the room list knows it (title, kind), once read.
  public private(set) var room: ChatRoom?
  /// The messages shown, oldest first: history, live messages and the user's unsent ones
  /// (last, with their ``Domain/ChatMessage/DeliveryState``).
  public private(set) var messages: [ChatMessage] = []
  /// Nothing has been read from the store yet.
  public private(set) var isLoading = true
  /// The real-time link's state.
  public private(set) var connection: ChatConnectionState = .connecting
  /// The text being written (change it through ``draftChanged(_:)``).
  public private(set) var draft = ""
  /// A message is being stored for sending.
  public private(set) var isSending = false
  /// Older messages are being fetched.
  public private(set) var isLoadingOlder = false
  /// The server had nothing older than the oldest stored message.
  private var serverHasNoOlder = false
  /// Who is typing now: each for ``typingDisplayDuration`` after their last signal, or until a
  /// message from them arrives in the room (one sent after the signal: above its
  /// `ChatTyping.afterSeq`).
  public private(set) var typingUsers: [UserSummary] = []
  /// The last failure (signed out, not a member, a refused send), shown until
  /// ``failureDismissed()``. A message the server refused also shows its reason as
  /// `.failed(reason:)`.
  public private(set) var failure: DomainError?
  /// What is presented on top, if anything.
  public var destination: Destination?
  /// The signed-in user, once known (their messages are "mine").
  public private(set) var me: User.ID?

  @ObservationIgnored @Dependency(\.chatRepository) private var chat
  @ObservationIgnored @Dependency(\.authRepository) private var auth
  @ObservationIgnored @Dependency(\.analyticsRepository) private var analytics
  @ObservationIgnored @Dependency(\.date) private var date
  @ObservationIgnored @Dependency(\.continuousClock) private var clock

  /// How many messages the message stream is asked for.
  @ObservationIgnored private var visibleLimit = ChatRoomModel.pageSize
  /// Reopens the message stream after ``visibleLimit`` grew.
  @ObservationIgnored private var limitChanged: AsyncStream<Void>.Continuation?
  /// The highest `seq` the server was told the user read.
  @ObservationIgnored private var markedReadSeq: Int64 = 0
  /// Asks ``followReadCursor()`` to move the read cursor to the newest message shown; the
  /// message stream never waits for the server's answer (new messages, and the user's own
  /// pending one, show while a mark-read is on its way).
  @ObservationIgnored private var readCursorMoved: AsyncStream<Void>.Continuation?
  /// The newest `seq` the message stream has shown, `0` for an empty room, `nil` before its
  /// first list: a message above it arrived while the screen was open.
  @ObservationIgnored private var newestShownSeq: Int64?
  /// The timers that end each typist's indicator.
  @ObservationIgnored private var typingExpiries: [User.ID: Task<Void, Never>] = [:]
  /// The ``ChatTyping/afterSeq`` of each typing user's newest signal: their messages at or
  /// below it were sent before they began typing.
  @ObservationIgnored private var typingSince: [User.ID: Int64] = [:]
  /// Ends the quiet period after the user's typing was told to the others.
  @ObservationIgnored private var typingCooldown: Task<Void, Never>?

  /// Creates the room screen for `roomID`.
  public init(roomID: ChatRoom.ID) {
    self.roomID = roomID
  }

  /// The identity of the screen: its room.
  public nonisolated var id: ChatRoom.ID { roomID }

  /// What the screen says about the link, or `nil` while it is live.
  public var connectionBanner: ChatConnectionBanner? { ChatConnectionBanner(connection) }

  /// The room's first message is shown: there is nothing older to load.
  public var isAtBeginning: Bool { serverHasNoOlder || messages.first?.seq == 1 }

  /// Whether the send button works: some text, not already sending.
  public var canSend: Bool {
    !isSending && draft.trimmedOrNil != nil
  }

  /// Whether `message` was written by the user.
  public func isMine(_ message: ChatMessage) -> Bool {
    me != nil && message.sender.id == me
  }

  /// Whether `message` can be sent again (the server refused it).
  public func canRetry(_ message: ChatMessage) -> Bool {
    message.deliveryState.isFailed
  }

  /// Whether `message` can be deleted (the user's, waiting or failed; one on its way may
  /// already be with the server).
  public func canDelete(_ message: ChatMessage) -> Bool {
    switch message.deliveryState {
    case .pending, .failed: message.seq == nil
    case .sending, .sent: false
    }
  }

  /// Whether `message` offers "see more" (someone else's sent message: report it).
  public func canSeeMore(_ message: ChatMessage) -> Bool {
    message.seq != nil && me != nil && !isMine(message)
  }

  // MARK: The screen

  /// The screen appeared: follows the room's messages (the stored ones show at once), the
  /// room, who types and the link until the screen goes away or the user signs out, and checks
  /// beside them that the user may read the room: a refusal (not a member, no such room) ends
  /// it all, shows nothing of the room and says why.
  public func task() async {
    await analytics.screenViewed("chat_room", at: date.now)
    guard case .signedIn(let user) = await auth.currentState() else {
      failure = .signedOut
      isLoading = false
      return
    }
    me = user.id
    let (readCursorMoves, readCursorMoved) = AsyncStream.makeStream(
      of: Void.self, bufferingPolicy: .bufferingNewest(1))
    self.readCursorMoved = readCursorMoved
    await withTaskGroup(of: Void.self) { outer in
      outer.addTask { await self.followReadCursor(readCursorMoves) }
      let isRefused = await withTaskGroup(of: Bool.self) { group in
        group.addTask {
          let mayRead = await self.mayRead()
          return !mayRead && !Task.isCancelled
        }
        for follow in [followMessages, followRoom, followTyping, followConnection] {
          group.addTask {
            await follow()
            return false
          }
        }
        var isRefused = false
        for await refused in group where refused {
          isRefused = true
          group.cancelAll()
        }
        return isRefused
      }
      // Not the user's to read: nothing of it stays on screen.
      if isRefused {
        messages = []
        room = nil
      }
      // The read cursor is followed until the rest ends (the screen went away, signed out).
      readCursorMoved.finish()
    }
    isLoading = false
    self.readCursorMoved = nil
    for expiry in typingExpiries.values { expiry.cancel() }
    typingExpiries = [:]
    typingSince = [:]
    typingUsers = []
    typingCooldown?.cancel()
  }

  /// The failure was read.
  public func failureDismissed() {
    failure = nil
  }

  // MARK: Writing

  /// The user edited the text: the others see "typing" (told at most once per
  /// ``typingSignalInterval``).
  public func draftChanged(_ text: String) async {
    draft = text
    guard typingCooldown == nil, text.trimmedOrNil != nil else { return }
    let wait = clock.deadline(after: Self.typingSignalInterval)
    typingCooldown = Task { [weak self] in
      try? await wait()
      self?.typingCooldown = nil
    }
    await chat.userIsTyping(roomID)
  }

  /// "Send" was tapped: the text goes to the outbox (it shows as pending at once) and the
  /// field is cleared; a refused text (too long) stays in the field with the failure.
  public func sendButtonTapped() async {
    guard canSend else { return }
    isSending = true
    defer { isSending = false }
    let text = draft
    do {
      _ = try await chat.send(text, roomID)
      // What the user typed meanwhile stays.
      if draft == text { draft = "" }
      failure = nil
      await analytics.track("chat_message_sent", at: date.now)
    } catch {
      failure = DomainError(error)
    }
  }

  /// "Retry" on a failed message: it goes back to the outbox.
  public func retryTapped(_ message: ChatMessage) async {
    guard canRetry(message) else { return }
    await changeOutbox("chat_message_retried") { try await $0.retry(message.clientMessageID) }
  }

  /// "Delete" on a message that was not sent: it is removed from the outbox and the room.
  public func deleteTapped(_ message: ChatMessage) async {
    guard canDelete(message) else { return }
    await changeOutbox("chat_message_discarded") {
      try await $0.deleteUnsent(message.clientMessageID)
    }
  }

  /// Runs a change of the outbox, then tracks `event`; a failure is shown.
  private func changeOutbox(
    _ event: String, _ change: (ChatRepository) async throws -> Void
  ) async {
    do {
      try await change(chat)
      await analytics.track(event, at: date.now)
    } catch {
      failure = DomainError(error)
    }
  }

  // MARK: History and reporting

  /// The user scrolled to the top (or tapped "load older"): shows older messages, from the
  /// store when it holds more than is shown, else from the server; at the room's first message
  /// ``isAtBeginning`` becomes `true`.
  public func loadOlderTapped() async {
    guard !isLoadingOlder, !isAtBeginning, !isLoading else { return }
    // The window is full of sent messages (the unsent ones come on top of it): the store may
    // hold more than it shows, so widen it.
    if messages.count(where: { $0.seq != nil }) >= visibleLimit {
      widen(by: Self.pageSize)
      return
    }
    isLoadingOlder = true
    defer { isLoadingOlder = false }
    do {
      let count = try await chat.loadOlder(roomID, Self.pageSize)
      if count == 0 {
        serverHasNoOlder = true
      } else {
        widen(by: count)
      }
    } catch is CancellationError {
      // The screen went away.
    } catch {
      failure = DomainError(error)
    }
  }

  /// "See more" on someone else's message: the see-more sheet (report it).
  public func seeMoreTapped(_ message: ChatMessage) {
    guard canSeeMore(message) else { return }
    let sheet = withDependencies(from: self) {
      SeeMoreModel(target: .chatMessage(message.id), isMine: false)
    }
    sheet.onFinish = { [weak self, weak sheet] _ in
      // Closed only if it is still the sheet shown (it may have been swiped away and another
      // opened while its request ran); what it did still lands.
      if case .seeMore(let shown) = self?.destination, shown === sheet { self?.destination = nil }
    }
    destination = .seeMore(sheet)
  }

  /// The sheet was dismissed.
  public func destinationDismissed() {
    destination = nil
  }

  // MARK: Following the room

  /// Whether the user may read the room: only a refusal (not a member, no such room, signed
  /// out) says no. When the server cannot answer (offline, slow, failing, busy) the stored
  /// messages are shown and the room is followed; server trouble shows as the failure too.
  private func mayRead() async -> Bool {
    do {
      _ = try await chat.fetchMessages(roomID, nil, nil, 1)
      return true
    } catch is CancellationError {
      return false
    } catch {
      let error = DomainError(error)
      switch error {
      case .forbidden, .notFound, .signedOut:
        failure = error
        return false
      case .offline, .timeout:
        // The connection banner says so.
        return true
      default:
        failure = error
        return true
      }
    }
  }

  private func widen(by count: Int) {
    visibleLimit += count
    limitChanged?.yield()
  }

  /// Reads the message stream, reopening it each time the window widens.
  private func followMessages() async {
    while !Task.isCancelled {
      let (changes, continuation) = AsyncStream<Void>.makeStream()
      limitChanged = continuation
      let limit = visibleLimit
      let reopen = await withTaskGroup(of: Bool.self) { group in
        group.addTask {
          await self.readMessages(limit: limit)
          return false
        }
        group.addTask {
          for await _ in changes { return true }
          return false
        }
        let first = await group.next() ?? false
        group.cancelAll()
        return first
      }
      continuation.finish()
      limitChanged = nil
      guard reopen else { return }
    }
  }

  private func readMessages(limit: Int) async {
    do {
      for try await messages in chat.messages(roomID, limit) {
        messagesArrived(in: messages)
        self.messages = messages
        isLoading = false
        readCursorMoved?.yield()
      }
      // Ended by itself: the engine stopped because the user signed out.
      if !Task.isCancelled, await auth.hasSessionEnded() { failure = .signedOut }
    } catch is CancellationError {
      // The screen went away.
    } catch {
      failure = DomainError(error)
    }
    isLoading = false
  }

  /// Moves the read cursor each time the message stream asks, one mark-read at a time; asks
  /// that come while one is on its way fold into one.
  private func followReadCursor(_ moves: AsyncStream<Void>) async {
    for await _ in moves { await markRead() }
  }

  /// Moves the read cursor to the newest message shown. Offline it is moved locally, and on
  /// the server once the link is back.
  private func markRead() async {
    guard let newest = messages.compactMap(\.seq).max(), newest > markedReadSeq else { return }
    do {
      try await chat.markRead(roomID, newest)
      markedReadSeq = max(markedReadSeq, newest)
    } catch DomainError.offline {
      // Tried again when the link comes back (followConnection).
    } catch is CancellationError {
      // The screen went away.
    } catch {
      failure = DomainError(error)
    }
  }

  private func followRoom() async {
    do {
      // The room alone: the room list's stream would keep its first rooms in sync too.
      for try await room in chat.room(roomID) {
        if let room { self.room = room }
      }
    } catch is CancellationError {
      // The screen went away.
    } catch {
      // The message stream reports the same failure (signed out); keep the first.
      if failure == nil { failure = DomainError(error) }
    }
  }

  private func followTyping() async {
    for await typing in chat.typing(roomID) where typing.user.id != me {
      typingSignalled(by: typing)
    }
  }

  private func followConnection() async {
    for await state in chat.connectionStates() {
      connection = state
      if state == .connected { readCursorMoved?.yield() }
    }
  }

  /// Whoever sent a message that arrived since the last list (a `seq` above any shown before)
  /// and after their typing signal (above its ``ChatTyping/afterSeq``) has finished typing it:
  /// their indicator ends now. Older messages (the first list, history loaded by "load older",
  /// a catch-up of what was sent before the typing began) end nothing.
  private func messagesArrived(in messages: [ChatMessage]) {
    let newest = messages.compactMap(\.seq).max() ?? 0
    defer { newestShownSeq = max(newestShownSeq ?? 0, newest) }
    guard let shown = newestShownSeq else { return }
    for message in messages {
      let seq = message.seq ?? 0
      if seq > shown, seq > typingSince[message.sender.id] ?? 0 {
        typingEnded(for: message.sender.id)
      }
    }
  }

  private func typingEnded(for userID: User.ID) {
    typingExpiries.removeValue(forKey: userID)?.cancel()
    typingSince[userID] = nil
    typingUsers.removeAll { $0.id == userID }
  }

  private func typingSignalled(by typing: ChatTyping) {
    let user = typing.user
    typingSince[user.id] = max(typingSince[user.id] ?? 0, typing.afterSeq)
    if let index = typingUsers.firstIndex(where: { $0.id == user.id }) {
      typingUsers[index] = user
    } else {
      typingUsers.append(user)
    }
    typingExpiries[user.id]?.cancel()
    let wait = clock.deadline(after: Self.typingDisplayDuration)
    typingExpiries[user.id] = Task { [weak self] in
      do {
        try await wait()
      } catch {
        return
      }
      self?.typingEnded(for: user.id)
    }
  }
}
