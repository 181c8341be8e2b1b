import Domain
import Foundation
import Repositories
import Testing

/// Rules of `Docs/Rules.md` beyond the main flows: moderation edges, bans that end,
/// questions whose day comes, chat over REST, and the sign-up checks.
enum RuleScenarios {
  /// Comments and answers hide at five reporters too; `hide_content` hides without banning; a
  /// new report of a resolved target reopens the same case without hiding it again; users can
  /// be reported, but not by themselves; admins delete anyone's post.
  static func moderationEdges(_ backend: any ScenarioBackend) async throws {
    let admin = try await backend.makeAdmin()
    let question = try await backend.publishTodayQuestion(by: admin)
    let alice = try await backend.makeMember(nickname: "alice")
    var reporters: [RepositorySet] = []
    for nickname in ["bob", "carol", "dave", "erin", "frank", "grace"] {
      reporters.append(try await backend.makeMember(nickname: nickname))
    }
    let bob = reporters[0]

    // A comment: five reporters hide it from the list and the count.
    let post = try await bob.board.createPost(PostDraft(content: "Weekend hackathon?"))
    let comment = try await alice.board.createComment(post.id, CommentDraft(content: "Rude words"))
    _ = try await bob.board.createComment(post.id, CommentDraft(content: "Count me in"))
    for reporter in reporters.prefix(5) {
      _ = try await reporter.reports.report(.comment(comment.id), .abuse)
    }
    let comments = try await bob.board.fetchComments(post.id, .first).items
    #expect(!comments.map(\.id).contains(comment.id))
    #expect(comments.count == 1)
    #expect(try await bob.board.fetchPost(post.id).commentCount == 1)
    await #expect(throws: DomainError.notFound) {
      try await bob.board.setCommentLike(comment.id, true)
    }

