import Domain
import Foundation

// Admin tools: scheduled questions and CSV import, users and bans, dashboard counts.
// (The report inbox and decisions are in State+Reports.swift.)

extension BackendState {
  func status(of question: QuestionRecord) -> QuestionStatus {
    isPublished(question) ? .published : .scheduled
  }

  func scheduledView(_ question: QuestionRecord) -> ScheduledQuestion {
    ScheduledQuestion(
      id: question.id, content: question.content, publishDate: question.publishDate,
      answerCount: answers.values.count(where: { $0.questionID == question.id }),
      createdAt: question.createdAt, status: status(of: question))
  }

  /// Whether another question is set for `day`.
  func isDayTaken(_ day: CalendarDay, except: Question.ID? = nil) -> Bool {
    questions.values.contains { $0.publishDate == day && $0.id != except }
  }

  static func dayTaken(_ day: CalendarDay) -> DomainError {
    .conflict("There is already a question for \(day). Choose another day.")
  }

  /// Stores a question; a question for today is announced at once.
  mutating func insertQuestion(content: String, publishDate: CalendarDay) -> QuestionRecord {
    let question = QuestionRecord(
      id: makeID("q"), content: content, publishDate: publishDate, createdAt: now,
      order: nextOrder())
    questions[question.id] = question
    if publishDate == today { announce(question) }
    return question
  }

  // MARK: - Questions

  func fetchAdminQuestions(
    status: QuestionStatus?, page: PageRequest
  ) throws(DomainError) -> Page<ScheduledQuestion> {
    try paginate(
      questions.values.filter { status == nil || self.status(of: $0) == status },
      by: { .day($0.publishDate, $0.order) }, .descending, page
    ).map(scheduledView)
  }

  mutating func createQuestion(
    _ draft: QuestionDraft, admin: User.ID
  ) throws(DomainError) -> ScheduledQuestion {
    let valid = try validating { () throws(ValidationError) in try draft.validated() }
    guard !isDayTaken(valid.publishDate) else { throw Self.dayTaken(valid.publishDate) }
    return scheduledView(
      insertQuestion(content: valid.content, publishDate: valid.publishDate))
  }

  /// Published questions with answers are history and cannot change.
  func checkEditable(_ question: QuestionRecord) throws(DomainError) {
    if isPublished(question), answers.values.contains(where: { $0.questionID == question.id }) {
      throw .conflict("This question is published and has answers; it can no longer change.")
    }
  }

  mutating func updateQuestion(
    _ id: Question.ID, draft: QuestionDraft, admin: User.ID
  ) throws(DomainError) -> ScheduledQuestion {
    guard var question = questions[id] else { throw .notFound }
    try checkEditable(question)
    let valid = try validating { () throws(ValidationError) in try draft.validated() }
    guard !isDayTaken(valid.publishDate, except: id) else { throw Self.dayTaken(valid.publishDate) }
    question.content = valid.content
    question.publishDate = valid.publishDate
    questions[id] = question
    return scheduledView(question)
  }

  mutating func deleteQuestion(_ id: Question.ID) throws(DomainError) {
    guard let question = questions[id] else { throw .notFound }
    try checkEditable(question)
    questions[id] = nil
    answers = answers.filter { $0.value.questionID != id }
  }

