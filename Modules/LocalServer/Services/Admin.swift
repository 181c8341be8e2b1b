import DTO
import Domain
import Foundation
import GRDB

/// The admin tool's operations: scheduled questions, users and bans, counts.
enum Admin {
  // MARK: Questions

  static func questionDTO(
    _ db: Database, _ question: QuestionRecord, today: CalendarDay
  ) throws
    -> AdminQuestionDTO
  {
    let answers =
      try Int.fetchOne(
        db, sql: "SELECT COUNT(*) FROM answer WHERE question_id = ? AND deleted_at IS NULL",
        arguments: [question.key]) ?? 0
    return AdminQuestionDTO(
      id: PublicID.question(question.key), content: question.content,
      publishDate: question.publishDate, answerCount: answers,
      createdAt: Millis.date(question.createdAt),
      status: question.publishDate > today.iso8601 ? .scheduled : .published)
  }

  /// Questions, latest publish date first, optionally only scheduled or published ones.
  static func questions(
    _ db: Database, status: QuestionStatus?, today: CalendarDay, _ page: PageRequest
  ) throws -> PageDTO<AdminQuestionDTO> {
    var sql = "SELECT * FROM question WHERE 1"
    var arguments: StatementArguments = []
    switch status {
    case .scheduled:
      sql += " AND publish_date > ?"
      arguments += [today.iso8601]
    case .published:
      sql += " AND publish_date <= ?"
      arguments += [today.iso8601]
    case nil: break
    }
    if let cursor = page.cursor {
      sql += " AND (CAST(REPLACE(publish_date, '-', '') AS INTEGER) < ? OR "
      sql += "(CAST(REPLACE(publish_date, '-', '') AS INTEGER) = ? AND id < ?))"
      arguments += [cursor.key, cursor.key, cursor.id]
    }
    sql += " ORDER BY publish_date DESC, id DESC LIMIT ?"
    arguments += [page.limit + 1]
    let rows = try QuestionRecord.fetchAll(db, sql: sql, arguments: arguments)
    return try page.page(
      rows, sortKey: { Cursor(key: Questions.dayNumber($0.publishDate), id: $0.key) },
      item: { try questionDTO(db, $0, today: today) })
  }

  private static func isDayTaken(
    _ db: Database, _ day: CalendarDay, except: Int64? = nil
  ) throws
    -> Bool
  {
    let owner = try Int64.fetchOne(
      db, sql: "SELECT id FROM question WHERE publish_date = ?", arguments: [day.iso8601])
    return owner != nil && owner != except
  }

  /// Schedules a question; one per day. A question for today is announced to everyone.
  static func createQuestion(
    _ db: Database, _ draft: QuestionDraft, now: Date, today: CalendarDay
  ) throws -> AdminQuestionDTO {
    guard try !isDayTaken(db, draft.publishDate) else {
      throw APIError.conflict("\(draft.publishDate.iso8601) already has a question.")
    }
    var question = QuestionRecord(
      content: draft.content, publishDate: draft.publishDate.iso8601, createdAt: Millis.from(now))
    try question.insert(db)
    if draft.publishDate == today {
      try Notifications.announceQuestion(db, question, now: now)
    }
    return try questionDTO(db, question, today: today)
  }

  private static func question(_ db: Database, _ key: Int64) throws -> QuestionRecord {
    guard let question = try QuestionRecord.fetchOne(db, key: key) else {
      throw APIError.notFound("No question with id \(PublicID.question(key)).")
    }
    return question
  }

  /// A published question with answers is history: it cannot change or go.
  private static func ensureEditable(
    _ db: Database, _ question: QuestionRecord, today: CalendarDay
  ) throws {
    guard question.publishDate <= today.iso8601 else { return }
    let answers =
      try Int.fetchOne(
        db, sql: "SELECT COUNT(*) FROM answer WHERE question_id = ? AND deleted_at IS NULL",
        arguments: [question.key]) ?? 0
    guard answers == 0 else {
      throw APIError.conflict(
        "This question is published and has answers; it can no longer be changed or deleted.")
    }
  }

  static func updateQuestion(
    _ db: Database, _ key: Int64, content: String?, day: CalendarDay?, now: Date,
    today: CalendarDay
  ) throws -> AdminQuestionDTO {
    var question = try question(db, key)
    try ensureEditable(db, question, today: today)
    if let day {
      guard try !isDayTaken(db, day, except: key) else {
        throw APIError.conflict("\(day.iso8601) already has a question.")
      }
      question.publishDate = day.iso8601
    }
    if let content { question.content = content }
    try question.update(db)
    return try questionDTO(db, question, today: today)
  }

  static func deleteQuestion(_ db: Database, _ key: Int64, today: CalendarDay) throws {
    let question = try question(db, key)
    try ensureEditable(db, question, today: today)
    try question.delete(db)
  }

