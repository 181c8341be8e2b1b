import Domain
import Foundation
import GRDB

/// What happened in chat, published once the transaction that caused it has committed
/// (`Docs/Rules.md`, "Real-time chat").
public enum ChatEvent: Sendable, Hashable {
  /// A new message; per room, messages are published in `seq` order.
  case message(ChatMessage)
  /// A member is typing in a room (not stored); never delivered to that member's own
  /// listeners.
  case typing(room: ChatRoom.ID, user: UserSummary)
  /// `user` no longer belongs to `room`: they left its group, or the group was deleted.
  case membershipEnded(room: ChatRoom.ID, user: User.ID)
  /// Moderation hid a stored message (reports reached the threshold, or a moderator's
  /// decision): it leaves every history.
  case messageHidden(room: ChatRoom.ID, message: ChatMessage.ID, seq: Int64)
  /// Moderators restored a hidden message (they dismissed its case): it is back in the history
  /// at its old `seq`, so it comes out of `seq` order.
  case messageRestored(ChatMessage)

  /// The room the event belongs to.
  public var roomID: ChatRoom.ID {
    switch self {
    case .message(let message), .messageRestored(let message): message.roomID
    case .typing(let room, _), .membershipEnded(let room, _), .messageHidden(let room, _, _): room
    }
  }
}

/// What a subscription starts from: the room's last `seq` when it went live, and the messages
/// after the asked-for `seq` (at most the replay limit, oldest first).
public struct ChatSubscription: Sendable, Hashable {
  /// Every message after this one is delivered live.
  public var lastSeq: Int64
  /// Stored messages after the subscriber's `afterSeq`, oldest first; when it holds the whole
  /// replay limit, more may lie between its last `seq` and ``lastSeq`` (fetch them over REST).
  public var replay: [ChatMessage]
}

/// One listener's feed of chat events: only the rooms it subscribed to, in commit order,
/// through a bounded buffer.
///
/// A listener that falls more than its buffer behind is cut off (``didOverflow`` becomes
/// `true` and ``events`` ends) instead of holding the whole backlog in memory; its owner
/// reconnects and catches up from the store. The listeners of an account that is withdrawn
/// end too (``ending`` is ``Ending/accountClosed``), and so do those opened with a session
/// that is revoked (``Ending/sessionRevoked``).
public final class ChatListener: Sendable {
  /// Why the service ended a listener's feed.
  public enum Ending: Sendable, Hashable {
    /// It fell more than its buffer behind; reconnect and catch up.
    case overflow
    /// Its account was withdrawn; it may not listen any more.
    case accountClosed
    /// The session it was opened with was revoked (signed out, or a refresh token was used
    /// twice); it may not listen any more.
    case sessionRevoked
  }

  /// The events of the subscribed rooms; ends on ``close()``, an overflow or the account's
  /// withdrawal.
  public let events: AsyncStream<ChatEvent>
  /// The user the listener belongs to.
  public let user: User.ID
  /// The token family of the session it was opened with, if it was named.
  let session: String?
  let id: Int
  private let continuation: AsyncStream<ChatEvent>.Continuation
  private let state = Locked(State())
  private let hub: ChatEventHub

  private struct State {
    var rooms: Set<ChatRoom.ID> = []
    var ending: Ending?
  }

  init(id: Int, user: User.ID, session: String?, bufferLimit: Int, hub: ChatEventHub) {
    self.id = id
    self.user = user
    self.session = session
    self.hub = hub
    (events, continuation) = AsyncStream.makeStream(
      bufferingPolicy: .bufferingOldest(bufferLimit))
  }

  /// The rooms whose events reach this listener.
  public var rooms: Set<ChatRoom.ID> { state.withLock { $0.rooms } }

  /// Why the service ended the feed; `nil` while it runs or after a plain ``close()``.
  public var ending: Ending? { state.withLock { $0.ending } }

  /// `true` once the listener fell more than its buffer behind and was cut off.
  public var didOverflow: Bool { ending == .overflow }

  /// Stops the events of one room (unsubscribing twice changes nothing).
  public func unsubscribe(from room: ChatRoom.ID) {
    _ = state.withLock { $0.rooms.remove(room) }
  }

  /// Ends the feed; later events are not delivered.
  public func close() {
    hub.remove(self)
    continuation.finish()
  }

  func add(_ room: ChatRoom.ID) {
    _ = state.withLock { $0.rooms.insert(room) }
  }

  /// Delivers `event` if it concerns this listener; `false` when the listener overflowed.
  func deliver(_ event: ChatEvent) -> Bool {
    let wanted = state.withLock { state in
      guard state.rooms.contains(event.roomID) else { return false }
      switch event {
      case .membershipEnded(let room, let user):
        guard user == self.user else { return false }
        state.rooms.remove(room)
      case .typing(_, let user):
        // Nobody is told of their own typing, on any of their connections.
        return user.id != self.user
      default:
        break
      }
      return true
    }
    guard wanted else { return true }
    if case .dropped = continuation.yield(event) {
      end(.overflow)
      return false
    }
    return true
  }

  /// Ends the feed for `reason` (the hub has let go of the listener or is about to).
  func end(_ reason: Ending) {
    state.withLock { $0.ending = reason }
    continuation.finish()
  }
}

/// Fans committed chat events out to listeners, synchronously and in publishing order.
final class ChatEventHub: Sendable {
  private let listeners = Locked<(next: Int, all: [Int: ChatListener])>((0, [:]))

  func listener(for user: User.ID, session: String?, bufferLimit: Int) -> ChatListener {
    listeners.withLock { state in
      state.next += 1
      let listener = ChatListener(
        id: state.next, user: user, session: session, bufferLimit: bufferLimit, hub: self)
      state.all[listener.id] = listener
      return listener
    }
  }

