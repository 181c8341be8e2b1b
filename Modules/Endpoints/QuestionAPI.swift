import DTO
import Domain
import Foundation
import NetworkKit

/// The question of the day and past questions.
public enum QuestionAPI: Sendable, Hashable {
  /// Today's question, with the user's answer if they answered.
  case today
  /// Past questions, newest first.
  case list(page: PageRequest = .first)
  /// One question.
  case question(Question.ID)
}

extension QuestionAPI: DeclaredRoute {
  var declaration: RouteDeclaration {
    switch self {
    case .today:
      RouteDeclaration(.questionToday, sample: SampleData.today)
    case .list(let page):
      RouteDeclaration(.questionList, task: .query(page.queryItems), sample: SampleData.page)
    case .question(let id):
      RouteDeclaration(.questionQuestion, id.rawValue, sample: SampleData.answered)
    }
  }
}

extension QuestionAPI {
  /// Sample response bodies of the question operations.
  enum SampleData {
    static let today = """
      {
        "id": "q_0321",
        "content": "오늘 가장 뿌듯했던 코드 한 줄은? What line of code made you proud today?",
        "publish_date": "2026-11-21",
        "answer_count": 37,
        "my_answer": null
      }
      """

    static let answered = """
      {
        "id": "q_0321",
        "content": "오늘 가장 뿌듯했던 코드 한 줄은? What line of code made you proud today?",
        "publish_date": "2026-11-21",
        "answer_count": 38,
        "my_answer": \(AnswerAPI.SampleData.myAnswer)
      }
      """

    static let page = """
      {
        "items": [
          {
            "id": "q_0320",
            "content": "요즘 가장 많이 배운 습관은? Which habit taught you the most lately?",
            "publish_date": "2026-11-20",
            "answer_count": 52,
            "my_answer": null
          },
          {
            "id": "q_0319",
            "content": "페어 프로그래밍에서 지키는 나만의 규칙이 있나요? Any pair-programming rule you keep?",
            "publish_date": "2026-11-19",
            "answer_count": 48,
            "my_answer": null
          }
        ],
        "next_cursor": "c_q_0319"
      }
      """
  }
}
