import Domain
import Foundation
import Repositories
import Testing

/// Reports, automatic hiding, the admin inbox, resolutions, bans and roles.
enum ModerationScenarios {
  /// One report per target; five distinct reporters hide a post; the admin sees the case and
  /// dismisses it (visible again); a `ban_author` resolution bans the author's writes until an
  /// unban; reporters hear that their reports were resolved.
  static func reportsAndModeration(_ backend: any ScenarioBackend) async throws {
    let admin = try await backend.makeAdmin()
    let author = try await backend.makeMember(nickname: "alice")
    var reporters: [RepositorySet] = []
    for nickname in ["bob", "carol", "dave", "erin", "frank"] {
      reporters.append(try await backend.makeMember(nickname: nickname))
    }
    let first = reporters[0]
    let content = "Buy cheap followers at spam.example"
    let post = try await author.board.createPost(PostDraft(content: content, isAnonymous: false))

    let report = try await first.reports.report(.post(post.id), .spam)
    #expect(report.target == .post(post.id))
    #expect(report.reason == .spam)
    #expect(report.status == .open)
    await #expect(throws: DomainError.alreadyReported) {
      try await first.reports.report(.post(post.id), .abuse)
    }
    await expectValidation(field: "target") {
      try await author.reports.report(.post(post.id), .spam)
    }
    await #expect(throws: DomainError.notFound) {
      try await first.reports.report(.post("p_999999"), .spam)
    }
    await expectValidation(field: "detail") {
      try await reporters[1].reports.report(.post(post.id), .other(""))
    }
    #expect(try await first.reports.fetchMyReports(.first).items.map(\.id) == [report.id])

    // Four more distinct reporters: the fifth report hides the post for every member.
    let reasons: [ReportReason] = [.abuse, .spam, .other("Scam link"), .spam]
    for (reporter, reason) in zip(reporters.dropFirst(), reasons) {
      _ = try await reporter.reports.report(.post(post.id), reason)
    }
    await #expect(throws: DomainError.notFound) { try await first.board.fetchPost(post.id) }
    await #expect(throws: DomainError.notFound) { try await author.board.fetchPost(post.id) }
    #expect(try await first.board.fetchPosts(.first).items.isEmpty)
    #expect(try await first.board.searchPosts("followers", .first).items.isEmpty)

    let inbox = try await admin.admin.fetchReportCases(.open, .first)
    #expect(inbox.items.count == 1)
    let reportCase = try #require(inbox.items.first)
    #expect(reportCase.target == .post(post.id))
    #expect(reportCase.reportCount == 5)
    #expect(reportCase.isHidden)
    #expect(reportCase.status == .open)
    #expect(reportCase.resolution == nil)
    #expect(reportCase.excerpt == content)
    #expect(reportCase.author?.nickname == "alice")
    #expect(reportCase.reasonCounts == [.spam: 3, .abuse: 1, .other: 1])
    let detail = try await admin.admin.fetchReportCase(reportCase.id)
    #expect(detail.reports.count == 5)
    #expect(detail.reportCase.id == reportCase.id)
    // The admin's counts are of what is stored: the hidden post still counts (Rules.md, Admin).
    let stats = try await admin.admin.fetchStats()
    #expect(stats.openReports == 1)
    #expect(stats.hiddenContents == 1)
    #expect(stats.posts == 1)

    // Dismiss: resolved and visible again.
    let dismissed = try await admin.admin.resolveReportCase(reportCase.id, .dismiss, nil)
    #expect(dismissed.status == .resolved)
    #expect(dismissed.resolution == .dismiss)
    #expect(!dismissed.isHidden)
    #expect(try await first.board.fetchPost(post.id).id == post.id)
    #expect(try await first.board.fetchPosts(.first).items.map(\.id) == [post.id])
    await expectConflict("resolving a resolved case again") {
      try await admin.admin.resolveReportCase(reportCase.id, .hideContent, nil)
    }
    #expect(try await admin.admin.fetchReportCases(.open, .first).items.isEmpty)
    #expect(
      try await admin.admin.fetchReportCases(.resolved, .first).items.map(\.id) == [reportCase.id])
    for reporter in reporters {
      let kinds = try await reporter.notifications.fetchNotifications(.first).items.map(\.kind)
      #expect(kinds == [.reportResolved])
    }
    #expect(try await author.notifications.fetchNotifications(.first).items.isEmpty)

    // Another case, resolved with ban_author: hidden, and the author's writes are refused.
    let second = try await author.board.createPost(PostDraft(content: "Second round of spam"))
    _ = try await first.reports.report(.post(second.id), .spam)
    let secondCase = try #require(
      try await admin.admin.fetchReportCases(.open, .first).items.first {
        $0.target == .post(second.id)
      })
    #expect(secondCase.reportCount == 1)
    #expect(!secondCase.isHidden)
    let banned = try await admin.admin.resolveReportCase(secondCase.id, .banAuthor, "Spam, twice")
    #expect(banned.resolution == .banAuthor)
    #expect(banned.isHidden)
    await #expect(throws: DomainError.notFound) { try await first.board.fetchPost(second.id) }

    await #expect(throws: DomainError.banned) {
      try await author.board.createPost(PostDraft(content: "Am I banned?"))
    }
    await #expect(throws: DomainError.banned) {
      try await author.board.createComment(post.id, CommentDraft(content: "Hello?"))
    }
    await #expect(throws: DomainError.banned) { try await author.board.setPostLike(post.id, true) }
    await #expect(throws: DomainError.banned) {
      try await author.studyGroups.createGroup(StudyGroupDraft(name: "Banned club"))
    }
    await #expect(throws: DomainError.banned) {
      try await author.reports.report(.user(try await first.profile.fetchMe().id), .abuse)
    }
    await #expect(throws: DomainError.banned) {
      try await author.profile.updateProfile(ProfileUpdate(cohort: "2026 Evening"))
    }
    // Reads still work while banned, notifications can be marked read, and usage events still
    // upload (they are not content).
    try await author.notifications.markAllRead()
    #expect(try await author.board.fetchPosts(.first).items.map(\.id) == [post.id])
    await author.analytics.track(try AnalyticsEvent(name: "post_viewed", occurredAt: scenarioEpoch))
    #expect(try await author.analytics.flush() == 1)
    let me = try await author.profile.fetchMe()
    #expect(me.isBanned)
    let listed = try await admin.admin.fetchUsers("alice", .first).items
    #expect(listed.map(\.user.id) == [me.id])
    #expect(listed.first?.user.isBanned == true)
    #expect(listed.first?.bannedUntil == nil)
    #expect(listed.first?.banReason == "Spam, twice")
    #expect(try await admin.admin.fetchStats().bannedUsers == 1)

    let unbanned = try await admin.admin.unbanUser(me.id)
    #expect(!unbanned.user.isBanned)
    let afterBan = try await author.board.createPost(PostDraft(content: "I will behave"))
    #expect(afterBan.isMine)
    #expect(try await author.profile.fetchMe().isBanned == false)

    let firstKinds = try await first.notifications.fetchNotifications(.first).items.map(\.kind)
    #expect(firstKinds == [.reportResolved, .reportResolved])
  }

  /// A report resolved with `ban_author` bans by the admin's own ban rule: its note is the ban's
  /// reason (200 characters at most), an admin author is a conflict, and a withdrawn author's
  /// case resolves (hidden) all the same. A refused decision changes nothing.
  static func bansFromReports(_ backend: any ScenarioBackend) async throws {
    let admin = try await backend.makeAdmin()
    let alice = try await backend.makeMember(nickname: "alice")
    let bob = try await backend.makeMember(nickname: "bob")
    let carol = try await backend.makeMember(nickname: "carol")
    let staff = try await backend.makeAdmin(nickname: "staff2")
    func openCase(of author: RepositorySet, _ text: String) async throws -> ReportCase {
      let post = try await author.board.createPost(PostDraft(content: text))
      _ = try await bob.reports.report(.post(post.id), .spam)
      return try #require(
        try await admin.admin.fetchReportCases(.open, .first).items.first {
          $0.target == .post(post.id)
        })
    }
    let aliceCase = try await openCase(of: alice, "Spam from alice")
    let staffCase = try await openCase(of: staff, "A post by staff")
    let carolCase = try await openCase(of: carol, "Spam from carol")

    let tooLong = await expectValidation(field: "note") {
      try await admin.admin.resolveReportCase(
        aliceCase.id, .banAuthor, String(repeating: "n", count: 201))
    }
    #expect(tooLong == .validation(.tooLong(field: "note", maximum: 200, actual: 201)))
    await expectConflict("banning an admin author") {
      try await admin.admin.resolveReportCase(staffCase.id, .banAuthor, nil)
    }
    let stillOpen = try await admin.admin.fetchReportCases(.open, .first).items.map(\.id)
    #expect(Set(stillOpen) == [aliceCase.id, staffCase.id, carolCase.id])
    #expect(!(try await alice.profile.fetchMe().isBanned))
    #expect(!(try await staff.profile.fetchMe().isBanned))

    try await carol.auth.withdraw()
    let carolResolved = try await admin.admin.resolveReportCase(carolCase.id, .banAuthor, nil)
    #expect(carolResolved.status == .resolved)
    #expect(carolResolved.isHidden)
    #expect(try await admin.admin.fetchStats().bannedUsers == 0)

    let reason = String(repeating: "r", count: 200)
    let resolved = try await admin.admin.resolveReportCase(aliceCase.id, .banAuthor, reason)
    #expect(resolved.resolution == .banAuthor)
    let aliceID = try await alice.profile.fetchMe().id
    let listed = try await admin.admin.fetchUsers("alice", .first).items
    #expect(listed.map(\.user.id) == [aliceID])
    #expect(listed.first?.banReason == reason)
    #expect(try await admin.admin.fetchStats().bannedUsers == 1)
  }

  /// Members get `forbidden` on every admin route; banning another admin is a conflict.
  static func roles(_ backend: any ScenarioBackend) async throws {
    let admin = try await backend.makeAdmin()
    let alice = try await backend.makeMember(nickname: "alice")
    let aliceID = try await alice.profile.fetchMe().id
    let adminID = try await admin.profile.fetchMe().id

    await #expect(throws: DomainError.forbidden) { try await alice.admin.fetchStats() }
    await #expect(throws: DomainError.forbidden) {
      try await alice.admin.fetchReportCases(nil, .first)
    }
    await #expect(throws: DomainError.forbidden) {
      try await alice.admin.fetchQuestions(nil, .first)
    }
    await #expect(throws: DomainError.forbidden) { try await alice.admin.fetchUsers(nil, .first) }
    await #expect(throws: DomainError.forbidden) {
      try await alice.admin.createQuestion(
        QuestionDraft(content: "Can members schedule this?", publishDate: backend.today))
    }
    await #expect(throws: DomainError.forbidden) {
      try await alice.admin.banUser(adminID, "Coup attempt", nil)
    }
    await #expect(throws: DomainError.forbidden) { try await alice.admin.unbanUser(aliceID) }
    await #expect(throws: DomainError.forbidden) {
      try await alice.admin.importQuestions(Data("publish_date,content\n".utf8))
    }

    // The admin may, within the rules.
    #expect(try await admin.admin.fetchStats().users == 2)
    #expect(try await admin.admin.fetchStats().admins == 1)
    let otherAdmin = try await backend.makeAdmin(nickname: "staff2")
    let otherAdminID = try await otherAdmin.profile.fetchMe().id
    await expectConflict("banning an admin") {
      try await admin.admin.banUser(otherAdminID, "Testing", nil)
    }
    let banned = try await admin.admin.banUser(aliceID, "Testing bans", nil)
    #expect(banned.user.isBanned)
    #expect(banned.banReason == "Testing bans")
    await #expect(throws: DomainError.banned) {
      try await alice.board.createPost(PostDraft(content: "Hello"))
    }
  }
}
