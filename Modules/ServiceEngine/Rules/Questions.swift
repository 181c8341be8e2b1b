import Domain
import Foundation
import GRDB

/// Daily questions as members see them: one per day in the service's time zone, future ones
/// invisible; answers are one per user and question, others' visible only after answering
/// (`Docs/Rules.md`, "Questions and answers").
enum Questions {
  /// A `publish_date` (`YYYY-MM-DD`) as a sortable integer (20261121), the cursor key of
  /// question lists.
  static let dayNumberSQL = "CAST(REPLACE(publish_date, '-', '') AS INTEGER)"

  /// The published question with `key` (publish date today or earlier), or `notFound`.
  static func published(_ db: Database, _ key: Int64, today: CalendarDay) throws -> QuestionRecord {
    guard let question = try QuestionRecord.fetchOne(db, key: key),
      question.publishDate <= today.iso8601
    else { throw DomainError.notFound }
    return question
  }

  static func question(
    _ db: Database, _ question: QuestionRecord, viewer: Viewer
  ) throws
    -> Question
  {
    let count =
      try db.count(
        """
        SELECT COUNT(*) FROM answer WHERE question_id = ? AND deleted_at IS NULL AND NOT hidden
        """, [question.key])
    let mine = try visibleAnswer(db, question: question.key, by: viewer.key)
    return Question(
      id: Question.ID(rawValue: PublicID.question(question.key)), content: question.content,
      publishDate: try CalendarDay(iso8601: question.publishDate), answerCount: count,
      myAnswer: try mine.map { try answer(db, $0, viewer: viewer) })
  }

  static func answer(_ db: Database, _ answer: AnswerRecord, viewer: Viewer) throws -> Answer {
    let author = try UserRecord.fetchOne(db, key: answer.authorId)
    return Answer(
      id: Answer.ID(rawValue: PublicID.answer(answer.key)),
      questionID: Question.ID(rawValue: PublicID.question(answer.questionId)),
      content: answer.content, authorNickname: author?.displayName ?? UserRecord.withdrawnName,
      isMine: answer.authorId == viewer.key, createdAt: Millis.date(answer.createdAt))
  }

  /// The visible answer of `user` to `question`, if any (deleted and hidden ones do not count).
  static func visibleAnswer(_ db: Database, question: Int64, by user: Int64) throws -> AnswerRecord?
  {
    try AnswerRecord.fetchOne(
      db,
      sql: """
        SELECT * FROM answer
        WHERE question_id = ? AND author_id = ? AND deleted_at IS NULL AND NOT hidden
        """,
      arguments: [question, user])
  }

  /// Whether `user` has a visible answer to `question`.
  static func hasAnswered(_ db: Database, question: Int64, user: Int64) throws -> Bool {
    try visibleAnswer(db, question: question, by: user) != nil
  }

  /// Questions newest day first, from `where` (a condition on `question`).
  static func list<Item: Sendable>(
    _ db: Database, where condition: String, _ arguments: StatementArguments, _ paging: Paging,
    item: (QuestionRecord) throws -> Item
  ) throws -> Page<Item> {
    try paging.fetch(
      db, sql: "SELECT * FROM question WHERE \(condition)", arguments, column: dayNumberSQL
    ) { try item(QuestionRecord(row: $0)) }
  }

  /// Answers newest first, from `where` (a condition on `answer`).
  static func answers(
    _ db: Database, where condition: String, _ arguments: StatementArguments, _ paging: Paging,
    viewer: Viewer
  ) throws -> Page<Answer> {
    try paging.fetch(
      db, sql: "SELECT * FROM answer WHERE deleted_at IS NULL AND NOT hidden AND \(condition)",
      arguments
    ) { try answer(db, AnswerRecord(row: $0), viewer: viewer) }
  }
}

