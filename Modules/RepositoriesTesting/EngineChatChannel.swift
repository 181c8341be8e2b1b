import ChatCore
import Domain
import Foundation
import ServiceEngine

/// The fakes' real-time chat link: a `ServiceEngine.ChatListener` of one user of a client instead
/// of a socket. It follows the backend's `isOffline` (down while offline, connected again
/// after), answers a subscription with the replay and `subscribed` like the server, and turns
/// the engine's refusals into `refused` events, so `ChatSync` runs on the fakes exactly as it
/// runs live. Like the server's socket, the link ends after a send that failed for now
/// (`Docs/Realtime.md`) and comes back after a pause (``pauseAfterFailedSend(_:)``).
final class EngineChatChannel: ChatChannel {
  var events: AsyncStream<ChatChannelEvent> { queue.events }
  private let queue = ChatEventQueue()
  private let backend: FakeBackend
  private let client: FakeClient.ID
  /// The user whose link this is: while anyone else is signed in on the client, it stays down
  /// and its calls are `signedOut` (as a live socket's reconnects are).
  private let user: User.ID
  private let link = Locked(Link())

  private struct Link {
    var listener: ChatListener?
    var forwarding: Task<Void, Never>?
    var watching: Task<Void, Never>?
    var isClosed = false
    /// How many listeners opened: the number of the open one, its `ConnectionLink`.
    var opened = 0
    /// Sends that failed for now since the last one stored: the pause before the next connect.
    var failedSends = 0
  }

  init(backend: FakeBackend, client: FakeClient.ID, user: User.ID) {
    self.backend = backend
    self.client = client
    self.user = user
  }

  func open() async {
    let changes = backend.offlineChanges.subscribe()
    let watching = Task { [weak self] in
      for await isOffline in changes {
        guard let self else { return }
        if isOffline { self.drop() } else { self.connect() }
      }
    }
    link.withLock { $0.watching = watching }
  }

  func close() async {
    let link = link.withLock { link in
      defer {
        link = Link()
        link.isClosed = true
      }
      return link
    }
    link.watching?.cancel()
    link.forwarding?.cancel()
    link.listener?.close()
    queue.push(.state(.offline))
    queue.finish()
  }

  func subscribe(to room: ChatRoom.ID, afterSeq: Int64, on link: ConnectionLink) async throws {
    let listener = try connectedListener(link)
    do {
      let start = try backend.perform(client, as: user) { viewer in
        try backend.engine.subscribe(
          listener, to: room, afterSeq: afterSeq, as: viewer)
      }
      try push(
        start.replay.map { .messages([$0]) } + [.subscribed(room: room, lastSeq: start.lastSeq)],
        on: link)
    } catch let error as DomainError where error != .offline {
      try push(
        [.refused(clientMessageID: nil, room: room, frame: .subscribe, error: error)], on: link)
    }
  }

  func unsubscribe(from room: ChatRoom.ID, on link: ConnectionLink) async throws {
    try connectedListener(link).unsubscribe(from: room)
    try push([.unsubscribed(room: room)], on: link)
  }

  func send(
    _ text: String, to room: ChatRoom.ID, clientMessageID: UUID, on link: ConnectionLink
  ) async throws {
    _ = try connectedListener(link)
    do {
      // A new message counts against the write limit, as on the server's socket (its frame
      // limit is not modelled here); a refusal ends the link, as a failure for now does.
      let sent = try backend.perform(client, as: user) { viewer in
        try backend.engine.sendMessage(
          text, to: room, clientMessageID: clientMessageID, as: viewer,
          admitting: backend.chatSendLimit(for: viewer))
      }
      self.link.withLock { $0.failedSends = 0 }
      queue.push(.messages([sent.message]))
    } catch let error as DomainError where error != .offline {
      queue.push(
        .refused(clientMessageID: clientMessageID, room: room, frame: .send, error: error))
      if error.endsChatLink { endAfterFailedSend(on: link) }
    }
  }

  func typing(in room: ChatRoom.ID, on link: ConnectionLink) async throws {
    _ = try connectedListener(link)
    try backend.perform(client, as: user) { viewer in
      try backend.engine.typing(in: room, as: viewer)
    }
  }

  // MARK: The link

  /// The open listener, if it is the one `chatLink` names (not one opened since).
  private func connectedListener(_ chatLink: ConnectionLink) throws(DomainError) -> ChatListener {
    let listener = link.withLock { $0.opened == chatLink.number ? $0.listener : nil }
    guard let listener else { throw .offline }
    return listener
  }

