import Domain
import Foundation
import Persistence
import Testing

@testable import ToolSupport

/// The tools as users and scripts run them: built executables, real processes, the embedded
/// local server on a shared database (one data directory for the whole suite, so the demo
/// community is seeded once).
/// The data directory the suite shares (deleted when the suite ends).
private let sharedHome = ToolProcess.temporaryHome()

@Suite(
  "qapple and qapple-admin as processes", .serialized, .removesDirectoryAfterwards(sharedHome))
struct ToolsProcessTests {
  let tools = ToolProcess(home: sharedHome)

  @Test func demoFinishesAndExitsZero() async throws {
    // The demo has its own throwaway server: a fresh data directory must not matter.
    let run = try await ToolProcess(home: ToolProcess.temporaryHome()).run("qapple", "demo")
    #expect(run.status == 0, "\(run)")
    #expect(run.stdout.contains("1. Mina and Jun sign up"))
    #expect(run.stdout.contains("hidden automatically"))
    #expect(run.stdout.contains("[report_resolved]"))
    #expect(run.stdout.contains("[group_invite]"))
    #expect(run.stdout.contains("#2 Jun: Thanks!"))
    #expect(run.stdout.contains("Done in"))
    #expect(!run.stderr.contains("error"), "\(run)")
  }

  @Test func memberListingsDecodeFromJSON() async throws {
    let signIn = try await tools.run("qapple", "signin", "--token", "demo-1", "--json")
    #expect(signIn.status == 0, "\(signIn)")
    let user = try signIn.decode(UserOutput.self)
    #expect(user.role == "member")
    #expect(!user.nickname.isEmpty)

    let today = try await tools.run("qapple", "today", "--json")
    #expect(today.status == 0, "\(today)")
    let question = try today.decode(QuestionOutput.self)
    #expect(!question.content.isEmpty)
    #expect(question.id.hasPrefix("q_"))
    #expect(throws: Never.self) { try CalendarDay(iso8601: question.publishDate) }
    #expect(question.answerCount >= 0)

    let board = try await tools.run("qapple", "board", "list", "--json", "--limit", "5")
    #expect(board.status == 0, "\(board)")
    let posts = try board.decode(ListOutput<PostOutput>.self)
    #expect(posts.items.count == 5)
    #expect(posts.nextCursor != nil)
    #expect(posts.items.allSatisfy { !$0.id.isEmpty && !$0.content.isEmpty && $0.likeCount >= 0 })
    let dates = posts.items.map(\.createdAt)
    #expect(dates == dates.sorted(by: >), "newest first")

    let cursor = try #require(posts.nextCursor)
    let next = try await tools.run(
      "qapple", "board", "list", "--json", "--limit", "5", "--cursor", cursor)
    let nextPosts = try next.decode(ListOutput<PostOutput>.self)
    #expect(Set(nextPosts.items.map(\.id)).isDisjoint(with: posts.items.map(\.id)))
  }

  @Test func adminListingsDecodeFromJSON() async throws {
    let signIn = try await tools.run("qapple-admin", "signin", "--token", "admin", "--json")
    #expect(signIn.status == 0, "\(signIn)")
    #expect(try signIn.decode(UserOutput.self).role == "admin")

    let statsRun = try await tools.run("qapple-admin", "stats", "--json")
    #expect(statsRun.status == 0, "\(statsRun)")
    let stats = try statsRun.decode(StatsOutput.self)
    #expect(stats.users >= 11)
    #expect(stats.admins >= 1)
    #expect(stats.posts > 0)
    #expect(stats.questions > 0)

    let reportsRun = try await tools.run("qapple-admin", "reports", "list", "--json")
    #expect(reportsRun.status == 0, "\(reportsRun)")
    let reports = try reportsRun.decode(ListOutput<ReportCaseOutput>.self)
    #expect(!reports.items.isEmpty, "the demo seed has open reports")
    for reportCase in reports.items {
      #expect(reportCase.status == "open")
      #expect(reportCase.resolution == nil)
      #expect(reportCase.reportCount > 0)
      #expect(reportCase.reasonCounts.values.reduce(0, +) == reportCase.reportCount)
      #expect(throws: Never.self) { try ArgumentParsing.reportTarget(reportCase.target) }
    }
    #expect(reports.items.count == stats.openReports)

    let questions = try await tools.run("qapple-admin", "questions", "list", "--json")
    #expect(questions.status == 0, "\(questions)")
    let page = try questions.decode(ListOutput<ScheduledQuestionOutput>.self)
    #expect(page.items.contains { $0.status == "scheduled" })
    #expect(page.items.contains { $0.status == "published" })
  }

