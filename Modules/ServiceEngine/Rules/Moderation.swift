import Domain
import Foundation
import GRDB

/// Reports, report cases, automatic hiding and moderators' decisions (`Docs/Rules.md`,
/// "Reports and moderation").
///
/// Every report of one target joins that target's case. Content is hidden automatically once
/// `ModerationPolicy.autoHideThreshold` distinct users reported it since the case was last
/// resolved; a new report of a resolved target reopens its case.
enum Moderation {
  /// What a report points at, as the moderation code needs it.
  struct Target: Sendable {
    var kind: ReportTarget.Kind
    var key: Int64
    var authorID: Int64?
    var excerpt: String?
    var isHidden: Bool
    var isGone: Bool
  }

  /// The table and text column of each kind of content (users have nothing to hide).
  private static func storage(of kind: ReportTarget.Kind) -> (prefix: PublicID, table: String?) {
    switch kind {
    case .answer: (.answer, "answer")
    case .post: (.post, "post")
    case .comment: (.comment, "comment")
    case .chatMessage: (.message, "chat_message")
    case .user: (.user, nil)
    }
  }

  /// Looks a target up whatever its state (moderators see hidden and deleted content).
  static func target(_ db: Database, _ reported: ReportTarget) throws -> Target? {
    let kind = reported.kind
    guard let key = storage(of: kind).prefix.key(reported.rawID) else { return nil }
    let sql: String =
      switch kind {
      case .answer, .post:
        "SELECT author_id AS author, content AS text, hidden, deleted_at IS NOT NULL AS gone FROM \(kind.rawValue) WHERE id = ?"
      case .comment:
        """
        SELECT c.author_id AS author, c.content AS text, c.hidden,
          (c.deleted_at IS NOT NULL OR p.deleted_at IS NOT NULL) AS gone
        FROM comment c JOIN post p ON p.id = c.post_id WHERE c.id = ?
        """
      case .chatMessage:
        "SELECT sender_id AS author, text, hidden, 0 AS gone FROM chat_message WHERE id = ?"
      case .user:
        #"SELECT id AS author, nickname AS text, 0 AS hidden, withdrawn_at IS NOT NULL AS gone FROM "user" WHERE id = ?"#
      }
    guard let row = try Row.fetchOne(db, sql: sql, arguments: [key]) else { return nil }
    return Target(
      kind: kind, key: key, authorID: row["author"], excerpt: row["text"],
      isHidden: row["hidden"] ?? false, isGone: row["gone"] ?? false)
  }

  /// Hides or shows reported content. A chat message that changes tells its room's
  /// subscribers once the transaction commits, so open screens follow at once.
  static func setHidden(
    _ db: Database, _ target: Target, _ hidden: Bool, events: ChatEventHub
  ) throws {
    guard let table = storage(of: target.kind).table else { return }
    try db.execute(
      sql: "UPDATE \(table) SET hidden = ? WHERE id = ?", arguments: [hidden, target.key])
    guard target.kind == .chatMessage, target.isHidden != hidden,
      let record = try MessageRecord.fetchOne(db, key: target.key)
    else { return }
    let message = try Chat.message(db, record)
    events.publishOnCommit(
      db,
      hidden
        ? .messageHidden(room: message.roomID, message: message.id, seq: record.seq)
        : .messageRestored(message))
  }

  /// Whether `viewer` can see the target (a member may only report what they can see).
  static func isVisible(_ db: Database, _ target: Target, to viewer: Viewer) throws -> Bool {
    guard !target.isGone, !target.isHidden else { return false }
    switch target.kind {
    case .answer:
      // Others' answers show only to those who answered the question.
      guard let answer = try AnswerRecord.fetchOne(db, key: target.key) else { return false }
      return try Questions.hasAnswered(db, question: answer.questionId, user: viewer.key)
    case .comment:
      guard let comment = try CommentRecord.fetchOne(db, key: target.key) else { return false }
      return try Board.isPostVisible(db, comment.postId)
    case .chatMessage:
      guard let message = try MessageRecord.fetchOne(db, key: target.key) else { return false }
      return try Chat.isMember(db, roomKey: message.roomId, userID: viewer.key)
    default:
      return true
    }
  }

