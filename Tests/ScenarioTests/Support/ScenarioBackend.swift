import Domain
import Foundation
import Repositories
import RepositoriesTesting
import Testing

/// A place the scenarios run against: the stateful fakes of `RepositoriesTesting`, or the live
/// repositories talking HTTP to an in-process `LocalServer`. Every scenario is written once
/// against this protocol, so a rule the two sides implement differently shows up as a failure
/// on one backend only.
protocol ScenarioBackend: Sendable {
  /// Which implementation this is, for messages.
  var kind: BackendKind { get }
  /// The Seoul calendar day on the backend's clock ("today" for questions).
  var today: CalendarDay { get }
  /// A new signed-out app installation: its own repositories and its own credentials.
  func makeClient() async throws -> RepositorySet
  /// The sign-up code the backend "mailed" to `email` (the server's test hook, the fake's log).
  func lastEmailCode(for email: EmailAddress) async throws -> VerificationCode?
  /// A new client signed in to a new admin account (there is no API that makes admins: the
  /// server promotes a signed-up member through its test hook, the fake creates the account).
  /// The dev token is `nickname`.
  func makeAdmin(nickname: String) async throws -> RepositorySet
  /// Moves the backend's clock forward (tokens, bans, code expiry and "today" follow it).
  func advanceClock(by duration: Duration)
  /// Releases what the backend holds (stops the server).
  func shutdown() async
}

/// The two implementations every shared scenario runs against.
enum BackendKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
  /// `RepositoriesTesting`'s `FakeBackend`.
  case fake
  /// `RepositoriesLive` over HTTP against `LocalServer` on 127.0.0.1.
  case live

  var testDescription: String { rawValue }

  /// A fresh, empty backend of this kind; with `writeLimit`, each user may make that many
  /// writes per window (the server's limiter, or the fake's optional model of it).
  func makeBackend(
    writeLimit: (count: Int, window: Duration)? = nil
  ) async throws -> any ScenarioBackend {
    switch self {
    case .fake:
      let backend = FakeScenarioBackend()
      if let writeLimit {
        backend.fake.rateLimit = FakeRateLimit(
          maximumWrites: writeLimit.count, per: writeLimit.window)
      }
      return backend
    case .live:
      return try await LiveScenarioBackend.start(
        rateLimit: writeLimit.map { .init(count: $0.count, window: $0.window) })
    }
  }
}

/// Runs `body` against a fresh backend of `kind` and shuts it down afterwards, also on failure.
func withBackend(
  _ kind: BackendKind, writeLimit: (count: Int, window: Duration)? = nil,
  _ body: (any ScenarioBackend) async throws -> Void
) async throws {
  let backend = try await kind.makeBackend(writeLimit: writeLimit)
  do {
    try await body(backend)
  } catch {
    await backend.shutdown()
    throw error
  }
  await backend.shutdown()
}

/// The instant both backends start at: Monday 16 March 2026, 10:00 in Seoul.
let scenarioEpoch = Fixtures.now

/// Why a scenario could not go on (a step returned something other than what it needs).
struct ScenarioFailure: Error, CustomStringConvertible {
  var description: String
}

extension ScenarioBackend {
  /// Signs a new client up through the real flow: dev sign-in -> needs sign-up -> e-mail code
  /// (read from the backend's hook) -> verify -> sign-up. The dev token is `nickname`.
  func makeMember(nickname: String) async throws -> RepositorySet {
    let client = try await makeClient()
    _ = try await signUp(client, nickname: nickname)
    return client
  }

  /// The admin most scenarios use.
  func makeAdmin() async throws -> RepositorySet {
    try await makeAdmin(nickname: "staff")
  }

  /// Signs `client` in with the dev token of an existing account and checks the role.
  func signIn(
    _ client: RepositorySet, token: String, expecting role: UserRole
  ) async throws -> User {
    guard case .signedIn(let session) = try await client.auth.signIn(.dev, token),
      session.user.role == role
    else { throw ScenarioFailure(description: "\(kind): \(token) is not signed in as \(role)") }
    return session.user
  }

  /// Runs the sign-up flow on `client` with the dev token `token` (the nickname by default).
  @discardableResult
  func signUp(
    _ client: RepositorySet, nickname: String, token: String? = nil
  ) async throws -> User {
    let token = token ?? nickname
    guard case .needsSignUp(let signUpToken) = try await client.auth.signIn(.dev, token) else {
      throw ScenarioFailure(description: "dev token \(token) already has an account")
    }
    let email = try EmailAddress(validating: "\(token.lowercased())@academy.example")
    _ = try await client.auth.requestEmailCode(signUpToken, email)
    guard let code = try await lastEmailCode(for: email) else {
      throw ScenarioFailure(description: "\(kind): no e-mail code was sent to \(email)")
    }
    let verification = try await client.auth.verifyEmailCode(signUpToken, email, code)
    return try await client.auth.signUp(
      SignUpForm(
        signUpToken: signUpToken, verificationToken: verification,
        nickname: try Nickname(validating: nickname), cohort: "2026 Morning",
        agreedTermsVersion: "2026-03"))
  }

  /// Publishes a question for today through the admin API (the tiny seed most scenarios need).
  func publishTodayQuestion(
    _ content: String = "What did you learn from your last bug?", by admin: RepositorySet
  ) async throws -> ScheduledQuestion {
    try await admin.admin.createQuestion(QuestionDraft(content: content, publishDate: today))
  }
}