  @Test func bothToolsSeeTheSameData() async throws {
    #expect(try await tools.run("qapple-admin", "signin", "--token", "admin").status == 0)
    #expect(try await tools.run("qapple", "signin", "--token", "demo-2").status == 0)
    let before = try await tools.run("qapple-admin", "stats", "--json").decode(StatsOutput.self)

    let text = "Shared database check \(UUID().uuidString.prefix(8))"
    let posted = try await tools.run("qapple", "board", "post", text, "--json")
    #expect(posted.status == 0, "\(posted)")
    let post = try posted.decode(PostOutput.self)
    #expect(post.content == text)
    #expect(post.isMine)
    #expect(post.authorName == "Anonymous")

    let after = try await tools.run("qapple-admin", "stats", "--json").decode(StatsOutput.self)
    #expect(after.posts == before.posts + 1)

    let shown = try await tools.run("qapple", "board", "show", post.id, "--json")
    #expect(try shown.decode(PostDetailOutput.self).post.id == post.id)

    // A page of comments with more after it: the hint goes to stderr, as Docs/Tools.md says.
    for text in ["First comment", "Second comment"] {
      #expect(try await tools.run("qapple", "board", "comment", post.id, text).status == 0)
    }
    let paged = try await tools.run("qapple", "board", "show", post.id, "--limit", "1")
    #expect(paged.status == 0, "\(paged)")
    #expect(paged.stdout.contains("First comment") && !paged.stdout.contains("more comments"))
    #expect(paged.errorLines.contains { $0.hasPrefix("(more comments: add --cursor ") }, "\(paged)")
  }

  @Test func signUpTakesTwoStepsWithTheEmailCode() async throws {
    let suffix = String(UInt16.random(in: 1000...9999))
    let token = "tools-test-\(UUID().uuidString.prefix(8))"
    let email = "tester\(suffix)@academy.example"
    let first = try await tools.run(
      "qapple", "signup", "--token", token, "--email", email, "--json")
    #expect(first.status == 0, "\(first)")
    // `--json` holds for step 1 too: where the code went and until when.
    let sent = try first.decode(EmailCodeOutput.self)
    #expect(sent.email == email && sent.codeExpiresAt > Date())
    // The embedded server prints the code it would have mailed on stderr.
    let codeLine = try #require(first.errorLines.first { $0.contains("e-mail code for \(email)") })
    let afterEmail = try #require(codeLine.range(of: "\(email): "))
    let code = String(codeLine[afterEmail.upperBound...].prefix(6))
    #expect(code.count == 6 && code.allSatisfy(\.isNumber), "\(codeLine)")

    let second = try await tools.run(
      "qapple", "signup", "--token", token, "--email", email, "--code", code,
      "--nickname", "Tester\(suffix)", "--cohort", "2026 Tests", "--json")
    #expect(second.status == 0, "\(second)")
    let user = try second.decode(UserOutput.self)
    #expect(user.nickname == "Tester\(suffix)")
    #expect(user.cohort == "2026 Tests")

    let status = try await tools.run("qapple", "status", "--json").decode(SessionOutput.self)
    #expect(status.state == "signed_in")
    #expect(status.user?.id == user.id)
  }

  @Test func memberRunningAnAdminCommandExitsThree() async throws {
    let signIn = try await tools.run("qapple-admin", "signin", "--token", "demo-4")
    #expect(signIn.status == 0, "\(signIn)")
    #expect(signIn.stderr.contains("not an admin"))

    let stats = try await tools.run("qapple-admin", "stats")
    #expect(stats.status == 3, "\(stats)")
    #expect(stats.errorLines.count == 1, "\(stats)")
    #expect(stats.errorLines.first?.hasPrefix("error: forbidden") == true, "\(stats)")
    #expect(stats.stdout.isEmpty)
  }