  static func report(_ record: ReportRecord) -> Report {
    // A stored report is read as it was filed: text kept with another reason (stored before
    // the service refused it) is not the report's, so it is left out rather than turn the
    // reason into `other`.
    let detail = record.reason == .other ? record.detail : nil
    let reason =
      (try? ReportReason(code: record.reason, detail: detail)) ?? .other(record.detail ?? "")
    return Report(
      id: Report.ID(rawValue: PublicID.report(record.key)),
      target: ReportTarget(kind: record.targetType, id: record.targetId), reason: reason,
      status: record.status, createdAt: Millis.date(record.createdAt))
  }

  static func reportCase(_ db: Database, _ record: ReportCaseRecord) throws -> ReportCase {
    let reported = ReportTarget(kind: record.targetType, id: record.targetId)
    let target = try self.target(db, reported)
    var reasons: [ReportReason.Code: Int] = [:]
    for row in try Row.fetchAll(
      db, sql: "SELECT reason, COUNT(*) AS n FROM report WHERE case_id = ? GROUP BY reason",
      arguments: [record.key])
    {
      if let code = ReportReason.Code(rawValue: row["reason"]) { reasons[code] = row["n"] }
    }
    let reporters =
      try db.count("SELECT COUNT(DISTINCT reporter_id) FROM report WHERE case_id = ?", [record.key])
    return ReportCase(
      id: ReportCase.ID(rawValue: PublicID.reportCase(record.key)), target: reported,
      excerpt: target?.excerpt, author: try record.authorId.map { try Users.summary(db, $0) },
      reportCount: reporters, reasonCounts: reasons, status: record.status,
      resolution: record.resolution, isHidden: target?.isHidden ?? false,
      firstReportedAt: Millis.date(record.firstReportedAt),
      lastReportedAt: Millis.date(record.lastReportedAt))
  }
}

extension ServiceEngine {
  /// Files a report of something the viewer can see; reopens or opens the target's case and
  /// hides the content at the threshold. `other` needs its explanation (1-500 characters); the
  /// other reasons carry none (a blank one is none): a report keeps its text only as `other`'s
  /// explanation, so text sent with another reason is refused rather than stored unseen.
  public func report(
    _ reported: ReportTarget, reason: ReportReason.Code, detail rawDetail: String? = nil,
    as viewer: Viewer
  ) throws(DomainError) -> Report {
    try viewer.requireNotBanned(at: now)
    let detail = try validated(try ReportReason(code: reason, detail: rawDetail)).detail
    return try write { db, moment in
      guard let target = try Moderation.target(db, reported),
        try Moderation.isVisible(db, target, to: viewer)
      else { throw DomainError.notFound }
      guard target.authorID != viewer.key else {
        throw DomainError.validation(
          .invalidFormat(field: "target", expected: "someone else's content or account"))
      }
      let duplicate =
        try ReportRecord.filter(
          Column("reporter_id") == viewer.key && Column("target_type") == reported.kind
            && Column("target_id") == reported.rawID
        ).fetchCount(db)
      guard duplicate == 0 else { throw DomainError.alreadyReported }

      var reportCase: ReportCaseRecord
      if var existing = try ReportCaseRecord.filter(
        Column("target_type") == reported.kind && Column("target_id") == reported.rawID
      ).fetchOne(db) {
        if existing.status == .resolved {
          existing.status = .open
          existing.resolution = nil
          existing.note = nil
          existing.resolvedAt = nil
          existing.openedAt = moment.millis
        }
        existing.lastReportedAt = moment.millis
        try existing.update(db)
        reportCase = existing
      } else {
        reportCase = ReportCaseRecord(
          targetType: reported.kind, targetId: reported.rawID, authorId: target.authorID,
          status: .open, firstReportedAt: moment.millis, lastReportedAt: moment.millis,
          openedAt: moment.millis)
        try reportCase.insert(db)
      }
      var report = ReportRecord(
        caseId: reportCase.key, reporterId: viewer.key, targetType: reported.kind,
        targetId: reported.rawID, reason: reason, detail: detail, status: .open,
        createdAt: moment.millis)
      try report.insert(db)

      let openReporters =
        try db.count(
          "SELECT COUNT(DISTINCT reporter_id) FROM report WHERE case_id = ? AND status = ?",
          [reportCase.key, ReportStatus.open])
      if openReporters >= ModerationPolicy.autoHideThreshold {
        try Moderation.setHidden(db, target, true, events: chatEvents)
      }
      return Moderation.report(report)
    }
  }

