import Domain
import Foundation
import Logging
import Persistence
import Repositories

/// How a ``ChatSync`` waits, logs and pages.
public struct ChatSyncOptions: Sendable {
  /// Measures the waits between retries and the acknowledgement timeout.
  public var clock: any Clock<Duration>
  /// The wall-clock time stamped on pending messages.
  public var now: @Sendable () -> Date
  /// Receives the engine's log entries.
  public var logger: Logger
  /// The wait before retry `n` (0-based) of a failed catch-up or outbox flush (the live client
  /// uses NetworkKit's full-jitter `Backoff`).
  public var retryDelay: @Sendable (_ retry: Int) -> Duration
  /// How long a send over the channel may wait for its acknowledgement before the outbox
  /// sends it again (the server de-duplicates by client message id).
  public var ackTimeout: Duration
  /// How many messages a catch-up asks the server for per page, kept within 1 to
  /// `PageRequest.maximumLimit` (what the server allows) when set, too: a catch-up reads a
  /// shorter page as the end of the history, so a larger size would skip what the server's
  /// clamped page left out.
  public var pageSize: Int {
    didSet { pageSize = Self.clamped(pageSize) }
  }

  private static func clamped(_ size: Int) -> Int { min(max(size, 1), PageRequest.maximumLimit) }

  /// Creates the options.
  public init(
    clock: any Clock<Duration> = ContinuousClock(),
    now: @escaping @Sendable () -> Date = { Date() },
    logger: Logger = Logger(label: "Qapple.Chat"),
    retryDelay: @escaping @Sendable (_ retry: Int) -> Duration,
    ackTimeout: Duration = .seconds(10),
    pageSize: Int = PageRequest.maximumLimit
  ) {
    self.clock = clock
    self.now = now
    self.logger = logger
    self.retryDelay = retryDelay
    self.ackTimeout = ackTimeout
    self.pageSize = Self.clamped(pageSize)
  }
}