  @Test func aMemberImportingQuestionsExitsThreeWhateverTheFileHolds() async throws {
    let files = ToolProcess.temporaryHome()
    try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: files) }
    let malformed = files.appendingPathComponent("malformed.csv")
    try Data("date,text\n2031-05-01,Wrong header row\n".utf8).write(to: malformed)
    let good = files.appendingPathComponent("good.csv")
    try Data("publish_date,content\n2031-05-01,What would you build next?\n".utf8)
      .write(to: good)

    #expect(try await tools.run("qapple-admin", "signin", "--token", "demo-4").status == 0)
    for file in [malformed, good] {
      let run = try await tools.run("qapple-admin", "questions", "import", file.path)
      #expect(run.status == 3, "\(run)")
      #expect(run.errorLines.count == 1, "\(run)")
      #expect(run.errorLines.first?.hasPrefix("error: forbidden") == true, "\(run)")
      #expect(run.stdout.isEmpty)
    }
    #expect(try await tools.run("qapple-admin", "signout").status == 0)
    let signedOut = try await tools.run("qapple-admin", "questions", "import", malformed.path)
    #expect(signedOut.status == 3, "\(signedOut)")
    #expect(signedOut.errorLines.first?.hasPrefix("error: not signed in") == true, "\(signedOut)")

    // An admin's malformed file stays a usage error, refused before it is sent.
    #expect(try await tools.run("qapple-admin", "signin", "--token", "admin").status == 0)
    let run = try await tools.run("qapple-admin", "questions", "import", malformed.path)
    #expect(run.status == 2, "\(run)")
    #expect(run.errorLines.count == 1, "\(run)")
    #expect(run.stderr.contains("publish_date,content"), "\(run)")
    #expect(run.stdout.isEmpty)
  }

  @Test func anAdminsMalformedFileStaysAUsageErrorWhenTheServerIsDown() async throws {
    let server = try await ToolProcess.startServer(["--seed", "demo"])
    let address = server.url.absoluteString
    let files = ToolProcess.temporaryHome()
    try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: files) }
    let malformed = files.appendingPathComponent("malformed.csv")
    try Data("date,text\n2031-05-01,Wrong header row\n".utf8).write(to: malformed)
    let signIn = try await tools.run(
      "qapple-admin", "signin", "--token", "admin", "--server", address)
    #expect(signIn.status == 0, "\(signIn)")
    server.stop()
    // The session is there but the server cannot say who is asking: the file's refusal stands.
    let run = try await tools.run(
      "qapple-admin", "questions", "import", malformed.path, "--server", address)
    #expect(run.status == 2, "\(run)")
    #expect(run.errorLines.count == 1, "\(run)")
    #expect(run.stderr.contains("publish_date,content"), "\(run)")
  }

  @Test func aSessionThatCannotBeSavedFailsTheSignIn() async throws {
    // Its own data directory, whose sessions folder cannot be made: a file is in the way.
    let tools = ToolProcess(home: ToolProcess.temporaryHome())
    defer { try? FileManager.default.removeItem(at: tools.home) }
    let sessions = tools.home.appendingPathComponent("sessions")
    try FileManager.default.createDirectory(at: sessions, withIntermediateDirectories: true)
    try Data().write(to: sessions.appendingPathComponent("qapple"))
    let run = try await tools.run("qapple", "signin", "--token", "demo-1")
    #expect(run.status == 1, "\(run)")
    #expect(run.stderr.contains("the session could not be saved"), "\(run)")
    #expect(!run.stdout.contains("Signed in"), "\(run)")
  }

  /// Tools in a new home whose saved `qapple` session for the local server is not JSON, and
  /// that file.
  static func homeWithADamagedSession() throws -> (ToolProcess, URL) {
    let tools = ToolProcess(home: ToolProcess.temporaryHome())
    let folder = tools.home.appendingPathComponent("sessions/qapple")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let file = folder.appendingPathComponent("local.session.json")
    try Data("not json".utf8).write(to: file)
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
    return (tools, file)
  }

  @Test func aSignInRepairsADamagedSessionFile() async throws {
    let (tools, _) = try Self.homeWithADamagedSession()
    defer { try? FileManager.default.removeItem(at: tools.home) }
    let run = try await tools.run("qapple", "signin", "--token", "demo-1")
    #expect(run.status == 0, "\(run)")
    #expect(run.stdout.contains("Signed in"), "\(run)")
    #expect(try await tools.run("qapple", "status").stdout.contains("Signed in"))
  }

  @Test("a sign-out removes a saved session it cannot read, and says the server was not told")
  func aSignOutRemovesADamagedSessionFile() async throws {
    let (tools, file) = try Self.homeWithADamagedSession()
    defer { try? FileManager.default.removeItem(at: tools.home) }
    let run = try await tools.run("qapple", "signout")
    #expect(run.status == 1, "\(run)")
    // (The line before it is the client's log of the unreadable file.)
    #expect(
      run.errorLines.last?.hasPrefix("error: removed the saved session for the local server")
        == true, "\(run)")
    #expect(run.stderr.contains("the server was not told"), "\(run)")
    #expect(!FileManager.default.fileExists(atPath: file.path))
    // Then there is nothing left to do.
    let again = try await tools.run("qapple", "signout")
    #expect(again.status == 0 && again.stdout.contains("nothing to do"), "\(again)")
  }

  @Test func aSignOutTheServerCannotHearStillSignsOutHere() async throws {
    let server = try await ToolProcess.startServer(["--seed", "demo"])
    defer { server.stop() }  // Stopped below already; this covers a test that throws first.
    let address = server.url.absoluteString
    let signIn = try await tools.run("qapple", "signin", "--token", "demo-3", "--server", address)
    #expect(signIn.status == 0, "\(signIn)")
    server.stop()
    let run = try await tools.run("qapple", "signout", "--server", address)
    #expect(run.status == 6, "\(run)")
    #expect(run.errorLines.count == 1, "\(run)")
    #expect(run.stderr.contains("signed out 코딩하는곰 on this machine"), "\(run)")
    #expect(run.stderr.contains("the server was not told"), "\(run)")
    let status = try await tools.run("qapple", "status", "--server", address)
    #expect(status.stdout.contains("Not signed in"), "\(status)")
  }

  @Test func anOfflineServerExitsSixInOneLine() async throws {
    let run = try await tools.run(
      "qapple", "signin", "--token", "demo-1", "--server", "http://127.0.0.1:1")
    #expect(run.status == 6, "\(run)")
    #expect(run.errorLines == ["error: cannot reach the server at http://127.0.0.1:1 (offline)"])
    #expect(run.stdout.isEmpty)

    let admin = try await tools.run(
      "qapple-admin", "stats", "--json", "--server", "http://127.0.0.1:1")
    #expect(admin.status == 3, "no session for that server: \(admin)")
    #expect(admin.errorLines.count == 1, "\(admin)")
  }

  @Test func badInputIsRefusedInOneLine() async throws {
    #expect(try await tools.run("qapple", "signin", "--token", "demo-1").status == 0)
    let empty = try await tools.run("qapple", "answer", "")
    #expect(empty.status == 2, "\(empty)")
    #expect(empty.errorLines == ["error: invalid answer: content must not be empty."])

    let target = try await tools.run("qapple", "report", "postp_1", "--reason", "spam")
    #expect(target.status == 2, "\(target)")
    #expect(target.errorLines.count == 1)
    #expect(target.stderr.contains("KIND:ID"))

    let missing = try await tools.run("qapple", "board", "show")
    #expect(missing.status == 2, "\(missing)")
    #expect(missing.errorLines.count == 1, "\(missing)")
    #expect(missing.stderr.contains("qapple board show --help"))

    let server = try await tools.run("qapple", "today", "--server", "ftp://example.com")
    #expect(server.status == 2, "\(server)")
    #expect(server.errorLines.count == 1)
  }

  @Test func missingContentExitsFour() async throws {
    #expect(try await tools.run("qapple", "signin", "--token", "demo-1").status == 0)
    let run = try await tools.run("qapple", "board", "show", "p_999999", "--json")
    #expect(run.status == 4, "\(run)")
    #expect(run.errorLines.count == 1)
    #expect(run.stdout.isEmpty)
  }

  @Test func openRendersTheScreenALinkLandsOn() async throws {
    #expect(try await tools.run("qapple", "signin", "--token", "demo-1").status == 0)
    let board = try await tools.run("qapple", "board", "list", "--json", "--limit", "20")
    let post = try #require(
      try board.decode(ListOutput<PostOutput>.self).items.first { $0.commentCount > 0 })
    let show = try await tools.run("qapple", "board", "show", post.id, "--json")
    let shown = try show.decode(PostDetailOutput.self)

    // Through AppFeature: the board tab, the post's screen, its model's comments.
    let json = try await tools.run("qapple", "open", "qapple://board/posts/\(post.id)", "--json")
    #expect(json.status == 0, "\(json)")
    let landed = try json.decode(OpenOutput<PostDetailOutput>.self)
    #expect(landed.link == "qapple://posts/\(post.id)")
    #expect(landed.tab == "board" && landed.screen == "post")
    #expect(landed.content.post.id == post.id)
    #expect(landed.content.comments.items.map(\.id) == shown.comments.items.map(\.id))
    #expect(landed.content.comments.nextCursor == shown.comments.nextCursor)

    let text = try await tools.run("qapple", "open", "https://qapple.app/posts/\(post.id)")
    #expect(text.status == 0, "\(text)")
    #expect(text.stdout.contains(post.content))
    for comment in shown.comments.items { #expect(text.stdout.contains(comment.content)) }

    let group = try await tools.run("qapple", "open", "qapple://groups/g_1", "--json")
    #expect(group.status == 0, "\(group)")
    let groupScreen = try group.decode(OpenOutput<GroupScreenOutput>.self)
    #expect(groupScreen.tab == "groups" && groupScreen.content.group.id == "g_1")
    #expect(groupScreen.content.members.count == groupScreen.content.group.memberCount)

    let today = try await tools.run("qapple", "open", "qapple://today", "--json")
    #expect(today.status == 0, "\(today)")
    let todayScreen = try today.decode(OpenOutput<QuestionScreenOutput>.self)
    #expect(todayScreen.screen == "today" && todayScreen.tab == "today")
    #expect(todayScreen.content.locked == (todayScreen.content.question.myAnswer == nil))
  }

  @Test func openLandsOnAChatRoomAndTheInbox() async throws {
    #expect(try await tools.run("qapple", "signin", "--token", "demo-1").status == 0)
    let rooms = try await tools.run("qapple", "chat", "rooms", "--json")
    let room = try #require(
      try rooms.decode(ListOutput<ChatRoomOutput>.self).items.first { $0.lastMessage != nil })
    let newest = try #require(room.lastMessage)

    // Through AppFeature: the groups tab, the room's screen, caught up to its newest message.
    let chat = try await tools.run("qapple", "open", "qapple://chat/\(room.id)", "--json")
    #expect(chat.status == 0, "\(chat)")
    let screen = try chat.decode(OpenOutput<ChatScreenOutput>.self)
    #expect(screen.tab == "groups" && screen.screen == "chat_room")
    #expect(screen.content.room == room.id && screen.content.title == room.title)
    #expect(screen.content.messages.last?.contains(newest.text) == true, "\(screen.content)")

    // The bell's inbox: what `qapple notifications` lists, with the same unread count.
    let inbox = try await tools.run("qapple", "open", "qapple://notifications", "--json")
    #expect(inbox.status == 0, "\(inbox)")
    let landed = try inbox.decode(OpenOutput<NotificationListOutput>.self)
    #expect(landed.screen == "notifications")
    let listed = try await tools.run("qapple", "notifications", "--json")
    let list = try listed.decode(NotificationListOutput.self)
    #expect(landed.content.unreadCount == list.unreadCount)
    #expect(landed.content.nextCursor == list.nextCursor)
    #expect(
      landed.content.items.map(\.id)
        == Array(list.items.map(\.id).prefix(landed.content.items.count)))
    #expect(!landed.content.items.isEmpty)
  }

  @Test func openRefusesHostileLinksAndSaysWhy() async throws {
    #expect(try await tools.run("qapple", "signin", "--token", "demo-1").status == 0)
    for link in [
      "qapple://posts/..", "https://evil.example/posts/p_1", "qapple://admin/users",
      "qapple://posts/" + String(repeating: "x", count: 3_000),
    ] {
      let run = try await tools.run("qapple", "open", link)
      #expect(run.status == 2, "\(run)")
      #expect(run.stdout.isEmpty)
      #expect(run.errorLines.count == 1 && run.stderr.contains("refused link"), "\(run)")
    }
    let missing = try await tools.run("qapple", "open", "qapple://posts/p_999999")
    #expect(missing.status == 4, "\(missing)")

    #expect(try await tools.run("qapple", "signout").status == 0)
    let signedOut = try await tools.run("qapple", "open", "qapple://today")
    #expect(signedOut.status == 3, "\(signedOut)")
    #expect(try await tools.run("qapple", "signin", "--token", "demo-1").status == 0)
  }

  @Test func aChatSendIsJudgedByItsOwnMessages() async throws {
    #expect(try await tools.run("qapple", "signin", "--token", "demo-1").status == 0)
    // A refused send fails its command and stays in the cache as failed...
    let refused = try await tools.run("qapple", "chat", "send", "room_999999", "lost")
    #expect(refused.status != 0, "\(refused)")
    let rooms = try await tools.run("qapple", "chat", "rooms", "--json")
    let room = try #require(try rooms.decode(ListOutput<ChatRoomOutput>.self).items.first).id
    // ...but does not fail the next command, whose own message is sent.
    let sent = try await tools.run("qapple", "chat", "send", room, "delivered")
    #expect(sent.status == 0, "\(sent)")
    // A text the rules refuse sends none of the command's texts.
    let invalid = try await tools.run("qapple", "chat", "send", room, "not this one", " ")
    #expect(invalid.status == 2, "\(invalid)")
    // So is an empty room id, and no wait for the answers (which would report the messages
    // as not sent, as if the server were away).
    let noRoom = try await tools.run("qapple", "chat", "send", "", "to nowhere")
    #expect(noRoom.status == 2 && noRoom.stderr.contains("room_id"), "\(noRoom)")
    let noWait = try await tools.run("qapple", "chat", "send", room, "soon", "--timeout", "0")
    #expect(noWait.status == 2 && noWait.stderr.contains("--timeout"), "\(noWait)")
    // Nothing of it waits in the outbox either: a flush sends nothing more.
    let flush = try await tools.run("qapple", "chat", "send", room)
    #expect(flush.status == 0, "\(flush)")
    let after = try await tools.run("qapple", "chat", "rooms", "--json")
    let last = try after.decode(ListOutput<ChatRoomOutput>.self).items.first { $0.id == room }
    #expect(last?.lastMessage?.text == "delivered")
    // `chat open` fails like `chat send` when a typed line is refused.
    let typed = try await tools.run("qapple", arguments: ["chat", "open", room], input: " \n")
    #expect(typed.status == 2, "\(typed)")
  }

  @Test("chat open on a room that does not exist fails with the server's reason")
  func chatOpenOnAnUnknownRoomFails() async throws {
    #expect(try await tools.run("qapple", "signin", "--token", "demo-1").status == 0)
    let open = try await tools.run("qapple", arguments: ["chat", "open", "room_999999"], input: "")
    #expect(open.status == 4 && open.stdout.isEmpty, "\(open)")
    #expect(open.stderr.contains("not found"), "\(open)")
    // A flush with nothing to send says so.
    let rooms = try await tools.run("qapple", "chat", "rooms", "--json")
    let room = try #require(try rooms.decode(ListOutput<ChatRoomOutput>.self).items.first).id
    let flush = try await tools.run("qapple", "chat", "send", room)
    #expect(flush.status == 0 && flush.stdout.contains("Nothing to send."), "\(flush)")
  }

  @Test("a scripted chat open (stdin at its end) prints the room's history")
  func aScriptedChatOpenPrintsTheHistory() async throws {
    let tools = ToolProcess(home: ToolProcess.temporaryHome())
    defer { try? FileManager.default.removeItem(at: tools.home) }
    let me = try await tools.run("qapple", "signin", "--token", "demo-1", "--json")
    let user = User.ID(try me.decode(UserOutput.self).id)
    let rooms = try await tools.run("qapple", "chat", "rooms", "--json")
    let room = try #require(
      try rooms.decode(ListOutput<ChatRoomOutput>.self).items.first { $0.lastMessage != nil })
    let last = try #require(room.lastMessage)
    // A new cache: nothing of the room is cached before the command.
    let cache = DataDirectory(url: tools.home).chatCacheFile(server: .embedded, user: user)
    for file in ChatStore.files(at: cache.path) {
      try? FileManager.default.removeItem(atPath: file)
    }
    let run = try await tools.run("qapple", arguments: ["chat", "open", room.id], input: "")
    #expect(run.status == 0, "\(run)")
    #expect(run.stdout.contains(last.text), "\(run)")
    #expect(!run.stdout.contains(": #0."), "\(run)")
  }

  @Test("a sent message's line names the room's newest sent message, not a failed one after it")
  func aSendAfterAFailedOneNamesTheNewestSentMessage() async throws {
    let member = try await tools.run("qapple", "signin", "--token", "demo-5", "--json")
    let id = try member.decode(UserOutput.self).id
    #expect(try await tools.run("qapple-admin", "signin", "--token", "admin").status == 0)
    let rooms = try await tools.run("qapple", "chat", "rooms", "--json")
    let room = try #require(try rooms.decode(ListOutput<ChatRoomOutput>.self).items.first).id
    // Banned: the send is refused and stays in the room's cache as failed.
    // Until a day: the ban ends at that day's midnight in Seoul.
    let ban = try await tools.run(
      "qapple-admin", "users", "ban", id, "--reason", "a test", "--until", "2099-01-01", "--json")
    #expect(ban.status == 0, "\(ban)")
    #expect(
      try ban.decode(AdminUserOutput.self).bannedUntil
        == (try Date("2098-12-31T15:00:00Z", strategy: .iso8601)))
    let refused = try await tools.run("qapple", "chat", "send", room, "while banned")
    #expect(refused.status != 0, "\(refused)")
    #expect(try await tools.run("qapple-admin", "users", "unban", id).status == 0)
    let sent = try await tools.run("qapple", "chat", "send", room, "after the ban")
    #expect(sent.status == 0, "\(sent)")
    #expect(sent.stdout.contains("Last message in \(room): #"), "\(sent)")
    #expect(!sent.stdout.contains(": #0."), "\(sent)")
  }

  @Test("a chat send whose session ended says to sign in (exit 3), not that the server is away")
  func aChatSendWithAnEndedSessionSaysSo() async throws {
    let tools = ToolProcess(home: ToolProcess.temporaryHome())
    defer { try? FileManager.default.removeItem(at: tools.home) }
    #expect(try await tools.run("qapple", "signin", "--token", "demo-6").status == 0)
    let rooms = try await tools.run("qapple", "chat", "rooms", "--json")
    let room = try #require(try rooms.decode(ListOutput<ChatRoomOutput>.self).items.first).id
    // The saved session outlives its end on the server: signed out, its file put back.
    let file = tools.home.appendingPathComponent("sessions/qapple/local.session.json")
    let saved = try Data(contentsOf: file)
    #expect(try await tools.run("qapple", "signout").status == 0)
    try saved.write(to: file)
    try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
    let run = try await tools.run("qapple", "chat", "send", room, "after the end")
    #expect(run.status == 3, "\(run)")
    #expect(run.stderr.contains("not signed in"), "\(run)")
    #expect(run.stderr.contains("are kept"), "\(run)")
  }

  @Test("--read-all --json prints the listed notifications as read")
  func readAllPrintsThemRead() async throws {
    // demo-2 comments on a post of demo-1's: demo-1 has an unread notification.
    #expect(try await tools.run("qapple", "signin", "--token", "demo-1").status == 0)
    let post = try await tools.run("qapple", "board", "post", "Who reads notifications?", "--json")
    let postID = try post.decode(PostOutput.self).id
    #expect(try await tools.run("qapple", "signin", "--token", "demo-2").status == 0)
    let comment = try await tools.run("qapple", "board", "comment", postID, "I do")
    #expect(comment.status == 0, "\(comment)")
    #expect(try await tools.run("qapple", "signin", "--token", "demo-1").status == 0)
    let run = try await tools.run("qapple", "notifications", "--read-all", "--json")
    #expect(run.status == 0, "\(run)")
    let list = try run.decode(NotificationListOutput.self)
    #expect(!list.items.isEmpty, "\(run)")
    #expect(list.items.filter { !$0.isRead }.isEmpty, "\(run)")
    #expect(list.unreadCount == 0)
  }

  @Test func helpExitsZero() async throws {
    let run = try await tools.run("qapple", "--help")
    #expect(run.status == 0, "\(run)")
    #expect(run.stdout.contains("demo"))
    let admin = try await tools.run("qapple-admin", "reports", "--help")
    #expect(admin.status == 0, "\(admin)")
    #expect(admin.stdout.contains("resolve"))
  }
}
