import DTO
import Domain
import Foundation
import GRDB

/// Reports, report cases, automatic hiding and moderators' decisions.
///
/// Every report of one target joins that target's case. Content is hidden automatically once
/// `ModerationPolicy.autoHideThreshold` distinct users reported it since the case was last
/// resolved; a new report of a resolved target reopens its case.
enum Moderation {
  /// What a report points at, as the moderation code needs it.
  struct Target: Sendable {
    var kind: ReportTarget.Kind
    var id: String
    var key: Int64
    var authorID: Int64?
    var excerpt: String?
    var isHidden: Bool
    var isGone: Bool
  }

  /// Looks a target up whatever its state (moderators see hidden and deleted content).
  static func target(_ db: Database, kind: ReportTarget.Kind, id: String) throws -> Target? {
    func make(_ prefix: PublicID, _ sql: String, _ text: String) throws -> Target? {
      guard let key = prefix.key(id), let row = try Row.fetchOne(db, sql: sql, arguments: [key])
      else { return nil }
      return Target(
        kind: kind, id: id, key: key, authorID: row["author"], excerpt: row[text],
        isHidden: row["hidden"] ?? false, isGone: row["gone"] ?? false)
    }
    switch kind {
    case .answer:
      return try make(
        .answer,
        "SELECT author_id AS author, content, hidden, deleted_at IS NOT NULL AS gone FROM answer WHERE id = ?",
        "content")
    case .post:
      return try make(
        .post,
        "SELECT author_id AS author, content, hidden, deleted_at IS NOT NULL AS gone FROM post WHERE id = ?",
        "content")
    case .comment:
      return try make(
        .comment,
        """
        SELECT c.author_id AS author, c.content, c.hidden,
          (c.deleted_at IS NOT NULL OR p.deleted_at IS NOT NULL) AS gone
        FROM comment c JOIN post p ON p.id = c.post_id WHERE c.id = ?
        """,
        "content")
    case .chatMessage:
      return try make(
        .message,
        "SELECT sender_id AS author, text, hidden, 0 AS gone FROM chat_message WHERE id = ?",
        "text")
    case .user:
      return try make(
        .user,
        #"SELECT id AS author, nickname, 0 AS hidden, withdrawn_at IS NOT NULL AS gone FROM "user" WHERE id = ?"#,
        "nickname")
    }
  }

  /// Hides or shows reported content (users have nothing to hide).
  static func setHidden(_ db: Database, _ target: Target, _ hidden: Bool) throws {
    let table: String
    switch target.kind {
    case .answer: table = "answer"
    case .post: table = "post"
    case .comment: table = "comment"
    case .chatMessage: table = "chat_message"
    case .user: return
    }
    try db.execute(
      sql: "UPDATE \(table) SET hidden = ? WHERE id = ?", arguments: [hidden, target.key])
  }

  /// Whether `viewer` can see the target (a member may only report what they can see).
  private static func isVisible(_ db: Database, _ target: Target, to viewer: Viewer) throws -> Bool
  {
    guard !target.isGone, !target.isHidden else { return false }
    switch target.kind {
    case .comment:
      guard let comment = try CommentRecord.fetchOne(db, key: target.key) else { return false }
      return try Board.isPostVisible(db, comment.postId)
    case .chatMessage:
      guard let message = try MessageRecord.fetchOne(db, key: target.key) else { return false }
      return try Chat.isMember(db, roomKey: message.roomId, userID: viewer.id)
    default:
      return true
    }
  }

  // MARK: Reports

  static func reportDTO(_ record: ReportRecord) -> ReportDTO {
    ReportDTO(
      id: PublicID.report(record.key),
      target: ReportTargetRefDTO(type: record.targetType, id: record.targetId),
      reason: ReportReasonDTO(rawValue: record.reason), detail: record.detail,
      status: ReportStatusDTO(rawValue: record.status), createdAt: Millis.date(record.createdAt))
  }

