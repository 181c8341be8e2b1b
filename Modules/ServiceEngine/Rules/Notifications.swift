import Domain
import Foundation
import GRDB

/// In-app notifications, created by events (never for one's own actions, never for withdrawn
/// accounts). Each kind's sentence is written here once (`Docs/Rules.md`, "Notifications").
enum Notifications {
  /// What happened, with the identifiers a notification links to.
  enum Event {
    case commentOnPost(post: Int64, comment: Int64, by: String)
    case replyUnderPost(post: Int64, comment: Int64, by: String)
    case postLiked(post: Int64)
    case commentLiked(post: Int64, comment: Int64)
    case questionPublished(question: Int64, content: String)
    case reportReviewed
    case invitedToGroup(group: Int64, name: String)
    case message(room: Int64, title: String)

    var code: NotificationKind.Code {
      switch self {
      case .commentOnPost: .commentOnMyPost
      case .replyUnderPost: .replyToMyComment
      case .postLiked: .likeOnMyPost
      case .commentLiked: .likeOnMyComment
      case .questionPublished: .newQuestion
      case .reportReviewed: .reportResolved
      case .invitedToGroup: .groupInvite
      case .message: .groupMessage
      }
    }

    var message: String {
      switch self {
      case .commentOnPost(_, _, let name): "\(name) commented on your post."
      case .replyUnderPost(_, _, let name): "\(name) replied on a post you commented on."
      case .postLiked: "Someone liked your post."
      case .commentLiked: "Someone liked your comment."
      case .questionPublished(_, let content): "Today's question is out: \(content)"
      case .reportReviewed: "Moderators reviewed your report. Thank you for keeping Qapple safe."
      case .invitedToGroup(_, let name): "You were invited to the study group \(name)."
      case .message(_, let title): "New messages in \(title)."
      }
    }

    func record(for user: Int64, actor: Int64?, at millis: Int64) -> NotificationRecord {
      var record = NotificationRecord(
        userId: user, kind: code, message: message, createdAt: millis, actorId: actor)
      switch self {
      case .commentOnPost(let post, let comment, _), .replyUnderPost(let post, let comment, _),
        .commentLiked(let post, let comment):
        record.postId = PublicID.post(post)
        record.commentId = PublicID.comment(comment)
      case .postLiked(let post): record.postId = PublicID.post(post)
      case .questionPublished(let question, _): record.questionId = PublicID.question(question)
      case .invitedToGroup(let group, _): record.groupId = PublicID.group(group)
      case .message(let room, _): record.roomId = PublicID.room(room)
      case .reportReviewed: break
      }
      return record
    }
  }

  /// Notifies `user` unless they caused the event or have withdrawn.
  static func notify(
    _ db: Database, _ user: Int64, of event: Event, actor: Int64?, now: Date
  ) throws {
    guard user != actor else { return }
    guard let recipient = try UserRecord.fetchOne(db, key: user), !recipient.isWithdrawn else {
      return
    }
    var record = event.record(for: user, actor: actor, at: Millis.from(now))
    try record.insert(db)
  }

  /// Like `notify`, but at most once per (recipient, actor, kind, target): unliking and liking
  /// again does not notify twice.
  static func notifyOnce(
    _ db: Database, _ user: Int64, of event: Event, actor: Int64, now: Date
  ) throws {
    let draft = event.record(for: user, actor: actor, at: 0)
    let sent =
      try db.count(
        """
        SELECT COUNT(*) FROM notification WHERE user_id = ? AND actor_id = ? AND kind = ?
          AND post_id IS ? AND comment_id IS ? AND question_id IS ? AND group_id IS ?
          AND room_id IS ?
        """,
        [
          user, actor, draft.kind, draft.postId, draft.commentId, draft.questionId, draft.groupId,
          draft.roomId,
        ])
    guard sent == 0 else { return }
    try notify(db, user, of: event, actor: actor, now: now)
  }

  /// Today's question when nobody has heard of it yet: it was scheduled for a day that has
  /// now come (or moved onto today), so no write announced it.
  static func unannouncedQuestion(_ db: Database, today: CalendarDay) throws -> QuestionRecord? {
    guard
      let question = try QuestionRecord.filter(Column("publish_date") == today.iso8601)
        .fetchOne(db)
    else { return nil }
    return try announcements(of: question.key).fetchCount(db) == 0 ? question : nil
  }

  /// The `new_question` notifications of `question`.
  private static func announcements(
    of question: Int64
  ) -> QueryInterfaceRequest<
    NotificationRecord
  > {
    NotificationRecord.filter(
      Column("kind") == NotificationKind.Code.newQuestion
        && Column("question_id") == PublicID.question(question))
  }

  /// Takes back the announcements of `question`, moved to another day or deleted: its text is
  /// not shown before its day, nobody is sent to a question that is not out, and it is
  /// announced again on its new day.
  static func withdrawAnnouncements(_ db: Database, of question: Int64) throws {
    try announcements(of: question).deleteAll(db)
  }

  /// Rewords the announcements of `question` with its text as it is now (an admin corrected
  /// it): a notification shows the question people can open, not an earlier draft.
  static func rewordAnnouncements(_ db: Database, of question: QuestionRecord) throws {
    let event = Event.questionPublished(question: question.key, content: question.content)
    try announcements(of: question.key).updateAll(db, Column("message").set(to: event.message))
  }

