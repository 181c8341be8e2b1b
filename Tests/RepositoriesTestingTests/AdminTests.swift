import Domain
import Foundation
import Repositories
import RepositoriesTesting
import Testing

@Suite("Fake admin tools")
struct AdminTests {
  func isConflict(_ error: any Error) -> Bool {
    if case DomainError.conflict = error { true } else { false }
  }

  @Test("one question per day; status follows the date")
  func scheduling() async throws {
    let (backend, _, _, admin) = try makeCast()
    let today = backend.today
    let published = try await admin.admin.createQuestion(
      QuestionDraft(content: "Today's one", publishDate: today))
    let scheduled = try await admin.admin.createQuestion(
      QuestionDraft(content: "Next week's one", publishDate: today.adding(days: 7)))
    #expect(published.status == .published)
    #expect(scheduled.status == .scheduled)
    await #expect {
      _ = try await admin.admin.createQuestion(
        QuestionDraft(content: "Same day", publishDate: today))
    } throws: { isConflict($0) }
    #expect(
      await validationField {
        _ = try await admin.admin.createQuestion(
          QuestionDraft(content: "Hi?", publishDate: today.next))
      } == "content")
    #expect(
      try await admin.admin.fetchQuestions(.scheduled, .first).items.map(\.id) == [scheduled.id])
    #expect(
      try await admin.admin.fetchQuestions(nil, .first).items.map(\.id) == [
        scheduled.id, published.id,
      ])
    await #expect {
      _ = try await admin.admin.updateQuestion(
        scheduled.id, QuestionDraft(content: "Moved", publishDate: today))
    } throws: { isConflict($0) }
  }

  @Test("published questions with answers cannot change; others can")
  func history() async throws {
    let (backend, alice, _, admin) = try makeCast()
    let today = try await admin.admin.createQuestion(
      QuestionDraft(content: "Today's one", publishDate: backend.today))
    let edited = try await admin.admin.updateQuestion(
      today.id, QuestionDraft(content: "Today's one, fixed", publishDate: backend.today))
    #expect(edited.content == "Today's one, fixed")
    _ = try await alice.questions.submitAnswer(to: today.id, content: "An answer")
    await #expect {
      _ = try await admin.admin.updateQuestion(
        today.id, QuestionDraft(content: "Rewrite history", publishDate: backend.today))
    } throws: { isConflict($0) }
    await #expect { try await admin.admin.deleteQuestion(today.id) } throws: { isConflict($0) }

    let future = try await admin.admin.createQuestion(
      QuestionDraft(content: "Later one", publishDate: backend.today.next))
    try await admin.admin.deleteQuestion(future.id)
    await #expect(throws: DomainError.notFound) { try await admin.admin.deleteQuestion(future.id) }
  }

  @Test("CSV import: quoting, line breaks inside quotes, per-line errors")
  func csvImport() async throws {
    let (_, _, _, admin) = try makeCast()
    let result = try await admin.admin.importQuestions(Fixtures.questionImportCSV)
    #expect(result.imported == 3)
    #expect(result.errors.map(\.line) == [6, 7])
    #expect(result.errors[0].message.contains("publish_date"))
    #expect(result.errors[1].message.contains("content"))
    let contents = try await admin.admin.fetchQuestions(nil, .first).items.map(\.content)
    #expect(
      contents == [
        "Two lines,\none question: what is next?", "코드 리뷰에서 \"좋은 질문\"이란?",
        "What would you build with one more week?",
      ])
  }

  @Test("CSV import: BOM and CRLF, taken days, field counts, quotes kept as text")
  func csvImportErrors() async throws {
    let (backend, alice, _, admin) = try makeCast()
    _ = try await admin.admin.createQuestion(
      QuestionDraft(content: "Already there", publishDate: backend.today))
    let csv =
      "\u{FEFF}publish_date,content\r\n\(backend.today),Taken day?\r\n2026-05-01,Fine question\r\n"
      + "2026-05-01,Same day twice\r\n2026-05-02\r\n2026-05-03,a \"quoted\" word\r\n  \r\n"
      + "2026-05-04,\"Last, with comma\"\r\n"
    let result = try await admin.admin.importQuestions(Data(csv.utf8))
    #expect(result.imported == 3)
    #expect(result.errors.map(\.line) == [2, 4, 5])
    let imported = try await admin.admin.fetchQuestions(.scheduled, .first).items.map(\.content)
    #expect(imported == ["Last, with comma", "a \"quoted\" word", "Fine question"])
    // Only the question created for today was announced; imported future rows are not.
    #expect(try await alice.notifications.fetchUnreadCount() == 1)
  }

  @Test("CSV import announces a row for today like a created question")
  func csvImportAnnouncesToday() async throws {
    let (backend, alice, _, admin) = try makeCast()
    let csv = "publish_date,content\n\(backend.today),Today via CSV?\n"
    #expect(try await admin.admin.importQuestions(Data(csv.utf8)).imported == 1)
    let today = try await alice.questions.fetchToday()
    let kinds = try await alice.notifications.fetchNotifications(page: .first).items.map(\.kind)
    #expect(kinds == [.newQuestion(today.id)])
  }

  @Test("CSV import refuses unreadable files whole: empty, unclosed quote, wrong header")
  func csvImportRefusals() async throws {
    let (_, _, _, admin) = try makeCast()
    func field(_ text: String) async -> String? {
      await validationField { _ = try await admin.admin.importQuestions(Data(text.utf8)) }
    }
    #expect(
      await validationField { _ = try await admin.admin.importQuestions(Data()) } == "request")
    #expect(await field("\u{FEFF}\n \n") == "request")
    #expect(await field("date,text\n2026-05-01,Question?\n") == "request")
    #expect(
      await field("publish_date,content\n2026-05-01,Fine one\n2026-05-02,\"unclosed\n") == "request"
    )
    #expect(
      await validationField { _ = try await admin.admin.importQuestions(Data([0xFF, 0xFE, 0x00])) }
        == "request")
    #expect(try await admin.admin.fetchQuestions(nil, .first).items.isEmpty)
    #expect(
      try await admin.admin.importQuestions(Data("publish_date,content\n".utf8)).imported == 0)
  }

  @Test("ban and unban; a ban with an end date ends by itself")
  func bans() async throws {
    let (backend, alice, bob, admin) = try makeCast()
    let aliceID = try alice.userID
    let until = Fixtures.now.addingTimeInterval(3600)
    let banned = try await admin.admin.banUser(aliceID, "Spam", until)
    #expect(banned.user.isBanned)
    #expect(banned.bannedUntil == until)
    await #expect(throws: DomainError.banned) {
      _ = try await alice.board.createPost(PostDraft(content: "x"))
    }

    backend.advance(by: 3601)
    _ = try await alice.board.createPost(PostDraft(content: "I'm back"))
    #expect(backend.user(aliceID)?.isBanned == false)

    _ = try await admin.admin.banUser(try bob.userID, "Abuse", nil)
    let unbanned = try await admin.admin.unbanUser(try bob.userID)
    #expect(unbanned.user.isBanned == false)
    #expect(unbanned.banReason == nil)
    _ = try await bob.board.createPost(PostDraft(content: "Thanks"))
  }

  @Test("bans need a reason and a future end; admins and oneself cannot be banned")
  func banRules() async throws {
    let (backend, alice, _, admin) = try makeCast()
    let otherAdmin = try backend.signedUpClient(nickname: "moderator2", role: .admin)
    #expect(
      await validationField { _ = try await admin.admin.banUser(try alice.userID, " ", nil) }
        == "reason")
    #expect(
      await validationField {
        _ = try await admin.admin.banUser(
          try alice.userID, "Spam", Fixtures.now.addingTimeInterval(-1))
      } == "until")
    #expect(
      await validationField { _ = try await admin.admin.banUser(try admin.userID, "Oops", nil) }
        == "user_id")
    await #expect {
      _ = try await admin.admin.banUser(try otherAdmin.userID, "Power struggle", nil)
    } throws: {
      isConflict($0)
    }
    await #expect(throws: DomainError.notFound) {
      _ = try await admin.admin.banUser("u_404", "Spam", nil)
    }
  }

  @Test("users list with nickname search; stats count everything")
  func usersAndStats() async throws {
    let (_, alice, bob, admin) = try makeCast()
    #expect(
      try await admin.admin.fetchUsers("AL", .first).items.map(\.user.nickname.rawValue) == [
        "alice"
      ])
    #expect(try await admin.admin.fetchUsers(nil, .first).items.count == 3)

    let questionID = try await publishTodayQuestion(admin)
    _ = try await alice.questions.submitAnswer(to: questionID, content: "Answer")
    let post = try await alice.board.createPost(PostDraft(content: "Post"))
    _ = try await bob.board.createComment(on: post.id, draft: CommentDraft(content: "Comment"))
    _ = try await bob.reports.report(.post(post.id), .spam)
    let group = try await bob.studyGroups.createGroup(StudyGroupDraft(name: "Group"))
    let room = try #require(
      try await bob.chat.fetchRooms(page: .first).items.first { $0.kind == .group(group.id) })
    _ = try await bob.chat.sendMessage("hello", room.id, UUID())
    _ = try await admin.admin.banUser(try bob.userID, "Testing stats", nil)

    let stats = try await admin.admin.fetchStats()
    #expect(
      stats
        == AdminStats(
          users: 3, admins: 1, bannedUsers: 1, questions: 1, answers: 1, posts: 1, comments: 1,
          openReports: 1, hiddenContents: 0, groups: 1, messages: 1))
  }
}