  /// Queues a call's answers on `chatLink`, or throws `offline` (queuing nothing) when that link
  /// is no longer the open one: a socket's answers arrive on that socket, never after the state
  /// of a link opened since (which would tell `ChatSync` a room is subscribed on the new link
  /// when it is not). Checked and queued under the link's lock, as a connect queues its state.
  func push(_ answers: [ChatChannelEvent], on chatLink: ConnectionLink) throws(DomainError) {
    let queued = link.withLock { link in
      guard link.opened == chatLink.number, link.listener != nil else { return false }
      for answer in answers { queue.push(answer) }
      return true
    }
    guard queued else { throw .offline }
  }

  /// Opens a listener as the link's user (a new "socket"); stays down while that user is not
  /// the one signed in on the client, or the client is offline.
  private func connect() {
    guard !link.withLock({ $0.isClosed }) else { return }
    queue.push(.state(.connecting))
    let listener: ChatListener
    do {
      listener = try backend.perform(client, as: user) { viewer in
        backend.engine.chatListener(as: viewer)
      }
    } catch {
      queue.push(.state(.offline))
      return
    }
    let queue = queue
    let forwarding = Task { [weak self] in
      for await event in listener.events {
        switch event {
        case .message(let message): queue.push(.messages([message]))
        case .messageRestored(let message): queue.push(.restored(message))
        case .messageHidden(let room, _, let seq): queue.push(.messageHidden(room: room, seq: seq))
        case .typing(let room, let user): queue.push(.typing(room: room, user: user))
        case .membershipEnded(let room, _): queue.push(.unsubscribed(room: room))
        }
      }
      // Ended by the service rather than closed: reconnect, like a socket would. After an
      // overflow that catches up; after a withdrawal the client is signed out and stays down.
      if listener.ending != nil { self?.reconnect() }
    }
    // The state is queued under the lock: two connects at once (coming online while an
    // overflowed listener reconnects) queue their links in the order they were numbered, so
    // the engine ends on the open one.
    let replaced = link.withLock { link -> Link? in
      guard !link.isClosed else { return nil }
      let old = link
      link.listener = listener
      link.forwarding = forwarding
      link.opened += 1
      queue.push(.state(.connected, link: ConnectionLink(link.opened)))
      return old
    }
    guard let replaced else {
      forwarding.cancel()
      listener.close()
      return
    }
    replaced.forwarding?.cancel()
    replaced.listener?.close()
  }

  /// Drops the listener (the socket went down while offline); with `number`, only while the
  /// open listener is that one. `false` when nothing was dropped.
  @discardableResult
  private func drop(ifOpened number: Int? = nil) -> Bool {
    let old = link.withLock { link -> Link? in
      guard link.listener != nil, number == nil || number == link.opened else { return nil }
      defer {
        link.listener = nil
        link.forwarding = nil
      }
      // Queued under the lock, like a connect's state: never after a later connect's.
      queue.push(.state(.waitingToReconnect(retryIn: .zero)))
      return link
    }
    old?.forwarding?.cancel()
    old?.listener?.close()
    return old != nil
  }

  /// Ends `chatLink` after a send on it failed for now, as the server closes such a socket (no
  /// later send on it can be stored before the client sends that one again), and connects
  /// anew after a pause, as the live client backs off after that close: longer after each
  /// such failure in a row, so one that lasts does not become a busy loop of reconnects and
  /// resends. Nothing happens to a link opened since, and the connect is left out if another
  /// one (coming online, an overflow's reconnect) or a close came during the pause.
  private func endAfterFailedSend(on chatLink: ConnectionLink) {
    guard drop(ifOpened: chatLink.number) else { return }
    let failures = link.withLock { link in
      link.failedSends += 1
      return link.failedSends
    }
    Task { [weak self] in
      try? await Task.sleep(for: Self.pauseAfterFailedSend(failures))
      guard let self, !self.backend.isOffline else { return }
      let isStillDown = self.link.withLock {
        $0.opened == chatLink.number && $0.listener == nil && !$0.isClosed
      }
      if isStillDown { self.connect() }
    }
  }

  /// How long the link stays down after the `failures`-th send in a row that failed for now:
  /// 50 ms, doubling up to 1.6 s.
  static func pauseAfterFailedSend(_ failures: Int) -> Duration {
    .milliseconds(50 << min(max(failures - 1, 0), 5))
  }

  private func reconnect() {
    drop()
    if !backend.isOffline { connect() }
  }
}