  /// Reports the viewer filed, newest first.
  public func myReports(
    _ request: PageRequest, as viewer: Viewer
  ) throws(DomainError)
    -> Page<Report>
  {
    let paging = try Paging(request)
    return try read { db, _ in
      try paging.fetch(db, sql: "SELECT * FROM report WHERE reporter_id = ?", [viewer.key]) {
        Moderation.report(try ReportRecord(row: $0))
      }
    }
  }

  /// Whether `target` is hidden by moderation (`false` when it does not exist).
  public func isHidden(_ target: ReportTarget) throws(DomainError) -> Bool {
    try read { db, _ in try Moderation.target(db, target)?.isHidden ?? false }
  }

  /// The report inbox (admins), most recently opened case first (a reopened case counts from
  /// the report that reopened it).
  public func reportCases(
    status: ReportStatus?, _ request: PageRequest, as viewer: Viewer
  ) throws(DomainError) -> Page<ReportCase> {
    try viewer.requireAdmin()
    let paging = try Paging(request)
    return try read { db, _ in
      var sql = "SELECT * FROM report_case WHERE 1"
      var arguments: StatementArguments = []
      if let status {
        sql += " AND status = ?"
        arguments += [status]
      }
      return try paging.fetch(db, sql: sql, arguments, column: "opened_at") {
        try Moderation.reportCase(db, ReportCaseRecord(row: $0))
      }
    }
  }

  /// One case with all its reports, oldest first (admins).
  public func reportCase(
    _ id: ReportCase.ID, as viewer: Viewer
  ) throws(DomainError) -> ReportCaseDetail {
    try viewer.requireAdmin()
    let key = try PublicID.reportCase.require(id.rawValue)
    return try read { db, _ in
      let record = try ReportCaseRecord.find(db, key: key)
      let reports = try ReportRecord.fetchAll(
        db, sql: "SELECT * FROM report WHERE case_id = ? ORDER BY created_at, id",
        arguments: [key])
      return ReportCaseDetail(
        reportCase: try Moderation.reportCase(db, record), reports: reports.map(Moderation.report))
    }
  }

  /// Applies a moderator's decision to an open case (a resolved one is a `conflict`);
  /// reporters hear that their report was reviewed. The note takes up to 500 characters.
  public func resolveReportCase(
    _ id: ReportCase.ID, _ resolution: ReportResolution, note rawNote: String?, as viewer: Viewer
  ) throws(DomainError) -> ReportCase {
    try viewer.requireAdmin()
    let key = try PublicID.reportCase.require(id.rawValue)
    let note = try validated(rawNote, .moderatorNote(for: resolution))
    return try write { db, moment in
      var record = try ReportCaseRecord.find(db, key: key)
      guard record.status == .open else {
        throw DomainError.conflict("This case is already resolved.")
      }
      let target = try Moderation.target(
        db, ReportTarget(kind: record.targetType, id: record.targetId))
      if let target {
        try Moderation.setHidden(db, target, resolution != .dismiss, events: chatEvents)
      }
      // A withdrawn author has no account left to ban: the content is hidden all the same.
      if resolution == .banAuthor, let authorID = record.authorId,
        var author = try UserRecord.fetchOne(db, key: authorID), !author.isWithdrawn
      {
        try Admin.ban(db, &author, reason: note ?? "Reported content", until: nil)
      }
      record.status = .resolved
      record.resolution = resolution
      record.note = note
      record.resolvedAt = moment.millis
      try record.update(db)

      let reporters = try Int64.fetchAll(
        db, sql: "SELECT DISTINCT reporter_id FROM report WHERE case_id = ? AND status = ?",
        arguments: [key, ReportStatus.open])
      try db.execute(
        sql: "UPDATE report SET status = ? WHERE case_id = ? AND status = ?",
        arguments: [ReportStatus.resolved, key, ReportStatus.open])
      for reporter in reporters {
        try Notifications.notify(
          db, reporter, of: .reportReviewed, actor: viewer.key, now: moment.now)
      }
      return try Moderation.reportCase(db, record)
    }
  }
}
