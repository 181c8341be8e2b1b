import Testing

/// Every shared scenario, run against the fakes and against the live stack over HTTP. A
/// scenario that passes on one backend and fails on the other is a drift between
/// `RepositoriesTesting` and `LocalServer` (or the live repositories).
@Suite("Shared scenarios", .timeLimit(.minutes(1)))
struct SharedScenarioTests {
  @Test("answer flow", arguments: BackendKind.allCases)
  func answerFlow(_ kind: BackendKind) async throws {
    try await withBackend(kind, QuestionScenarios.answerFlow)
  }

  @Test("admin question schedule, CSV import, stats", arguments: BackendKind.allCases)
  func adminSchedule(_ kind: BackendKind) async throws {
    try await withBackend(kind, QuestionScenarios.adminSchedule)
  }
}
