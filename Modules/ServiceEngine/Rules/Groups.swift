import Domain
import Foundation
import GRDB

/// Study groups and their members; every group has a chat room (`Docs/Rules.md`, "Groups").
enum Groups {
  static func group(_ db: Database, _ record: GroupRecord, viewer: Viewer) throws -> StudyGroup {
    let members =
      try db.count("SELECT COUNT(*) FROM group_member WHERE group_id = ?", [record.key])
    return StudyGroup(
      id: StudyGroup.ID(rawValue: PublicID.group(record.key)), name: record.name,
      description: record.description, owner: try Users.summary(db, record.ownerId),
      memberCount: members, isMember: try isMember(db, group: record.key, user: viewer.key),
      createdAt: Millis.date(record.createdAt))
  }

  /// Whether `user` belongs to `group` (every chat send asks, hence the cached statement).
  static func isMember(_ db: Database, group: Int64, user: Int64) throws -> Bool {
    try Int.fetchOne(
      db.cachedStatement(
        sql: "SELECT COUNT(*) FROM group_member WHERE group_id = ? AND user_id = ?"),
      arguments: [group, user]) ?? 0 > 0
  }

  /// Tells live chat listeners that `users` (every member when `nil`) leave the group's room,
  /// once the transaction commits, and takes back their unread notifications of its messages.
  static func endMemberships(
    _ db: Database, group: Int64, users: [Int64]?, events: ChatEventHub
  ) throws {
    guard
      let room = try Int64.fetchOne(
        db, sql: "SELECT id FROM chat_room WHERE group_id = ?", arguments: [group])
    else { return }
    let leaving =
      try users
      ?? Int64.fetchAll(
        db, sql: "SELECT user_id FROM group_member WHERE group_id = ?", arguments: [group])
    for user in leaving {
      events.publishOnCommit(
        db,
        .membershipEnded(
          room: ChatRoom.ID(rawValue: PublicID.room(room)),
          user: User.ID(rawValue: PublicID.user(user))))
    }
    try Notifications.withdrawUnreadMessages(db, room: room, for: leaving)
  }

  /// The owner's group, or `forbidden` for anyone else.
  static func owned(_ db: Database, _ key: Int64, by viewer: Viewer) throws -> GroupRecord {
    let group = try GroupRecord.find(db, key: key)
    guard group.ownerId == viewer.key else { throw DomainError.forbidden }
    return group
  }
}

extension ServiceEngine {
  /// Groups, newest first; `query` (up to 100 characters) filters by name or description.
  public func groups(
    matching query: String?, _ request: PageRequest, as viewer: Viewer
  ) throws(DomainError) -> Page<StudyGroup> {
    let filter = try validated(query, .search)
    let paging = try Paging(request)
    return try read { db, _ in
      var sql = "SELECT * FROM study_group WHERE 1"
      var arguments: StatementArguments = []
      if let filter {
        sql += " AND (qapple_contains(name, ?) OR qapple_contains(description, ?))"
        arguments += [filter, filter]
      }
      return try paging.fetch(db, sql: sql, arguments) {
        try Groups.group(db, GroupRecord(row: $0), viewer: viewer)
      }
    }
  }

  /// One group.
  public func group(_ id: StudyGroup.ID, as viewer: Viewer) throws(DomainError) -> StudyGroup {
    let key = try PublicID.group.require(id.rawValue)
    return try read { db, _ in
      try Groups.group(db, try GroupRecord.find(db, key: key), viewer: viewer)
    }
  }

  /// Creates a group owned by the viewer, with its chat room.
  public func createGroup(
    _ draft: StudyGroupDraft, as viewer: Viewer
  ) throws(DomainError) -> StudyGroup {
    try viewer.requireNotBanned(at: now)
    let draft = try validated(try draft.validated())
    return try write { db, moment in
      var group = GroupRecord(
        name: draft.name, description: draft.description, ownerId: viewer.key,
        createdAt: moment.millis)
      try group.insert(db)
      try db.execute(
        sql: "INSERT INTO group_member (group_id, user_id, role, joined_at) VALUES (?, ?, ?, ?)",
        arguments: [group.key, viewer.key, MemberRole.owner, moment.millis])
      var room = RoomRecord(kind: .group, groupId: group.key, createdAt: moment.millis)
      try room.insert(db)
      return try Groups.group(db, group, viewer: viewer)
    }
  }