/// The chat sync engine: keeps the local store (`Persistence.ChatStore`) in step with the
/// server over a real-time ``ChatChannel`` and the server calls of a `ChatRepository`, and
/// delivers the user's messages exactly once through the store's outbox (`Docs/Realtime.md`).
/// The live client runs it over `/realtime` and HTTP, the fakes over the service engine: the
/// rules below exist once.
///
/// Sync never loses or duplicates a message:
/// - **subscribe first**: for every open room the channel subscribes (with the stored cursor as
///   `after_seq`) before anything is fetched, so whatever is sent meanwhile arrives live;
/// - the `subscribed` answer names the room's last `seq`; what lies between the stored cursor
///   and it is fetched from the server, page by page;
/// - every stored message moves the cursor over contiguous `seq`s; a gap seen in live `seq`s
///   is filled from the server; duplicates (replays, retries, duplicated frames) are dropped by
///   `seq` and client message id;
/// - after every reconnect each open room subscribes again from its cursor; a failed catch-up
///   subscribes again after a backoff, so it restarts from the cursor.
///
/// The outbox: ``send(_:to:)`` stores the message as pending before it goes out (it survives a
/// restart), sends it over the channel (the server call while the channel is down), retries
/// with backoff until the server answers, and shows pending -> sending -> sent, or failed with
/// the server's reason (not a member, banned, invalid text) for ``retry(_:)`` or
/// ``delete(_:)``.
public actor ChatSync {
  /// The local store this engine fills.
  public nonisolated let store: ChatStore
  /// The signed-in user the engine syncs for.
  public nonisolated let me: UserSummary

  private let channel: any ChatChannel
  private let server: ChatRepository
  private let options: ChatSyncOptions
  private var logger: Logger { options.logger }
  private let states = Broadcaster<ChatConnectionState>(replaysLatest: true, initial: .offline)
  private let typists = Broadcaster<(room: ChatRoom.ID, typing: ChatTyping)>()

  /// How many readers keep each room open.
  private var openRooms: [ChatRoom.ID: Int] = [:]
  /// Per room, how many ``open(_:)`` calls the server ended (the user left the room) that have
  /// not been balanced by ``close(_:)`` yet: those closes must not take a later reader's count.
  private var endedOpens: [ChatRoom.ID: Int] = [:]
  /// The rooms each reader of ``rooms()`` keeps open (the first rooms it lists), by reader.
  private var listReaders: [UUID: Set<ChatRoom.ID>] = [:]
  /// Per reader of ``rooms()``, the listed rooms the server ended: not opened again while they
  /// stay listed (else every change of the list would subscribe them again), anew once they
  /// left the list and come back (a rejoin).
  private var endedListings: [UUID: Set<ChatRoom.ID>] = [:]
  /// Subscriptions asked for on this link whose `subscribed` answer has not come: a refused
  /// `subscribe` answers one of them (and, from a server that does not name the refused frame,
  /// any refusal that names only a room: a refused `typing` frame then names a room too, and
  /// must not end or redo a subscription that has its answer).
  private var subscribing: [ChatRoom.ID: Int] = [:]

  /// How many rooms of the list (the most recently active first) a reader of ``rooms()`` keeps
  /// in sync: a screenful and more, while the subscribe and unsubscribe frames of a list that
  /// appears and goes stay far below the server's frame limit (200 per 10 s by default).
  public static let liveListLimit = 20
  /// Rooms the engine unsubscribed from and whose `unsubscribed` answer has not come yet: that
  /// answer must not close the room again if a reader opened it meanwhile.
  private var unsubscribing: [ChatRoom.ID: Int] = [:]
  // The `seq`s the link said were hidden, per room, that lay after the sync cursor: every copy
  // that comes after the hide (the room's `message` and the sender's ack are two copies, in
  // either order; a resend is answered with the stored message) is left out until a restore
  // brings the message back, also on a later link. Once the cursor passes one, the store's
  // rule takes over (`ChatStore.saveDelivered`) and it is dropped here.
  private var hiddenSeqs: [ChatRoom.ID: Set<Int64>] = [:]
  /// Per room, the ``loadOlder(in:limit:)`` calls on their way and the `seq`s hidden while
  /// they were: their pages, read before the hide, leave those out.
  private var olderLoads: [ChatRoom.ID: (count: Int, hidden: Set<Int64>)] = [:]
  // Rooms whose unsubscribe this link answered: a later `unsubscribed` of one may be a copy.
  private var answeredUnsubscribes: Set<ChatRoom.ID> = []
  private var tasks: [Task<Void, Never>] = []
  /// The channel's connection, as its last `.connected` named it; `nil` while down. Every call
  /// on the channel names it, so none is made on a connection this engine has not handled yet.
  private var link: ConnectionLink?
  private var isConnected: Bool { link != nil }
  /// Counts the link changes: a subscribe that fails after its link changed answers nothing of
  /// the new link's.
  private var linkNumber = 0
  /// Set by ``stop()``: nothing is sent or scheduled any more.
  private var isStopped = false
  /// The running flush, if any (``stop()`` cancels it).
  private var flushTask: Task<Void, Never>?
  // Sends whose server call answered, waiting for their room's turn to be stored.
  private var answersInTurn: Set<UUID> = []
  private var flushAgain = false
  /// The running re-read of the room list after moderation, if any (``stop()`` cancels it).
  private var roomsTask: Task<Void, Never>?
  /// Read marks the server has not taken yet (made offline, or while a call failed for now),
  /// the newest per room: sent again on the next link and by every room-list read.
  private var unsentReadMarks: [ChatRoom.ID: Int64] = [:]
  /// Sends ``unsentReadMarks``; one at a time.
  private var readMarksTask: Task<Void, Never>?
  /// Asked to send the read marks again while a run was on its way (a new link, a room-list
  /// read): that run goes over them once more when it ends.
  private var readMarksAgain = false
  private var roomsAgain = false
  /// Room-list reads started, and the newest one written to the store.
  private var roomReads = (started: 0, applied: 0)
  /// Messages sent over the current link whose acknowledgement has not come yet, with when
  /// they went out (``elapsed``): a flush leaves each alone until its own ack timeout passes
  /// or the link changes.
  private var awaitingAck: [UUID: Duration] = [:]
  /// The time on the options' clock since the engine was made.
  private let elapsed: @Sendable () -> Duration
  /// Messages sent over the channel while an earlier try may already have reached the server
  /// (they were `sending` when the flush read them): a refusal of this try that would put a
  /// message back in line keeps these `sending`.
  private var sentInDoubt: Set<UUID> = []
  /// The newest `seq` of each room the link has told of (a subscription's `lastSeq`, a live
  /// message), which a typing signal carries (``typing(in:)``); seqs only grow, so it outlives
  /// links.
  private var announcedSeqs: [ChatRoom.ID: Int64] = [:]
  private var retryTimer: RetryTimer?
  /// Sends that failed for now in a row (the backoff of the next flush): a server call's
  /// failure, or a refusal that is worth a later try. Only a delivery ends the run (a send's
  /// answer or ack), or an outbox with nothing left to send: a flush that only wrote frames
  /// proves nothing yet.
  private var failedFlushes = 0
  /// The longest wait a `rate_limited` refusal asked for since the retry timer was last armed:
  /// the next backoff lasts at least that long.
  private var askedWait: Duration = .zero
  /// Whether a refusal counted in ``failedFlushes`` since the last flush started: the refusals
  /// of one flush's sends lengthen the backoff once.
  private var refusalCounted = false
  /// Failed catch-ups in a row, per room (the backoff of the next subscribe).
  private var resyncAttempts: [ChatRoom.ID: Int] = [:]
  /// Per room, the last of its queued work (``inTurn(of:_:)``) with its number, and how many
  /// were queued so far.
  private var roomWork: [ChatRoom.ID: (number: Int, task: Task<Void, Never>)] = [:]
  private var roomWorkQueued = 0
  /// The messages of each queued burst that has not started, by its work number.
  private var burstMessages: [Int: [ChatMessage]] = [:]
  /// Per room, the number of its queued burst while that is the room's last queued work and
  /// has not started: a later burst joins it (one transaction, as ``ChatEventQueue`` merges
  /// what waits).
  private var openBursts: [ChatRoom.ID: Int] = [:]

  /// Creates the engine for the signed-in user `me`; nothing runs until ``start()``.
  ///
  /// - Parameters:
  ///   - store: the local store of this user.
  ///   - me: the signed-in user (the sender of outgoing messages).
  ///   - channel: the real-time link.
  ///   - server: the server calls (`fetchMessages`, `sendMessage`, `markRead`, `fetchRooms`).
  ///   - options: clock, logger, backoff.
  public init(
    store: ChatStore, me: UserSummary, channel: any ChatChannel, server: ChatRepository,
    options: ChatSyncOptions
  ) {
    self.store = store
    self.me = me
    self.channel = channel
    self.server = server
    self.options = options
    elapsed = Self.stopwatch(options.clock)
  }

  /// The time `clock` measured since this call.
  private static func stopwatch<C: Clock<Duration>>(_ clock: C) -> @Sendable () -> Duration {
    let start = clock.now
    return { start.duration(to: clock.now) }
  }

  // MARK: Lifecycle

  /// Connects and starts syncing; the outbox left by an earlier run is sent as soon as possible.
  public func start() async {
    guard tasks.isEmpty, !isStopped else { return }
    let events = channel.events
    tasks.append(
      Task { [weak self] in
        for await event in events {
          guard let self else { return }
          await self.handle(event)
        }
      })
    await channel.open()
    flush()
  }

  /// Disconnects for good and stops every task: nothing more is sent, not even by a flush that
  /// is under way (its current send may still land); the store stays open.
  public func stop() async {
    isStopped = true
    flushTask?.cancel()
    roomsTask?.cancel()
    readMarksTask?.cancel()
    await channel.close()
    retryTimer?.task.cancel()
    for task in tasks { task.cancel() }
    tasks = []
    for work in roomWork.values { work.task.cancel() }
    roomWork = [:]
    (burstMessages, openBursts) = ([:], [:])
    link = nil
    states.publishIfChanged(.offline)
    states.finish()
    typists.finish()
  }

  // MARK: What the app reads

  /// The link's state now and after every change.
  public nonisolated func connectionStates() -> AsyncStream<ChatConnectionState> {
    states.subscribe()
  }

  /// The link's state now.
  public nonisolated var connectionState: ChatConnectionState { states.current ?? .offline }

  /// Who starts typing in `room`, from now on, each with the newest `seq` of the room the link
  /// had told of then (``ChatTyping/afterSeq``): a message at or below it, stored later by a
  /// catch-up, was sent before the typing began.
  public nonisolated func typing(in room: ChatRoom.ID) -> AsyncStream<ChatTyping> {
    let all = typists.subscribe()
    return AsyncStream { continuation in
      let task = Task {
        for await event in all where event.room == room { continuation.yield(event.typing) }
        continuation.finish()
      }
      continuation.onTermination = { _ in task.cancel() }
    }
  }

  /// The newest `limit` messages of `room` now and after every change; the room is kept in
  /// sync while the stream is read.
  public nonisolated func messages(
    in room: ChatRoom.ID, limit: Int
  ) -> AsyncThrowingStream<[ChatMessage], any Error> {
    let values = store.observeMessages(in: room, limit: max(1, limit))
    return whileRunning({ values }) {
      await self.open(room)
    } ending: {
      await self.close(room)
    }
  }

  /// The room list now and after every change: a stored list at once (the list works offline
  /// and shows without waiting for a slow server), then the list refreshed from the server
  /// beside it; an empty store waits for the server's answer first (a new device must not show
  /// "no rooms" for a moment). A failed refresh is logged; the stored list stays.
  ///
  /// While the stream is read, the rooms it lists first (up to ``liveListLimit``) are kept in
  /// sync like open rooms, so their newest message and unread count stay live, not only those
  /// of rooms a screen shows; rows further down show what the server listed.
  public nonisolated func rooms() -> AsyncThrowingStream<[ChatRoom], any Error> {
    let reader = UUID()
    // Given up with the reader, as a refresh run inside the stream's task would be.
    let refreshing = Locked<Task<Void, Never>?>(nil)
    // Observed once `starting` is over: after the refresh of an empty store.
    return whileRunning({ self.store.observeRooms() }) {
      let refresh = Task {
        do {
          try await self.refreshRooms()
        } catch {
          self.options.logger.info("Refreshing the room list failed: \(error)")
        }
      }
      refreshing.withLock { $0 = refresh }
      // Beside a stored list, not before it: a slow server must not hold back the list.
      if (try? self.store.rooms().isEmpty) != false {
        await withTaskCancellationHandler {
          await refresh.value
        } onCancel: {
          refresh.cancel()
        }
      }
    } each: { rooms in
      await self.keepListed(rooms.map(\.id), for: reader)
    } ending: {
      refreshing.withLock { $0?.cancel() }
      await self.stopKeepingListed(for: reader)
    }
  }

  /// One room of the stored list, now and after every change (`nil` until the list has it);
  /// when it is not stored yet the list is fetched from the server once. Unlike ``rooms()`` it
  /// keeps no room in sync: a room's screen reads it for its title while ``messages(in:limit:)``
  /// keeps that one room live.
  public nonisolated func room(_ id: ChatRoom.ID) -> AsyncThrowingStream<ChatRoom?, any Error> {
    let values = store.observeRoom(id)
    return whileRunning({ values }) {
      guard (try? self.store.rooms().contains { $0.id == id }) != true else { return }
      do {
        try await self.refreshRooms()
      } catch {
        self.options.logger.info("Refreshing the room list failed: \(error)")
      }
    }
  }

  /// Forwards `values` (made when it is called) after `starting` has run, handing each one to
  /// `each` once it is forwarded, until the reader stops or the engine stops (the user signed
  /// out); then `ending` runs, after `starting` and the last `each` are over.
  private nonisolated func whileRunning<Element: Sendable>(
    _ values: @escaping @Sendable () -> AsyncThrowingStream<Element, any Error>,
    starting: @escaping @Sendable () async -> Void,
    each: @escaping @Sendable (Element) async -> Void = { _ in },
    ending: @escaping @Sendable () async -> Void = {}
  ) -> AsyncThrowingStream<Element, any Error> {
    let stopped = states.subscribe()
    return AsyncThrowingStream { continuation in
      let forwarding = Task {
        await starting()
        do {
          for try await value in values() {
            continuation.yield(value)
            await each(value)
          }
          continuation.finish()
        } catch {
          continuation.finish(throwing: error)
        }
      }
      let watching = Task {
        for await _ in stopped {}
        continuation.finish()
      }
      continuation.onTermination = { _ in
        forwarding.cancel()
        watching.cancel()
        Task {
          _ = await forwarding.result
          await ending()
        }
      }
    }
  }

  /// Fetches the whole room list from the server into the store. Reads that overlap are
  /// applied in the order they started: a slower, older read that lands after a newer one is
  /// dropped (it could bring back a room the user left). Nothing is written after ``stop()``.
  public func refreshRooms() async throws {
    roomReads.started += 1
    let read = roomReads.started
    let rooms = try await Page.all(in: { try await server.fetchRooms($0) })
    guard !isStopped, read > roomReads.applied else { return }
    roomReads.applied = read
    let marked = Dictionary(
      try store.rooms().map { ($0.id, $0.lastReadSeq) }, uniquingKeysWith: max)
    try store.replaceRooms(rooms)
    // Read here further than the server knows (offline, or before the app last quit): the
    // server hears it now, so its unread counts and other devices follow.
    for room in rooms {
      if let seq = marked[room.id], seq > room.lastReadSeq { keepUnsentReadMark(seq, in: room.id) }
    }
    sendUnsentReadMarks()
  }

  // MARK: What the app does

  /// Keeps `room` in sync until as many ``close(_:)`` calls: subscribes (when connected) and
  /// catches up.
  public func open(_ room: ChatRoom.ID) async {
    if retain(room) { await resubscribe(room) }
  }

  /// Balances one ``open(_:)``; the last one stops keeping `room` in sync.
  public func close(_ room: ChatRoom.ID) async {
    if endedOpens.countOff(room) { return }
    if release(room) { await unsubscribe(room) }
  }

  /// Counts one more reader of `room`; `true` for the first.
  private func retain(_ room: ChatRoom.ID) -> Bool {
    openRooms[room, default: 0] += 1
    return openRooms[room] == 1
  }

  /// Counts one reader of `room` less; `true` for the last.
  private func release(_ room: ChatRoom.ID) -> Bool {
    openRooms.countOff(room) && openRooms[room] == nil
  }

  /// Ends the subscription of a room nobody keeps open any more (unless a reader opened it
  /// again while an earlier unsubscribe of the same batch was awaited).
  private func unsubscribe(_ room: ChatRoom.ID) async {
    guard let link, openRooms[room] == nil else { return }
    let number = linkNumber
    do {
      unsubscribing[room, default: 0] += 1
      try await channel.unsubscribe(from: room, on: link)
    } catch {
      // Counted off only on its own link: a later link counts its unsubscribes afresh.
      if number == linkNumber { unsubscribing.countOff(room) }
    }
  }

  /// Keeps exactly the first ``liveListLimit`` rooms of `listed` open for the room-list reader
  /// `reader`: opens the new ones, closes those no longer among them. The counts change before
  /// anything is awaited, so a reader that ends meanwhile closes exactly what it opened.
  private func keepListed(_ listed: [ChatRoom.ID], for reader: UUID) async {
    let kept = listReaders[reader] ?? []
    let shown = Set(listed.prefix(Self.liveListLimit))
    let ended = (endedListings[reader] ?? []).intersection(shown)
    endedListings[reader] = ended.isEmpty ? nil : ended
    let listed = shown.subtracting(ended)
    listReaders[reader] = listed
    let opened = listed.subtracting(kept).filter(retain)
    let closed = kept.subtracting(listed).filter(release)
    for room in opened { await resubscribe(room) }
    for room in closed { await unsubscribe(room) }
  }

  /// The room-list reader `reader` ended: closes every room it kept open.
  private func stopKeepingListed(for reader: UUID) async {
    endedListings[reader] = nil
    guard let kept = listReaders.removeValue(forKey: reader) else { return }
    for room in kept.filter(release) { await unsubscribe(room) }
  }

  /// Stores `text` as a pending message of `room` and returns it at once; the outbox sends it.
  @discardableResult
  public func send(_ draft: String, to room: ChatRoom.ID) throws -> ChatMessage {
    try room.requireNonEmpty(field: "room_id")
    let text: String
    do {
      text = try ChatMessage.validate(text: draft)
    } catch {
      throw DomainError.validation(error)
    }
    let message = try store.enqueue(
      text, to: room, clientMessageID: UUID(), sender: me, at: options.now())
    flush()
    return message
  }

  /// Puts a failed message back in the outbox; a message that has not failed is left as it
  /// is (one that is sending may already be with the server, and stays undeletable).
  public func retry(_ clientMessageID: UUID) throws {
    guard case .failed = try unsentState(of: clientMessageID) else { return }
    try store.retry(clientMessageID)
    flush()
  }

  /// Deletes a pending or failed message. One that is sending may already be with the
  /// server, so it is refused (`conflict`) until it is stored or refused for good: one on its
  /// way, and one an earlier try of which may have reached the server (a send that timed out
  /// or met a server error, a send over the channel whose acknowledgement did not come before
  /// the ack timeout, a new link or a restart). Such a message stays sending whatever later
  /// tries meet short of that (offline, rate limited) until a try gets through.
  public func delete(_ clientMessageID: UUID) throws {
    guard try unsentState(of: clientMessageID) != .sending else {
      throw DomainError.conflict(
        "This message may already be with the server; it can be deleted only once it fails."
      )
    }
    try store.deleteUnsent(clientMessageID)
  }

  /// The delivery state of the unsent message `clientMessageID`; `nil` when the outbox has none.
  private func unsentState(of clientMessageID: UUID) throws -> ChatMessage.DeliveryState? {
    try store.outbox().first { $0.clientMessageID == clientMessageID }?.deliveryState
  }

  /// Fetches up to `limit` messages older than the oldest stored one of `room` and stores
  /// them; returns what was stored (empty at the beginning of the room). The page is stored
  /// after the room's earlier work, leaving out what moderation hid while it was on its way;
  /// after ``stop()`` nothing is stored and `CancellationError` is thrown.
  @discardableResult
  public func loadOlder(in room: ChatRoom.ID, limit: Int = 50) async throws -> [ChatMessage] {
    let oldest = try store.oldestSeq(in: room)
    if oldest == 1 { return [] }
    olderLoads[room, default: (0, [])].count += 1
    defer {
      if let load = olderLoads[room] {
        olderLoads[room] = load.count > 1 ? (load.count - 1, load.hidden) : nil
      }
    }
    var before = oldest
    while true {
      let fetched = try await server.fetchMessages(room, nil, before, limit)
      // Hides queued before now are handled first (with no suspension after, none comes
      // between). Nothing is stored after ``stop()`` or once the caller gave up: the call
      // ends with `CancellationError` (not an empty page, which would read as the room's
      // beginning).
      await roomWork[room]?.task.value
      if isStopped { throw CancellationError() }
      try Task.checkCancellation()
      let hidden = olderLoads[room]?.hidden ?? []
      let older = fetched.filter { $0.seq.map { !hidden.contains($0) } ?? true }
      // A page hidden whole on its way is not the room's beginning: the page before it is
      // (each step goes further back, so this ends at the room's first message).
      if older.isEmpty, let lowest = fetched.compactMap(\.seq).min(), lowest > 1 {
        before = lowest
        continue
      }
      try store.save(older)
      return older
    }
  }

  /// Marks `room` read up to `seq`, locally at once and on the server. When the server call
  /// fails for now (offline), its error is thrown and the mark is sent again on the next link,
  /// whether or not the room's screen is still open.
  public func markRead(_ room: ChatRoom.ID, upTo seq: Int64) async throws {
    try store.markRead(room, upTo: seq)
    do {
      try await server.markRead(room, seq)
      if let kept = unsentReadMarks[room], kept <= seq { unsentReadMarks[room] = nil }
    } catch {
      if DomainError(error).isWorthRetrying { keepUnsentReadMark(seq, in: room) }
      throw error
    }
  }

  private func keepUnsentReadMark(_ seq: Int64, in room: ChatRoom.ID) {
    unsentReadMarks[room] = max(unsentReadMarks[room] ?? seq, seq)
  }

  /// Sends the read marks the server has not taken; one that fails for now waits for the next
  /// link (or room-list read), one refused for good (the user left the room) is dropped.
  private func sendUnsentReadMarks() {
    guard !isStopped, !unsentReadMarks.isEmpty else { return }
    guard readMarksTask == nil else {
      readMarksAgain = true
      return
    }
    readMarksTask = Task {
      repeat {
        readMarksAgain = false
        // In room order: one run sends them alike each time.
        for (room, seq) in unsentReadMarks.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
          guard !Task.isCancelled else { break }
          do {
            try await server.markRead(room, seq)
          } catch {
            if DomainError(error).isWorthRetrying { continue }
            logger.debug("A read mark of \(room.rawValue) was refused: \(error)")
          }
          if let kept = unsentReadMarks[room], kept <= seq { unsentReadMarks[room] = nil }
        }
      } while readMarksAgain && !Task.isCancelled
      readMarksTask = nil
    }
  }

  /// Tells the room's other members the user is typing (nothing when offline).
  public func userIsTyping(in room: ChatRoom.ID) async {
    guard let link else { return }
    try? await channel.typing(in: room, on: link)
  }

  // MARK: The channel

  /// Handles one event of the channel. What changes a room's stored messages (its catch-up,
  /// a burst, a hide) waits for that room's earlier work and runs beside the handler
  /// (``inTurn(of:_:)``): a catch-up that fetches page after page holds back neither the other
  /// rooms nor the link's state, typing, or refusals.
  private func handle(_ event: ChatChannelEvent) async {
    do {
      switch event {
      case .state(let state, let link):
        await connectionChanged(to: state, link: link)
      case .subscribed(let room, let lastSeq):
        subscribing.countOff(room)
        announced(lastSeq, in: room)
        inTurn(of: room) { sync, _ in
          try await sync.syncing(room) { room in
            try await sync.catchUp(room, upTo: lastSeq)
            await sync.reconcile(room, lastSeq: lastSeq)
          }
        }
      case .messages(let messages):
        // Per room, one transaction for its part of the burst, then its gaps.
        var rooms: [ChatRoom.ID: [ChatMessage]] = [:]
        var order: [ChatRoom.ID] = []
        for message in messages {
          if let seq = message.seq { announced(seq, in: message.roomID) }
          // An own send's ack: the server takes messages again, so the backoff starts over.
          if message.sender.id == me.id, awaitingAck[message.clientMessageID] != nil {
            failedFlushes = 0
          }
          if rooms[message.roomID] == nil { order.append(message.roomID) }
          rooms[message.roomID, default: []].append(message)
        }
        for room in order { queueBurst(rooms[room] ?? [], in: room) }
      case .typing(let room, let user):
        typists.publish((room, ChatTyping(user: user, afterSeq: announcedSeqs[room] ?? 0)))
      case .messageHidden(let room, let seq):
        inTurn(of: room) { sync, _ in
          // Stored or not yet (the frames came out of order, or this was the room's copy and
          // the sender's ack is still to come), every later copy of it is left out.
          try sync.store.removeHidden(seq, in: room)
          sync.olderLoads[room]?.hidden.insert(seq)
          if try seq > sync.store.syncCursor(of: room) {
            sync.hiddenSeqs[room, default: []].insert(seq)
          }
          // The server's unread counts leave hidden messages out: the list is read again.
          sync.rereadRooms()
        }
      case .restored(let message):
        let room = message.roomID
        inTurn(of: room) { sync, _ in
          if let seq = message.seq {
            sync.hiddenSeqs[room]?.remove(seq)
            sync.olderLoads[room]?.hidden.remove(seq)
          }
          try sync.store.save([message])
          // The server's unread counts take it in again.
          sync.rereadRooms()
        }
      case .unsubscribed(let room):
        // Unasked, the server ended the subscription (the user left the room). The answer to
        // our own unsubscribe changes nothing, unless the room was opened again and its new
        // subscription already answered: the two frames crossed (the subscribe reached the
        // server first), so the room has none now and subscribes again.
        if unsubscribing.countOff(room) {
          answeredUnsubscribes.insert(room)
          if openRooms[room] != nil, subscribing[room] == nil { await resubscribe(room) }
        } else if answeredUnsubscribes.contains(room), openRooms[room] != nil {
          // A second copy of that answer (a frame may come twice), or the server ending the
          // subscription made since: which, it cannot tell. It asks again; a user who may no
          // longer read the room is refused, which ends the room as an unasked end would.
          if subscribing[room] == nil { await resubscribe(room) }
        } else {
          subscriptionEnded(room)
        }
      case .refused(let clientMessageID, let room, let frame, let error):
        try refused(clientMessageID, in: room, frame: frame, error)
      }
    } catch {
      logger.warning("Handling a chat event failed: \(error)")
    }
  }

  /// Notes that the link told of `seq` in `room` (a subscription's last one, a live message).
  private func announced(_ seq: Int64, in room: ChatRoom.ID) {
    announcedSeqs[room] = max(announcedSeqs[room] ?? 0, seq)
  }

  /// Stores `messages` of `room` in turn, then fills the room's gaps; joins the room's queued
  /// burst when that is its last queued work and has not started.
  private func queueBurst(_ messages: [ChatMessage], in room: ChatRoom.ID) {
    if let open = openBursts[room] {
      burstMessages[open, default: []] += messages
      return
    }
    let number = inTurn(of: room) { sync, number in
      let burst = sync.burstMessages.removeValue(forKey: number) ?? []
      if sync.openBursts[room] == number { sync.openBursts[room] = nil }
      try sync.storeDelivered(burst, in: room)
      try await sync.syncing(room) { room in try await sync.fillGaps(in: room) }
    }
    burstMessages[number] = messages
    openBursts[room] = number
  }

  /// Stores `messages` of `room` that the link delivered or a send's server call answered,
  /// in the room's turn: those moderation hid on their way here are left out, and an own
  /// message among them leaves the outbox (`ChatStore.saveDelivered`).
  private func storeDelivered(_ messages: [ChatMessage], in room: ChatRoom.ID) throws {
    let hidden = hiddenSeqs[room] ?? []
    try store.saveDelivered(messages, in: room, hidden: hidden)
    guard !hidden.isEmpty else { return }
    let cursor = try store.syncCursor(of: room)
    let above = hidden.filter { $0 > cursor }
    hiddenSeqs[room] = above.isEmpty ? nil : above
  }

  /// Queues `work` on `room` and returns its number: it runs once the room's earlier work is
  /// over (a page fetched before a hide is stored before the hide applies), beside the event
  /// handler and the other rooms. Nothing runs after ``stop()``; a failure is logged.
  @discardableResult
  private func inTurn(
    of room: ChatRoom.ID,
    _ work: @escaping @Sendable (isolated ChatSync, _ number: Int) async throws -> Void
  ) -> Int {
    // Work queued after a burst comes after all of it: that burst takes no later messages.
    openBursts[room] = nil
    let earlier = roomWork[room]?.task
    roomWorkQueued += 1
    let number = roomWorkQueued
    let task = Task {
      await earlier?.value
      if !isStopped, !Task.isCancelled {
        do {
          try await work(self, number)
        } catch {
          logger.warning("Handling a chat event of \(room.rawValue) failed: \(error)")
        }
      }
      if roomWork[room]?.number == number { roomWork[room] = nil }
    }
    roomWork[room] = (number, task)
    return number
  }

  /// The server ended `room`'s subscription, or refused it, because the user may no longer
  /// read the room: nobody can keep it open, the list included (should the room be listed
  /// again, after a rejoin, the list opens it anew), and reconnects leave it alone.
  private func subscriptionEnded(_ room: ChatRoom.ID) {
    let listing = listReaders.values.filter { $0.contains(room) }.count
    let opens = (openRooms[room] ?? 0) - listing
    if opens > 0 { endedOpens[room, default: 0] += opens }
    openRooms[room] = nil
    for (reader, kept) in listReaders where kept.contains(room) {
      listReaders[reader]?.remove(room)
      endedListings[reader, default: []].insert(room)
    }
    // The server's list no longer has the room: read, it leaves the list, so a rejoin lists
    // it again and the list opens it anew.
    if !endedListings.isEmpty { rereadRooms() }
  }

  private func connectionChanged(to state: ChatConnectionState, link: ConnectionLink?) async {
    states.publishIfChanged(state)
    let newLink = state == .connected ? link ?? ConnectionLink(0) : nil
    guard newLink != self.link else { return }
    self.link = newLink
    linkNumber += 1
    // A link that went down answers nothing more.
    unsubscribing = [:]
    answeredUnsubscribes = []
    subscribing = [:]
    awaitingAck = [:]
    guard newLink != nil else { return }
    // A new link has no subscriptions: subscribe every open room from its cursor, and send
    // what the outbox holds (unacknowledged sends of the last link included).
    for room in openRooms.keys {
      // A room closed, or the link changed, while an earlier room's subscribe was written.
      guard self.link == newLink else { break }
      if openRooms[room] != nil { await subscribe(room) }
    }
    flush()
    sendUnsentReadMarks()
  }

  private func subscribe(_ room: ChatRoom.ID) async {
    guard let link else { return }
    let number = linkNumber
    do {
      subscribing[room, default: 0] += 1
      try await channel.subscribe(to: room, afterSeq: try store.syncCursor(of: room), on: link)
    } catch {
      if number == linkNumber { subscribing.countOff(room) }
      logger.debug("Subscribing to \(room.rawValue) failed: \(error)")
    }
  }

  /// Runs a catch-up step of `room`; when it fails (offline, 5xx after the transport's own
  /// retries), subscribes again after a backoff, so the `subscribed` answer restarts the
  /// catch-up from the stored cursor: a failed fetch never leaves a gap behind.
  private func syncing(
    _ room: ChatRoom.ID, _ body: (ChatRoom.ID) async throws -> Void
  ) async throws {
    do {
      try await body(room)
      resyncAttempts[room] = nil
    } catch let error as PersistenceError {
      throw error
    } catch {
      subscribeLater(room, after: "Catching up", failed: error)
    }
  }

  /// Subscribes `room` again after the backoff of its failures in a row (if it is still open
  /// and the link up by then), so the `subscribed` answer restarts its catch-up.
  private func subscribeLater(_ room: ChatRoom.ID, after step: String, failed error: Error) {
    let attempt = resyncAttempts[room, default: 0]
    resyncAttempts[room] = attempt + 1
    var delay = options.retryDelay(attempt)
    if case .rateLimited(let wait?) = error as? DomainError { delay = max(delay, wait) }
    logger.info("\(step) \(room.rawValue) failed (\(error)); again in \(delay)")
    let wait = options.clock.deadline(after: delay)
    Task { [weak self] in
      try? await wait()
      await self?.resubscribe(room)
    }
  }

  private func resubscribe(_ room: ChatRoom.ID) async {
    guard openRooms[room] != nil, isConnected else { return }
    await subscribe(room)
  }

  /// A refused frame: a refused send fails its message (with the server's sentence), unless
  /// it is worth trying again later (rate limit, server trouble). A refused subscription of a
  /// room the user may no longer read ends the room's opens, as the server ending it would;
  /// one refused for passing trouble subscribes again after a backoff. A refused typing frame
  /// changes nothing. When the server does not name the refused frame, a refusal that names
  /// only a room is taken for the answer to a subscription of it still awaiting one, if any.
  private func refused(
    _ clientMessageID: UUID?, in room: ChatRoom.ID?, frame: ChatChannelEvent.ClientFrameKind?,
    _ error: DomainError
  ) throws {
    logger.info("The server refused a chat frame: \(error)")
    guard let clientMessageID else {
      guard let room, frame == nil || frame == .subscribe, subscribing.countOff(room) else {
        return
      }
      if error == .forbidden || error == .notFound {
        subscriptionEnded(room)
      } else if error.isWorthRetrying {
        subscribeLater(room, after: "Subscribing to", failed: error)
      }
      return
    }
    awaitingAck[clientMessageID] = nil
    if error.isWorthRetrying {
      // An earlier try may have reached the server: the message stays sending (not deletable).
      if !sentInDoubt.contains(clientMessageID), !error.mayHaveLanded {
        try store.retry(clientMessageID)
      }
      failedForNow(error, counted: !refusalCounted)
      refusalCounted = true
      scheduleRetry(backoff: true)
    } else {
      try store.markFailed(clientMessageID, reason: error.description)
    }
  }

  // MARK: Catching up

  /// Fetches from the server everything between the stored cursor and `lastSeq`.
  private func catchUp(_ room: ChatRoom.ID, upTo lastSeq: Int64) async throws {
    var cursor = try store.syncCursor(of: room)
    while cursor < lastSeq {
      let page = try await server.fetchMessages(room, cursor, nil, options.pageSize)
      // Stopped meanwhile (the user signed out; the store may be deleted next): keep nothing.
      guard !isStopped, !Task.isCancelled else { return }
      try store.save(page)
      // The page holds every visible message after the cursor up to its last one, and a short
      // page every one up to `lastSeq`: what it leaves out is hidden and never comes, so the
      // cursor steps over it for good (else every later gap fill would fetch it all again).
      let last = page.last?.seq ?? cursor
      try store.skip(in: room, through: page.count < options.pageSize ? max(last, lastSeq) : last)
      cursor = try store.syncCursor(of: room)
    }
  }

  /// Brings moderation into the cache after a catch-up: the server's newest page shows which
  /// stored messages were hidden since they were stored, and which hidden ones were restored
  /// after the cursor stepped over them (`ChatStore.reconcile`). A failure waits for the next
  /// subscription (a reopened room, a new link).
  private func reconcile(_ room: ChatRoom.ID, lastSeq: Int64) async {
    guard !isStopped, !Task.isCancelled else { return }
    do {
      let newest = try await server.fetchMessages(room, nil, nil, options.pageSize)
      guard !isStopped, !Task.isCancelled else { return }
      let changes = try store.reconcile(
        room, newest: newest, isWholeHistory: newest.count < options.pageSize, lastSeq: lastSeq)
      if changes.removed + changes.restored > 0 {
        logger.info(
          "Moderation reached \(room.rawValue): \(changes.removed) hidden, \(changes.restored) restored"
        )
      }
    } catch {
      logger.debug("Reconciling \(room.rawValue) with the server failed: \(error)")
    }
  }

  /// Fills the gaps between the stored cursor and the newest stored message of `room`.
  private func fillGaps(in room: ChatRoom.ID) async throws {
    guard let gap = try store.missingSeqs(in: room) else { return }
    try await catchUp(room, upTo: gap.upperBound)
  }

  /// Reads the room list again beside the event handler (a slow server must not hold back
  /// live messages and acknowledgements), once at a time, and once more if asked meanwhile (a
  /// run of hides costs two reads). A failure keeps the stored counts until the next refresh.
  private func rereadRooms() {
    guard !isStopped else { return }
    guard roomsTask == nil else {
      roomsAgain = true
      return
    }
    roomsTask = Task {
      repeat {
        roomsAgain = false
        do {
          try await refreshRooms()
        } catch {
          logger.debug("Reading the room list again after moderation failed: \(error)")
        }
      } while roomsAgain && !Task.isCancelled
      roomsTask = nil
    }
  }

  // MARK: The outbox

  /// Sends what the outbox holds; runs once at a time, again if asked meanwhile.
  private func flush() {
    guard !isStopped else { return }
    guard flushTask == nil else {
      flushAgain = true
      return
    }
    flushTask = Task {
      repeat {
        flushAgain = false
        await flushOnce()
      } while flushAgain && !Task.isCancelled
      flushTask = nil
    }
  }

  private func flushOnce() async {
    refusalCounted = false
    let outbox: [ChatMessage]
    do {
      outbox = try store.outbox()
    } catch {
      // The store may answer on a later try (busy, short of space): look again after a while.
      logger.error("Reading the outbox failed: \(error)")
      failedFlushes += 1
      scheduleRetry(backoff: true)
      return
    }
    var transientFailure = false
    let roomOf = Dictionary(outbox.map { ($0.clientMessageID, $0.roomID) }) { first, _ in first }
    awaitingAck = awaitingAck.filter { roomOf[$0.key] != nil }
    sentInDoubt.formIntersection(outbox.map(\.clientMessageID))
    // Rooms whose earlier message is not settled (its send failed for now, or it went over a
    // link that failed since): their later messages wait for the next flush, so a sender's
    // messages reach the server, and everyone's history, in the order they were written.
    var held: Set<ChatRoom.ID> = []
    // Rooms with a message on its way over the link (sent in this flush or awaiting its ack):
    // their later messages may follow it over that link only, never by the server call, which
    // could store them first.
    var onLink: Set<ChatRoom.ID> = []
    let number = linkNumber
    for message in outbox {
      // The link changed since this flush began: a message it passed over as awaiting its ack
      // there is in doubt now, and goes again before the ones after it. Start over.
      if linkNumber != number {
        flushAgain = true
        break
      }
      if message.deliveryState.isFailed { continue }
      // Answered already, its store waiting for the room's turn: nothing to send.
      if answersInTurn.contains(message.clientMessageID) { continue }
      if awaitingAck[message.clientMessageID] != nil {
        onLink.insert(message.roomID)
        continue
      }
      if held.contains(message.roomID) { continue }
      // Stopped, or the message changed since the outbox was read (deleted, or refused while
      // an earlier send was awaited): it must not go out.
      guard !isStopped, !Task.isCancelled else { return }
      // `sending` when read: an earlier try may have reached the server (its answer lost, or
      // not come before the ack timeout, a new link or a restart). Until the server answers,
      // the message stays sending, whatever this try meets.
      let inDoubt = message.deliveryState == .sending
      do {
        guard try store.markSending(message.clientMessageID) else { continue }
        if let link {
          // Counted before the send: its answer may be handled before the send returns.
          // (`sentInDoubt` stays as set: a refusal of an earlier send may still come while the
          // server call below runs, and must not make an in-doubt message deletable.)
          let id = message.clientMessageID
          awaitingAck[id] = elapsed()
          if inDoubt { sentInDoubt.insert(id) } else { sentInDoubt.remove(id) }
          do {
            try await channel.send(
              message.text, to: message.roomID, clientMessageID: id, on: link)
            onLink.insert(message.roomID)
            continue
          } catch {
            // The link went away between the check and the send, or the channel is on a newer
            // one this engine has not handled yet: use the server call, unless the engine
            // stopped meanwhile (the message stays sending, for the next start to settle).
            awaitingAck[id] = nil
            guard !isStopped, !Task.isCancelled else { return }
          }
        }
        if onLink.contains(message.roomID) {
          // An earlier message of the room went over a link that may have lost it: this one
          // waits until that one is settled (the next link, or the server call, sends both).
          if !inDoubt { try? store.retry(message.clientMessageID) }
          held.insert(message.roomID)
          continue
        }
        let sent = try await server.sendMessage(
          message.text, message.roomID, message.clientMessageID)
        // Delivered once it is stored (which starts the backoff over), not before.
        storeInTurn(answer: sent)
      } catch let error as DomainError where error.isWorthRetrying {
        transientFailure = true
        held.insert(message.roomID)
        failedForNow(error, counted: false)
        // A lost answer may hide a stored message: it stays sending (so it cannot be
        // deleted) until a later try settles it; one that surely never reached the server
        // waits in line again.
        if !inDoubt, !error.mayHaveLanded { try? store.retry(message.clientMessageID) }
      } catch let error as DomainError {
        try? store.markFailed(message.clientMessageID, reason: error.description)
      } catch {
        logger.error("Sending \(message.clientMessageID) failed: \(error)")
        transientFailure = true
        held.insert(message.roomID)
      }
    }
    // Sends over the channel wait for their acknowledgement; look again after a while anyway
    // (failed messages wait for the user, not for a timer).
    let waiting = (try? store.outbox())?.contains { !$0.deliveryState.isFailed }
    if transientFailure {
      failedFlushes += 1
    } else if waiting == false {
      failedFlushes = 0
    }
    if transientFailure || waiting != false { scheduleRetry(backoff: transientFailure) }
  }

  /// Stores a send's server call answer in the room's turn, like a message the link delivers
  /// (a hide handled before it came leaves it out), without holding up the flush: a catch-up
  /// of the room may be under way. Until then no flush sends the message again; should the
  /// store fail, it goes again after a backoff (the server answers with the same message).
  private func storeInTurn(answer: ChatMessage) {
    let id = answer.clientMessageID
    answersInTurn.insert(id)
    inTurn(of: answer.roomID) { sync, _ in
      defer { sync.answersInTurn.remove(id) }
      do {
        try sync.storeDelivered([answer], in: answer.roomID)
        sync.failedFlushes = 0
      } catch {
        sync.logger.error("Storing the answer to \(id) failed: \(error)")
        sync.failedFlushes += 1
        sync.scheduleRetry(backoff: true)
      }
    }
  }

  /// Notes a send that failed for now: a `rate_limited` refusal's wait is kept for the next
  /// backoff; `counted`, the failure also lengthens the backoff (a flush counts its failures
  /// once at its end).
  private func failedForNow(_ error: DomainError, counted: Bool) {
    if case .rateLimited(let wait?) = error { askedWait = max(askedWait, wait) }
    if counted { failedFlushes += 1 }
  }

  /// Flushes again: with `backoff` (a send failed for now), after the backoff of the failures
  /// in a row (at least as long as a `rate_limited` refusal asked); else when the oldest send
  /// still waiting for its acknowledgement reaches the ack timeout (it goes out again then). An
  /// ack timer already due sooner is kept (later sends never push a lost ack's resend back),
  /// and so is an armed backoff.
  private func scheduleRetry(backoff: Bool) {
    guard !isStopped else { return }
    let now = elapsed()
    let isAckTimeout = !backoff
    let due =
      isAckTimeout
      ? (awaitingAck.values.min() ?? now) + options.ackTimeout
      : now + max(options.retryDelay(max(0, failedFlushes - 1)), askedWait)
    askedWait = .zero
    // An armed backoff is kept too: its flush also resends what waited past its ack timeout
    // meanwhile. (A new send, a retry or a new link still flushes at once.)
    if isAckTimeout, let armed = retryTimer, !armed.isAckTimeout || armed.due <= due { return }
    retryTimer?.task.cancel()
    // Armed now, not when its task first runs: a late start does not push the timer back.
    let wait = options.clock.deadline(after: max(.zero, due - now))
    let id = UUID()
    let task = Task { [weak self] in
      do {
        try await wait()
      } catch {
        return
      }
      await self?.resend(timer: id)
    }
    retryTimer = RetryTimer(id: id, task: task, isAckTimeout: isAckTimeout, due: due)
  }
}