extension ServiceEngine {
  /// Today's question, with the viewer's answer if any; `notFound` when none is out today.
  public func todaysQuestion(as viewer: Viewer) throws(DomainError) -> Question {
    try read { db, moment in
      guard
        let question = try QuestionRecord.filter(Column("publish_date") == moment.today.iso8601)
          .fetchOne(db)
      else { throw DomainError.notFound }
      return try Questions.question(db, question, viewer: viewer)
    }
  }

  /// Published questions, newest day first.
  public func questions(
    _ request: PageRequest, as viewer: Viewer
  ) throws(DomainError)
    -> Page<Question>
  {
    let paging = try Paging(request)
    return try read { db, moment in
      try Questions.list(db, where: "publish_date <= ?", [moment.today.iso8601], paging) {
        try Questions.question(db, $0, viewer: viewer)
      }
    }
  }

  /// One published question; scheduled ones are `notFound`.
  public func question(_ id: Question.ID, as viewer: Viewer) throws(DomainError) -> Question {
    let key = try PublicID.question.require(id.rawValue)
    return try read { db, moment in
      try Questions.question(
        db, try Questions.published(db, key, today: moment.today), viewer: viewer)
    }
  }

  /// Answers to a published question, newest first; `answerRequired` until the viewer answered.
  public func answers(
    of id: Question.ID, _ request: PageRequest, as viewer: Viewer
  ) throws(DomainError) -> Page<Answer> {
    let key = try PublicID.question.require(id.rawValue)
    let paging = try Paging(request)
    return try read { db, moment in
      let question = try Questions.published(db, key, today: moment.today)
      guard try Questions.hasAnswered(db, question: question.key, user: viewer.key) else {
        throw DomainError.answerRequired
      }
      return try Questions.answers(
        db, where: "question_id = ?", [question.key], paging, viewer: viewer)
    }
  }

  /// The viewer's answers, newest first.
  public func myAnswers(
    _ request: PageRequest, as viewer: Viewer
  ) throws(DomainError)
    -> Page<Answer>
  {
    let paging = try Paging(request)
    return try read { db, _ in
      try Questions.answers(db, where: "author_id = ?", [viewer.key], paging, viewer: viewer)
    }
  }

  /// Answers a published question (1-250 characters as users count them), once per question.
  public func submitAnswer(
    to id: Question.ID, content text: String, as viewer: Viewer
  ) throws(DomainError) -> Answer {
    let key = try PublicID.question.require(id.rawValue)
    try viewer.requireNotBanned(at: now)
    let content = try validated(try TextRule.answer.validate(text))
    return try write { db, moment in
      let question = try Questions.published(db, key, today: moment.today)
      guard try !Questions.hasAnswered(db, question: question.key, user: viewer.key) else {
        throw DomainError.conflict(
          "You already answered this question; delete your answer to rewrite it.")
      }
      // A hidden answer does not count; the new one takes its place for good.
      try db.execute(
        sql: """
          UPDATE answer SET deleted_at = ?
          WHERE question_id = ? AND author_id = ? AND deleted_at IS NULL AND hidden
          """,
        arguments: [moment.millis, question.key, viewer.key])
      var answer = AnswerRecord(
        questionId: question.key, authorId: viewer.key, content: content,
        createdAt: moment.millis)
      try answer.insert(db)
      return try Questions.answer(db, answer, viewer: viewer)
    }
  }

  /// Deletes the viewer's answer (only the author may; hidden answers are `notFound`).
  public func deleteAnswer(_ id: Answer.ID, as viewer: Viewer) throws(DomainError) {
    let key = try PublicID.answer.require(id.rawValue)
    try viewer.requireNotBanned(at: now)
    try write { db, moment in
      guard var answer = try AnswerRecord.fetchOne(db, key: key), answer.deletedAt == nil,
        !answer.hidden
      else { throw DomainError.notFound }
      guard answer.authorId == viewer.key else { throw DomainError.forbidden }
      answer.deletedAt = moment.millis
      try answer.update(db)
    }
  }
}
