import Dependencies
import Domain
import Foundation
import Repositories
import RepositoriesTesting

/// A backend with an admin and two members, shared by the suites.
@MainActor
struct AdminCast {
  let backend = FakeBackend(now: { Fixtures.now })
  let admin: FakeClient
  let alice: FakeClient
  let bob: FakeClient

  init() throws {
    admin = try backend.signedUpClient(nickname: "kim", role: .admin)
    alice = try backend.signedUpClient(nickname: "alice")
    bob = try backend.signedUpClient(nickname: "bob")
  }

  /// `make()` with `client`'s repositories (and the backend's clock) as its dependencies.
  func model<Model>(
    as client: FakeClient, _ change: (inout DependencyValues) -> Void = { _ in },
    _ make: () -> Model
  ) -> Model {
    withDependencies {
      $0.install(client)
      change(&$0)
    } operation: {
      make()
    }
  }

  /// The events `client` uploaded, in order.
  func events(of client: FakeClient) async throws -> [AnalyticsEvent] {
    _ = try await client.analytics.flush()
    let id = try client.userID
    return backend.analyticsEvents.filter { $0.userID == id }.map(\.event)
  }

  /// A question `days` after today, scheduled by the admin.
  @discardableResult
  func schedule(_ content: String, inDays days: Int) async throws -> ScheduledQuestion {
    try await admin.admin.createQuestion(
      QuestionDraft(content: content, publishDate: backend.today.adding(days: days)))
  }
}

/// Whether `error` is the engine's conflict.
func isConflict(_ error: DomainError?) -> Bool {
  if case .conflict = error { true } else { false }
}
