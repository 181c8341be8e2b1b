import Domain
import Foundation
import Repositories
import RepositoriesTesting

/// The scenarios against `RepositoriesTesting`: one `FakeBackend` on a stopped clock, one
/// `FakeClient` per app installation.
struct FakeScenarioBackend: ScenarioBackend {
  let fake = FakeBackend(now: { scenarioEpoch })

  var kind: BackendKind { .fake }

  var today: CalendarDay { fake.today }

  func makeClient() async throws -> RepositorySet {
    fake.makeClient().repositories
  }

  func lastEmailCode(for email: EmailAddress) async throws -> VerificationCode? {
    fake.lastEmailCode(for: email)
  }

  func makeAdmin(nickname: String) async throws -> RepositorySet {
    // The fake creates the account directly; its dev sign-in token is the nickname, and the
    // client signs in through the auth repository like the live one.
    try fake.createUser(nickname: nickname, role: .admin)
    let client = try await makeClient()
    _ = try await signIn(client, token: nickname, expecting: .admin)
    return client
  }

  func advanceClock(by duration: Duration) {
    fake.advance(by: duration.timeInterval)
  }

  func shutdown() async {}
}