  /// Imports `publish_date,content` rows: good rows are added, each bad one is reported with
  /// its line number. A file the server cannot read at all (not UTF-8, empty, an unclosed
  /// quote, a wrong header) is refused whole, as the server's `malformed_request` reaches the
  /// live repositories: a validation error on the field "request".
  mutating func importQuestions(
    _ data: Data, admin: User.ID
  ) throws(DomainError) -> QuestionImportResult {
    func malformed(_ expected: String) -> DomainError {
      .validation(.invalidFormat(field: "request", expected: expected))
    }
    guard let text = String(data: data, encoding: .utf8) else {
      throw malformed("a CSV file in UTF-8")
    }
    guard !text.trimmingCharacters(in: .whitespacesAndNewlines.union(["\u{FEFF}"])).isEmpty
    else { throw malformed("a CSV file with the header row publish_date,content") }
    var records: [CSV.Record]
    do {
      records = try CSV.records(in: text)
    } catch {
      throw malformed("a CSV file whose quotes close (the quote on line \(error.line) does not)")
    }
    guard !records.isEmpty else {
      throw malformed("a CSV file with the header row publish_date,content")
    }
    let header = records.removeFirst()
    let columns = header.fields.map {
      $0.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }
    guard columns == ["publish_date", "content"] else {
      throw malformed("a CSV file whose first row is the header publish_date,content")
    }
    var imported = 0
    var errors: [QuestionImportResult.LineError] = []
    for record in records {
      guard record.fields.count == 2 else {
        errors.append(
          .init(
            line: record.line,
            message: "Expected 2 fields (publish_date,content), found \(record.fields.count)."))
        continue
      }
      do throws(ValidationError) {
        let day = try CalendarDay(
          iso8601: record.fields[0].trimmingCharacters(in: .whitespacesAndNewlines))
        let draft = try QuestionDraft(content: record.fields[1], publishDate: day).validated()
        guard !isDayTaken(day) else {
          errors.append(
            .init(line: record.line, message: "publish_date \(day) already has a question."))
          continue
        }
        _ = insertQuestion(content: draft.content, publishDate: day)
        imported += 1
      } catch {
        errors.append(.init(line: record.line, message: error.description))
      }
    }
    return QuestionImportResult(imported: imported, errors: errors)
  }

  // MARK: - Users

  /// How many reports concern the user: of their content or of them.
  func reportCount(concerning userID: User.ID) -> Int {
    let caseIDs = Set(
      cases.values.filter { targetInfo($0).authorID == userID }.map(\.id))
    return reports.values.count(where: { caseIDs.contains($0.caseID) })
  }

  func adminUserView(_ record: UserRecord) -> AdminUser {
    let banned = record.isBanned(at: now)
    return AdminUser(
      user: userView(record), reportCount: reportCount(concerning: record.id),
      bannedUntil: banned ? record.ban?.until : nil, banReason: banned ? record.ban?.reason : nil)
  }

  func fetchUsers(query: String?, page: PageRequest) throws(DomainError) -> Page<AdminUser> {
    let text = query.flatMap(Self.trimmedOrNil)
    let matching = users.values.filter { user in
      text.map { user.nickname.range(of: $0, options: .caseInsensitive) != nil } ?? true
    }
    return try paginate(matching, by: { .date($0.joinedAt, $0.order) }, .descending, page)
      .map(adminUserView)
  }

  mutating func banUser(
    _ id: User.ID, reason: String, until: Date?, admin: User.ID
  ) throws(DomainError) -> AdminUser {
    guard id != admin else {
      throw .validation(.invalidFormat(field: "user_id", expected: "someone other than yourself"))
    }
    guard var record = users[id] else { throw .notFound }
    guard !record.role.isAdmin else {
      throw .conflict("Admins cannot be banned. Remove the admin role first.")
    }
    let reason = try validating { () throws(ValidationError) in
      try TextRule.banReason.validate(reason)
    }
    if let until, until <= now {
      throw .validation(.invalidFormat(field: "until", expected: "a time in the future"))
    }
    record.ban = UserRecord.Ban(reason: reason, until: until)
    users[id] = record
    return adminUserView(record)
  }

  mutating func unbanUser(_ id: User.ID) throws(DomainError) -> AdminUser {
    guard var record = users[id] else { throw .notFound }
    record.ban = nil
    users[id] = record
    return adminUserView(record)
  }

  // MARK: - Stats

  func stats() -> AdminStats {
    let messages = rooms.values.flatMap(\.messages)
    let hidden =
      posts.values.count(where: \.isHidden) + comments.values.count(where: \.isHidden)
      + answers.values.count(where: \.isHidden) + messages.count(where: \.isHidden)
    return AdminStats(
      users: users.count, admins: users.values.count(where: { $0.role.isAdmin }),
      bannedUsers: users.values.count(where: { $0.isBanned(at: now) }),
      questions: questions.count, answers: answers.count, posts: posts.count,
      comments: comments.count, openReports: cases.values.count(where: { $0.status == .open }),
      hiddenContents: hidden, groups: groups.count, messages: messages.count)
  }
}
