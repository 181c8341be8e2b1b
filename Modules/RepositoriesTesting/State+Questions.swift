import Domain
import Foundation

// Daily questions and answers: one question per Seoul day, answers hidden until you answered.

extension BackendState {
  /// Whether members can see the question (its day has come).
  func isPublished(_ question: QuestionRecord) -> Bool { question.publishDate <= today }

  /// Answers members can see.
  func visibleAnswers(of question: Question.ID) -> [AnswerRecord] {
    answers.values.filter { $0.questionID == question && !$0.isHidden }
  }

  func questionView(_ question: QuestionRecord, viewer: User.ID) -> Question {
    let visible = visibleAnswers(of: question.id)
    let mine = visible.first { $0.authorID == viewer }
    return Question(
      id: question.id, content: question.content, publishDate: question.publishDate,
      answerCount: visible.count, myAnswer: mine.map { answerView($0, viewer: viewer) })
  }

  func answerView(_ answer: AnswerRecord, viewer: User.ID) -> Answer {
    Answer(
      id: answer.id, questionID: answer.questionID, content: answer.content,
      authorNickname: nickname(of: answer.authorID), isMine: answer.authorID == viewer,
      createdAt: answer.createdAt)
  }

  /// A question members can see, else `notFound`.
  func publishedQuestion(_ id: Question.ID) throws(DomainError) -> QuestionRecord {
    guard let question = questions[id], isPublished(question) else { throw .notFound }
    return question
  }

  /// Tells every account that `question` is today's question, like the server does when an
  /// admin creates (or imports, or seeds) a question for today. The announcement is an event
  /// of the service, not of the admin, so the admin who wrote it hears of it too. Questions
  /// scheduled for later are not announced when their day comes (the server does not either).
  mutating func announce(_ question: QuestionRecord) {
    for user in users.values.sorted(by: { $0.order < $1.order }) {
      notify(
        user.id, .newQuestion(question.id), message: "Today's question is out: \(question.content)")
    }
  }

  // MARK: - Endpoints

  func fetchToday(viewer: User.ID) throws(DomainError) -> Question {
    guard let question = questions.values.first(where: { $0.publishDate == today }) else {
      throw .notFound
    }
    return questionView(question, viewer: viewer)
  }

  func fetchQuestions(viewer: User.ID, page: PageRequest) throws(DomainError) -> Page<Question> {
    try paginate(
      questions.values.filter(isPublished), by: { .day($0.publishDate, $0.order) }, .descending,
      page
    ).map { questionView($0, viewer: viewer) }
  }

  func fetchQuestion(_ id: Question.ID, viewer: User.ID) throws(DomainError) -> Question {
    questionView(try publishedQuestion(id), viewer: viewer)
  }

  func fetchAnswers(
    of id: Question.ID, viewer: User.ID, page: PageRequest
  ) throws(DomainError) -> Page<Answer> {
    _ = try publishedQuestion(id)
    guard answers.values.contains(where: { $0.questionID == id && $0.authorID == viewer }) else {
      throw .answerRequired
    }
    return try paginate(
      visibleAnswers(of: id), by: { .date($0.createdAt, $0.order) }, .descending, page
    ).map { answerView($0, viewer: viewer) }
  }

  mutating func submitAnswer(
    to id: Question.ID, content: String, author: User.ID
  ) throws(DomainError) -> Answer {
    let text = try validating { () throws(ValidationError) in try Answer.validate(content: content)
    }
    _ = try publishedQuestion(id)
    guard !answers.values.contains(where: { $0.questionID == id && $0.authorID == author }) else {
      throw .conflict("You already answered this question. Delete your answer to write a new one.")
    }
    let answer = AnswerRecord(
      id: makeID("a"), questionID: id, authorID: author, content: text, createdAt: now,
      order: nextOrder())
    answers[answer.id] = answer
    return answerView(answer, viewer: author)
  }

  mutating func deleteAnswer(_ id: Answer.ID, by userID: User.ID) throws(DomainError) {
    guard let answer = answers[id], !answer.isHidden else { throw .notFound }
    guard answer.authorID == userID else { throw .forbidden }
    answers[id] = nil
  }

  func fetchMyAnswers(viewer: User.ID, page: PageRequest) throws(DomainError) -> Page<Answer> {
    try paginate(
      answers.values.filter { $0.authorID == viewer && !$0.isHidden },
      by: { .date($0.createdAt, $0.order) }, .descending, page
    ).map { answerView($0, viewer: viewer) }
  }
}