  /// Files a report; reopens or opens the target's case and hides the content at the threshold.
  static func report(
    _ db: Database, kind: ReportTarget.Kind, id: String, reason: ReportReason.Code,
    detail: String?, viewer: Viewer, now: Date
  ) throws -> ReportDTO {
    guard let target = try target(db, kind: kind, id: id), try isVisible(db, target, to: viewer)
    else { throw APIError.notFound("No \(kind.rawValue) with id \(id).") }
    guard target.authorID != viewer.id else {
      throw APIError.validation(field: "target", "You cannot report your own content or yourself.")
    }
    let duplicate =
      try ReportRecord.filter(
        Column("reporter_id") == viewer.id && Column("target_type") == kind.rawValue
          && Column("target_id") == id
      ).fetchCount(db)
    guard duplicate == 0 else { throw APIError.alreadyReported }

    let millis = Millis.from(now)
    var reportCase: ReportCaseRecord
    if var existing = try ReportCaseRecord.filter(
      Column("target_type") == kind.rawValue && Column("target_id") == id
    ).fetchOne(db) {
      if existing.status == "resolved" {
        existing.status = "open"
        existing.resolution = nil
        existing.note = nil
        existing.resolvedAt = nil
      }
      existing.lastReportedAt = millis
      try existing.update(db)
      reportCase = existing
    } else {
      reportCase = ReportCaseRecord(
        targetType: kind.rawValue, targetId: id, authorId: target.authorID, status: "open",
        firstReportedAt: millis, lastReportedAt: millis)
      try reportCase.insert(db)
    }
    var report = ReportRecord(
      caseId: reportCase.key, reporterId: viewer.id, targetType: kind.rawValue, targetId: id,
      reason: reason.rawValue, detail: detail, status: "open", createdAt: millis)
    try report.insert(db)

    let openReporters =
      try Int.fetchOne(
        db,
        sql: "SELECT COUNT(DISTINCT reporter_id) FROM report WHERE case_id = ? AND status = 'open'",
        arguments: [reportCase.key]) ?? 0
    if openReporters >= ModerationPolicy.autoHideThreshold {
      try setHidden(db, target, true)
    }
    return reportDTO(report)
  }

  /// Reports I filed, newest first.
  static func mine(_ db: Database, viewer: Viewer, _ page: PageRequest) throws -> PageDTO<ReportDTO>
  {
    var sql = "SELECT * FROM report WHERE reporter_id = ?"
    var arguments: StatementArguments = [viewer.id]
    appendNewestFirst(&sql, &arguments, page)
    let rows = try ReportRecord.fetchAll(db, sql: sql, arguments: arguments)
    return page.page(rows, sortKey: { Cursor(key: $0.createdAt, id: $0.key) }, item: reportDTO)
  }

  // MARK: Cases (admin)

  static func caseDTO(_ db: Database, _ record: ReportCaseRecord) throws -> ReportCaseDTO {
    let kind = ReportTarget.Kind(rawValue: record.targetType) ?? .post
    let target = try self.target(db, kind: kind, id: record.targetId)
    var reasons: [String: Int] = [:]
    for row in try Row.fetchAll(
      db, sql: "SELECT reason, COUNT(*) AS n FROM report WHERE case_id = ? GROUP BY reason",
      arguments: [record.key])
    {
      reasons[row["reason"]] = row["n"]
    }
    let reporters =
      try Int.fetchOne(
        db, sql: "SELECT COUNT(DISTINCT reporter_id) FROM report WHERE case_id = ?",
        arguments: [record.key]) ?? 0
    return ReportCaseDTO(
      id: PublicID.reportCase(record.key),
      target: ReportTargetRefDTO(type: record.targetType, id: record.targetId),
      excerpt: target?.excerpt, author: try record.authorId.map { try Users.summary(db, $0) },
      reportCount: reporters, reasonCounts: reasons,
      status: ReportStatusDTO(rawValue: record.status),
      resolution: record.resolution.map { ReportResolutionDTO(rawValue: $0) },
      isHidden: target?.isHidden ?? false, firstReportedAt: Millis.date(record.firstReportedAt),
      lastReportedAt: Millis.date(record.lastReportedAt))
  }

