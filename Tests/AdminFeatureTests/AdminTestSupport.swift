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
