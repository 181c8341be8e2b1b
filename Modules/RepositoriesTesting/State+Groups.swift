import Domain
import Foundation

// Study groups and their members; each group has a chat room only members may use.

extension BackendState {
  func groupView(_ group: GroupRecord, viewer: User.ID) -> StudyGroup {
    StudyGroup(
      id: group.id, name: group.name, description: group.description,
      owner: summary(of: group.ownerID), memberCount: group.members.count,
      isMember: group.members[viewer] != nil, createdAt: group.createdAt)
  }

  func existingGroup(_ id: StudyGroup.ID) throws(DomainError) -> GroupRecord {
    guard let group = groups[id] else { throw .notFound }
    return group
  }

  func fetchGroups(
    query: String?, viewer: User.ID, page: PageRequest
  ) throws(DomainError) -> Page<StudyGroup> {
    let text = query.flatMap(Self.trimmedOrNil)
    let matching = groups.values.filter { group in
      guard let text else { return true }
      return group.name.range(of: text, options: .caseInsensitive) != nil
        || group.description.range(of: text, options: .caseInsensitive) != nil
    }
    return try paginate(matching, by: { .date($0.createdAt, $0.order) }, .descending, page)
      .map { groupView($0, viewer: viewer) }
  }

  func fetchGroup(_ id: StudyGroup.ID, viewer: User.ID) throws(DomainError) -> StudyGroup {
    groupView(try existingGroup(id), viewer: viewer)
  }

  mutating func createGroup(
    _ draft: StudyGroupDraft, owner: User.ID
  ) throws(DomainError) -> StudyGroup {
    let valid = try validating { () throws(ValidationError) in try draft.validated() }
    let id: StudyGroup.ID = makeID("g")
    var group = GroupRecord(
      id: id, name: valid.name, description: valid.description, ownerID: owner, createdAt: now,
      order: nextOrder(), roomID: ChatRoom.ID("room_\(id.rawValue)"))
    group.members[owner] = (now, nextOrder())
    groups[id] = group
    rooms[group.roomID] = RoomRecord(
      id: group.roomID, kind: .group(id), createdAt: now, order: nextOrder())
    return groupView(group, viewer: owner)
  }

  mutating func updateGroup(
    _ id: StudyGroup.ID, draft: StudyGroupDraft, by userID: User.ID
  ) throws(DomainError) -> StudyGroup {
    var group = try existingGroup(id)
    guard group.ownerID == userID else { throw .forbidden }
    let valid = try validating { () throws(ValidationError) in try draft.validated() }
    group.name = valid.name
    group.description = valid.description
    groups[id] = group
    return groupView(group, viewer: userID)
  }

  mutating func deleteGroup(_ id: StudyGroup.ID, by userID: User.ID) throws(DomainError) {
    let group = try existingGroup(id)
    guard group.ownerID == userID else { throw .forbidden }
    groups[id] = nil
    rooms[group.roomID] = nil
  }

  /// Joining twice changes nothing.
  mutating func joinGroup(_ id: StudyGroup.ID, by userID: User.ID) throws(DomainError) -> StudyGroup
  {
    var group = try existingGroup(id)
    if group.members[userID] == nil {
      group.members[userID] = (now, nextOrder())
      groups[id] = group
    }
    return groupView(group, viewer: userID)
  }

  /// The owner cannot leave; leaving a group one is not in changes nothing.
  mutating func leaveGroup(_ id: StudyGroup.ID, by userID: User.ID) throws(DomainError) {
    var group = try existingGroup(id)
    guard group.ownerID != userID else {
      throw .conflict("The owner cannot leave the group. Delete the group instead.")
    }
    group.members[userID] = nil
    groups[id] = group
    rooms[group.roomID]?.readSeq[userID] = nil
  }

  func fetchMembers(
    of id: StudyGroup.ID, page: PageRequest
  ) throws(DomainError) -> Page<GroupMember> {
    let group = try existingGroup(id)
    let entries = group.members.map {
      (userID: $0.key, joinedAt: $0.value.joinedAt, order: $0.value.order)
    }
    return try paginate(entries, by: { .date($0.joinedAt, $0.order) }, .ascending, page).map {
      GroupMember(
        user: summary(of: $0.userID), role: $0.userID == group.ownerID ? .owner : .member,
        joinedAt: $0.joinedAt)
    }
  }
}
