import DTO
import Domain
import Foundation
import GRDB

/// In-app notifications, created by events (never for one's own actions).
enum Notifications {
  /// Notifies `user` unless they caused the event or have withdrawn.
  static func notify(
    _ db: Database, user: Int64, actor: Int64?, kind: String, message: String,
    postID: String? = nil, commentID: String? = nil, questionID: String? = nil,
    groupID: String? = nil, roomID: String? = nil, now: Date
  ) throws {
    guard user != actor else { return }
    guard let recipient = try Users.any(db, user), !recipient.isWithdrawn else { return }
    var record = NotificationRecord(
      userId: user, kind: kind, message: message, createdAt: Millis.from(now), postId: postID,
      commentId: commentID, questionId: questionID, groupId: groupID, roomId: roomID,
      actorId: actor)
    try record.insert(db)
  }

  /// Like `notify`, but at most once per (recipient, actor, kind, target): unliking and liking
  /// again does not notify twice.
  static func notifyOnce(
    _ db: Database, user: Int64, actor: Int64, kind: String, message: String,
    postID: String, commentID: String? = nil, now: Date
  ) throws {
    let sent =
      try Int.fetchOne(
        db,
        sql: """
          SELECT COUNT(*) FROM notification WHERE user_id = ? AND actor_id = ? AND kind = ?
            AND post_id = ? AND comment_id IS ?
          """,
        arguments: [user, actor, kind, postID, commentID]) ?? 0
    guard sent == 0 else { return }
    try notify(
      db, user: user, actor: actor, kind: kind, message: message, postID: postID,
      commentID: commentID, now: now)
  }

  /// `new_question` to every account (seed and admin creating today's question).
  static func announceQuestion(_ db: Database, _ question: QuestionRecord, now: Date) throws {
    let users = try Int64.fetchAll(db, sql: #"SELECT id FROM "user" WHERE withdrawn_at IS NULL"#)
    for user in users {
      try notify(
        db, user: user, actor: nil, kind: "new_question",
        message: "Today's question is out: \(question.content)",
        questionID: PublicID.question(question.key), now: now)
    }
  }

  static func dto(_ record: NotificationRecord) -> NotificationDTO {
    NotificationDTO(
      id: PublicID.notification(record.key), kind: NotificationKindDTO(rawValue: record.kind),
      message: record.message, isRead: record.isRead, createdAt: Millis.date(record.createdAt),
      postId: record.postId, commentId: record.commentId, questionId: record.questionId,
      groupId: record.groupId, roomId: record.roomId)
  }

  /// My notifications, newest first.
  static func list(
    _ db: Database, viewer: Viewer, _ page: PageRequest
  ) throws
    -> PageDTO<NotificationDTO>
  {
    var sql = "SELECT * FROM notification WHERE user_id = ?"
    var arguments: StatementArguments = [viewer.id]
    appendNewestFirst(&sql, &arguments, page)
    let rows = try NotificationRecord.fetchAll(db, sql: sql, arguments: arguments)
    return page.page(rows, sortKey: { Cursor(key: $0.createdAt, id: $0.key) }, item: dto)
  }

  static func unreadCount(_ db: Database, viewer: Viewer) throws -> UnreadCountDTO {
    let count =
      try Int.fetchOne(
        db, sql: "SELECT COUNT(*) FROM notification WHERE user_id = ? AND NOT is_read",
        arguments: [viewer.id]) ?? 0
    return UnreadCountDTO(count: count)
  }

  /// Marks one of my notifications read (someone else's is 404).
  static func markRead(_ db: Database, _ key: Int64, viewer: Viewer) throws {
    guard let record = try NotificationRecord.fetchOne(db, key: key), record.userId == viewer.id
    else { throw APIError.notFound("No notification with id \(PublicID.notification(key)).") }
    try db.execute(sql: "UPDATE notification SET is_read = 1 WHERE id = ?", arguments: [record.key])
  }

  static func markAllRead(_ db: Database, viewer: Viewer) throws {
    try db.execute(
      sql: "UPDATE notification SET is_read = 1 WHERE user_id = ? AND NOT is_read",
      arguments: [viewer.id])
  }
}
