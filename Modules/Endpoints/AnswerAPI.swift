import DTO
import Domain
import Foundation
import NetworkKit

/// Answers to the daily questions. Others' answers are visible only after you answered.
public enum AnswerAPI: Sendable, Hashable {
  /// The answers of a question, newest first; `403 answer_required` until the user answered.
  case answers(questionID: Question.ID, page: PageRequest = .first)
  /// Answers a question (once per question; a second answer is `409 conflict`). A retry with
  /// the same `idempotencyKey` answers the first result.
  case create(questionID: Question.ID, body: CreateAnswerRequest, idempotencyKey: String? = nil)
  /// Deletes one of the user's answers.
  case delete(Answer.ID)
}

extension AnswerAPI: DeclaredRoute {
  var declaration: RouteDeclaration {
    switch self {
    case .answers(let questionID, let page):
      RouteDeclaration(
        .answerAnswers, questionID.rawValue, task: .query(page.queryItems), sample: SampleData.page)
    case .create(let questionID, let body, let key):
      RouteDeclaration(
        .answerCreate, questionID.rawValue, task: .json(body), headers: Header.idempotencyKey(key),
        sample: SampleData.myAnswer)
    case .delete(let id):
      RouteDeclaration(.answerDelete, id.rawValue)
    }
  }
}

extension AnswerAPI {
  /// Sample response bodies of the answer operations.
  enum SampleData {
    static let myAnswer = """
      {
        "id": "a_1024",
        "question_id": "q_0321",
        "content": "guard let 하나로 크래시를 막았어요. One guard saved the demo!",
        "author_nickname": "사과러너",
        "is_mine": true,
        "created_at": "2026-11-21T05:10:00.123Z"
      }
      """

    static let page = """
      {
        "items": [
          {
            "id": "a_1031",
            "question_id": "q_0321",
            "content": "테스트가 처음으로 한 번에 통과했어요 🎉 All green on the first run.",
            "author_nickname": "swiftie",
            "is_mine": false,
            "created_at": "2026-11-21T07:45:12.004Z"
          },
          \(myAnswer)
        ],
        "next_cursor": null
      }
      """
  }
}
