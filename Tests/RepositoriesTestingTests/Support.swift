import Domain
import Foundation
import Repositories
import RepositoriesTesting
import Testing

/// A backend whose clock stands still at `Fixtures.now` until a test moves it.
func makeBackend() -> FakeBackend {
  FakeBackend(now: { Fixtures.now })
}

/// A backend with two members and an admin, the usual cast of a scenario.
func makeCast() throws -> (
  backend: FakeBackend, alice: FakeClient, bob: FakeClient, admin: FakeClient
) {
  let backend = makeBackend()
  return (
    backend,
    try backend.signedUpClient(nickname: "alice"),
    try backend.signedUpClient(nickname: "bob"),
    try backend.signedUpClient(nickname: "moderator1", role: .admin)
  )
}

/// Creates `count` more members, named `member1`, `member2`, ...
func makeMembers(
  _ count: Int, on backend: FakeBackend, prefix: String = "member"
) throws -> [FakeClient] {
  try (1...count).map { try backend.signedUpClient(nickname: "\(prefix)\($0)") }
}

/// Schedules today's question through an admin client.
@discardableResult
func publishTodayQuestion(
  _ admin: FakeClient, _ content: String = "What made you smile today?"
) async throws -> Question.ID {
  let today = admin.backend.today
  return try await admin.admin.createQuestion(QuestionDraft(content: content, publishDate: today))
    .id
}

/// The field of a validation error, or `nil` for any other error.
func validationField(_ body: () async throws -> Void) async -> String? {
  do {
    try await body()
    return nil
  } catch let DomainError.validation(error) {
    return error.field
  } catch {
    return nil
  }
}

/// Walks every page of a list.
func collectAll<Item>(
  limit: Int = 20, _ fetch: (PageRequest) async throws -> Page<Item>
) async throws -> [Item] {
  var items: [Item] = []
  var request = PageRequest(limit: limit)
  while true {
    let page = try await fetch(request)
    items += page.items
    guard let cursor = page.nextCursor else { return items }
    request = PageRequest(cursor: cursor, limit: limit)
  }
}
