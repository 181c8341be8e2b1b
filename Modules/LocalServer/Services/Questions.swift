import DTO
import Domain
import Foundation
import GRDB

/// Daily questions as members see them: one per Seoul day, future ones invisible.
enum Questions {
  /// `YYYY-MM-DD` as a sortable integer (20261121), the cursor key of question lists.
  static func dayNumber(_ day: String) -> Int64 {
    Int64(day.replacingOccurrences(of: "-", with: "")) ?? 0
  }

  /// The published question with `key` (publish date today or earlier), or 404.
  static func published(_ db: Database, _ key: Int64, today: CalendarDay) throws -> QuestionRecord {
    guard let question = try QuestionRecord.fetchOne(db, key: key),
      question.publishDate <= today.iso8601
    else { throw APIError.notFound("No question with id \(PublicID.question(key)).") }
    return question
  }

  static func dto(_ db: Database, _ question: QuestionRecord, viewer: Viewer) throws -> QuestionDTO
  {
    let count =
      try Int.fetchOne(
        db,
        sql: """
          SELECT COUNT(*) FROM answer WHERE question_id = ? AND deleted_at IS NULL AND NOT hidden
          """,
        arguments: [question.key]) ?? 0
    let mine = try AnswerRecord.fetchOne(
      db,
      sql: """
        SELECT * FROM answer WHERE question_id = ? AND author_id = ? AND deleted_at IS NULL
          AND NOT hidden
        """,
      arguments: [question.key, viewer.id])
    return QuestionDTO(
      id: PublicID.question(question.key), content: question.content,
      publishDate: question.publishDate, answerCount: count,
      myAnswer: try mine.map { try Answers.dto(db, $0, viewer: viewer) })
  }

  static func today(_ db: Database, viewer: Viewer, today: CalendarDay) throws -> QuestionDTO {
    guard
      let question = try QuestionRecord.filter(Column("publish_date") == today.iso8601).fetchOne(
        db)
    else { throw APIError.notFound("No question is published for today (\(today.iso8601)).") }
    return try dto(db, question, viewer: viewer)
  }

  /// Published questions, newest day first.
  static func list(
    _ db: Database, viewer: Viewer, today: CalendarDay, _ page: PageRequest
  ) throws
    -> PageDTO<QuestionDTO>
  {
    var sql = "SELECT * FROM question WHERE publish_date <= ?"
    var arguments: StatementArguments = [today.iso8601]
    if let cursor = page.cursor {
      sql += " AND (CAST(REPLACE(publish_date, '-', '') AS INTEGER) < ? OR "
      sql += "(CAST(REPLACE(publish_date, '-', '') AS INTEGER) = ? AND id < ?))"
      arguments += [cursor.key, cursor.key, cursor.id]
    }
    sql += " ORDER BY publish_date DESC, id DESC LIMIT ?"
    arguments += [page.limit + 1]
    let rows = try QuestionRecord.fetchAll(db, sql: sql, arguments: arguments)
    return try page.page(
      rows, sortKey: { Cursor(key: dayNumber($0.publishDate), id: $0.key) },
      item: { try dto(db, $0, viewer: viewer) })
  }
}

/// Answers: one per user and question, others' visible only after answering.
enum Answers {
  static func dto(_ db: Database, _ answer: AnswerRecord, viewer: Viewer) throws -> AnswerDTO {
    let author = try Users.any(db, answer.authorId)
    return AnswerDTO(
      id: PublicID.answer(answer.key), questionId: PublicID.question(answer.questionId),
      content: answer.content,
      authorNickname: author?.displayName ?? UserRecord.withdrawnName,
      isMine: answer.authorId == viewer.id, createdAt: Millis.date(answer.createdAt))
  }