  /// The inbox, most recently opened case first.
  static func cases(
    _ db: Database, status: ReportStatus?, _ page: PageRequest
  ) throws
    -> PageDTO<ReportCaseDTO>
  {
    var sql = "SELECT * FROM report_case WHERE 1"
    var arguments: StatementArguments = []
    if let status {
      sql += " AND status = ?"
      arguments += [status.rawValue]
    }
    if let cursor = page.cursor {
      sql += " AND (first_reported_at < ? OR (first_reported_at = ? AND id < ?))"
      arguments += [cursor.key, cursor.key, cursor.id]
    }
    sql += " ORDER BY first_reported_at DESC, id DESC LIMIT ?"
    arguments += [page.limit + 1]
    let rows = try ReportCaseRecord.fetchAll(db, sql: sql, arguments: arguments)
    return try page.page(
      rows, sortKey: { Cursor(key: $0.firstReportedAt, id: $0.key) },
      item: { try caseDTO(db, $0) })
  }

  static func reportCase(_ db: Database, _ key: Int64) throws -> ReportCaseRecord {
    guard let record = try ReportCaseRecord.fetchOne(db, key: key) else {
      throw APIError.notFound("No report case with id \(PublicID.reportCase(key)).")
    }
    return record
  }

  static func detail(_ db: Database, _ key: Int64) throws -> ReportCaseDetailDTO {
    let record = try reportCase(db, key)
    let reports = try ReportRecord.fetchAll(
      db, sql: "SELECT * FROM report WHERE case_id = ? ORDER BY created_at, id",
      arguments: [key])
    return ReportCaseDetailDTO(reportCase: try caseDTO(db, record), reports: reports.map(reportDTO))
  }

  /// Applies a moderator's decision; reporters hear that their report was reviewed.
  static func resolve(
    _ db: Database, _ key: Int64, resolution: ReportResolution, note: String?, admin: Viewer,
    now: Date
  ) throws -> ReportCaseDTO {
    var record = try reportCase(db, key)
    guard record.status == "open" else {
      throw APIError.conflict("This case is already resolved.")
    }
    let kind = ReportTarget.Kind(rawValue: record.targetType) ?? .post
    let target = try self.target(db, kind: kind, id: record.targetId)
    switch resolution {
    case .dismiss:
      if let target { try setHidden(db, target, false) }
    case .hideContent:
      if let target { try setHidden(db, target, true) }
    case .banAuthor:
      if let target { try setHidden(db, target, true) }
      if let authorID = record.authorId, var author = try Users.any(db, authorID) {
        guard !author.isAdmin else {
          throw APIError.conflict("The author is an admin; admins cannot be banned.")
        }
        author.banned = true
        author.bannedUntil = nil
        author.banReason = note ?? "Reported content"
        try author.update(db)
      }
    }
    let millis = Millis.from(now)
    record.status = "resolved"
    record.resolution = resolution.rawValue
    record.note = note
    record.resolvedAt = millis
    try record.update(db)

    let reporters = try Int64.fetchAll(
      db, sql: "SELECT DISTINCT reporter_id FROM report WHERE case_id = ? AND status = 'open'",
      arguments: [key])
    try db.execute(
      sql: "UPDATE report SET status = 'resolved' WHERE case_id = ? AND status = 'open'",
      arguments: [key])
    for reporter in reporters {
      try Notifications.notify(
        db, user: reporter, actor: admin.id, kind: "report_resolved",
        message: "Moderators reviewed your report. Thank you for keeping Qapple safe.", now: now)
    }
    return try caseDTO(db, record)
  }
}
