import DTO
import Domain
import Foundation
import Hummingbird
import LocalServer
import Testing

@Suite("Questions and answers")
struct QuestionTests {
  @Test("today's question follows the Seoul day; scheduled questions stay invisible")
  func todayAndSchedule() async throws {
    try await withServer { h in
      let admin = try await h.admin()
      let member = try await h.member("Learner1")
      try await h.expectError(.notFound, "not_found", .get, "/questions/today", token: member)

      let yesterday = try await h.createQuestion(
        "What did you ship yesterday?", on: testDay(-1), admin: admin)
      let today = try await h.createQuestion(
        "What made you smile today?", on: testDay(), admin: admin)
      let tomorrow = try await h.createQuestion(
        "What will you try tomorrow?", on: testDay(1), admin: admin)
      #expect(today.status == .published)
      #expect(tomorrow.status == .scheduled)

      let current = try await h.expect(
        .ok, QuestionDTO.self, .get, "/questions/today", token: member)
      #expect(current.id == today.id)
      #expect(current.publishDate == testDay())
      #expect(current.myAnswer == nil)

      let past = try await h.expect(
        .ok, PageDTO<QuestionDTO>.self, .get, "/questions", token: member)
      #expect(past.items.map(\.id) == [today.id, yesterday.id])
      try await h.expectError(
        .notFound, "not_found", .get, "/questions/\(tomorrow.id)", token: member)

      // 15:00 UTC is already tomorrow in Seoul.
      h.clock.set(to: testEpoch.addingTimeInterval(12 * 3600))
      let next = try await h.expect(.ok, QuestionDTO.self, .get, "/questions/today", token: member)
      #expect(next.id == tomorrow.id)
    }
  }

  @Test("answers are hidden until you answered; one answer per user; 1-250 characters")
  func answerRules() async throws {
    try await withServer { h in
      let admin = try await h.admin()
      let question = try await h.createQuestion(
        "What made you smile today?", on: testDay(), admin: admin)
      let alice = try await h.member("Alice")
      let bob = try await h.member("Bob")
      let path = "/questions/\(question.id)/answers"

      _ = try await h.expect(
        .created, AnswerDTO.self, .post, path, token: alice,
        json: CreateAnswerRequest(content: "Coffee"))
      let locked = try await h.expectError(.forbidden, "answer_required", .get, path, token: bob)
      #expect(locked.error?.message == DomainError.answerRequired.description)
      try await h.expectError(
        .badRequest, "validation_failed", field: "content", .post, path, token: bob,
        json: CreateAnswerRequest(content: String(repeating: "가", count: 251)))
      try await h.expectError(
        .badRequest, "validation_failed", field: "content", .post, path, token: bob,
        json: CreateAnswerRequest(content: "  \n "))
      let mine = try await h.expect(
        .created, AnswerDTO.self, .post, path, token: bob,
        json: CreateAnswerRequest(content: "  " + String(repeating: "가", count: 250) + "  "))
      #expect(mine.content.count == 250)
      #expect(mine.isMine)
      #expect(mine.authorNickname == "Bob")
      try await h.expectError(
        .conflict, "conflict", .post, path, token: bob, json: CreateAnswerRequest(content: "Again"))

      let answers = try await h.expect(.ok, PageDTO<AnswerDTO>.self, .get, path, token: bob)
      #expect(answers.items.count == 2)
      #expect(answers.items.filter(\.isMine).map(\.id) == [mine.id])
      let today = try await h.expect(.ok, QuestionDTO.self, .get, "/questions/today", token: bob)
      #expect(today.answerCount == 2)
      #expect(today.myAnswer?.id == mine.id)
      let myAnswers = try await h.expect(
        .ok, PageDTO<AnswerDTO>.self, .get, "/me/answers", token: bob)
      #expect(myAnswers.items.map(\.id) == [mine.id])
      let profile = try await h.expect(.ok, UserDTO.self, .get, "/me", token: bob)
      #expect(profile.answerCount == 1)

      // Only the author deletes; then the user may answer again.
      try await h.expectError(.forbidden, "forbidden", .delete, "/answers/\(mine.id)", token: alice)
      #expect(try await h.send(.delete, "/answers/\(mine.id)", token: bob).status == .noContent)
      try await h.expectError(.notFound, "not_found", .delete, "/answers/\(mine.id)", token: bob)
      try await h.expectError(.forbidden, "answer_required", .get, path, token: bob)
      _ = try await h.expect(
        .created, AnswerDTO.self, .post, path, token: bob,
        json: CreateAnswerRequest(content: "Rewritten"))
    }
  }

  @Test("scheduled questions cannot be answered")
  func cannotAnswerFuture() async throws {
    try await withServer { h in
      let admin = try await h.admin()
      let future = try await h.createQuestion("Not yet, not yet", on: testDay(2), admin: admin)
      let member = try await h.member("Eager")
      try await h.expectError(
        .notFound, "not_found", .post, "/questions/\(future.id)/answers", token: member,
        json: CreateAnswerRequest(content: "Too early"))
    }
  }
}
