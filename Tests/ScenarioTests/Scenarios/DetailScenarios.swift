import Domain
import Foundation
import Repositories
import RepositoriesTesting
import Testing

/// Details where two implementations of the same rule tend to part: CSV corners, editing
/// questions with history, search text that looks like SQL wildcards, answers deleted and
/// written again, report status, list orders, and paging of every kind of list.
enum DetailScenarios {
  /// RFC 4180 quoting with a line break inside quotes (errors name the record's first line),
  /// a BOM, CRLF line ends, a taken day, a duplicate day within the file; an empty file and a
  /// wrong header are refused as a whole.
  static func csvImport(_ backend: any ScenarioBackend) async throws {
    let admin = try await backend.makeAdmin()
    // Fixtures.questionImportCSV: April 2026 rows, a quoted line break, bad rows on 6 and 7.
    let fixture = try await admin.admin.importQuestions(Fixtures.questionImportCSV)
    #expect(fixture.imported == 3)
    #expect(fixture.errors.map(\.line) == [6, 7])
    let twoLines = try await admin.admin.fetchQuestions(.scheduled, PageRequest(limit: 100))
      .items.first { $0.publishDate == (try? CalendarDay(iso8601: "2026-04-03")) }
    #expect(twoLines?.content == "Two lines,\none question: what is next?")
    #expect(
      try await admin.admin.fetchQuestions(nil, PageRequest(limit: 100)).items.first {
        $0.publishDate == (try? CalendarDay(iso8601: "2026-04-02"))
      }?.content == "코드 리뷰에서 \"좋은 질문\"이란?")

    let today = backend.today
    let rows = [
      "\u{FEFF}publish_date,content",
      "\(today.adding(days: 20)),What did you refactor this week?",
      "2026-04-01,This day is taken by the fixture",
      "\(today.adding(days: 21)),First question of the day",
      "\(today.adding(days: 21)),Second question of the same day",
      "\(today.adding(days: 22)),Only one field,\"and a third\"",
      "\(today.adding(days: 23)),\"  Surrounding spaces are trimmed  \"",
    ]
    let crlf = try await admin.admin.importQuestions(
      Data((rows.joined(separator: "\r\n") + "\r\n").utf8))
    #expect(crlf.imported == 3)
    #expect(crlf.errors.map(\.line) == [3, 5, 6])
    let trimmed = try await admin.admin.fetchQuestions(.scheduled, PageRequest(limit: 100))
      .items.first { $0.publishDate == today.adding(days: 23) }
    #expect(trimmed?.content == "Surrounding spaces are trimmed")

