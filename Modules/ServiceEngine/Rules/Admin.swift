import Domain
import Foundation
import GRDB

/// The admin tool's operations: scheduled questions (one per day; a published question with
/// answers is history), CSV import, users and bans, counts (`Docs/Rules.md`, "Admin").
enum Admin {
  static func scheduled(
    _ db: Database, _ question: QuestionRecord, today: CalendarDay
  ) throws
    -> ScheduledQuestion
  {
    ScheduledQuestion(
      id: Question.ID(rawValue: PublicID.question(question.key)), content: question.content,
      publishDate: try CalendarDay(iso8601: question.publishDate),
      answerCount: try answerCount(db, question.key), createdAt: Millis.date(question.createdAt),
      status: question.publishDate > today.iso8601 ? .scheduled : .published)
  }

  /// The one ban rule, for an admin's ban and a report resolved with `banAuthor` alike: admins
  /// cannot be banned (`conflict`); `reason` is a checked ban reason, `until` the end or none.
  static func ban(_ db: Database, _ user: inout UserRecord, reason: String, until: Int64?) throws {
    guard !user.isAdmin else { throw DomainError.conflict("Admins cannot be banned.") }
    user.banned = true
    user.bannedUntil = until
    user.banReason = reason
    try user.update(db)
  }

  static func answerCount(_ db: Database, _ question: Int64) throws -> Int {
    try db.count(
      "SELECT COUNT(*) FROM answer WHERE question_id = ? AND deleted_at IS NULL", [question])
  }

  static func ensureDayFree(_ db: Database, _ day: CalendarDay, except: Int64? = nil) throws {
    let owner = try Int64.fetchOne(
      db, sql: "SELECT id FROM question WHERE publish_date = ?", arguments: [day.iso8601])
    if owner != nil && owner != except {
      throw QuestionDraft.dayTaken(day)
    }
  }

  /// A published question with answers is history: it cannot change or go.
  static func ensureEditable(_ db: Database, _ question: QuestionRecord, today: CalendarDay) throws
  {
    guard question.publishDate <= today.iso8601, try answerCount(db, question.key) > 0 else {
      return
    }
    throw DomainError.conflict(
      "This question is published and has answers; it can no longer be changed or deleted.")
  }

  static func create(
    _ db: Database, _ draft: QuestionDraft, moment: ServiceEngine.Moment
  ) throws -> ScheduledQuestion {
    try ensureDayFree(db, draft.publishDate)
    var question = QuestionRecord(
      content: draft.content, publishDate: draft.publishDate.iso8601, createdAt: moment.millis)
    try question.insert(db)
    if draft.publishDate == moment.today {
      try Notifications.announceQuestion(db, question, now: moment.now)
    }
    return try scheduled(db, question, today: moment.today)
  }

  static func adminUser(
    _ db: Database, _ user: UserRecord, _ moment: ServiceEngine.Moment
  ) throws -> AdminUser {
    let now = moment.now
    let reports =
      try db.count(
        "SELECT COUNT(*) FROM report r JOIN report_case c ON c.id = r.case_id WHERE c.author_id = ?",
        [user.key])
    let banned = user.isBanned(at: now)
    return AdminUser(
      user: try Users.user(db, user, moment), reportCount: reports,
      bannedUntil: banned ? user.bannedUntil.map(Millis.date) : nil,
      banReason: banned ? user.banReason : nil)
  }
}

extension ServiceEngine {
  /// Questions, latest publish date first, optionally only scheduled or published ones.
  public func scheduledQuestions(
    status: QuestionStatus?, _ request: PageRequest, as viewer: Viewer
  ) throws(DomainError) -> Page<ScheduledQuestion> {
    try viewer.requireAdmin()
    let paging = try Paging(request)
    return try read { db, moment in
      let condition: String =
        switch status {
        case .scheduled: "publish_date > ?"
        case .published: "publish_date <= ?"
        case nil: "? IS NOT NULL"
        }
      return try Questions.list(db, where: condition, [moment.today.iso8601], paging) {
        try Admin.scheduled(db, $0, today: moment.today)
      }
    }
  }

  /// Schedules a question (5-200 characters, one per day); one for today is announced to
  /// everyone.
  public func createQuestion(
    _ draft: QuestionDraft, as viewer: Viewer
  ) throws(DomainError) -> ScheduledQuestion {
    try viewer.requireAdmin()
    let draft = try validated(try draft.validated())
    return try write { db, moment in try Admin.create(db, draft, moment: moment) }
  }

  /// Edits a question's text and/or day (`nil` keeps it).
  public func updateQuestion(
    _ id: Question.ID, content: String?, publishDate: CalendarDay?, as viewer: Viewer
  ) throws(DomainError) -> ScheduledQuestion {
    try viewer.requireAdmin()
    let key = try PublicID.question.require(id.rawValue)
    let content = try content.map { text throws(DomainError) in
      try validated(try TextRule.question.validate(text))
    }
    return try write { db, moment in
      var question = try QuestionRecord.find(db, key: key)
      try Admin.ensureEditable(db, question, today: moment.today)
      if let publishDate, publishDate.iso8601 != question.publishDate {
        try Admin.ensureDayFree(db, publishDate, except: key)
        question.publishDate = publishDate.iso8601
        try Notifications.withdrawAnnouncements(db, of: key)
      }
      if let content, content != question.content {
        question.content = content
        try Notifications.rewordAnnouncements(db, of: question)
      }
      try question.update(db)
      return try Admin.scheduled(db, question, today: moment.today)
    }
  }

