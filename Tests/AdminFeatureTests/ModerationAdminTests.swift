import AdminFeature
import Clocks
import Dependencies
import Domain
import Foundation
import Repositories
import RepositoriesTesting
import TestSupport
import Testing

/// The report inbox, case detail and resolve, users and bans, and the dashboard on the fakes:
/// members report each other's content, admins decide (two admins on the same case), members
/// are refused.
@MainActor
@Suite("AdminFeature: moderation")
struct ModerationAdminTests {
  let cast: AdminCast
  let post: BoardPost
  let comment: Domain.Comment

  init() async throws {
    cast = try AdminCast()
    post = try await cast.alice.board.createPost(PostDraft(content: "Selling answers, DM me"))
    comment = try await cast.alice.board.createComment(
      on: post.id, draft: CommentDraft(content: "Cheap, too"))
  }

  /// Bob reports the post, the comment and Alice herself, a minute apart.
  func fileReports() async throws {
    _ = try await cast.bob.reports.report(.post(post.id), .spam)
    cast.backend.advance(by: 60)
    _ = try await cast.bob.reports.report(.comment(comment.id), .abuse)
    cast.backend.advance(by: 60)
    _ = try await cast.bob.reports.report(.user(try cast.alice.userID), .spam)
  }

  @Test func theInboxGroupsCasesByTargetKindPageByPage() async throws {
    try await fileReports()
    let inbox = cast.admin.model { ReportInboxModel(firstPage: PageRequest(limit: 2)) }
    await inbox.task()
    #expect(inbox.state == .loaded)
    #expect(inbox.statusFilter == .open)
    #expect(inbox.cases.map(\.target.kind) == [.user, .comment])
    #expect(inbox.nextCursor != nil)
    await inbox.loadMoreReached()
    #expect(inbox.cases.count == 3)
    #expect(inbox.nextCursor == nil)
    #expect(inbox.sections.map(\.kind) == [.post, .comment, .user])
    #expect(inbox.sections.map(\.cases.count) == [1, 1, 1])
    #expect(inbox.sections[0].cases[0].target == .post(post.id))
    #expect(inbox.sections[0].cases[0].reasonCounts == [.spam: 1])

    // A second report of the post joins its case, not a new one.
    _ = try await cast.admin.reports.report(.post(post.id), .abuse)
    await inbox.refreshPulled()
    #expect(inbox.cases.count == 2, "the first page again")
    await inbox.loadMoreReached()
    #expect(inbox.sections.first { $0.kind == .post }?.cases.first?.reportCount == 2)

    let events = try await cast.admin.uploadedEvents()
    #expect(events.map(\.name) == ["screen_viewed"])
    #expect(events[0].properties == ["screen": "admin_reports", "status": "open"])
  }

