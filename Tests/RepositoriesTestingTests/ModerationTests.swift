import Domain
import Foundation
import Repositories
import RepositoriesTesting
import Testing

@Suite("Fake reports and moderation")
struct ModerationTests {
  @Test("one report per target; a second is alreadyReported")
  func secondReportRefused() async throws {
    let (_, alice, bob, _) = try makeCast()
    let post = try await alice.board.createPost(PostDraft(content: "Buy followers"))
    let report = try await bob.reports.report(.post(post.id), .spam)
    #expect(report.status == .open)
    #expect(report.target == .post(post.id))
    await #expect(throws: DomainError.alreadyReported) {
      _ = try await bob.reports.report(.post(post.id), .abuse)
    }
    #expect(try await bob.reports.fetchMyReports(page: .first).items.map(\.id) == [report.id])
  }

  @Test("own content, unknown targets and missing detail are refused")
  func reportValidation() async throws {
    let (_, alice, bob, _) = try makeCast()
    let post = try await alice.board.createPost(PostDraft(content: "Mine"))
    #expect(
      await validationField { _ = try await alice.reports.report(.post(post.id), .spam) }
        == "target")
    #expect(
      await validationField { _ = try await alice.reports.report(.user(try alice.userID), .spam) }
        == "target")
    await #expect(throws: DomainError.notFound) {
      _ = try await bob.reports.report(.comment("c_404"), .spam)
    }
    await #expect(throws: DomainError.notFound) {
      _ = try await bob.reports.report(.user("u_404"), .spam)
    }
    #expect(
      await validationField { _ = try await bob.reports.report(.post(post.id), .other("  ")) }
        == "detail")
    let report = try await bob.reports.report(
      .user(try alice.userID), .other("Pretends to be staff"))
    #expect(report.reason == .other("Pretends to be staff"))
  }

  @Test("five distinct reporters hide a post from everyone but the admin inbox")
  func autoHide() async throws {
    let (backend, alice, bob, admin) = try makeCast()
    let reporters = try makeMembers(5, on: backend)
    let post = try await alice.board.createPost(PostDraft(content: "Spammy spam"))
    let comment = try await bob.board.createComment(
      on: post.id, draft: CommentDraft(content: "lol"))
    for reporter in reporters.prefix(4) {
      _ = try await reporter.reports.report(.post(post.id), .spam)
    }
    #expect(try await bob.board.fetchPost(post.id).id == post.id)
    #expect(backend.isHidden(.post(post.id)) == false)

    _ = try await reporters[4].reports.report(.post(post.id), .abuse)
    #expect(backend.isHidden(.post(post.id)))
    await #expect(throws: DomainError.notFound) { _ = try await bob.board.fetchPost(post.id) }
    await #expect(throws: DomainError.notFound) { _ = try await alice.board.fetchPost(post.id) }
    await #expect(throws: DomainError.notFound) {
      _ = try await bob.board.fetchComments(of: post.id, page: .first)
    }
    await #expect(throws: DomainError.notFound) {
      _ = try await bob.board.setPostLike(post.id, true)
    }
    await #expect(throws: DomainError.notFound) {
      _ = try await bob.board.setCommentLike(comment.id, true)
    }
    #expect(try await bob.board.fetchPosts(page: .first).items.isEmpty)
    #expect(try await bob.board.searchPosts(query: "spam", page: .first).items.isEmpty)

    let inbox = try await admin.admin.fetchReportCases(status: .open, page: .first)
    let reportCase = try #require(inbox.items.first)
    #expect(inbox.items.count == 1)
    #expect(reportCase.target == .post(post.id))
    #expect(reportCase.reportCount == 5)
    #expect(reportCase.reasonCounts == [.spam: 4, .abuse: 1])
    #expect(reportCase.isHidden)
    #expect(reportCase.excerpt == "Spammy spam")
    #expect(reportCase.author?.nickname == "alice")
    let detail = try await admin.admin.fetchReportCase(reportCase.id)
    #expect(detail.reports.count == 5)
    #expect(try await admin.admin.fetchStats().hiddenContents == 1)
  }

  @Test("dismiss un-hides, tells every reporter, and cannot be repeated")
  func dismiss() async throws {
    let (backend, alice, bob, admin) = try makeCast()
    let reporters = try makeMembers(5, on: backend)
    let post = try await alice.board.createPost(PostDraft(content: "Edgy but fine"))
    for reporter in reporters { _ = try await reporter.reports.report(.post(post.id), .abuse) }
    let caseID = try #require(
      try await admin.admin.fetchReportCases(status: .open, page: .first).items.first
    ).id

    let resolved = try await admin.admin.resolveReportCase(caseID, .dismiss, "Not abusive")
    #expect(resolved.status == .resolved)
    #expect(resolved.resolution == .dismiss)
    #expect(resolved.isHidden == false)
    #expect(try await bob.board.fetchPost(post.id).id == post.id)
    #expect(try await bob.board.fetchPosts(page: .first).items.map(\.id) == [post.id])

    for reporter in reporters {
      let kinds = try await reporter.notifications.fetchNotifications(page: .first).items.map(
        \.kind)
      #expect(kinds == [.reportResolved])
      let myReports = try await reporter.reports.fetchMyReports(page: .first).items
      #expect(myReports.map(\.status) == [.resolved])
    }
    #expect(try await alice.notifications.fetchNotifications(page: .first).items.isEmpty)
    await #expect {
      _ = try await admin.admin.resolveReportCase(caseID, .hideContent, nil)
    } throws: { error in
      if case DomainError.conflict = error { true } else { false }
    }
    #expect(try await admin.admin.fetchReportCases(status: .open, page: .first).items.isEmpty)
  }

  @Test("a new report reopens a resolved case")
  func reopen() async throws {
    let (_, alice, bob, admin) = try makeCast()
    let post = try await alice.board.createPost(PostDraft(content: "Hmm"))
    _ = try await bob.reports.report(.post(post.id), .spam)
    let caseID = try #require(
      try await admin.admin.fetchReportCases(status: nil, page: .first).items.first
    ).id
    _ = try await admin.admin.resolveReportCase(caseID, .dismiss, nil)
    let carol = try admin.backend.signedUpClient(nickname: "carol")
    _ = try await carol.reports.report(.post(post.id), .abuse)
    let reopened = try await admin.admin.fetchReportCase(caseID)
    #expect(reopened.reportCase.status == .open)
    #expect(reopened.reportCase.resolution == nil)
    #expect(reopened.reportCase.reportCount == 2)
    #expect(reopened.reports.map(\.status) == [.resolved, .open])
  }

  @Test("after a dismissal, only five new reporters hide the content again")
  func reHideNeedsNewReports() async throws {
    let (backend, alice, _, admin) = try makeCast()
    let first = try makeMembers(5, on: backend, prefix: "early")
    let later = try makeMembers(5, on: backend, prefix: "late")
    let post = try await alice.board.createPost(PostDraft(content: "Controversial"))
    for reporter in first { _ = try await reporter.reports.report(.post(post.id), .abuse) }
    let caseID = try #require(
      try await admin.admin.fetchReportCases(status: .open, page: .first).items.first
    ).id
    _ = try await admin.admin.resolveReportCase(caseID, .dismiss, nil)
    for reporter in later.prefix(4) {
      _ = try await reporter.reports.report(.post(post.id), .abuse)
    }
    #expect(backend.isHidden(.post(post.id)) == false)
    let reopened = try await admin.admin.fetchReportCase(caseID).reportCase
    #expect(reopened.reportCount == 9)
    #expect(reopened.status == .open)
    _ = try await later[4].reports.report(.post(post.id), .abuse)
    #expect(backend.isHidden(.post(post.id)))
  }

  @Test("the inbox lists the most recently opened case first, a reopened one from its reopening")
  func inboxOrder() async throws {
    let (backend, alice, bob, admin) = try makeCast()
    let older = try await alice.board.createPost(PostDraft(content: "First reported"))
    let newer = try await alice.board.createPost(PostDraft(content: "Second reported"))
    _ = try await bob.reports.report(.post(older.id), .spam)
    backend.advance(by: 60)
    _ = try await bob.reports.report(.post(newer.id), .spam)
    backend.advance(by: 60)
    let carol = try backend.signedUpClient(nickname: "carol")
    _ = try await carol.reports.report(.post(older.id), .spam)
    let inbox = try await admin.admin.fetchReportCases(status: nil, page: .first).items
    #expect(inbox.map(\.target) == [.post(newer.id), .post(older.id)])
    #expect(inbox.last?.lastReportedAt == Fixtures.now.addingTimeInterval(120))
    // Dismissed, then reported again: it is the most recently opened case now.
    _ = try await admin.admin.resolveReportCase(try #require(inbox.last?.id), .dismiss, nil)
    backend.advance(by: 60)
    let dave = try backend.signedUpClient(nickname: "dave")
    _ = try await dave.reports.report(.post(older.id), .abuse)
    let open = try await admin.admin.fetchReportCases(status: .open, page: .first).items
    #expect(open.map(\.target) == [.post(older.id), .post(newer.id)])
  }

  @Test("hide_content keeps the content hidden")
  func hideContent() async throws {
    let (_, alice, bob, admin) = try makeCast()
    let post = try await alice.board.createPost(PostDraft(content: "Post"))
    let comment = try await alice.board.createComment(
      on: post.id, draft: CommentDraft(content: "Rude"))
    _ = try await bob.reports.report(.comment(comment.id), .abuse)
    let caseID = try #require(
      try await admin.admin.fetchReportCases(status: .open, page: .first).items.first
    ).id
    let resolved = try await admin.admin.resolveReportCase(caseID, .hideContent, nil)
    #expect(resolved.isHidden)
    #expect(try await bob.board.fetchComments(of: post.id, page: .first).items.isEmpty)
    #expect(try await bob.board.fetchPost(post.id).commentCount == 0)
  }

  @Test("ban_author hides the content and bans the author from writing, not reading")
  func banAuthor() async throws {
    let (backend, alice, bob, admin) = try makeCast()
    let questionID = try await publishTodayQuestion(admin)
    let answer = try await alice.questions.submitAnswer(
      to: questionID, content: "Call 010-1234-5678")
    _ = try await bob.questions.submitAnswer(to: questionID, content: "Careful")
    _ = try await bob.reports.report(.answer(answer.id), .privacy)
    let caseID = try #require(
      try await admin.admin.fetchReportCases(status: .open, page: .first).items.first
    ).id
    _ = try await admin.admin.resolveReportCase(caseID, .banAuthor, "Shared a phone number")

    #expect(
      try await bob.questions.fetchAnswers(of: questionID, page: .first).items.map(\.content) == [
        "Careful"
      ])
    #expect(backend.user(try alice.userID)?.isBanned == true)
    let bans = try await admin.admin.fetchUsers(query: "alice", page: .first).items
    #expect(bans.first?.banReason == "Shared a phone number")
    #expect(bans.first?.bannedUntil == nil)
    #expect(bans.first?.reportCount == 1)

    // Reads work, every kind of write is refused.
    _ = try await alice.board.fetchPosts(page: .first)
    let post = try await bob.board.createPost(PostDraft(content: "Bob's post"))
    await #expect(throws: DomainError.banned) {
      _ = try await alice.board.createPost(PostDraft(content: "x"))
    }
    await #expect(throws: DomainError.banned) {
      _ = try await alice.board.setPostLike(post.id, true)
    }
    await #expect(throws: DomainError.banned) {
      _ = try await alice.board.createComment(on: post.id, draft: CommentDraft(content: "x"))
    }
    await #expect(throws: DomainError.banned) {
      _ = try await alice.reports.report(.post(post.id), .spam)
    }
    await #expect(throws: DomainError.banned) {
      _ = try await alice.studyGroups.createGroup(StudyGroupDraft(name: "g"))
    }
    await #expect(throws: DomainError.banned) {
      _ = try await alice.profile.updateProfile(ProfileUpdate(cohort: "x"))
    }
    await #expect(throws: DomainError.banned) {
      _ = try await alice.chat.openDirectRoom(with: try bob.userID)
    }
    let room = try await bob.chat.openDirectRoom(with: try alice.userID)
    await #expect(throws: DomainError.banned) {
      _ = try await alice.chat.sendMessage("hi", room.id, UUID())
    }
    // Leaving a group and read cursors are not blocked, as on the server.
    let group = try await bob.studyGroups.createGroup(StudyGroupDraft(name: "Bob's group"))
    await #expect(throws: DomainError.banned) {
      _ = try await alice.studyGroups.joinGroup(group.id)
    }
    try await alice.studyGroups.leaveGroup(group.id)
    try await alice.notifications.markAllRead()
  }

  @Test("members cannot use admin routes")
  func adminRoutesForbidden() async throws {
    let (_, alice, _, _) = try makeCast()
    await #expect(throws: DomainError.forbidden) { _ = try await alice.admin.fetchStats() }
    await #expect(throws: DomainError.forbidden) {
      _ = try await alice.admin.fetchReportCases(status: nil, page: .first)
    }
    await #expect(throws: DomainError.forbidden) {
      _ = try await alice.admin.createQuestion(
        QuestionDraft(content: "Sneaky?", publishDate: Fixtures.today))
    }
  }

  @Test("chat messages and users can be reported too")
  func otherTargets() async throws {
    let (backend, alice, bob, admin) = try makeCast()
    let room = try await alice.chat.openDirectRoom(with: try bob.userID)
    let message = try await alice.chat.sendMessage("rude words", room.id, UUID())
    let outsider = try backend.signedUpClient(nickname: "outsider")
    await #expect(throws: DomainError.notFound) {
      _ = try await outsider.reports.report(.chatMessage(message.id), .abuse)
    }
    _ = try await bob.reports.report(.chatMessage(message.id), .abuse)
    _ = try await bob.reports.report(.user(try alice.userID), .abuse)
    let cases = try await admin.admin.fetchReportCases(status: .open, page: .first).items
    #expect(Set(cases.map(\.target)) == [.chatMessage(message.id), .user(try alice.userID)])
    #expect(cases.first { $0.target == .chatMessage(message.id) }?.excerpt == "rude words")
    let aliceID = try alice.userID
    #expect(cases.first { $0.target == .user(aliceID) }?.excerpt == "alice")
  }
}
