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

/// Chat over REST: rooms, history and sending (the real-time engine builds on it later).
@DependencyClient
public struct ChatRepository: Sendable {
  /// The user's rooms.
  public var fetchRooms: @Sendable (_ page: PageRequest) async throws -> Page<ChatRoom>
  /// Opens (or finds) the direct conversation with a user.
  public var openDirectRoom: @Sendable (_ with: User.ID) async throws -> ChatRoom
  /// Messages after `afterSeq` (oldest first), or the newest `limit` before `beforeSeq`.
  public var fetchMessages:
    @Sendable (_ in: ChatRoom.ID, _ afterSeq: Int64?, _ beforeSeq: Int64?, _ limit: Int)
      async throws -> [ChatMessage]
  /// Sends a message; retrying with the same `clientMessageID` never duplicates it.
  public var sendMessage:
    @Sendable (_ text: String, _ to: ChatRoom.ID, _ clientMessageID: UUID) async throws
      -> ChatMessage
  /// Moves the read cursor of a room.
  public var markRead: @Sendable (_ room: ChatRoom.ID, _ seq: Int64) async throws -> Void
}