  @Test func resolvingACaseFromItsDetailUpdatesTheInbox() async throws {
    try await fileReports()
    let inbox = cast.admin.model { ReportInboxModel() }
    await inbox.task()
    let postCase = try #require(inbox.cases.first { $0.target == .post(post.id) })
    inbox.caseTapped(postCase)
    guard case .detail(let detail) = inbox.destination else {
      Issue.record("no detail")
      return
    }
    #expect(detail.caseID == postCase.id)
    await detail.task()
    #expect(detail.state == .loaded)
    #expect(detail.detail?.reports.map(\.reason) == [.spam])
    #expect(detail.resolutions == [.dismiss, .hideContent, .banAuthor])

    detail.note = "  Selling answers is not allowed  "
    detail.resolveButtonTapped(.hideContent)
    #expect(detail.destination == .confirmResolution(.hideContent))
    await detail.resolutionConfirmed()
    #expect(detail.failure == nil)
    #expect(detail.detail?.reportCase.status == .resolved)
    #expect(detail.detail?.reportCase.resolution == .hideContent)
    #expect(detail.resolutions.isEmpty)
    #expect(cast.backend.isHidden(.post(post.id)))
    #expect(!inbox.cases.contains { $0.id == postCase.id }, "gone from the open inbox")
    #expect(inbox.sections.map(\.kind) == [.comment, .user])

    await inbox.statusFilterChanged(.resolved)
    #expect(inbox.cases.map(\.id) == [postCase.id])
    await inbox.statusFilterChanged(nil)
    #expect(inbox.cases.count == 3)

    let events = try await cast.admin.uploadedEvents()
    #expect(
      events.map(\.name) == ["screen_viewed", "screen_viewed", "report_case_resolved"])
    #expect(events[1].properties == ["screen": "admin_report_case"])
    #expect(events[2].properties == ["resolution": "hide_content", "target_kind": "post"])
  }

  @Test func aCaseResolvedByAnotherAdminCannotBeResolvedTwice() async throws {
    try await fileReports()
    let second = try cast.backend.signedUpClient(nickname: "lee", role: .admin)
    let caseID = try #require(
      try await cast.admin.admin.fetchReportCases(.open, .first).items.first {
        $0.target == .comment(comment.id)
      }?.id)
    let mine = cast.admin.model { ReportCaseModel(caseID: caseID) }
    let theirs = second.model { ReportCaseModel(caseID: caseID) }
    var resolved: [ReportCase] = []
    theirs.onResolved = { resolved.append($0) }
    await mine.task()
    await theirs.task()

    mine.resolveButtonTapped(.dismiss)
    await mine.resolutionConfirmed()
    #expect(mine.detail?.reportCase.resolution == .dismiss)

    theirs.resolveButtonTapped(.banAuthor)
    await theirs.resolutionConfirmed()
    #expect(theirs.failure == .conflict("This case is already resolved."))
    #expect(resolved.isEmpty)
    #expect(cast.backend.user(try cast.alice.userID)?.isBanned == false)
    await theirs.refreshPulled()
    #expect(theirs.detail?.reportCase.resolution == .dismiss)
    #expect(theirs.resolutions.isEmpty)
    theirs.failureDismissed()
    #expect(theirs.failure == nil)
  }

  /// The admin's screen of `caseID`, each read of which waits at `gate` once made.
  private func gatedCase(_ caseID: ReportCase.ID, _ gate: Gate) -> ReportCaseModel {
    cast.admin.model { values in
      values.adminRepository.fetchReportCase = gate.answering(
        values.adminRepository.fetchReportCase)
    } _: {
      ReportCaseModel(caseID: caseID)
    }
  }

  @Test("a case read before its decision landed does not offer the decisions again")
  func aStaleCaseReadKeepsTheDecisionMadeHere() async throws {
    try await fileReports()
    let caseID = try #require(
      try await cast.admin.admin.fetchReportCases(.open, .first).items.first?.id)
    // The first read (the screen's load) passes; the refresh's is made at once and answers
    // when the gate opens.
    let gate = Gate(letThrough: 1)
    let detail = gatedCase(caseID, gate)
    await detail.task()
    try await gate.whileHeld(detail.refreshPulled) {
      detail.resolveButtonTapped(.hideContent)
      await detail.resolutionConfirmed()
      #expect(detail.resolutions.isEmpty)
    }
    #expect(detail.detail?.reportCase.status == .resolved)
    #expect(detail.detail?.reportCase.resolution == .hideContent)
    #expect(detail.resolutions.isEmpty)
    #expect(detail.state == .loaded)
  }

  @Test func banningTheAuthorFromACaseUsesTheNoteAsReason() async throws {
    try await fileReports()
    let caseID = try #require(
      try await cast.admin.admin.fetchReportCases(.open, .first).items.first {
        $0.target == .post(post.id)
      }?.id)
    let detail = cast.admin.model { ReportCaseModel(caseID: caseID) }
    await detail.task()
    detail.note = "Repeated spam"
    detail.resolveButtonTapped(.banAuthor)
    detail.destinationDismissed()
    await detail.resolutionConfirmed()
    #expect(detail.detail?.reportCase.status == .open, "dismissed: nothing was decided")
    detail.resolveButtonTapped(.banAuthor)
    await detail.resolutionConfirmed()
    #expect(detail.detail?.reportCase.resolution == .banAuthor)
    let users = try await cast.admin.admin.fetchUsers("alice", .first).items
    #expect(users.first?.banReason == "Repeated spam")
  }

  @Test func aMissingCaseAndAnOfflineResolveAreShown() async throws {
    try await fileReports()
    let missing = cast.admin.model { ReportCaseModel(caseID: "case_404") }
    await missing.task()
    #expect(missing.state == .failed(.notFound))

    let caseID = try #require(
      try await cast.admin.admin.fetchReportCases(.open, .first).items.first?.id)
    let detail = cast.admin.model { ReportCaseModel(caseID: caseID) }
    await detail.task()
    cast.backend.isOffline = true
    detail.resolveButtonTapped(.dismiss)
    await detail.resolutionConfirmed()
    #expect(detail.failure == .offline)
    #expect(detail.detail?.reportCase.status == .open)
    #expect(!detail.isResolving)
  }

  @Test func searchingUsersIsDebouncedAndStaleSearchesAreDropped() async throws {
    let clock = TestClock()
    let users = cast.admin.model(clock: clock) { UsersModel() }
    await users.task()
    #expect(users.users.map(\.user.nickname.rawValue) == ["bob", "alice", "kim"])

    let stale = users.searchTextChanged("al")
    await clock.advance(by: .milliseconds(200))
    #expect(users.users.count == 3, "still typing: no search yet")
    let latest = users.searchTextChanged("bo")
    await stale.value
    // Moved once the pause sleeps: one that went to sleep just as the clock reached its end
    // would wait for a turn that never comes.
    try await clock.advanceOnceSomethingSleeps(by: .milliseconds(299))
    #expect(users.users.count == 3)
    await clock.advance(by: .milliseconds(1))
    await latest.value
    #expect(users.searchText == "bo")
    #expect(users.users.map(\.user.nickname.rawValue) == ["bob"])

    let cleared = users.searchTextChanged("  ")
    try await clock.advanceOnceSomethingSleeps(by: UsersModel.searchDebounce)
    await cleared.value
    #expect(users.users.count == 3)
    let events = try await cast.admin.uploadedEvents()
    #expect(events.map(\.name) == ["screen_viewed"])
    #expect(events[0].properties == ["screen": "admin_users"])
  }

  @Test func moreUsersWhileANewSearchWaitsComeFromTheListShown() async throws {
    let clock = TestClock()
    let users = cast.admin.model(clock: clock) { UsersModel(firstPage: PageRequest(limit: 2)) }
    await users.task()
    #expect(users.users.count == 2 && users.nextCursor != nil)
    // "bo" waits for its pause while the end of the unfiltered list comes into view.
    let typing = users.searchTextChanged("bo")
    await users.loadMoreReached()
    #expect(users.users.map(\.user.nickname.rawValue) == ["bob", "alice", "kim"])
    try await clock.advanceOnceSomethingSleeps(by: UsersModel.searchDebounce)
    await typing.value
    #expect(users.users.map(\.user.nickname.rawValue) == ["bob"])
  }

  @Test func banningWithAReasonAndAnEndThenUnbanning() async throws {
    let users = cast.admin.model { UsersModel() }
    await users.task()
    let alice = try #require(users.users.first { $0.user.nickname.rawValue == "alice" })
    users.banButtonTapped(alice)
    guard case .ban(let form) = users.destination else {
      Issue.record("no ban form")
      return
    }
    await form.task()
    #expect(!form.canSubmit)
    await form.banButtonTapped()
    #expect(form.failure == .validation(.empty(field: "reason")))
    form.reason = "Spam"
    form.until = Fixtures.now.addingTimeInterval(-60)
    await form.banButtonTapped()
    #expect(form.failure?.description.contains("until") == true)
    let end = Fixtures.now.addingTimeInterval(86_400)
    form.until = end
    await form.banButtonTapped()
    #expect(form.failure == nil)
    #expect(users.destination == nil)
    let banned = try #require(users.users.first { $0.id == alice.id })
    #expect(banned.user.isBanned)
    #expect(banned.bannedUntil == end)
    #expect(banned.banReason == "Spam")
    await #expect(throws: DomainError.banned) {
      _ = try await cast.alice.board.createPost(PostDraft(content: "Still here"))
    }

    users.unbanButtonTapped(banned)
    guard case .confirmUnban(let confirming) = users.destination else {
      Issue.record("no confirmation")
      return
    }
    #expect(confirming == banned)
    await users.unbanConfirmed()
    #expect(users.users.first { $0.id == alice.id }?.user.isBanned == false)
    _ = try await cast.alice.board.createPost(PostDraft(content: "Back again"))

    let events = try await cast.admin.uploadedEvents()
    #expect(
      events.map(\.name) == ["screen_viewed", "screen_viewed", "user_banned", "user_unbanned"])
    #expect(events[1].properties == ["screen": "admin_ban"])
    #expect(events[2].properties == ["duration": "until_date"])
  }

  @Test("cancelling while the ban is sent is ignored: the form ends once, banned")
  func cancellingWhileBanningEndsOnceBanned() async throws {
    let alice = try #require(
      try await cast.admin.admin.fetchUsers("alice", .first).items.first {
        $0.user.nickname.rawValue == "alice"
      })
    let gate = Gate()
    let form = cast.admin.model { values in
      let ban = values.adminRepository.banUser
      values.adminRepository.banUser = { id, reason, until in
        await gate.wait()
        return try await ban(id, reason, until)
      }
    } _: {
      BanModel(user: alice)
    }
    var outcomes: [BanModel.Outcome] = []
    form.onFinish = { outcomes.append($0) }
    form.reason = "Spam"
    try await gate.whileHeld(form.banButtonTapped) {
      form.cancelButtonTapped()
      #expect(outcomes.isEmpty)
    }
    guard case .banned(let banned) = outcomes.first, outcomes.count == 1 else {
      Issue.record("ended \(outcomes), not once banned")
      return
    }
    #expect(banned.user.isBanned)
  }

  @Test func anUnbanConfirmedWhileAnotherRunsIsMadeToo() async throws {
    for member in [cast.alice, cast.bob] {
      _ = try await cast.admin.admin.banUser(try member.userID, "Spam", nil)
    }
    let gate = Gate(holding: 1)
    let users = cast.admin.model { values in
      let unban = values.adminRepository.unbanUser
      values.adminRepository.unbanUser = { id in
        await gate.wait()
        return try await unban(id)
      }
    } _: {
      UsersModel()
    }
    await users.task()
    let alice = try #require(users.users.first { $0.id == (try? cast.alice.userID) })
    let bob = try #require(users.users.first { $0.id == (try? cast.bob.userID) })
    users.unbanButtonTapped(alice)
    let first = Task { await users.unbanConfirmed() }
    try await gate.waitForArrivals()
    #expect(users.unbanning == [alice.id])
    // Bob's unban, confirmed while alice's is on its way, is made as well.
    users.unbanButtonTapped(bob)
    await users.unbanConfirmed()
    #expect(users.destination == nil)
    #expect(users.failure == nil)
    #expect(users.users.first { $0.id == bob.id }?.user.isBanned == false)
    await gate.open()
    await first.value
    #expect(users.users.filter(\.user.isBanned).isEmpty)
    #expect(!users.isUnbanning)
  }

  @Test func adminsCannotBeBannedAndFailuresStay() async throws {
    let other = try cast.backend.signedUpClient(nickname: "lee", role: .admin)
    let users = cast.admin.model { UsersModel() }
    await users.task()
    let target = try #require(users.users.first { $0.id == (try? other.userID) })
    users.banButtonTapped(target)
    guard case .ban(let form) = users.destination else {
      Issue.record("no ban form")
      return
    }
    var outcome: BanModel.Outcome?
    form.onFinish = { outcome = $0 }
    form.reason = "Power struggle"
    await form.banButtonTapped()
    #expect(form.failure == .conflict("Admins cannot be banned."))
    #expect(outcome == nil)
    form.cancelButtonTapped()
    #expect(outcome == .cancelled)

    let bob = try #require(users.users.first { $0.user.nickname.rawValue == "bob" })
    users.unbanButtonTapped(bob)
    cast.backend.isOffline = true
    await users.unbanConfirmed()
    #expect(users.failure == .offline)
    users.failureDismissed()
    #expect(users.failure == nil)
  }

  @Test func aCancelledDashboardOrCaseLoadIsNoFailure() async throws {
    try await fileReports()
    let caseID = try #require(
      try await cast.admin.admin.fetchReportCases(.open, .first).items.first?.id)
    let cancels = LockIsolated(true)
    let stats = cast.admin.model { values in
      let fetch = values.adminRepository.fetchStats
      values.adminRepository.fetchStats = {
        if cancels.value { throw CancellationError() }
        return try await fetch()
      }
    } _: {
      StatsModel()
    }
    let detail = cast.admin.model { values in
      let fetch = values.adminRepository.fetchReportCase
      values.adminRepository.fetchReportCase = { id in
        if cancels.value { throw CancellationError() }
        return try await fetch(id)
      }
    } _: {
      ReportCaseModel(caseID: caseID)
    }
    await stats.task()
    await detail.task()
    #expect(stats.state == .loading && detail.state == .loading)
    cancels.setValue(false)
    await stats.task()
    await detail.task()
    #expect(stats.state == .loaded && detail.state == .loaded)
    cancels.setValue(true)
    await stats.refreshPulled()
    await detail.task()
    #expect(stats.state == .loaded && stats.stats != nil)
    #expect(detail.state == .loaded && detail.detail != nil)
  }

  @Test("an older load that lands after a newer one is dropped: not its counts, not its failure")
  func anOlderStatsLoadIsDropped() async throws {
    try await fileReports()
    // The screen's load passes; the first refresh is held, and fails once let go.
    let gate = Gate(letThrough: 1, holding: 1)
    let calls = LockIsolated(0)
    let stats = cast.admin.model { values in
      let fetch = values.adminRepository.fetchStats
      values.adminRepository.fetchStats = {
        let number = calls.withValue { calls in
          calls += 1
          return calls
        }
        let read = try await fetch()
        await gate.wait()
        if number == 2 { throw DomainError.offline }
        return read
      }
    } _: {
      StatsModel()
    }
    await stats.task()
    try await gate.whileHeld(stats.refreshPulled) {
      await stats.refreshPulled()
      #expect(stats.state == .loaded)
    }
    #expect(stats.state == .loaded)
    #expect(stats.stats?.openReports == 3)
  }

  @Test("a case read before another admin resolved it, landing last, does not reopen it")
  func anOlderCaseReadIsDropped() async throws {
    try await fileReports()
    let caseID = try #require(
      try await cast.admin.admin.fetchReportCases(.open, .first).items.first?.id)
    let gate = Gate(letThrough: 1, holding: 1)
    let detail = gatedCase(caseID, gate)
    await detail.task()
    try await gate.whileHeld(detail.refreshPulled) {
      _ = try await cast.admin.admin.resolveReportCase(caseID, .dismiss, nil)
      await detail.refreshPulled()
      #expect(detail.detail?.reportCase.status == .resolved)
    }
    #expect(detail.detail?.reportCase.status == .resolved)
    #expect(detail.resolutions.isEmpty)
  }

  @Test func theDashboardCountsAndRecovers() async throws {
    try await fileReports()
    let stats = cast.admin.model { StatsModel() }
    cast.backend.isOffline = true
    await stats.task()
    #expect(stats.state == .failed(.offline))
    #expect(stats.stats == nil)
    cast.backend.isOffline = false
    await stats.refreshPulled()
    #expect(stats.state == .loaded)
    #expect(stats.stats?.users == 3)
    #expect(stats.stats?.admins == 1)
    #expect(stats.stats?.posts == 1)
    #expect(stats.stats?.comments == 1)
    #expect(stats.stats?.openReports == 3)
    let events = try await cast.admin.uploadedEvents()
    #expect(events.map(\.properties) == [["screen": "admin_stats"]])
  }

  @Test func membersSeeForbiddenOnEveryModerationScreen() async throws {
    try await fileReports()
    let caseID = try #require(
      try await cast.admin.admin.fetchReportCases(.open, .first).items.first?.id)

    let inbox = cast.bob.model { ReportInboxModel() }
    await inbox.task()
    #expect(inbox.state == .forbidden)
    #expect(inbox.sections.isEmpty)

    let detail = cast.bob.model { ReportCaseModel(caseID: caseID) }
    await detail.task()
    #expect(detail.state == .forbidden)
    #expect(detail.resolutions.isEmpty)

    let users = cast.bob.model { UsersModel() }
    await users.task()
    #expect(users.state == .forbidden)

    let alice = try #require(try await cast.admin.admin.fetchUsers("alice", .first).items.first)
    let form = cast.bob.model { BanModel(user: alice) }
    form.reason = "Revenge"
    await form.banButtonTapped()
    #expect(form.failure == .forbidden)
    #expect(cast.backend.user(alice.id)?.isBanned == false)

    let stats = cast.bob.model { StatsModel() }
    await stats.task()
    #expect(stats.state == .forbidden)
  }
}