  /// Edits a group (owner only); `nil` keeps a field.
  public func updateGroup(
    _ id: StudyGroup.ID, name: String?, description: String?, as viewer: Viewer
  ) throws(DomainError) -> StudyGroup {
    let key = try PublicID.group.require(id.rawValue)
    try viewer.requireNotBanned(at: now)
    let name = try name.map { text throws(DomainError) in
      try validated(try TextRule.groupName.validate(text))
    }
    let description = try description.map { text throws(DomainError) in
      try validated(try TextRule.groupDescription.validate(text))
    }
    return try write { db, _ in
      var group = try Groups.owned(db, key, by: viewer)
      if let name, name != group.name {
        group.name = name
        try Notifications.rewordGroupNotices(db, group: key, name: name)
      }
      if let description { group.description = description }
      try group.update(db)
      return try Groups.group(db, group, viewer: viewer)
    }
  }

  /// Deletes a group and its room (owner only).
  public func deleteGroup(_ id: StudyGroup.ID, as viewer: Viewer) throws(DomainError) {
    let key = try PublicID.group.require(id.rawValue)
    try viewer.requireNotBanned(at: now)
    try write { db, _ in
      let group = try Groups.owned(db, key, by: viewer)
      try Groups.endMemberships(db, group: key, users: nil, events: chatEvents)
      try Notifications.withdrawUnreadInvites(db, group: key)
      try group.delete(db)
    }
  }

  /// Joins a group (joining twice changes nothing). The room's history before the join counts
  /// as read: a newcomer's unread count starts at what comes after.
  public func joinGroup(_ id: StudyGroup.ID, as viewer: Viewer) throws(DomainError) -> StudyGroup {
    let key = try PublicID.group.require(id.rawValue)
    try viewer.requireNotBanned(at: now)
    return try write { db, moment in
      let group = try GroupRecord.find(db, key: key)
      try db.execute(
        sql: """
          INSERT OR IGNORE INTO group_member (group_id, user_id, role, joined_at)
          VALUES (?, ?, ?, ?)
          """,
        arguments: [key, viewer.key, MemberRole.member, moment.millis])
      if db.changesCount > 0,
        let room = try RoomRecord.filter(Column("group_id") == key).fetchOne(db)
      {
        try Chat.moveReadCursor(db, room: room.key, user: viewer.key, to: room.lastSeq)
      }
      return try Groups.group(db, group, viewer: viewer)
    }
  }

  /// Leaves a group (allowed while banned); the owner cannot leave, only delete it.
  public func leaveGroup(_ id: StudyGroup.ID, as viewer: Viewer) throws(DomainError) {
    let key = try PublicID.group.require(id.rawValue)
    try write { db, _ in
      let group = try GroupRecord.find(db, key: key)
      guard group.ownerId != viewer.key else {
        throw DomainError.conflict("The owner cannot leave the group; delete it instead.")
      }
      try Groups.endMemberships(db, group: key, users: [viewer.key], events: chatEvents)
      try db.execute(
        sql: "DELETE FROM group_member WHERE group_id = ? AND user_id = ?",
        arguments: [key, viewer.key])
      try db.execute(
        sql: """
          DELETE FROM room_read WHERE user_id = ? AND room_id IN
            (SELECT id FROM chat_room WHERE group_id = ?)
          """,
        arguments: [viewer.key, key])
    }
  }

  /// Invites another live user to a group the viewer belongs to: they get one `group_invite`
  /// notification per inviter and group (inviting again changes nothing). Inviting a member is
  /// a `conflict`, oneself a validation error; banned viewers cannot invite.
  public func inviteToGroup(
    _ id: StudyGroup.ID, user: User.ID, as viewer: Viewer
  ) throws(DomainError) {
    let key = try PublicID.group.require(id.rawValue)
    let userKey = try PublicID.user.require(user.rawValue)
    try viewer.requireNotBanned(at: now)
    try viewer.requireOther(userKey)
    try write { db, moment in
      let group = try GroupRecord.find(db, key: key)
      guard try Groups.isMember(db, group: key, user: viewer.key) else {
        throw DomainError.forbidden
      }
      _ = try Users.live(db, userKey)
      guard try !Groups.isMember(db, group: key, user: userKey) else {
        throw DomainError.conflict("That user is already a member of the group.")
      }
      try Notifications.notifyOnce(
        db, userKey, of: .invitedToGroup(group: key, name: group.name), actor: viewer.key,
        now: moment.now)
    }
  }

  /// Members of a group, in joining order.
  public func groupMembers(
    of id: StudyGroup.ID, _ request: PageRequest
  ) throws(DomainError) -> Page<GroupMember> {
    let key = try PublicID.group.require(id.rawValue)
    let paging = try Paging(request)
    return try read { db, _ in
      _ = try GroupRecord.find(db, key: key)
      return try paging.fetch(
        db, sql: "SELECT user_id, role, joined_at FROM group_member WHERE group_id = ?",
        [key], column: "joined_at", id: "user_id", descending: false,
        item: { row in
          GroupMember(
            user: try Users.summary(db, row["user_id"]),
            role: (row["role"] as MemberRole?)?.domain ?? .member,
            joinedAt: Millis.date(row["joined_at"]))
        })
    }
  }
}
