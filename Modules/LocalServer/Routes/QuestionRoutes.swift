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
    addPage(.questionList, QuestionDTO.init) { try $0.engine.questions($1, as: $2) }
    add(.questionQuestion) { call in
      try .json(QuestionDTO(try call.engine.question(call.id("question_id"), as: try call.me)))
    }
    addPage(.answerAnswers, AnswerDTO.init) {
      try $0.engine.answers(of: $0.id("question_id"), $1, as: $2)
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