  func remove(_ listener: ChatListener) {
    _ = listeners.withLock { $0.all.removeValue(forKey: listener.id) }
  }

  /// Delivers `event` to every interested listener. Runs under the hub's lock, so two events
  /// never reach listeners in a different order than they were published.
  func publish(_ event: ChatEvent) {
    listeners.withLock { state in
      for (id, listener) in state.all where !listener.deliver(event) {
        state.all.removeValue(forKey: id)
      }
    }
  }

  /// Ends every listener of `user` for `reason`.
  func end(_ user: User.ID, _ reason: ChatListener.Ending) {
    end(reason) { $0.user == user }
  }

  /// Ends every listener opened with a token of the session `family`
  /// (``ChatListener/Ending/sessionRevoked``).
  func endSession(_ family: String) {
    end(.sessionRevoked) { $0.session == family }
  }

  private func end(_ reason: ChatListener.Ending, where matches: (ChatListener) -> Bool) {
    listeners.withLock { state in
      for (id, listener) in state.all where matches(listener) {
        state.all.removeValue(forKey: id)
        listener.end(reason)
      }
    }
  }

  /// Publishes `event` when the current transaction commits (the outermost one, when it runs
  /// in a savepoint), on the writer's queue, so events follow commit order.
  func publishOnCommit(_ db: Database, _ event: ChatEvent) {
    db.afterNextTransaction { _ in self.publish(event) }
  }
}

extension ServiceEngine {
  /// How many stored messages a subscription with `afterSeq` replays at most (the realtime
  /// protocol's `subscribe`); a client that missed more fills the rest over REST.
  public static let replayLimit = 200

  /// A new listener for `viewer`; it receives nothing until ``subscribe(_:to:afterSeq:replayLimit:as:)``.
  /// One made for an account already withdrawn has ended (``ChatListener/Ending/accountClosed``):
  /// a viewer checked before the withdrawal (a socket's handshake) must not outlive it. Named
  /// with the access token it was opened with (`session`), it ends when that session is
  /// revoked, before or after (``ChatListener/Ending/sessionRevoked``): a sign-out, or a
  /// refresh token used twice, ends the socket of a token that may have been stolen.
  ///
  /// - Parameters:
  ///   - session: the access token the listener's connection was authenticated with.
  ///   - bufferLimit: how many undelivered events it may hold before it is cut off.
  public func chatListener(
    as viewer: Viewer, session accessToken: String? = nil, bufferLimit: Int = 10_000
  ) -> ChatListener {
    // The token's family never changes: looked up before the listener is registered, so a
    // revocation committed after that ends it.
    let family = accessToken.flatMap { token in
      try? read { db, _ in try AuthTokenRecord.fetchOne(db, key: token)?.family }
    }
    let listener = chatEvents.listener(
      for: viewer.id, session: family, bufferLimit: max(1, bufferLimit))
    // Looked up once the listener is registered: a withdrawal (a revocation) that commits
    // later ends it as it ends every listener of the account (the session); one committed
    // earlier is seen here. (A failed lookup leaves it running; every frame still checks the
    // account.)
    let ended = try? read { db, _ -> ChatListener.Ending? in
      if try UserRecord.fetchOne(db, key: viewer.key)?.isWithdrawn ?? true { return .accountClosed }
      guard let family else { return nil }
      let live = try Bool.fetchOne(
        db, sql: "SELECT EXISTS (SELECT 1 FROM auth_token WHERE family = ? AND revoked_at IS NULL)",
        arguments: [family])
      return live == true ? nil : .sessionRevoked
    }
    switch ended {
    case .accountClosed?: chatEvents.end(viewer.id, .accountClosed)
    case .sessionRevoked?: if let family { chatEvents.endSession(family) }
    default: break
    }
    return listener
  }

  /// Subscribes `listener` to a room the viewer belongs to: from now on every committed
  /// message of the room reaches it. Returns the room's last `seq` at that moment and the
  /// stored messages after `afterSeq` (at most `replayLimit`, ``replayLimit`` by default), so
  /// nothing falls between the stored history and the live feed.
  public func subscribe(
    _ listener: ChatListener, to id: ChatRoom.ID, afterSeq: Int64?,
    replayLimit: Int = ServiceEngine.replayLimit,
    as viewer: Viewer
  ) throws(DomainError) -> ChatSubscription {
    let key = try PublicID.room.require(id.rawValue)
    try ChatMessage.requireSeq(afterSeq, field: "after_seq")
    // In a write transaction: serialized with every commit (and so with every publication),
    // the room is added before any later message is published and after every earlier one:
    // once the transaction commits (a subscribe that fails adds nothing), on the writer, before
    // any later transaction runs.
    return try write { db, _ in
      let room = try Chat.memberRoom(db, key, viewer: try Users.current(db, viewer))
      db.afterNextTransaction { _ in listener.add(id) }
      var replay: [ChatMessage] = []
      if let afterSeq, replayLimit > 0 {
        replay = try Chat.messages(db, in: room.key, after: afterSeq, limit: replayLimit)
      }
      return ChatSubscription(lastSeq: room.lastSeq, replay: replay)
    }
  }

  /// Tells the other subscribers of a room that the viewer is typing (nothing is stored).
  public func typing(in id: ChatRoom.ID, as viewer: Viewer) throws(DomainError) {
    let key = try PublicID.room.require(id.rawValue)
    let user = try read { db, moment in
      let viewer = try Users.current(db, viewer)
      try viewer.requireNotBanned(at: moment.now)
      _ = try Chat.writableRoom(db, key, viewer: viewer)
      return try Users.summary(db, viewer.key)
    }
    chatEvents.publish(.typing(room: id, user: user))
  }
}
