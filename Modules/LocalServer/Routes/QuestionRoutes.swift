import DTO
import Domain
import Foundation
import Hummingbird

extension RouteTable {
  /// QuestionAPI and AnswerAPI.
  mutating func addQuestionRoutes() {
    add("QuestionAPI.today", .get, "/questions/today") { call in
      let me = try call.me
      let today = call.core.today
      return try .json(
        try await call.core.read { db in try Questions.today(db, viewer: me, today: today) })
    }
    add("QuestionAPI.list", .get, "/questions") { call in
      let me = try call.me
      let page = try call.pageRequest()
      let today = call.core.today
      return try .json(
        try await call.core.read { db in
          try Questions.list(db, viewer: me, today: today, page)
        })
    }
    add("QuestionAPI.question", .get, "/questions/:question_id") { call in
      let me = try call.me
      let key = try call.key("question_id", .question, what: "question")
      let today = call.core.today
      return try .json(
        try await call.core.read { db in
          try Questions.dto(db, try Questions.published(db, key, today: today), viewer: me)
        })
    }
    add("AnswerAPI.answers", .get, "/questions/:question_id/answers") { call in
      let me = try call.me
      let key = try call.key("question_id", .question, what: "question")
      let page = try call.pageRequest()
      let today = call.core.today
      return try .json(
        try await call.core.read { db in
          try Answers.list(db, questionKey: key, viewer: me, today: today, page)
        })
    }
    add(
      "AnswerAPI.create", .post, "/questions/:question_id/answers", blockedWhenBanned: true,
      idempotent: true
    ) { call in
      let me = try call.me
      let key = try call.key("question_id", .question, what: "question")
      let body = try call.decode(CreateAnswerRequest.self)
      let content = try validate { () throws(ValidationError) in
        try TextRule.answer.validate(body.content)
      }
      let (now, today) = (call.now, call.core.today)
      return try .json(
        try await call.core.write { db in
          try Answers.create(
            db, questionKey: key, content: content, viewer: me, now: now, today: today)
        }, status: .created)
    }
    add("AnswerAPI.delete", .delete, "/answers/:answer_id", blockedWhenBanned: true) { call in
      let me = try call.me
      let key = try call.key("answer_id", .answer, what: "answer")
      let now = call.now
      try await call.core.write { db in try Answers.delete(db, key: key, viewer: me, now: now) }
      return .noContent
    }
  }
}
