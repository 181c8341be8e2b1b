import ChatCore
import Domain
import Foundation
import ServiceEngine

/// The fakes' real-time chat link: a `ServiceEngine.ChatListener` of the client's user instead
/// of a socket. It follows the backend's `isOffline` (down while offline, connected again
/// after), answers a subscription with the replay and `subscribed` like the server, and turns
/// the engine's refusals into `refused` events, so `ChatSync` runs on the fakes exactly as it
/// runs live.
final class EngineChatChannel: ChatChannel {
  let events: AsyncStream<ChatChannelEvent>
  private let continuation: AsyncStream<ChatChannelEvent>.Continuation
  private let backend: FakeBackend
  private let client: FakeClient.ID
  private let link = Locked(Link())

  private struct Link {
    var listener: ChatListener?
    var forwarding: Task<Void, Never>?
    var watching: Task<Void, Never>?
    var isClosed = false
  }

  /// The server's replay limit (`DTO.RealtimeLimits.replayLimit`).
  static let replayLimit = 200

  init(backend: FakeBackend, client: FakeClient.ID) {
    self.backend = backend
    self.client = client
    (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
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
    continuation.yield(.state(.offline))
    continuation.finish()
  }

  func subscribe(to room: ChatRoom.ID, afterSeq: Int64) async throws {
    let listener = try connectedListener()
    do {
      let start = try backend.perform(client) { viewer in
        try backend.engine.subscribe(
          listener, to: room, afterSeq: afterSeq, replayLimit: Self.replayLimit, as: viewer)
      }
      for message in start.replay { continuation.yield(.message(message)) }
      continuation.yield(.subscribed(room: room, lastSeq: start.lastSeq))
    } catch let error as DomainError where error != .offline {
      continuation.yield(.refused(clientMessageID: nil, error: error))
    }
  }

  func unsubscribe(from room: ChatRoom.ID) async throws {
    try connectedListener().unsubscribe(from: room)
    continuation.yield(.unsubscribed(room: room))
  }

  func send(_ text: String, to room: ChatRoom.ID, clientMessageID: UUID) async throws {
    _ = try connectedListener()
    do {
      let sent = try backend.perform(client, write: true) { viewer in
        try backend.engine.sendMessage(
          text, to: room, clientMessageID: clientMessageID, as: viewer)
      }
      continuation.yield(.message(sent.message))
    } catch let error as DomainError where error != .offline {
      continuation.yield(.refused(clientMessageID: clientMessageID, error: error))
    }
  }

  func typing(in room: ChatRoom.ID) async throws {
    _ = try connectedListener()
    try backend.perform(client) { viewer in try backend.engine.typing(in: room, as: viewer) }
  }

  // MARK: The link

  private func connectedListener() throws(DomainError) -> ChatListener {
    guard let listener = link.withLock({ $0.listener }) else { throw .offline }
    return listener
  }

  /// Opens a listener as the client's user (a new "socket"); stays down when the client is
  /// signed out or offline.
  private func connect() {
    continuation.yield(.state(.connecting))
    let listener: ChatListener
    do {
      listener = try backend.perform(client) { viewer in backend.engine.chatListener(as: viewer) }
    } catch {
      continuation.yield(.state(.offline))
      return
    }
    let continuation = continuation
    let forwarding = Task { [weak self] in
      for await event in listener.events {
        switch event {
        case .message(let message): continuation.yield(.message(message))
        case .typing(let room, let user): continuation.yield(.typing(room: room, user: user))
        case .membershipEnded(let room, _): continuation.yield(.unsubscribed(room: room))
        }
      }
      // Cut off (it fell too far behind) rather than closed: reconnect, like a socket would.
      if listener.didOverflow { self?.reconnect() }
    }
    let replaced = link.withLock { link -> Link? in
      guard !link.isClosed else { return nil }
      let old = link
      link.listener = listener
      link.forwarding = forwarding
      return old
    }
    guard let replaced else {
      forwarding.cancel()
      listener.close()
      return
    }
    replaced.forwarding?.cancel()
    replaced.listener?.close()
    continuation.yield(.state(.connected))
  }

  /// Drops the listener (the socket went down while offline).
  private func drop() {
    let old = link.withLock { link -> Link in
      defer {
        link.listener = nil
        link.forwarding = nil
      }
      return link
    }
    old.forwarding?.cancel()
    old.listener?.close()
    guard old.listener != nil else { return }
    continuation.yield(.state(.waitingToReconnect(retryIn: .zero)))
  }

  private func reconnect() {
    drop()
    if !backend.isOffline { connect() }
  }
}
