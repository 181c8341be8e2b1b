import Dependencies
import Domain
import Foundation
import QuestionFeature
import RepositoriesTesting

/// The answer limit of the engine's rule.
let limit = TextRule.answer.length.upperBound

/// `count` numbered members, `member1`...
func memberSeeds(_ count: Int) -> [Seed.UserSeed] {
  (1...count).map { Seed.UserSeed("member\($0)") }
}

extension QuestionDetailModel.Destination {
  /// The write sheet, if that is what is presented.
  var writeAnswer: WriteAnswerModel? {
    if case .writeAnswer(let sheet) = self { sheet } else { nil }
  }
}

/// A Today screen with its past questions opened, and the links it asked the app to open.
@MainActor
struct OpenedPastQuestions {
  /// The Today screen (kept alive: it forwards the past questions' links).
  let today: TodayModel
  /// The past questions, loaded.
  let past: PastQuestionsModel
  /// The links the screen asked the app to open, in order.
  let opened: LockIsolated<[DeepLink]>
}

/// The Today screen of `client`, loaded, with its past questions opened and loaded.
@MainActor
func openedPastQuestions(as client: FakeClient) async throws -> OpenedPastQuestions {
  let today = client.model { TodayModel() }
  let opened = LockIsolated<[DeepLink]>([])
  today.onNavigate = { link in opened.withValue { $0.append(link) } }
  await today.task()
  today.pastQuestionsButtonTapped()
  guard case .pastQuestions(let past) = today.destination else {
    throw DomainError.server("no past questions")
  }
  await past.task()
  return OpenedPastQuestions(today: today, past: past, opened: opened)
}
