import Testing

/// Every shared scenario, run against the fakes and against the live stack over HTTP. A
/// scenario that passes on one backend and fails on the other is a drift between
/// `RepositoriesTesting` and `LocalServer` (or the live repositories).
///
/// The time limit only guards against a hang: on one loaded core (the whole suite pinned to it)
/// a live chat scenario took over a minute, so a minute would fail a slow machine.
@Suite("Shared scenarios", .timeLimit(.minutes(3)))
struct SharedScenarioTests {
  @Test("answer flow", arguments: BackendKind.allCases)
  func answerFlow(_ kind: BackendKind) async throws {
    try await withBackend(kind, QuestionScenarios.answerFlow)
  }

  @Test(
    "a hidden answer does not count: its author answers again", arguments: BackendKind.allCases)
  func hiddenAnswer(_ kind: BackendKind) async throws {
    try await withBackend(kind, QuestionScenarios.hiddenAnswer)
  }

  @Test("admin question schedule, CSV import, stats", arguments: BackendKind.allCases)
  func adminSchedule(_ kind: BackendKind) async throws {
    try await withBackend(kind, QuestionScenarios.adminSchedule)
  }

  @Test("board: posts, search, anonymous labels, likes, deletion", arguments: BackendKind.allCases)
  func board(_ kind: BackendKind) async throws {
    try await withBackend(kind, BoardScenarios.board)
  }

  @Test("notifications reach the author only", arguments: BackendKind.allCases)
  func notifications(_ kind: BackendKind) async throws {
    try await withBackend(kind, NotificationScenarios.notifications)
  }

  @Test("reports, auto-hide, admin resolutions, ban and unban", arguments: BackendKind.allCases)
  func reportsAndModeration(_ kind: BackendKind) async throws {
    try await withBackend(kind, ModerationScenarios.reportsAndModeration)
  }

  @Test(
    "a report's ban follows the ban rule: reason length, admins, withdrawn authors",
    arguments: BackendKind.allCases)
  func bansFromReports(_ kind: BackendKind) async throws {
    try await withBackend(kind, ModerationScenarios.bansFromReports)
  }

  @Test("members are forbidden on admin routes", arguments: BackendKind.allCases)
  func roles(_ kind: BackendKind) async throws {
    try await withBackend(kind, ModerationScenarios.roles)
  }

  @Test("taken nicknames at sign-up and in profile updates", arguments: BackendKind.allCases)
  func nicknameTaken(_ kind: BackendKind) async throws {
    try await withBackend(kind, AccountScenarios.nicknameTaken)
  }

  @Test(
    "a blank token or terms version is the same field error on every backend; the sign-up goes on",
    arguments: BackendKind.allCases)
  func blankSignUpFields(_ kind: BackendKind) async throws {
    try await withBackend(kind, AccountScenarios.blankSignUpFields)
  }

  @Test("study groups: join, count, owner cannot leave", arguments: BackendKind.allCases)
  func groups(_ kind: BackendKind) async throws {
    try await withBackend(kind, GroupScenarios.groups)
  }

  @Test("group invitations and group_message notifications", arguments: BackendKind.allCases)
  func invitations(_ kind: BackendKind) async throws {
    try await withBackend(kind, GroupScenarios.invitations)
  }

  @Test("45 posts walked in pages of 20", arguments: BackendKind.allCases)
  func pagination(_ kind: BackendKind) async throws {
    try await withBackend(kind, BoardScenarios.pagination)
  }

  @Test("session stream: sign-up, sign-out, sign-in, withdrawal", arguments: BackendKind.allCases)
  func sessionLifecycle(_ kind: BackendKind) async throws {
    try await withBackend(kind, AccountScenarios.sessionLifecycle)
  }

  @Test("moderation edges: comments, answers, hide, reopen, users", arguments: BackendKind.allCases)
  func moderationEdges(_ kind: BackendKind) async throws {
    try await withBackend(kind, RuleScenarios.moderationEdges)
  }

  @Test("a ban with an end lifts by itself", arguments: BackendKind.allCases)
  func timedBan(_ kind: BackendKind) async throws {
    try await withBackend(kind, RuleScenarios.timedBan)
  }

  @Test("questions by day: scheduled, today, past", arguments: BackendKind.allCases)
  func questionDays(_ kind: BackendKind) async throws {
    try await withBackend(kind, RuleScenarios.questionDays)
  }

  @Test(
    "chat sync: live delivery, outbox states, typing, unread, sign-out",
    arguments: BackendKind.allCases)
  func liveChat(_ kind: BackendKind) async throws {
    try await withBackend(kind, ChatScenarios.liveChat)
  }

