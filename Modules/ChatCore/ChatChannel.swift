import Domain
import Foundation

/// What a ``ChatChannel`` reports to the sync engine, in the order it happened.
public enum ChatChannelEvent: Sendable, Hashable {
  /// The link's state changed; on every `.connected` the engine subscribes its open rooms
  /// again (a new link has no subscriptions). `link` names the connection a `.connected`
  /// opened, and the engine names it in every call it makes until the next state change; it
  /// is `nil` for the other states (a channel that names none counts as link 0).
  case state(ChatConnectionState, link: ConnectionLink? = nil)
  /// A subscription is live: every message after `lastSeq` arrives as ``message(_:)``.
  case subscribed(room: ChatRoom.ID, lastSeq: Int64)
  /// The server ended a subscription (the user left the room, or it was deleted).
  case unsubscribed(room: ChatRoom.ID)
  /// Stored messages of subscribed rooms, or acknowledgements of the user's own sends, in the
  /// order they came (a ``ChatEventQueue`` merges a burst into one event). Never a restored
  /// message: that is ``restored(_:)``.
  case messages([ChatMessage])
  /// A member started typing.
  case typing(room: ChatRoom.ID, user: UserSummary)
  /// Moderation hid the stored message `seq` of a subscribed room.
  case messageHidden(room: ChatRoom.ID, seq: Int64)
  /// Moderators restored a hidden message of a subscribed room (they dismissed its case): it
  /// is stored again at its `seq`. Kept apart from ``messages(_:)``, whose copies of a hidden
  /// message (an acknowledgement that comes after the hide) are left out.
  case restored(ChatMessage)
  /// The server refused a frame; `clientMessageID` names the refused send, if it was one,
  /// `room` the room the frame was about, and `frame` which frame it was, each if the server
  /// said.
  case refused(
    clientMessageID: UUID?, room: ChatRoom.ID? = nil, frame: ClientFrameKind? = nil,
    error: DomainError)

  /// The kinds of frame a client sends; the raw value is the frame's `type` on the wire
  /// (``unknown`` stands for any type this SDK does not know; it is never sent).
  public enum ClientFrameKind: String, Sendable, Hashable, CaseIterable {
    /// ``ChatChannel/subscribe(to:afterSeq:on:)``.
    case subscribe
    /// ``ChatChannel/unsubscribe(from:on:)``.
    case unsubscribe
    /// ``ChatChannel/send(_:to:clientMessageID:on:)``.
    case send
    /// ``ChatChannel/typing(in:on:)``.
    case typing
    /// The link's heartbeat.
    case ping
    /// A frame type this SDK does not know (a newer client's, named by a newer server).
    case unknown
  }
}

/// The former name of ``ConnectionLink`` (`Domain`), the one type for a numbered connection
/// that the chat engine and `NetworkKit`'s `WebSocketConnection` share.
@available(*, deprecated, renamed: "ConnectionLink")
public typealias ChatLink = ConnectionLink

/// The real-time half of the chat engine: the live client's WebSocket (`/realtime`,
/// `RepositoriesLive`) or the fakes' direct line to the service engine (`RepositoriesTesting`).
/// The REST half is the server calls of a `ChatRepository`, so ``ChatSync`` (the sync rules)
/// exists once for both.
///
/// A channel keeps itself connected between ``open()`` and ``close()`` (reconnecting with its
/// own backoff) and reports every change as an event. Sends are fire-and-forget: the answer
/// arrives later as a `.message` (the acknowledgement) or a `.refused` event. Every call names
/// the ``ConnectionLink`` of the `.connected` the engine last handled, and throws when the
/// channel is no longer on that connection (down, or on another one since).
public protocol ChatChannel: Sendable {
  /// Everything the channel reports; read by one engine. Ends after ``close()``.
  var events: AsyncStream<ChatChannelEvent> { get }
  /// Starts connecting; keeps reconnecting until ``close()``.
  func open() async
  /// Disconnects for good and ends ``events``.
  func close() async
  /// Subscribes to a room from `afterSeq`: the answer is `.subscribed` with the room's last
  /// `seq`. Throws when `link` is not the open connection.
  func subscribe(to room: ChatRoom.ID, afterSeq: Int64, on link: ConnectionLink) async throws
  /// Stops the events of a room. Throws when `link` is not the open connection.
  func unsubscribe(from room: ChatRoom.ID, on link: ConnectionLink) async throws
  /// Sends a message of the outbox; throws when `link` is not the open connection (the engine
  /// then holds the message back, or uses REST).
  func send(
    _ text: String, to room: ChatRoom.ID, clientMessageID: UUID, on link: ConnectionLink)
    async throws
  /// Tells the room's other members the user is typing. Throws when `link` is not the open
  /// connection.
  func typing(in room: ChatRoom.ID, on link: ConnectionLink) async throws
}