  /// Rewords the notifications that name the group `key` (its invitations, its room's new
  /// messages) with its new `name` (the owner renamed it).
  static func rewordGroupNotices(_ db: Database, group key: Int64, name: String) throws {
    try NotificationRecord.filter(
      Column("kind") == NotificationKind.Code.groupInvite
        && Column("group_id") == PublicID.group(key)
    ).updateAll(
      db, Column("message").set(to: Event.invitedToGroup(group: key, name: name).message))
    guard
      let room = try Int64.fetchOne(
        db, sql: "SELECT id FROM chat_room WHERE group_id = ?", arguments: [key])
    else { return }
    try NotificationRecord.filter(
      Column("kind") == NotificationKind.Code.groupMessage
        && Column("room_id") == PublicID.room(room)
    ).updateAll(db, Column("message").set(to: Event.message(room: room, title: name).message))
  }

  /// Takes back the unread `group_message` notifications of `room` for `users`, who no longer
  /// belong to it (they left, or the group was deleted): nothing unread stays that they cannot
  /// open.
  static func withdrawUnreadMessages(_ db: Database, room: Int64, for users: [Int64]) throws {
    let withdraw = try db.cachedStatement(
      sql: "DELETE FROM notification WHERE user_id = ? AND kind = ? AND room_id = ? AND NOT is_read"
    )
    for user in users {
      try withdraw.execute(arguments: [
        user, NotificationKind.Code.groupMessage, PublicID.room(room),
      ])
    }
  }

  /// Takes back the unread `group_invite` notifications of a group being deleted: an invitation
  /// nobody can follow any more.
  static func withdrawUnreadInvites(_ db: Database, group key: Int64) throws {
    try NotificationRecord.filter(
      Column("kind") == NotificationKind.Code.groupInvite
        && Column("group_id") == PublicID.group(key) && !Column("is_read")
    ).deleteAll(db)
  }

  /// `new_question` to every account (seed and admin creating today's question, or the first
  /// look at notifications on the day a scheduled question comes out).
  static func announceQuestion(_ db: Database, _ question: QuestionRecord, now: Date) throws {
    let users = try Int64.fetchAll(db, sql: #"SELECT id FROM "user" WHERE withdrawn_at IS NULL"#)
    for user in users {
      try notify(
        db, user, of: .questionPublished(question: question.key, content: question.content),
        actor: nil, now: now)
    }
  }

  static func notification(_ record: NotificationRecord) -> AppNotification {
    func id<T>(_ text: String?) -> Identifier<T> { Identifier(rawValue: text ?? "") }
    let kind: NotificationKind =
      switch record.kind {
      case .commentOnMyPost:
        .commentOnMyPost(post: id(record.postId), comment: id(record.commentId))
      case .replyToMyComment:
        .replyToMyComment(post: id(record.postId), comment: id(record.commentId))
      case .likeOnMyPost: .likeOnMyPost(post: id(record.postId))
      case .likeOnMyComment:
        .likeOnMyComment(post: id(record.postId), comment: id(record.commentId))
      case .newQuestion: .newQuestion(id(record.questionId))
      case .groupInvite: .groupInvite(id(record.groupId))
      case .groupMessage: .groupMessage(id(record.roomId))
      case .reportResolved: .reportResolved
      }
    return AppNotification(
      id: AppNotification.ID(rawValue: PublicID.notification(record.key)), kind: kind,
      message: record.message, isRead: record.isRead, createdAt: Millis.date(record.createdAt))
  }
}

extension ServiceEngine {
  /// Announces today's question if its day came without anyone announcing it. The engine has
  /// no timer: reading notifications is when a member would see it, so reads call this first.
  func announceTodaysQuestionIfDue() throws(DomainError) {
    guard
      try read({ db, moment in try Notifications.unannouncedQuestion(db, today: moment.today) })
        != nil
    else { return }
    try write { db, moment in
      // Again under the writer: a concurrent read may have announced it meanwhile.
      guard let question = try Notifications.unannouncedQuestion(db, today: moment.today) else {
        return
      }
      try Notifications.announceQuestion(db, question, now: moment.now)
    }
  }

  /// The viewer's notifications, newest first (today's question announced first if due).
  public func notifications(
    _ request: PageRequest, as viewer: Viewer
  ) throws(DomainError) -> Page<AppNotification> {
    let paging = try Paging(request)
    try announceTodaysQuestionIfDue()
    return try read { db, _ in
      try paging.fetch(db, sql: "SELECT * FROM notification WHERE user_id = ?", [viewer.key]) {
        Notifications.notification(try NotificationRecord(row: $0))
      }
    }
  }

  /// How many of the viewer's notifications are unread (today's question announced first if
  /// due).
  public func unreadNotificationCount(as viewer: Viewer) throws(DomainError) -> Int {
    try announceTodaysQuestionIfDue()
    return try read { db, _ in
      try db.count(
        "SELECT COUNT(*) FROM notification WHERE user_id = ? AND NOT is_read", [viewer.key])
    }
  }

  /// Marks one of the viewer's notifications read (someone else's is `notFound`).
  public func markNotificationRead(
    _ id: AppNotification.ID, as viewer: Viewer
  ) throws(DomainError) {
    let key = try PublicID.notification.require(id.rawValue)
    try write { db, _ in
      guard let record = try NotificationRecord.fetchOne(db, key: key),
        record.userId == viewer.key
      else { throw DomainError.notFound }
      try db.execute(sql: "UPDATE notification SET is_read = 1 WHERE id = ?", arguments: [key])
    }
  }

  /// Marks all of the viewer's notifications read.
  public func markAllNotificationsRead(as viewer: Viewer) throws(DomainError) {
    try write { db, _ in
      try db.execute(
        sql: "UPDATE notification SET is_read = 1 WHERE user_id = ? AND NOT is_read",
        arguments: [viewer.key])
    }
  }
}
