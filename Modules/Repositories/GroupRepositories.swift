import Dependencies
import DependenciesMacros
import Domain
import Foundation

/// Study groups and their members.
@DependencyClient
public struct StudyGroupRepository: Sendable {
  /// Groups, optionally filtered by a search text.
  public var fetchGroups:
    @Sendable (_ query: String?, _ page: PageRequest) async throws -> Page<StudyGroup>
  /// One group.
  public var fetchGroup: @Sendable (_ id: StudyGroup.ID) async throws -> StudyGroup
  /// Creates a group owned by the user.
  public var createGroup: @Sendable (_ draft: StudyGroupDraft) async throws -> StudyGroup
  /// Edits a group (owner only).
  public var updateGroup:
    @Sendable (_ id: StudyGroup.ID, _ draft: StudyGroupDraft) async throws -> StudyGroup
  /// Deletes a group (owner only).
  public var deleteGroup: @Sendable (_ id: StudyGroup.ID) async throws -> Void
  /// Joins a group.
  public var joinGroup: @Sendable (_ id: StudyGroup.ID) async throws -> StudyGroup
  /// Leaves a group (the owner cannot leave; delete the group instead).
  public var leaveGroup: @Sendable (_ id: StudyGroup.ID) async throws -> Void
  /// Invites another user to a group the user belongs to (they get a `group_invite`
  /// notification; inviting again changes nothing).
  public var invite: @Sendable (_ user: User.ID, _ to: StudyGroup.ID) async throws -> Void
  /// Members of a group.
  public var fetchMembers:
    @Sendable (_ of: StudyGroup.ID, _ page: PageRequest) async throws -> Page<GroupMember>
}

/// Chat: the rooms, their history, and the live sync engine behind them.
///
/// The first group of endpoints talks to the server directly (no local store). The second is
/// what a chat screen uses: the sync engine keeps a local store of the signed-in user's rooms
/// in step with the server over the real-time link, and every stream reads that store, so a
/// screen shows the cache at once, then every live message, and keeps working offline.
/// Messages the user sends wait in an outbox that survives a relaunch and are delivered exactly
/// once: pending -> sending -> sent, or failed with a reason (retry or delete them).
@DependencyClient
public struct ChatRepository: Sendable {
  // MARK: Server calls

  /// The user's rooms, from the server.
  public var fetchRooms: @Sendable (_ page: PageRequest) async throws -> Page<ChatRoom>
  /// Opens (or finds) the direct conversation with a user.
  public var openDirectRoom: @Sendable (_ with: User.ID) async throws -> ChatRoom
  /// Messages after `afterSeq` (oldest first), or the newest `limit` before `beforeSeq`, from
  /// the server.
  public var fetchMessages:
    @Sendable (_ in: ChatRoom.ID, _ afterSeq: Int64?, _ beforeSeq: Int64?, _ limit: Int)
      async throws -> [ChatMessage]
  /// Sends a message straight to the server, without the outbox; retrying with the same
  /// `clientMessageID` never duplicates it.
  public var sendMessage:
    @Sendable (_ text: String, _ to: ChatRoom.ID, _ clientMessageID: UUID) async throws
      -> ChatMessage
  /// Moves the read cursor of a room (in the local store too, when the engine runs).
  public var markRead: @Sendable (_ room: ChatRoom.ID, _ seq: Int64) async throws -> Void

  // MARK: The sync engine

  /// The newest `limit` messages of a room, oldest first, now and after every change: stored
  /// history, live messages and the user's unsent ones (last, with their delivery state). While
  /// the stream is read the room is kept in sync; it throws `DomainError.signedOut` when
  /// nobody is signed in and ends when the user signs out.
  public var messages:
    @Sendable (_ in: ChatRoom.ID, _ limit: Int) -> AsyncThrowingStream<[ChatMessage], any Error> =
      { _, _ in AsyncThrowingStream { $0.finish() } }
  /// The room list with each room's newest message and unread count, now and after every
  /// change; reading it refreshes the list from the server first, and while it is read the
  /// first rooms listed (20, the most recently active) are kept in sync, so their rows are
  /// live, not only those of open rooms.
  public var rooms: @Sendable () -> AsyncThrowingStream<[ChatRoom], any Error> = {
    AsyncThrowingStream { $0.finish() }
  }
  /// One room as the room list knows it (title, kind, newest message, unread count), now and
  /// after every change; `nil` while the list has not got it. It reads the stored list (asking
  /// the server once when the room is not in it) and keeps no other room in sync, unlike
  /// ``rooms``: what a room's own screen needs.
  public var room: @Sendable (_ id: ChatRoom.ID) -> AsyncThrowingStream<ChatRoom?, any Error> = {
    _ in AsyncThrowingStream { $0.finish() }
  }
  /// The real-time link's state now and after every change ("Connecting...", "Offline").
  public var connectionStates: @Sendable () -> AsyncStream<ChatConnectionState> = {
    AsyncStream { $0.finish() }
  }
  /// Who starts typing in a room, each time the server says so (a screen shows them for a few
  /// seconds, or until a message of theirs above ``ChatTyping/afterSeq`` arrives).
  public var typing: @Sendable (_ in: ChatRoom.ID) -> AsyncStream<ChatTyping> = { _ in
    AsyncStream { $0.finish() }
  }
  /// Tells the room's other members the user is typing (nothing happens offline).
  public var userIsTyping: @Sendable (_ in: ChatRoom.ID) async -> Void
  /// Stores `text` as a pending message of a room and returns it at once; the outbox delivers
  /// it (the socket, or REST while the socket is down) and the room's stream shows each state.
  public var send: @Sendable (_ text: String, _ to: ChatRoom.ID) async throws -> ChatMessage
  /// Puts a failed message back in the outbox.
  public var retry: @Sendable (_ clientMessageID: UUID) async throws -> Void
  /// Deletes a message that was not sent (sent messages cannot be deleted).
  public var deleteUnsent: @Sendable (_ clientMessageID: UUID) async throws -> Void
  /// Fetches up to `limit` messages older than the oldest stored one of a room into the store
  /// (the room's stream grows by them); returns how many came, 0 at the room's beginning.
  public var loadOlder: @Sendable (_ in: ChatRoom.ID, _ limit: Int) async throws -> Int
}
