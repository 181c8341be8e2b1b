import DTO
import Domain
import Foundation
import GRDB

/// Study groups and their members. Each group owns one chat room (kind `group`).
enum Groups {
  static func dto(_ db: Database, _ group: GroupRecord, viewer: Viewer) throws -> StudyGroupDTO {
    let members =
      try Int.fetchOne(
        db, sql: "SELECT COUNT(*) FROM group_member WHERE group_id = ?", arguments: [group.key])
      ?? 0
    let isMember =
      try Int.fetchOne(
        db, sql: "SELECT COUNT(*) FROM group_member WHERE group_id = ? AND user_id = ?",
        arguments: [group.key, viewer.id]) ?? 0
    return StudyGroupDTO(
      id: PublicID.group(group.key), name: group.name, description: group.description,
      owner: try Users.summary(db, group.ownerId), memberCount: members, isMember: isMember > 0,
      createdAt: Millis.date(group.createdAt))
  }

  static func group(_ db: Database, _ key: Int64) throws -> GroupRecord {
    guard let group = try GroupRecord.fetchOne(db, key: key) else {
      throw APIError.notFound("No group with id \(PublicID.group(key)).")
    }
    return group
  }

  /// Groups, newest first; with `query`, those whose name or description contains it.
  static func list(
    _ db: Database, viewer: Viewer, query: String?, _ page: PageRequest
  ) throws
    -> PageDTO<StudyGroupDTO>
  {
    var sql = "SELECT * FROM study_group WHERE 1"
    var arguments: StatementArguments = []
    if let query {
      sql += " AND (qapple_contains(name, ?) OR qapple_contains(description, ?))"
      arguments += [query, query]
    }
    appendNewestFirst(&sql, &arguments, page)
    let rows = try GroupRecord.fetchAll(db, sql: sql, arguments: arguments)
    return try page.page(
      rows, sortKey: { Cursor(key: $0.createdAt, id: $0.key) },
      item: { try dto(db, $0, viewer: viewer) })
  }

  /// Creates a group with its owner as first member and its chat room.
  static func create(
    _ db: Database, _ draft: StudyGroupDraft, viewer: Viewer, now: Date
  ) throws
    -> StudyGroupDTO
  {
    let millis = Millis.from(now)
    var group = GroupRecord(
      name: draft.name, description: draft.description, ownerId: viewer.id, createdAt: millis)
    try group.insert(db)
    try db.execute(
      sql:
        "INSERT INTO group_member (group_id, user_id, role, joined_at) VALUES (?, ?, 'owner', ?)",
      arguments: [group.key, viewer.id, millis])
    var room = RoomRecord(kind: "group", groupId: group.key, createdAt: millis)
    try room.insert(db)
    return try dto(db, group, viewer: viewer)
  }

  static func update(
    _ db: Database, _ key: Int64, name: String?, description: String?, viewer: Viewer
  ) throws -> StudyGroupDTO {
    var group = try group(db, key)
    guard group.ownerId == viewer.id else {
      throw APIError.forbidden("Only the group's owner can edit it.")
    }
    if let name { group.name = name }
    if let description { group.description = description }
    try group.update(db)
    return try dto(db, group, viewer: viewer)
  }

  /// Deletes the group with its members, room and messages (owner only).
  static func delete(_ db: Database, _ key: Int64, viewer: Viewer) throws {
    let group = try group(db, key)
    guard group.ownerId == viewer.id else {
      throw APIError.forbidden("Only the group's owner can delete it.")
    }
    try group.delete(db)
  }

  /// Joins (idempotent).
  static func join(_ db: Database, _ key: Int64, viewer: Viewer, now: Date) throws -> StudyGroupDTO
  {
    let group = try group(db, key)
    try db.execute(
      sql: """
        INSERT OR IGNORE INTO group_member (group_id, user_id, role, joined_at)
        VALUES (?, ?, 'member', ?)
        """,
      arguments: [key, viewer.id, Millis.from(now)])
    return try dto(db, group, viewer: viewer)
  }

  /// Leaves; the owner cannot (409), leaving when not a member does nothing.
  static func leave(_ db: Database, _ key: Int64, viewer: Viewer) throws {
    let group = try group(db, key)
    guard group.ownerId != viewer.id else {
      throw APIError.conflict("The owner cannot leave the group; delete it instead.")
    }
    try db.execute(
      sql: "DELETE FROM group_member WHERE group_id = ? AND user_id = ?",
      arguments: [key, viewer.id])
    try db.execute(
      sql: """
        DELETE FROM room_read WHERE user_id = ? AND room_id IN
          (SELECT id FROM chat_room WHERE group_id = ?)
        """,
      arguments: [viewer.id, key])
  }

  /// Members in the order they joined (the owner first).
  static func members(
    _ db: Database, _ key: Int64, _ page: PageRequest
  ) throws
    -> PageDTO<GroupMemberDTO>
  {
    _ = try group(db, key)
    var sql = "SELECT user_id, role, joined_at FROM group_member WHERE group_id = ?"
    var arguments: StatementArguments = [key]
    if let cursor = page.cursor {
      sql += " AND (joined_at > ? OR (joined_at = ? AND user_id > ?))"
      arguments += [cursor.key, cursor.key, cursor.id]
    }
    sql += " ORDER BY joined_at, user_id LIMIT ?"
    arguments += [page.limit + 1]
    let rows = try Row.fetchAll(db, sql: sql, arguments: arguments)
    return try page.page(
      rows, sortKey: { Cursor(key: $0["joined_at"], id: $0["user_id"]) },
      item: { row in
        GroupMemberDTO(
          user: try Users.summary(db, row["user_id"]),
          role: GroupMemberRoleDTO(rawValue: row["role"]), joinedAt: Millis.date(row["joined_at"]))
      })
  }
}