    let empty = await #expect(throws: DomainError.self) {
      try await admin.admin.importQuestions(Data())
    }
    #expect(empty?.validationField != nil, "\(String(describing: empty))")
    await expectValidation(field: "request") {
      try await admin.admin.importQuestions(Data("date,text\n2026-05-01,Wrong header row".utf8))
    }
    #expect(try await admin.admin.fetchStats().questions == 6)
  }

  /// Scheduled questions can be edited and deleted; a published one with answers cannot; a
  /// new day that is taken is a conflict.
  static func questionEdits(_ backend: any ScenarioBackend) async throws {
    let admin = try await backend.makeAdmin()
    let alice = try await backend.makeMember(nickname: "alice")
    let today = backend.today
    let later = try await admin.admin.createQuestion(
      QuestionDraft(content: "A question for later", publishDate: today.adding(days: 5)))
    let other = try await admin.admin.createQuestion(
      QuestionDraft(content: "Another for later", publishDate: today.adding(days: 6)))
    let edited = try await admin.admin.updateQuestion(
      later.id, QuestionDraft(content: "An edited question", publishDate: today.adding(days: 7)))
    #expect(edited.content == "An edited question")
    #expect(edited.publishDate == today.adding(days: 7))
    #expect(edited.status == .scheduled)
    await expectConflict("moving onto a taken day") {
      try await admin.admin.updateQuestion(
        later.id, QuestionDraft(content: "An edited question", publishDate: today.adding(days: 6)))
    }
    try await admin.admin.deleteQuestion(other.id)
    await #expect(throws: DomainError.notFound) { try await admin.admin.deleteQuestion(other.id) }
    await expectValidation(field: "content") {
      try await admin.admin.createQuestion(QuestionDraft(content: "Hi?", publishDate: today))
    }

    let published = try await backend.publishTodayQuestion(by: admin)
    _ = try await alice.questions.submitAnswer(published.id, "An answer makes it history")
    await expectConflict("editing a published question with answers") {
      try await admin.admin.updateQuestion(
        published.id, QuestionDraft(content: "Rewritten history", publishDate: today))
    }
    await expectConflict("deleting a published question with answers") {
      try await admin.admin.deleteQuestion(published.id)
    }
    #expect(try await alice.questions.fetchToday().content == published.content)
  }

  /// Search is a plain substring match: `%` and `_` are characters, not wildcards; letter
  /// case is ignored beyond ASCII too.
  static func searchText(_ backend: any ScenarioBackend) async throws {
    let alice = try await backend.makeMember(nickname: "alice")
    let percent = try await alice.board.createPost(PostDraft(content: "I am 100% sure"))
    let digits = try await alice.board.createPost(PostDraft(content: "I am 1000 sure"))
    let underscore = try await alice.board.createPost(PostDraft(content: "snake_case names"))
    let space = try await alice.board.createPost(PostDraft(content: "snake case names"))
    let accented = try await alice.board.createPost(PostDraft(content: "École 42 open day"))
    let hangul = try await alice.board.createPost(PostDraft(content: "알고리즘 스터디 모집"))

    #expect(try await alice.board.searchPosts("0%", .first).items.map(\.id) == [percent.id])
    #expect(try await alice.board.searchPosts("00 s", .first).items.map(\.id) == [digits.id])
    #expect(try await alice.board.searchPosts("e_c", .first).items.map(\.id) == [underscore.id])
    #expect(try await alice.board.searchPosts("e c", .first).items.map(\.id) == [space.id])
    #expect(try await alice.board.searchPosts("école", .first).items.map(\.id) == [accented.id])
    #expect(try await alice.board.searchPosts("스터디", .first).items.map(\.id) == [hangul.id])
    #expect(
      try await alice.board.searchPosts("  SURE  ", .first).items.map(\.id) == [
        digits.id, percent.id,
      ])
  }

  /// Deleting one's answer frees the question for a new answer and updates every count.
  static func answerDeletion(_ backend: any ScenarioBackend) async throws {
    let admin = try await backend.makeAdmin()
    let question = try await backend.publishTodayQuestion(by: admin)
    let alice = try await backend.makeMember(nickname: "alice")
    let first = try await alice.questions.submitAnswer(question.id, "First thought")
    try await alice.questions.deleteAnswer(first.id)
    #expect(try await alice.questions.fetchToday().myAnswer == nil)
    #expect(try await alice.questions.fetchToday().answerCount == 0)
    #expect(try await alice.profile.fetchMe().answerCount == 0)
    await #expect(throws: DomainError.answerRequired) {
      try await alice.questions.fetchAnswers(question.id, .first)
    }
    await #expect(throws: DomainError.notFound) { try await alice.questions.deleteAnswer(first.id) }

    let second = try await alice.questions.submitAnswer(question.id, "Second thought")
    #expect(try await alice.questions.fetchToday().myAnswer?.id == second.id)
    #expect(try await alice.profile.fetchMyAnswers(.first).items.map(\.id) == [second.id])
    #expect(try await alice.profile.fetchMe().answerCount == 1)
  }

  /// A reporter's own list shows the report resolved once the case is; a case's reports come
  /// oldest first; the inbox lists newest cases first; admin user search ignores letter case.
  static func reportStatusAndOrder(_ backend: any ScenarioBackend) async throws {
    let admin = try await backend.makeAdmin()
    let alice = try await backend.makeMember(nickname: "alice")
    let bob = try await backend.makeMember(nickname: "bob")
    let carol = try await backend.makeMember(nickname: "carol")
    let older = try await alice.board.createPost(PostDraft(content: "Older post"))
    let newer = try await alice.board.createPost(PostDraft(content: "Newer post"))
    let bobsReport = try await bob.reports.report(.post(older.id), .spam)
    let carolsReport = try await carol.reports.report(.post(older.id), .other("Off-topic"))
    _ = try await bob.reports.report(.post(newer.id), .abuse)

    let inbox = try await admin.admin.fetchReportCases(.open, .first).items
    #expect(inbox.map(\.target) == [.post(newer.id), .post(older.id)])
    let olderCase = try #require(inbox.last)
    let detail = try await admin.admin.fetchReportCase(olderCase.id)
    #expect(detail.reports.map(\.id) == [bobsReport.id, carolsReport.id])
    #expect(detail.reports.map(\.reason) == [.spam, .other("Off-topic")])

    _ = try await admin.admin.resolveReportCase(olderCase.id, .dismiss, nil)
    let bobsReports = try await bob.reports.fetchMyReports(.first).items
    #expect(bobsReports.map(\.target) == [.post(newer.id), .post(older.id)])
    #expect(bobsReports.map(\.status) == [.open, .resolved])
    #expect(try await carol.reports.fetchMyReports(.first).items.map(\.status) == [.resolved])

    let found = try await admin.admin.fetchUsers("ALI", .first).items
    #expect(found.map(\.user.nickname.rawValue) == ["alice"])
    await #expect(throws: DomainError.notFound) {
      try await admin.admin.fetchReportCase("case_999999")
    }
  }

  /// Comments walk oldest first across pages, notifications and my answers newest first,
  /// groups and members page without repeats.
  static func listPaging(_ backend: any ScenarioBackend) async throws {
    let alice = try await backend.makeMember(nickname: "alice")
    let bob = try await backend.makeMember(nickname: "bob")
    let post = try await alice.board.createPost(PostDraft(content: "Say something"))
    var comments: [Domain.Comment.ID] = []
    for number in 1...25 {
      comments.append(
        try await bob.board.createComment(post.id, CommentDraft(content: "Comment \(number)")).id)
    }
    let commentPages = try await collectPages(limit: 10) {
      try await alice.board.fetchComments(post.id, $0)
    }
    #expect(commentPages.map(\.items.count) == [10, 10, 5])
    #expect(commentPages.flatMap(\.items).map(\.id) == comments)

    let notificationPages = try await collectPages(limit: 10) {
      try await alice.notifications.fetchNotifications($0)
    }
    #expect(notificationPages.map(\.items.count) == [10, 10, 5])
    let kinds = notificationPages.flatMap(\.items).map(\.kind)
    #expect(kinds == comments.reversed().map { .commentOnMyPost(post: post.id, comment: $0) })

    var groups: [StudyGroup.ID] = []
    for number in 1...12 {
      groups.append(
        try await alice.studyGroups.createGroup(StudyGroupDraft(name: "Group \(number)")).id)
    }
    let groupPages = try await collectPages(limit: 5) {
      try await bob.studyGroups.fetchGroups(nil, $0)
    }
    #expect(groupPages.map(\.items.count) == [5, 5, 2])
    #expect(Set(groupPages.flatMap(\.items).map(\.id)) == Set(groups))
    #expect(groupPages.flatMap(\.items).count == 12)
  }
}