  /// Answers to a published question, newest first; 403 `answer_required` until I answered.
  static func list(
    _ db: Database, questionKey: Int64, viewer: Viewer, today: CalendarDay, _ page: PageRequest
  ) throws -> PageDTO<AnswerDTO> {
    let question = try Questions.published(db, questionKey, today: today)
    let answered =
      try Int.fetchOne(
        db,
        sql:
          "SELECT COUNT(*) FROM answer WHERE question_id = ? AND author_id = ? AND deleted_at IS NULL",
        arguments: [question.key, viewer.id]) ?? 0
    guard answered > 0 else { throw APIError.answerRequired }
    var sql = "SELECT * FROM answer WHERE question_id = ? AND deleted_at IS NULL AND NOT hidden"
    var arguments: StatementArguments = [question.key]
    appendNewestFirst(&sql, &arguments, page)
    let rows = try AnswerRecord.fetchAll(db, sql: sql, arguments: arguments)
    return try page.page(
      rows, sortKey: { Cursor(key: $0.createdAt, id: $0.key) },
      item: { try dto(db, $0, viewer: viewer) })
  }

  /// My answers, newest first.
  static func mine(
    _ db: Database, _ viewer: Viewer, _ page: PageRequest
  ) throws
    -> PageDTO<AnswerDTO>
  {
    var sql = "SELECT * FROM answer WHERE author_id = ? AND deleted_at IS NULL AND NOT hidden"
    var arguments: StatementArguments = [viewer.id]
    appendNewestFirst(&sql, &arguments, page)
    let rows = try AnswerRecord.fetchAll(db, sql: sql, arguments: arguments)
    return try page.page(
      rows, sortKey: { Cursor(key: $0.createdAt, id: $0.key) },
      item: { try dto(db, $0, viewer: viewer) })
  }

  static func create(
    _ db: Database, questionKey: Int64, content: String, viewer: Viewer, now: Date,
    today: CalendarDay
  ) throws -> AnswerDTO {
    let question = try Questions.published(db, questionKey, today: today)
    let existing =
      try Int.fetchOne(
        db,
        sql:
          "SELECT COUNT(*) FROM answer WHERE question_id = ? AND author_id = ? AND deleted_at IS NULL",
        arguments: [question.key, viewer.id]) ?? 0
    guard existing == 0 else {
      throw APIError.conflict(
        "You already answered this question; delete your answer to rewrite it.")
    }
    var answer = AnswerRecord(
      questionId: question.key, authorId: viewer.id, content: content,
      createdAt: Millis.from(now))
    try answer.insert(db)
    return try dto(db, answer, viewer: viewer)
  }

  /// Deletes my answer (only the author may; hidden answers are 404 like elsewhere).
  static func delete(_ db: Database, key: Int64, viewer: Viewer, now: Date) throws {
    guard var answer = try AnswerRecord.fetchOne(db, key: key), answer.deletedAt == nil,
      !answer.hidden
    else { throw APIError.notFound("No answer with id \(PublicID.answer(key)).") }
    guard answer.authorId == viewer.id else {
      throw APIError.forbidden("Only the author can delete this answer.")
    }
    answer.deletedAt = Millis.from(now)
    try answer.update(db)
  }
}

/// Adds the keyset condition and order of a newest-first list on (created_at, id).
func appendNewestFirst(
  _ sql: inout String, _ arguments: inout StatementArguments, _ page: PageRequest,
  table: String? = nil
) {
  let prefix = table.map { "\($0)." } ?? ""
  if let cursor = page.cursor {
    sql += " AND (\(prefix)created_at < ? OR (\(prefix)created_at = ? AND \(prefix)id < ?))"
    arguments += [cursor.key, cursor.key, cursor.id]
  }
  sql += " ORDER BY \(prefix)created_at DESC, \(prefix)id DESC LIMIT ?"
  arguments += [page.limit + 1]
}

/// Adds the keyset condition and order of an oldest-first list on (created_at, id).
func appendOldestFirst(
  _ sql: inout String, _ arguments: inout StatementArguments, _ page: PageRequest,
  table: String? = nil
) {
  let prefix = table.map { "\($0)." } ?? ""
  if let cursor = page.cursor {
    sql += " AND (\(prefix)created_at > ? OR (\(prefix)created_at = ? AND \(prefix)id > ?))"
    arguments += [cursor.key, cursor.key, cursor.id]
  }
  sql += " ORDER BY \(prefix)created_at ASC, \(prefix)id ASC LIMIT ?"
  arguments += [page.limit + 1]
}
