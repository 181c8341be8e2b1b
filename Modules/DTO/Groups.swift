import Domain
import Foundation

/// `StudyGroup`: a study group.
public struct StudyGroupDTO: Codable, Hashable, Sendable, DomainConvertible {
  /// The group's identifier.
  public var id: String
  /// The name.
  public var name: String
  /// What the group studies (may be empty).
  public var description: String
  /// Who created it.
  public var owner: UserSummaryDTO
  /// How many members it has, owner included.
  public var memberCount: Int
  /// Whether the signed-in user is a member.
  public var isMember: Bool
  /// When it was created.
  public var createdAt: Date

  /// Creates the DTO.
  public init(
    id: String, name: String, description: String, owner: UserSummaryDTO, memberCount: Int,
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

  /// The wire form of a Domain group.
  public init(_ group: StudyGroup) {
    self.init(
      id: group.id.rawValue, name: group.name, description: group.description,
      owner: UserSummaryDTO(group.owner), memberCount: group.memberCount,
      isMember: group.isMember, createdAt: group.createdAt)
  }

  /// The Domain group.
  public func toDomain() throws(MappingError) -> StudyGroup {
    let owner: UserSummary
    do { owner = try self.owner.toDomain() } catch { throw error.nested(in: "owner") }
    return StudyGroup(
      id: try id.id("id"), name: try name.nonEmpty("name"), description: description,
      owner: owner, memberCount: try memberCount.nonNegative("member_count"), isMember: isMember,
      createdAt: createdAt)
  }

  enum CodingKeys: String, CodingKey {
    case id
    case name
    case description
    case owner
    case memberCount = "member_count"
    case isMember = "is_member"
    case createdAt = "created_at"
  }
}

/// `GroupMember`: a member of a study group.
public struct GroupMemberDTO: Codable, Hashable, Sendable, DomainConvertible {
  /// The member.
  public var user: UserSummaryDTO
  /// `owner` or `member`.
  public var role: GroupMemberRoleDTO
  /// When they joined.
  public var joinedAt: Date

  /// Creates the DTO.
  public init(user: UserSummaryDTO, role: GroupMemberRoleDTO, joinedAt: Date) {
    self.user = user
    self.role = role
    self.joinedAt = joinedAt
  }

  /// The wire form of a Domain member.
  public init(_ member: GroupMember) {
    let role: GroupMemberRoleDTO
    switch member.role {
    case .owner: role = .owner
    case .member: role = .member
    case .unknown(let text): role = .unknown(text)
    }
    self.init(user: UserSummaryDTO(member.user), role: role, joinedAt: member.joinedAt)
  }

  /// The Domain member; an unknown role is kept as `GroupRole.unknown`.
  public func toDomain() throws(MappingError) -> GroupMember {
    let user: UserSummary
    do { user = try self.user.toDomain() } catch { throw error.nested(in: "user") }
    let role: GroupRole
    switch self.role {
    case .owner: role = .owner
    case .member: role = .member
    case .unknown(let text): role = .unknown(text)
    }
    return GroupMember(user: user, role: role, joinedAt: joinedAt)
  }

  enum CodingKeys: String, CodingKey {
    case user
    case role
    case joinedAt = "joined_at"
  }
}