extension DetailScenarios {
  /// Many members at once: anonymous labels stay distinct and stable, counts exact, and the
  /// same chat message sent twice at once is stored once.
  static func concurrency(_ backend: any ScenarioBackend) async throws {
    let alice = try await backend.makeMember(nickname: "alice")
    var members: [RepositorySet] = []
    for number in 1...10 {
      members.append(try await backend.makeMember(nickname: "member\(number)"))
    }
    let post = try await alice.board.createPost(PostDraft(content: "Everyone, say hi"))
    let group = try await alice.studyGroups.createGroup(StudyGroupDraft(name: "Crowd"))

    try await withThrowingTaskGroup(of: Void.self) { tasks in
      for member in members {
        tasks.addTask {
          _ = try await member.board.createComment(post.id, CommentDraft(content: "hi"))
          _ = try await member.board.setPostLike(post.id, true)
          _ = try await member.studyGroups.joinGroup(group.id)
          _ = try await member.board.createComment(post.id, CommentDraft(content: "again"))
        }
      }
      try await tasks.waitForAll()
    }
    let seen = try await alice.board.fetchPost(post.id)
    #expect(seen.likeCount == 10)
    #expect(seen.commentCount == 20)
    let comments = try await alice.board.fetchComments(post.id, PageRequest(limit: 100)).items
    let labels = Set(comments.map(\.authorName))
    #expect(labels == Set((1...10).map { Comment.anonymousLabel(ordinal: $0) }))
    // Each member kept one label for both comments.
    for label in labels {
      #expect(comments.filter { $0.authorName == label }.count == 2, "\(label)")
    }
    #expect(try await alice.studyGroups.fetchGroup(group.id).memberCount == 11)

    let room = try #require(
      try await alice.chat.fetchRooms(.first).items.first { $0.kind == .group(group.id) })
    let messageID = UUID()
    let sender = members[0]
    async let first = sender.chat.sendMessage("Sent twice at once", room.id, messageID)
    async let second = sender.chat.sendMessage("Sent twice at once", room.id, messageID)
    let (one, two) = try await (first, second)
    #expect(one.id == two.id)
    #expect(one.seq == two.seq)
    #expect(try await alice.chat.fetchMessages(room.id, nil, nil, 50).count == 1)
  }

  /// Text is measured in characters as people see them: 250 emoji with skin tones make a valid
  /// answer, a Hangul nickname signs up and is found taken, Hangul round-trips everywhere.
  static func unicode(_ backend: any ScenarioBackend) async throws {
    let admin = try await backend.makeAdmin()
    let question = try await backend.publishTodayQuestion("오늘 가장 기억에 남는 코드 리뷰는?", by: admin)
    let haneul = try await backend.makeClient()
    let user = try await backend.signUp(haneul, nickname: "하늘", token: "haneul")
    #expect(user.nickname.rawValue == "하늘")
    let other = try await backend.makeClient()
    #expect(try await other.auth.checkNickname(try Nickname(validating: "하늘")).isAvailable == false)
    await #expect(throws: DomainError.nicknameTaken) {
      try await backend.signUp(other, nickname: "하늘", token: "other")
    }

    let thumbs = String(repeating: "👍🏽", count: 250)
    let answer = try await haneul.questions.submitAnswer(question.id, thumbs)
    #expect(answer.content == thumbs)
    #expect(answer.authorNickname == "하늘")
    #expect(try await haneul.questions.fetchToday().content == "오늘 가장 기억에 남는 코드 리뷰는?")

    let family = String(repeating: "👨‍👩‍👧‍👦", count: 1000)
    let post = try await haneul.board.createPost(PostDraft(content: family, isAnonymous: false))
    #expect(post.content == family)
    #expect(post.authorName == "하늘")
    let found = try await haneul.board.searchPosts("👨‍👩‍👧‍👦", .first).items
    #expect(found.map(\.id) == [post.id])
  }
}