  @Test(
    "a direct room whose other user withdrew stays readable and takes no messages",
    arguments: BackendKind.allCases)
  func directRoomAfterWithdrawal(_ kind: BackendKind) async throws {
    try await withBackend(kind, ChatScenarios.directRoomAfterWithdrawal)
  }

  @Test("joining a group starts with its room's history read", arguments: BackendKind.allCases)
  func joinStartsRead(_ kind: BackendKind) async throws {
    try await withBackend(kind, ChatScenarios.joinStartsRead)
  }

  @Test("chat moderation reaches the stores: hidden and restored", arguments: BackendKind.allCases)
  func moderatedChat(_ kind: BackendKind) async throws {
    try await withBackend(kind, ChatScenarios.moderatedMessages)
  }

  @Test(
    "chat moderation reaches an open room live: hidden, restored, hidden again",
    arguments: BackendKind.allCases)
  func moderatedChatLive(_ kind: BackendKind) async throws {
    try await withBackend(kind, ChatScenarios.moderatedLive)
  }

  @Test("chat over REST: rooms, seq, de-duplication, direct rooms", arguments: BackendKind.allCases)
  func chat(_ kind: BackendKind) async throws {
    try await withBackend(kind, RuleScenarios.chat)
  }

  @Test("sign-up checks: provider, wrong and expired codes", arguments: BackendKind.allCases)
  func signUpChecks(_ kind: BackendKind) async throws {
    try await withBackend(kind, RuleScenarios.signUpChecks)
  }

  @Test("profile: cohort, public profile, avatars", arguments: BackendKind.allCases)
  func profile(_ kind: BackendKind) async throws {
    try await withBackend(kind, ProfileScenarios.profile)
  }

  @Test("withdrawal keeps content and ends every session", arguments: BackendKind.allCases)
  func withdrawal(_ kind: BackendKind) async throws {
    try await withBackend(kind, ProfileScenarios.withdrawal)
  }

  @Test("CSV import corners", arguments: BackendKind.allCases)
  func csvImport(_ kind: BackendKind) async throws {
    try await withBackend(kind, DetailScenarios.csvImport)
  }

  @Test("editing and deleting scheduled and published questions", arguments: BackendKind.allCases)
  func questionEdits(_ kind: BackendKind) async throws {
    try await withBackend(kind, DetailScenarios.questionEdits)
  }

  @Test("search text is literal and case-insensitive", arguments: BackendKind.allCases)
  func searchText(_ kind: BackendKind) async throws {
    try await withBackend(kind, DetailScenarios.searchText)
  }

  @Test("a deleted answer frees the question", arguments: BackendKind.allCases)
  func answerDeletion(_ kind: BackendKind) async throws {
    try await withBackend(kind, DetailScenarios.answerDeletion)
  }

  @Test("report status for reporters, report and case order", arguments: BackendKind.allCases)
  func reportStatusAndOrder(_ kind: BackendKind) async throws {
    try await withBackend(kind, DetailScenarios.reportStatusAndOrder)
  }

  @Test("comments, notifications and groups page cleanly", arguments: BackendKind.allCases)
  func listPaging(_ kind: BackendKind) async throws {
    try await withBackend(kind, DetailScenarios.listPaging)
  }

  @Test("the write limit per user", arguments: BackendKind.allCases)
  func writeLimit(_ kind: BackendKind) async throws {
    try await withBackend(kind, writeLimit: (10, .seconds(10)), RuleScenarios.writeLimit)
  }

  @Test("the session state follows the own profile", arguments: BackendKind.allCases)
  func sessionFollowsProfile(_ kind: BackendKind) async throws {
    try await withBackend(kind, AccountScenarios.sessionFollowsProfile)
  }

  @Test("analytics: buffered, batched, counted once", arguments: BackendKind.allCases)
  func analytics(_ kind: BackendKind) async throws {
    try await withBackend(kind, ProfileScenarios.analytics)
  }

  @Test(
    "analytics: events go up only as the user who tracked them", arguments: BackendKind.allCases)
  func analyticsFollowTheirUser(_ kind: BackendKind) async throws {
    try await withBackend(kind, ProfileScenarios.analyticsFollowTheirUser)
  }

  @Test("many members at once", arguments: BackendKind.allCases)
  func concurrency(_ kind: BackendKind) async throws {
    try await withBackend(kind, DetailScenarios.concurrency)
  }

  @Test("characters as people see them; Hangul nicknames", arguments: BackendKind.allCases)
  func unicode(_ kind: BackendKind) async throws {
    try await withBackend(kind, DetailScenarios.unicode)
  }
}
