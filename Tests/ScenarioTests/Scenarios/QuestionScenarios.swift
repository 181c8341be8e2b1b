import Domain
import Foundation
import Repositories
import Testing

/// Today's question and its answers, and the admin's question schedule.
enum QuestionScenarios {
  /// Answers stay hidden until you answered; 251 characters are refused naming `content`; one
  /// answer per question (the second is a conflict); your answers list shows it.
  static func answerFlow(_ backend: any ScenarioBackend) async throws {
    let admin = try await backend.makeAdmin()
    let question = try await backend.publishTodayQuestion(by: admin)
    #expect(question.status == .published)
    let alice = try await backend.makeMember(nickname: "alice")
    let bob = try await backend.makeMember(nickname: "bob")

    let today = try await alice.questions.fetchToday()
    #expect(today.id == question.id)
    #expect(today.publishDate == backend.today)
    #expect(today.myAnswer == nil)
    #expect(today.answerCount == 0)
    await #expect(throws: DomainError.answerRequired) {
      try await alice.questions.fetchAnswers(question.id, .first)
    }

    await #expect(
      throws: DomainError.validation(.tooLong(field: "content", maximum: 250, actual: 251))
    ) {
      try await alice.questions.submitAnswer(question.id, String(repeating: "a", count: 251))
    }
    await #expect(throws: DomainError.validation(.empty(field: "content"))) {
      try await alice.questions.submitAnswer(question.id, "   ")
    }

    let answer = try await alice.questions.submitAnswer(
      question.id, "  Off-by-one errors hide in pagination.  ")
    #expect(answer.content == "Off-by-one errors hide in pagination.")
    #expect(answer.questionID == question.id)
    #expect(answer.authorNickname == "alice")
    #expect(answer.isMine)
    await expectConflict("a second answer to the same question") {
      try await alice.questions.submitAnswer(question.id, "Another thought")
    }

    // Bob still cannot read; once he answered he sees both, newest first.
    await #expect(throws: DomainError.answerRequired) {
      try await bob.questions.fetchAnswers(question.id, .first)
    }
    let bobsAnswer = try await bob.questions.submitAnswer(question.id, "Read the logs first.")
    let answers = try await bob.questions.fetchAnswers(question.id, .first)
    #expect(answers.items.map(\.id) == [bobsAnswer.id, answer.id])
    #expect(answers.items.map(\.isMine) == [true, false])
    #expect(answers.items.map(\.authorNickname) == ["bob", "alice"])
    #expect(answers.nextCursor == nil)

    let aliceToday = try await alice.questions.fetchToday()
    #expect(aliceToday.myAnswer?.id == answer.id)
    #expect(aliceToday.answerCount == 2)
    let mine = try await alice.profile.fetchMyAnswers(.first)
    #expect(mine.items.map(\.id) == [answer.id])
    #expect(try await alice.profile.fetchMe().answerCount == 1)

    // Only the author deletes an answer.
    await #expect(throws: DomainError.forbidden) {
      try await bob.questions.deleteAnswer(answer.id)
    }
  }

  /// An answer hidden by moderation does not count: its author no longer sees others' answers
  /// and may answer again; the new answer takes the hidden one's place.
  static func hiddenAnswer(_ backend: any ScenarioBackend) async throws {
    let admin = try await backend.makeAdmin()
    let question = try await backend.publishTodayQuestion(by: admin)
    let alice = try await backend.makeMember(nickname: "alice")
    let bob = try await backend.makeMember(nickname: "bob")
    let rude = try await alice.questions.submitAnswer(question.id, "Something rude")
    _ = try await bob.questions.submitAnswer(question.id, "Read the logs first.")
    _ = try await bob.reports.report(.answer(rude.id), .abuse)
    let reportCase = try #require(
      try await admin.admin.fetchReportCases(.open, .first).items.first)
    _ = try await admin.admin.resolveReportCase(reportCase.id, .hideContent, nil)

    #expect(try await alice.questions.fetchToday().myAnswer == nil)
    #expect(try await alice.profile.fetchMe().answerCount == 0)
    await #expect(throws: DomainError.answerRequired) {
      try await alice.questions.fetchAnswers(question.id, .first)
    }
    await #expect(throws: DomainError.notFound) { try await alice.questions.deleteAnswer(rude.id) }
    let kind = try await alice.questions.submitAnswer(question.id, "Read the error slowly.")
    #expect(try await alice.questions.fetchToday().myAnswer?.id == kind.id)
    #expect(try await alice.questions.fetchAnswers(question.id, .first).items.count == 2)
    #expect(try await alice.profile.fetchMe().answerCount == 1)
    #expect(try await alice.profile.fetchMyAnswers(.first).items.map(\.id) == [kind.id])
  }

  /// One question per day (a second is a conflict), scheduled vs published, a CSV import with
  /// one bad line, and stats that count all of it.
  static func adminSchedule(_ backend: any ScenarioBackend) async throws {
    let admin = try await backend.makeAdmin()
    _ = try await backend.makeMember(nickname: "alice")
    let today = backend.today

    let scheduled = try await admin.admin.createQuestion(
      QuestionDraft(content: "What will you build next week?", publishDate: today.adding(days: 3)))
    #expect(scheduled.status == .scheduled)
    #expect(scheduled.publishDate == today.adding(days: 3))
    await expectConflict("a second question for the same day") {
      try await admin.admin.createQuestion(
        QuestionDraft(content: "Another question that day?", publishDate: today.adding(days: 3)))
    }
    let published = try await backend.publishTodayQuestion(by: admin)
    #expect(published.status == .published)

    let csv = """
      publish_date,content
      \(today.adding(days: 10)),"Which bug taught you the most, and why?"
      \(today.adding(days: 11)),What is your favourite Swift feature?
      2026-02-30,This day does not exist
      \(today.adding(days: 12)),"Quoted, with a comma: does it import?"

      """
    let result = try await admin.admin.importQuestions(Data(csv.utf8))
    #expect(result.imported == 3)
    #expect(result.errors.map(\.line) == [4])
    #expect(result.errors.first?.message.isEmpty == false)

    let all = try await admin.admin.fetchQuestions(nil, PageRequest(limit: 100))
    #expect(all.items.count == 5)
    let scheduledList = try await admin.admin.fetchQuestions(.scheduled, PageRequest(limit: 100))
    #expect(
      Set(scheduledList.items.map(\.publishDate)) == [
        today.adding(days: 3), today.adding(days: 10), today.adding(days: 11),
        today.adding(days: 12),
      ])
    let publishedList = try await admin.admin.fetchQuestions(.published, PageRequest(limit: 100))
    #expect(publishedList.items.map(\.id) == [published.id])
    #expect(
      all.items.first { $0.publishDate == today.adding(days: 12) }?.content
        == "Quoted, with a comma: does it import?")

    let stats = try await admin.admin.fetchStats()
    #expect(stats.questions == 5)
    #expect(stats.users == 2)
    #expect(stats.admins == 1)
    #expect(stats.answers == 0)
    #expect(stats.posts == 0)
    #expect(stats.openReports == 0)
  }
}