  /// Imports `publish_date,content` rows; each bad row is reported with its line number and the
  /// good ones are imported, each in its own transaction.
  static func importQuestions(
    _ text: String, core: ServerCore
  ) async throws
    -> QuestionImportResultDTO
  {
    let records: [CSV.Record]
    do {
      records = try CSV.records(text)
    } catch {
      throw APIError.malformed("The CSV has a quote that never closes (line \(error.line)).")
    }
    guard let header = records.first else {
      throw APIError.malformed("The CSV is empty; send a header row publish_date,content.")
    }
    let names = header.fields.map {
      $0.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }
    guard names == ["publish_date", "content"] else {
      throw APIError.malformed(
        "The first row must be the header publish_date,content (got \(header.fields.joined(separator: ",")))."
      )
    }
    var imported = 0
    var errors: [QuestionImportResultDTO.LineErrorDTO] = []
    for record in records.dropFirst() {
      do {
        guard record.fields.count == 2 else {
          throw APIError.malformed(
            "Expected 2 fields (publish_date,content), found \(record.fields.count).")
        }
        let dayText = record.fields[0].trimmingCharacters(in: .whitespacesAndNewlines)
        let draft = try validate { () throws(ValidationError) in
          try QuestionDraft(content: record.fields[1], publishDate: CalendarDay(iso8601: dayText))
            .validated()
        }
        let (now, today) = (core.now, core.today)
        _ = try await core.write { db in
          try createQuestion(db, draft, now: now, today: today)
        }
        imported += 1
      } catch let error as APIError {
        var message = error.message
        if error.code == "conflict", let day = record.fields.first {
          message =
            "publish_date \(day.trimmingCharacters(in: .whitespaces)) already has a question."
        }
        errors.append(.init(line: record.line, message: message))
      }
    }
    return QuestionImportResultDTO(imported: imported, errors: errors)
  }

  // MARK: Users

  static func userDTO(_ db: Database, _ user: UserRecord, now: Date) throws -> AdminUserDTO {
    let reports =
      try Int.fetchOne(
        db,
        sql:
          "SELECT COUNT(*) FROM report r JOIN report_case c ON c.id = r.case_id WHERE c.author_id = ?",
        arguments: [user.key]) ?? 0
    let banned = user.isBanned(at: now)
    return AdminUserDTO(
      user: try Users.dto(db, user, now: now), reportCount: reports,
      bannedUntil: banned ? user.bannedUntil.map(Millis.date) : nil,
      banReason: banned ? user.banReason : nil)
  }

  /// Accounts (withdrawn ones left out), newest first, optionally by nickname.
  static func users(
    _ db: Database, query: String?, now: Date, _ page: PageRequest
  ) throws
    -> PageDTO<AdminUserDTO>
  {
    var sql = #"SELECT * FROM "user" WHERE withdrawn_at IS NULL"#
    var arguments: StatementArguments = []
    if let query {
      sql += " AND qapple_contains(nickname, ?)"
      arguments += [query]
    }
    if let cursor = page.cursor {
      sql += " AND (joined_at < ? OR (joined_at = ? AND id < ?))"
      arguments += [cursor.key, cursor.key, cursor.id]
    }
    sql += " ORDER BY joined_at DESC, id DESC LIMIT ?"
    arguments += [page.limit + 1]
    let rows = try UserRecord.fetchAll(db, sql: sql, arguments: arguments)
    return try page.page(
      rows, sortKey: { Cursor(key: $0.joinedAt, id: $0.key) },
      item: { try userDTO(db, $0, now: now) })
  }

  static func ban(
    _ db: Database, _ key: Int64, reason: String, until: Date?, admin: Viewer, now: Date
  ) throws -> AdminUserDTO {
    guard key != admin.id else {
      throw APIError.validation(field: "user_id", "You cannot ban yourself.")
    }
    var user = try Users.live(db, key)
    guard !user.isAdmin else { throw APIError.conflict("Admins cannot be banned.") }
    user.banned = true
    user.bannedUntil = until.map(Millis.from)
    user.banReason = reason
    try user.update(db)
    return try userDTO(db, user, now: now)
  }

  static func unban(_ db: Database, _ key: Int64, now: Date) throws -> AdminUserDTO {
    var user = try Users.live(db, key)
    user.banned = false
    user.bannedUntil = nil
    user.banReason = nil
    try user.update(db)
    return try userDTO(db, user, now: now)
  }

  // MARK: Stats

  static func stats(_ db: Database, now: Date) throws -> AdminStatsDTO {
    func count(_ sql: String, _ arguments: StatementArguments = []) throws -> Int {
      try Int.fetchOne(db, sql: sql, arguments: arguments) ?? 0
    }
    let millis = Millis.from(now)
    return AdminStatsDTO(
      users: try count(#"SELECT COUNT(*) FROM "user" WHERE withdrawn_at IS NULL"#),
      admins: try count(
        #"SELECT COUNT(*) FROM "user" WHERE withdrawn_at IS NULL AND role = 'admin'"#),
      bannedUsers: try count(
        #"""
        SELECT COUNT(*) FROM "user" WHERE withdrawn_at IS NULL AND banned
          AND (banned_until IS NULL OR banned_until > ?)
        """#, [millis]),
      questions: try count("SELECT COUNT(*) FROM question"),
      answers: try count("SELECT COUNT(*) FROM answer WHERE deleted_at IS NULL"),
      posts: try count("SELECT COUNT(*) FROM post WHERE deleted_at IS NULL"),
      comments: try count("SELECT COUNT(*) FROM comment WHERE deleted_at IS NULL"),
      openReports: try count("SELECT COUNT(*) FROM report_case WHERE status = 'open'"),
      hiddenContents: try count(
        """
        SELECT (SELECT COUNT(*) FROM answer WHERE hidden AND deleted_at IS NULL)
          + (SELECT COUNT(*) FROM post WHERE hidden AND deleted_at IS NULL)
          + (SELECT COUNT(*) FROM comment WHERE hidden AND deleted_at IS NULL)
          + (SELECT COUNT(*) FROM chat_message WHERE hidden)
        """),
      groups: try count("SELECT COUNT(*) FROM study_group"),
      messages: try count("SELECT COUNT(*) FROM chat_message"))
  }
}
