import Domain
import Foundation
import Repositories
import RepositoriesTesting
import Testing

@Suite("Fake questions and answers")
struct QuestionTests {
  @Test("no question for today is notFound")
  func noQuestionToday() async throws {
    let (_, alice, _, _) = try makeCast()
    await #expect(throws: DomainError.notFound) { _ = try await alice.questions.fetchToday() }
  }

  @Test("answers stay hidden until you answered, then show with isMine per viewer")
  func answersHiddenUntilAnswered() async throws {
    let (_, alice, bob, admin) = try makeCast()
    let questionID = try await publishTodayQuestion(admin)
    let aliceAnswer = try await alice.questions.submitAnswer(to: questionID, content: "  Coffee  ")
    #expect(aliceAnswer.content == "Coffee")
    #expect(aliceAnswer.authorNickname == "alice")

    await #expect(throws: DomainError.answerRequired) {
      _ = try await bob.questions.fetchAnswers(of: questionID, page: .first)
    }
    let before = try await bob.questions.fetchToday()
    #expect(before.myAnswer == nil)
    #expect(before.answerCount == 1)

    _ = try await bob.questions.submitAnswer(to: questionID, content: "A sunny walk")
    let answers = try await bob.questions.fetchAnswers(of: questionID, page: .first)
    #expect(answers.items.map(\.content) == ["A sunny walk", "Coffee"])
    #expect(answers.items.map(\.isMine) == [true, false])
    let after = try await bob.questions.fetchToday()
    #expect(after.myAnswer?.content == "A sunny walk")
    #expect(after.answerCount == 2)
    #expect(try await bob.profile.fetchMe().answerCount == 1)
  }

  @Test("one answer per question; length 1-250 after trimming")
  func answerRules() async throws {
    let (_, alice, _, admin) = try makeCast()
    let questionID = try await publishTodayQuestion(admin)
    #expect(
      await validationField {
        _ = try await alice.questions.submitAnswer(to: questionID, content: "   ")
      } == "content")
    let long = String(repeating: "가", count: 251)
    #expect(
      await validationField {
        _ = try await alice.questions.submitAnswer(to: questionID, content: long)
      } == "content")
    _ = try await alice.questions.submitAnswer(
      to: questionID, content: String(repeating: "가", count: 250))
    await #expect {
      _ = try await alice.questions.submitAnswer(to: questionID, content: "again")
    } throws: { error in
      if case DomainError.conflict = error { true } else { false }
    }
  }

  @Test("only the author deletes an answer; then they may answer again")
  func deleteAnswer() async throws {
    let (_, alice, bob, admin) = try makeCast()
    let questionID = try await publishTodayQuestion(admin)
    let answer = try await alice.questions.submitAnswer(to: questionID, content: "Mine")
    _ = try await bob.questions.submitAnswer(to: questionID, content: "Bob's")
    await #expect(throws: DomainError.forbidden) { try await bob.questions.deleteAnswer(answer.id) }
    try await alice.questions.deleteAnswer(answer.id)
    await #expect(throws: DomainError.notFound) {
      try await alice.questions.deleteAnswer(answer.id)
    }
    await #expect(throws: DomainError.answerRequired) {
      _ = try await alice.questions.fetchAnswers(of: questionID, page: .first)
    }
    _ = try await alice.questions.submitAnswer(to: questionID, content: "Second thoughts")
  }

  @Test("future questions are invisible until their Seoul day comes")
  func scheduledQuestions() async throws {
    let (backend, alice, _, admin) = try makeCast()
    let today = backend.today
    _ = try await admin.admin.createQuestion(
      QuestionDraft(content: "Yesterday's question", publishDate: today.adding(days: -1)))
    let todayID = try await publishTodayQuestion(admin, "Today's question")
    let tomorrow = try await admin.admin.createQuestion(
      QuestionDraft(content: "Tomorrow's question", publishDate: today.next))
    #expect(tomorrow.status == .scheduled)

    let visible = try await alice.questions.fetchQuestions(page: .first)
    #expect(visible.items.map(\.content) == ["Today's question", "Yesterday's question"])
    await #expect(throws: DomainError.notFound) {
      _ = try await alice.questions.fetchQuestion(tomorrow.id)
    }
    await #expect(throws: DomainError.notFound) {
      _ = try await alice.questions.submitAnswer(to: tomorrow.id, content: "Too early")
    }

    // 10:00 KST + 14 h = 00:00 KST the next day.
    backend.advance(by: 14 * 3600)
    #expect(try await alice.questions.fetchToday().id == tomorrow.id)
    let visibleNow = try await alice.questions.fetchQuestions(page: .first).items.map(\.id)
    #expect(visibleNow.first == tomorrow.id)
    #expect(visibleNow.contains(todayID))
  }

  @Test("Seoul time decides today: 15:30 UTC is already the next day")
  func seoulDay() async throws {
    // 2026-03-15 15:30 UTC is 00:30 on the 16th in Seoul.
    let backend = FakeBackend(now: { Date(timeIntervalSince1970: 1_773_588_600) })
    #expect(backend.today == (try CalendarDay(year: 2026, month: 3, day: 16)))
    let admin = try backend.signedUpClient(nickname: "moderator1", role: .admin)
    let id = try await publishTodayQuestion(admin)
    #expect(try await admin.questions.fetchToday().publishDate.iso8601 == "2026-03-16")
    #expect(try await admin.questions.fetchToday().id == id)
  }

  @Test("my answers, newest first, across questions")
  func myAnswers() async throws {
    let (backend, alice, _, admin) = try makeCast()
    let yesterday = try await admin.admin.createQuestion(
      QuestionDraft(content: "Yesterday's question", publishDate: backend.today.adding(days: -1)))
    let today = try await publishTodayQuestion(admin)
    _ = try await alice.questions.submitAnswer(to: yesterday.id, content: "Late answer")
    backend.advance(by: 60)
    _ = try await alice.questions.submitAnswer(to: today, content: "On time")
    let mine = try await alice.profile.fetchMyAnswers(page: .first)
    #expect(mine.items.map(\.content) == ["On time", "Late answer"])
  }
}