/// The timer that flushes the outbox again.
struct RetryTimer {
  var id: UUID
  var task: Task<Void, Never>
  /// Set for the ack timeout; a backoff after failures is not.
  var isAckTimeout: Bool
  /// When it fires, on the engine's stopwatch.
  var due: Duration
}

extension ChatSync {
  /// The retry timer `timer` fired: the sends whose ack timeout has passed go out again (those
  /// sent later keep waiting for theirs), with whatever else the outbox holds. A timer replaced
  /// after it woke and before its turn here does nothing: the timer that took its place (a rate
  /// limit's backoff, an ack timeout due sooner) flushes when it is due.
  private func resend(timer: UUID) {
    guard retryTimer?.id == timer else { return }
    retryTimer = nil
    let now = elapsed()
    awaitingAck = awaitingAck.filter { now - $0.value < options.ackTimeout }
    flush()
  }
}

extension DomainError {
  /// `true` for failures of a server call after which the write may still have been carried
  /// out, its answer lost (a timeout, or a server error that may come from a proxy after the
  /// service stored it); `false` when the call was refused or, as far as the SDK can tell,
  /// never reached the service (offline, rate limited, signed out). A connection lost in the
  /// middle of a request also reads as offline: a message deleted after that and stored after
  /// all comes back from the server as sent.
  var mayHaveLanded: Bool {
    switch self {
    case .timeout, .server: true
    default: false
    }
  }
}

extension Dictionary where Value == Int {
  /// Counts one off `key` (forgotten at zero): a room's readers, ended opens or awaited
  /// answers. `false` when `key` had no count.
  @discardableResult
  fileprivate mutating func countOff(_ key: Key) -> Bool {
    guard let count = self[key] else { return false }
    self[key] = count > 1 ? count - 1 : nil
    return true
  }
}
