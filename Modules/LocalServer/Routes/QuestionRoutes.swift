import DTO
import Domain
import Foundation
import Hummingbird

extension RouteTable {
  /// QuestionAPI and AnswerAPI.
  mutating func addQuestionRoutes() {
    add(.questionToday) { call in
      try .json(QuestionDTO(try call.engine.todaysQuestion(as: try call.me)))
    }
    add(.questionList) { call in
      try .json(
        PageDTO(
          try call.engine.questions(try call.pageRequest(), as: try call.me), QuestionDTO.init))
    }
    add(.questionQuestion) { call in
      try .json(QuestionDTO(try call.engine.question(call.id("question_id"), as: try call.me)))
    }
    add(.answerAnswers) { call in
      let page = try call.engine.answers(
        of: call.id("question_id"), try call.pageRequest(), as: try call.me)
      return try .json(PageDTO(page, AnswerDTO.init))
    }
    add(.answerCreate, idempotent: true) { call in
      let body = try call.decode(CreateAnswerRequest.self)
      let answer = try call.engine.submitAnswer(
        to: call.id("question_id"), content: body.content, as: try call.me)
      return try .json(AnswerDTO(answer), status: .created)
    }
    addNoContent(.answerDelete) { try $0.engine.deleteAnswer($0.id("answer_id"), as: try $0.me) }
  }
}