    // An answer: hidden from the answers list once five reporters report it.
    let answer = try await alice.questions.submitAnswer(question.id, "Spam spam spam")
    for reporter in reporters.prefix(5) {
      _ = try await reporter.questions.submitAnswer(question.id, "A real answer")
    }
    // Grace has not answered, so she cannot see the answer, nor report it.
    await #expect(throws: DomainError.notFound) {
      try await reporters[5].reports.report(.answer(answer.id), .spam)
    }
    for reporter in reporters.prefix(5) {
      _ = try await reporter.reports.report(.answer(answer.id), .spam)
    }
    let answers = try await bob.questions.fetchAnswers(question.id, PageRequest(limit: 100))
    #expect(!answers.items.map(\.id).contains(answer.id))
    #expect(answers.items.count == 5)

    // hide_content: hidden, nobody banned.
    let second = try await alice.board.createPost(PostDraft(content: "Off-topic rant"))
    let reply = try await bob.board.createComment(second.id, CommentDraft(content: "Stay on topic"))
    _ = try await bob.reports.report(.post(second.id), .other("Off-topic"))
    let secondCase = try #require(
      try await admin.admin.fetchReportCases(.open, PageRequest(limit: 100)).items.first {
        $0.target == .post(second.id)
      })
    let hidden = try await admin.admin.resolveReportCase(secondCase.id, .hideContent, nil)
    #expect(hidden.isHidden)
    #expect(hidden.resolution == .hideContent)
    await #expect(throws: DomainError.notFound) { try await bob.board.fetchPost(second.id) }
    #expect(try await alice.profile.fetchMe().isBanned == false)
    // Comments under a hidden post are not visible, to their authors either: only an admin
    // deletes them.
    await #expect(throws: DomainError.notFound) { try await bob.board.deleteComment(reply.id) }
    try await admin.board.deleteComment(reply.id)

    // Dismiss, then a new reporter: the same case opens again, the content stays visible.
    let third = try await alice.board.createPost(PostDraft(content: "Controversial opinion"))
    for reporter in reporters.prefix(5) {
      _ = try await reporter.reports.report(.post(third.id), .abuse)
    }
    let thirdCase = try #require(
      try await admin.admin.fetchReportCases(.open, PageRequest(limit: 100)).items.first {
        $0.target == .post(third.id)
      })
    _ = try await admin.admin.resolveReportCase(thirdCase.id, .dismiss, nil)
    await #expect(throws: DomainError.alreadyReported) {
      try await bob.reports.report(.post(third.id), .abuse)
    }
    _ = try await reporters[5].reports.report(.post(third.id), .abuse)
    let reopened = try await admin.admin.fetchReportCase(thirdCase.id).reportCase
    #expect(reopened.status == .open)
    #expect(reopened.resolution == nil)
    #expect(!reopened.isHidden)
    #expect(try await bob.board.fetchPost(third.id).id == third.id)
    let openTargets = try await admin.admin.fetchReportCases(.open, PageRequest(limit: 100))
      .items.map(\.target)
    #expect(openTargets.filter { $0 == .post(third.id) }.count == 1)

    // Users: reportable by others, not by themselves.
    let aliceID = try await alice.profile.fetchMe().id
    let userReport = try await bob.reports.report(.user(aliceID), .impersonation)
    #expect(userReport.target == .user(aliceID))
    await expectValidation(field: "target") {
      try await alice.reports.report(.user(aliceID), .spam)
    }

    // Admins delete anyone's content.
    try await admin.board.deletePost(post.id)
    await #expect(throws: DomainError.notFound) { try await bob.board.fetchPost(post.id) }
  }

  /// A ban with an end lifts by itself when the clock passes it; a ban end in the past is
  /// refused.
  static func timedBan(_ backend: any ScenarioBackend) async throws {
    let admin = try await backend.makeAdmin()
    let alice = try await backend.makeMember(nickname: "alice")
    let aliceID = try await alice.profile.fetchMe().id
    let start = scenarioEpoch

    await expectValidation(field: "until") {
      try await admin.admin.banUser(aliceID, "Too late", start.addingTimeInterval(-60))
    }
    let until = start.addingTimeInterval(3600)
    let banned = try await admin.admin.banUser(aliceID, "Cooling off", until)
    #expect(banned.user.isBanned)
    #expect(banned.bannedUntil == until)
    #expect(banned.banReason == "Cooling off")
    await #expect(throws: DomainError.banned) {
      try await alice.board.createPost(PostDraft(content: "Let me out"))
    }

    backend.advanceClock(by: .seconds(3599))
    await #expect(throws: DomainError.banned) {
      try await alice.board.createPost(PostDraft(content: "Almost"))
    }
    backend.advanceClock(by: .seconds(2))
    let post = try await alice.board.createPost(PostDraft(content: "Free again"))
    #expect(post.isMine)
    #expect(try await alice.profile.fetchMe().isBanned == false)
    let listed = try await admin.admin.fetchUsers("alice", .first).items.first
    #expect(listed?.user.isBanned == false)
  }

  /// A question scheduled for tomorrow is invisible to members until its day, then it is
  /// today's question; creating today's question tells every account.
  static func questionDays(_ backend: any ScenarioBackend) async throws {
    let admin = try await backend.makeAdmin()
    let alice = try await backend.makeMember(nickname: "alice")
    let today = backend.today
    let yesterday = try await admin.admin.createQuestion(
      QuestionDraft(content: "What was yesterday's lesson?", publishDate: today.adding(days: -1)))
    #expect(yesterday.status == .published)
    let tomorrow = try await admin.admin.createQuestion(
      QuestionDraft(content: "What will tomorrow bring?", publishDate: today.next))
    #expect(tomorrow.status == .scheduled)

    await #expect(throws: DomainError.notFound) { try await alice.questions.fetchToday() }
    await #expect(throws: DomainError.notFound) {
      try await alice.questions.fetchQuestion(tomorrow.id)
    }
    await #expect(throws: DomainError.notFound) {
      try await alice.questions.submitAnswer(tomorrow.id, "Too early")
    }
    #expect(try await alice.questions.fetchQuestions(.first).items.map(\.id) == [yesterday.id])
    // Answering a past question is allowed; it is published.
    _ = try await alice.questions.submitAnswer(yesterday.id, "Keyset pagination")

    let published = try await backend.publishTodayQuestion(by: admin)
    #expect(try await alice.questions.fetchToday().id == published.id)
    #expect(
      try await alice.questions.fetchQuestions(.first).items.map(\.id) == [
        published.id, yesterday.id,
      ])
    // Creating today's question announces it to every account; both sides treat it as an
    // event of the service, so the admin who wrote it hears of it too.
    let aliceKinds = try await alice.notifications.fetchNotifications(.first).items.map(\.kind)
    #expect(aliceKinds == [.newQuestion(published.id)])
    let adminKinds = try await admin.notifications.fetchNotifications(.first).items.map(\.kind)
    #expect(adminKinds == [.newQuestion(published.id)])

    backend.advanceClock(by: .seconds(86_400))
    let nextDay = try await alice.questions.fetchToday()
    #expect(nextDay.id == tomorrow.id)
    #expect(nextDay.publishDate == today.next)
    #expect(
      try await alice.questions.fetchQuestions(.first).items.map(\.id) == [
        tomorrow.id, published.id, yesterday.id,
      ])
    let status = try await admin.admin.fetchQuestions(.scheduled, .first).items
    #expect(status.isEmpty)
    // A scheduled question is announced once its day comes, at the first look at
    // notifications that day, once, to everyone.
    #expect(try await alice.notifications.fetchUnreadCount() == 2)
    let laterKinds = try await alice.notifications.fetchNotifications(.first).items.map(\.kind)
    #expect(laterKinds == [.newQuestion(tomorrow.id), .newQuestion(published.id)])
    let adminLater = try await admin.notifications.fetchNotifications(.first).items.map(\.kind)
    #expect(adminLater == [.newQuestion(tomorrow.id), .newQuestion(published.id)])
  }

  /// Group rooms for members only, `seq` from 1 per room, de-duplicated sends, `after_seq` /
  /// `before_seq`, read cursors, and one direct room per pair.
  static func chat(_ backend: any ScenarioBackend) async throws {
    let alice = try await backend.makeMember(nickname: "alice")
    let bob = try await backend.makeMember(nickname: "bob")
    let carol = try await backend.makeMember(nickname: "carol")
    let aliceID = try await alice.profile.fetchMe().id
    let bobID = try await bob.profile.fetchMe().id

    let group = try await alice.studyGroups.createGroup(StudyGroupDraft(name: "iOS interviews"))
    _ = try await bob.studyGroups.joinGroup(group.id)
    let bobsRooms = try await bob.chat.fetchRooms(.first).items
    let room = try #require(bobsRooms.first { $0.kind == .group(group.id) })
    #expect(room.title == "iOS interviews")
    #expect(try await carol.chat.fetchRooms(.first).items.isEmpty)
    await #expect(throws: DomainError.forbidden) {
      try await carol.chat.fetchMessages(room.id, nil, nil, 50)
    }
    await #expect(throws: DomainError.forbidden) {
      try await carol.chat.sendMessage("Let me in", room.id, UUID())
    }

    let firstID = UUID()
    let first = try await bob.chat.sendMessage("  Mock interview at 7?  ", room.id, firstID)
    #expect(first.seq == 1)
    #expect(first.text == "Mock interview at 7?")
    #expect(first.sender == UserSummary(id: bobID, nickname: "bob"))
    #expect(first.clientMessageID == firstID)
    let retried = try await bob.chat.sendMessage("Mock interview at 7?", room.id, firstID)
    #expect(retried.id == first.id)
    #expect(retried.seq == 1)
    let second = try await alice.chat.sendMessage("Yes, see you", room.id, UUID())
    #expect(second.seq == 2)
    let third = try await bob.chat.sendMessage("👍", room.id, UUID())
    #expect(third.seq == 3)
    await expectValidation(field: "text") {
      try await bob.chat.sendMessage("   ", room.id, UUID())
    }

    let all = try await alice.chat.fetchMessages(room.id, nil, nil, 50)
    #expect(all.map(\.seq) == [1, 2, 3])
    #expect(all.map(\.id) == [first.id, second.id, third.id])
    #expect(try await alice.chat.fetchMessages(room.id, 1, nil, 50).map(\.seq) == [2, 3])
    #expect(try await alice.chat.fetchMessages(room.id, nil, 3, 50).map(\.seq) == [1, 2])
    #expect(try await alice.chat.fetchMessages(room.id, nil, nil, 2).map(\.seq) == [2, 3])

    try await alice.chat.markRead(room.id, 2)
    let alicesRoom = try #require(
      try await alice.chat.fetchRooms(.first).items.first { $0.id == room.id })
    #expect(alicesRoom.lastReadSeq == 2)
    #expect(alicesRoom.unreadCount == 1)
    #expect(alicesRoom.lastMessage?.id == third.id)

    // Leaving the group closes its room.
    try await bob.studyGroups.leaveGroup(group.id)
    await #expect(throws: DomainError.forbidden) {
      try await bob.chat.sendMessage("Bye", room.id, UUID())
    }

    // One direct room per pair, whoever opens it; not with yourself.
    let direct = try await alice.chat.openDirectRoom(bobID)
    #expect(direct.kind == .direct(bobID))
    #expect(direct.title == "bob")
    #expect(try await alice.chat.openDirectRoom(bobID).id == direct.id)
    let fromBob = try await bob.chat.openDirectRoom(aliceID)
    #expect(fromBob.id == direct.id)
    #expect(fromBob.kind == .direct(aliceID))
    await expectValidation(field: "user_id") { try await alice.chat.openDirectRoom(aliceID) }
    let hello = try await alice.chat.sendMessage("Hi Bob", direct.id, UUID())
    #expect(hello.seq == 1)
    await #expect(throws: DomainError.forbidden) {
      try await carol.chat.fetchMessages(direct.id, nil, nil, 10)
    }
  }

  /// Only dev sign-in works; wrong codes are refused naming `code` and five of them kill the
  /// code; a code expires after ten minutes; a new code works.
  static func signUpChecks(_ backend: any ScenarioBackend) async throws {
    let client = try await backend.makeClient()
    await expectValidation(field: "provider") { try await client.auth.signIn(.apple, "token") }
    await expectValidation(field: "provider") { try await client.auth.signIn(.kakao, "token") }

    guard case .needsSignUp(let token) = try await client.auth.signIn(.dev, "newbie") else {
      Issue.record("an unknown dev token signed in")
      return
    }
    let email = try EmailAddress(validating: "newbie@academy.example")
    _ = try await client.auth.requestEmailCode(token, email)
    let code = try #require(await backend.lastEmailCode(for: email))
    let wrong = try VerificationCode(validating: code.rawValue == "000000" ? "111111" : "000000")
    for _ in 1...5 {
      await expectValidation(field: "code") {
        try await client.auth.verifyEmailCode(token, email, wrong)
      }
    }
    await expectValidation(field: "code") {
      try await client.auth.verifyEmailCode(token, email, code)
    }

    _ = try await client.auth.requestEmailCode(token, email)
    let expiring = try #require(await backend.lastEmailCode(for: email))
    backend.advanceClock(by: .seconds(601))
    await expectValidation(field: "code") {
      try await client.auth.verifyEmailCode(token, email, expiring)
    }

    _ = try await client.auth.requestEmailCode(token, email)
    let fresh = try #require(await backend.lastEmailCode(for: email))
    let verification = try await client.auth.verifyEmailCode(token, email, fresh)
    let user = try await client.auth.signUp(
      SignUpForm(
        signUpToken: token, verificationToken: verification,
        nickname: try Nickname(validating: "newbie"), agreedTermsVersion: "2026-03"))
    #expect(user.nickname.rawValue == "newbie")
    #expect(await client.auth.currentState() == .signedIn(user))
  }

  /// The write limit (10 per 10 s here) counts each user's writes: the eleventh is refused
  /// with the wait until the oldest leaves the window, reads and other users go on, and the
  /// window reopens. Every non-GET request is a write (`Docs/Rules.md`, the write limit).
  static func writeLimit(_ backend: any ScenarioBackend) async throws {
    let alice = try await backend.makeMember(nickname: "alice")
    let bob = try await backend.makeMember(nickname: "bob")
    for number in 1...10 {
      _ = try await alice.board.createPost(PostDraft(content: "Burst \(number)"))
    }
    await #expect(throws: DomainError.rateLimited(retryAfter: .seconds(10))) {
      try await alice.board.createPost(PostDraft(content: "One too many"))
    }
    #expect(try await alice.board.fetchPosts(PageRequest(limit: 100)).items.count == 10)
    _ = try await bob.board.createPost(PostDraft(content: "Bob is not limited"))
    backend.advanceClock(by: .seconds(10))
    _ = try await alice.board.createPost(PostDraft(content: "The window reopened"))

    // Marking notifications read is a write too (POST /notifications/read-all).
    backend.advanceClock(by: .seconds(10))
    for _ in 1...10 { try await alice.notifications.markAllRead() }
    await #expect(throws: DomainError.rateLimited(retryAfter: .seconds(10))) {
      try await alice.board.createPost(PostDraft(content: "After ten mark-reads"))
    }

    // Not writes: a member's admin call, refused before the limit counts it, and a resend of
    // a stored chat message (its answer was lost), answered again over the limit too.
    backend.advanceClock(by: .seconds(10))
    let room = try await alice.chat.openDirectRoom(try await bob.profile.fetchMe().id)
    let messageID = UUID()
    let sent = try await alice.chat.sendMessage("Lunch?", room.id, messageID)
    for _ in 1...10 {
      await #expect(throws: DomainError.forbidden) {
        try await alice.admin.createQuestion(
          QuestionDraft(content: "Not mine to ask", publishDate: backend.today.adding(days: 3)))
      }
    }
    for _ in 3...10 { try await alice.notifications.markAllRead() }
    #expect(try await alice.chat.sendMessage("Lunch?", room.id, messageID) == sent)
    await #expect(throws: DomainError.rateLimited(retryAfter: .seconds(10))) {
      try await alice.chat.sendMessage("A new one", room.id, UUID())
    }
  }
}