  /// Deletes a question that is not yet history.
  public func deleteQuestion(_ id: Question.ID, as viewer: Viewer) throws(DomainError) {
    try viewer.requireAdmin()
    let key = try PublicID.question.require(id.rawValue)
    try write { db, moment in
      let question = try QuestionRecord.find(db, key: key)
      try Admin.ensureEditable(db, question, today: moment.today)
      try Notifications.withdrawAnnouncements(db, of: key)
      try question.delete(db)
    }
  }

  /// Imports `publish_date,content` rows, read by ``Domain/QuestionImportFile`` (the rule the
  /// admin tool's preview shows). A file that cannot be read at all (not UTF-8, empty, an
  /// unclosed quote, a wrong header) is refused whole; otherwise each bad row (a validation or
  /// `conflict` refusal) is reported with its line number and the good ones are imported, each
  /// in its own transaction. Any other failure (the database) ends the import and is thrown:
  /// it says nothing of the row, and the rows after it would fail alike.
  public func importQuestions(
    _ data: Data, as viewer: Viewer
  ) throws(DomainError)
    -> QuestionImportResult
  {
    try viewer.requireAdmin()
    // Field `request`: the upload as a whole is unreadable (HTTP's `malformed_request`).
    let file = try validated(try QuestionImportFile(parsing: data))
    var imported = 0
    var errors: [QuestionImportResult.LineError] = []
    for line in file.lines {
      do throws(DomainError) {
        let draft = try validated(try line.draft.get())
        _ = try write { db, moment in try Admin.create(db, draft, moment: moment) }
        imported += 1
      } catch {
        switch error {
        case .validation, .conflict:
          errors.append(.init(line: line.number, message: error.description))
        default:
          throw error
        }
      }
    }
    return QuestionImportResult(imported: imported, errors: errors)
  }

  /// Accounts (withdrawn ones left out), newest first, optionally by nickname (`query` up to
  /// 100 characters).
  public func adminUsers(
    matching query: String?, _ request: PageRequest, as viewer: Viewer
  ) throws(DomainError) -> Page<AdminUser> {
    try viewer.requireAdmin()
    let paging = try Paging(request)
    let filter = try validated(query, .search)
    return try read { db, moment in
      var sql = #"SELECT * FROM "user" WHERE withdrawn_at IS NULL"#
      var arguments: StatementArguments = []
      if let filter {
        sql += " AND qapple_contains(nickname, ?)"
        arguments += [filter]
      }
      return try paging.fetch(db, sql: sql, arguments, column: "joined_at") {
        try Admin.adminUser(db, UserRecord(row: $0), moment)
      }
    }
  }

  /// Bans a member from writing, until a future date or without end; admins cannot be banned
  /// and nobody bans themselves.
  public func banUser(
    _ id: User.ID, reason text: String, until: Date?, as viewer: Viewer
  ) throws(DomainError) -> AdminUser {
    try viewer.requireAdmin()
    let key = try PublicID.user.require(id.rawValue)
    let reason = try validated(try TextRule.banReason.validate(text))
    if let until, until <= now {
      throw .validation(.invalidFormat(field: "until", expected: "a time in the future"))
    }
    try viewer.requireOther(key)
    return try write { db, moment in
      var user = try Users.live(db, key)
      try Admin.ban(db, &user, reason: reason, until: until.map(Millis.from))
      return try Admin.adminUser(db, user, moment)
    }
  }

  /// Lifts a ban.
  public func unbanUser(_ id: User.ID, as viewer: Viewer) throws(DomainError) -> AdminUser {
    try viewer.requireAdmin()
    let key = try PublicID.user.require(id.rawValue)
    return try write { db, moment in
      var user = try Users.live(db, key)
      user.banned = false
      user.bannedUntil = nil
      user.banReason = nil
      try user.update(db)
      return try Admin.adminUser(db, user, moment)
    }
  }

  /// Dashboard counts.
  public func adminStats(as viewer: Viewer) throws(DomainError) -> AdminStats {
    try viewer.requireAdmin()
    return try read { db, moment in
      return AdminStats(
        users: try db.count(#"SELECT COUNT(*) FROM "user" WHERE withdrawn_at IS NULL"#),
        admins: try db.count(
          #"SELECT COUNT(*) FROM "user" WHERE withdrawn_at IS NULL AND role = ?"#,
          [UserRole.admin]),
        bannedUsers: try db.count(
          #"""
          SELECT COUNT(*) FROM "user" WHERE withdrawn_at IS NULL AND banned
            AND (banned_until IS NULL OR banned_until > ?)
          """#, [moment.millis]),
        questions: try db.count("SELECT COUNT(*) FROM question"),
        answers: try db.count("SELECT COUNT(*) FROM answer WHERE deleted_at IS NULL"),
        posts: try db.count("SELECT COUNT(*) FROM post WHERE deleted_at IS NULL"),
        comments: try db.count("SELECT COUNT(*) FROM comment WHERE deleted_at IS NULL"),
        openReports: try db.count(
          "SELECT COUNT(*) FROM report_case WHERE status = ?", [ReportStatus.open]),
        hiddenContents: try db.count(
          """
          SELECT (SELECT COUNT(*) FROM answer WHERE hidden AND deleted_at IS NULL)
            + (SELECT COUNT(*) FROM post WHERE hidden AND deleted_at IS NULL)
            + (SELECT COUNT(*) FROM comment WHERE hidden AND deleted_at IS NULL)
            + (SELECT COUNT(*) FROM chat_message WHERE hidden)
          """),
        groups: try db.count("SELECT COUNT(*) FROM study_group"),
        messages: try db.count("SELECT COUNT(*) FROM chat_message"))
    }
  }
}
