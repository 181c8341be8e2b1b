import Foundation

/// A study group: members chat together in its room.
public struct StudyGroup: Identifiable, Hashable, Sendable {
  /// The typed identifier of a group.
  public typealias ID = Identifier<StudyGroup>

  /// The group's identifier.
  public var id: ID
  /// The name, 1-30 characters.
  public var name: String
  /// What the group studies, up to 500 characters.
  public var description: String
  /// Who created it and may edit or delete it.
  public var owner: UserSummary
  /// How many members it has, owner included.
  public var memberCount: Int
  /// Whether the signed-in user is a member.
  public var isMember: Bool
  /// When it was created.
  public var createdAt: Date

  /// Creates a group.
  public init(
    id: ID, name: String, description: String, owner: UserSummary, memberCount: Int,
    isMember: Bool, createdAt: Date
  ) {
    self.id = id
    self.name = name
    self.description = description
    self.owner = owner
    self.memberCount = memberCount
    self.isMember = isMember
    self.createdAt = createdAt
  }

  /// Whether `user` owns the group (only the owner edits or deletes it).
  public func isOwned(by user: User.ID) -> Bool { owner.id == user }
}

/// The fields of a new or edited group.
public struct StudyGroupDraft: Hashable, Sendable {
  /// The name.
  public var name: String
  /// The description.
  public var description: String

  /// Creates a draft.
  public init(name: String, description: String = "") {
    self.name = name
    self.description = description
  }

  /// The draft with name (1-30) and description (0-500) checked and trimmed.
  public func validated() throws(ValidationError) -> StudyGroupDraft {
    StudyGroupDraft(
      name: try TextRule.groupName.validate(name),
      description: try TextRule.groupDescription.validate(description))
  }
}

/// Someone's place in a group.
public enum GroupRole: Hashable, Sendable {
  /// Created the group.
  case owner
  /// Joined the group.
  case member
  /// A role this SDK version does not know.
  case unknown(String)
}

/// A member of a study group.
public struct GroupMember: Hashable, Sendable, Identifiable {
  /// The member.
  public var user: UserSummary
  /// Owner or member.
  public var role: GroupRole
  /// When they joined.
  public var joinedAt: Date

  /// Creates a member entry.
  public init(user: UserSummary, role: GroupRole, joinedAt: Date) {
    self.user = user
    self.role = role
    self.joinedAt = joinedAt
  }

  /// The member's user identifier.
  public var id: User.ID { user.id }
}
