import Dependencies
import Domain
import Foundation
import QuestionFeature
import RepositoriesTesting

/// `client`'s repositories as the model's dependencies.
@MainActor
func model<Model>(as client: FakeClient, _ make: () -> Model) -> Model {
  withDependencies {
    $0.install(client)
  } operation: {
    make()
  }
}

/// The events `client` uploaded, in order.
func events(of client: FakeClient) async throws -> [AnalyticsEvent] {
  _ = try await client.analytics.flush()
  let id = try client.userID
  return client.backend.analyticsEvents.filter { $0.userID == id }.map(\.event)
}

/// The answer limit of the engine's rule.
let limit = TextRule.answer.length.upperBound

/// `count` numbered members, `member1`...
func memberSeeds(_ count: Int) -> [Seed.UserSeed] {
  (1...count).map { Seed.UserSeed("member\($0)") }
}

extension TodayModel.Destination {
  /// The write sheet, if that is what is presented.
  var writeAnswer: WriteAnswerModel? {
    if case .writeAnswer(let sheet) = self { sheet } else { nil }
  }
}

extension QuestionDetailModel.Destination {
  /// The write sheet, if that is what is presented.
  var writeAnswer: WriteAnswerModel? {
    if case .writeAnswer(let sheet) = self { sheet } else { nil }
  }
}
