import ArgumentParser
import ChatCore
import Domain
import Foundation
import Persistence
import Repositories
import RepositoriesLive
import ToolSupport

/// `qapple demo`: a narrated tour on a throwaway server.
struct Demo: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "A narrated tour: two new members and an admin, on a throwaway local server.",
    discussion: """
      The tour starts its own local server in memory (seeded with the demo community), signs \
      up two new members with random dev tokens, answers, posts, comments, likes, reports a \
      post until it is hidden automatically, lets the admin resolve the case and reads the \
      notifications. Nothing touches the shared database or your saved sessions, so it works \
      the same every time.
      """)

  func run() async throws {
    let clock = ContinuousClock()
    let started = clock.now
    let server = try await EmbeddedServer.start(database: .inMemory, echoesEmailCodes: false)
    let sessions = FileManager.default.temporaryDirectory.appendingPathComponent(
      "qapple-demo-\(UUID().uuidString)", isDirectory: true)
    let outcome: Result<DemoTour.Summary, ToolError>
    do {
      var tour = DemoTour(server: server, sessionsDirectory: sessions)
      outcome = .success(try await tour.run())
    } catch {
      outcome = .failure(ToolError.from(error, tool: .member, server: .embedded))
    }
    await server.stop()
    do {
      if FileManager.default.fileExists(atPath: sessions.path) {
        try FileManager.default.removeItem(at: sessions)
      }
    } catch {
      StandardStreams.writeError(
        "warning: could not delete the demo's temporary sessions at \(sessions.path): \(error)")
    }
    let summary = try outcome.get()
    let elapsed = clock.now - started
    let seconds = elapsed.timeInterval
    StandardStreams.write(
      """

      Done in \(String(format: "%.1f", seconds)) s: \(summary.line)
      The demo server and its data are gone. To explore the shared local community:
        qapple signin --token demo-1      (members demo-1 ... demo-10)
        qapple today
        qapple-admin signin --token \(LocalCommunity.adminToken) && qapple-admin reports list
      """)
  }
}

/// The story of `qapple demo`, told with the live repositories against a running server.
struct DemoTour {
  /// What the tour did, for the closing line.
  struct Summary {
    var line: String
  }

  /// One person of the story and their repositories.
  struct Person {
    let name: String
    let user: User
    let backend: LiveBackend
    var repositories: RepositorySet { backend.repositories }
    var summary: UserSummary { UserSummary(id: user.id, nickname: user.nickname.rawValue) }
  }

  let server: EmbeddedServer
  let sessionsDirectory: URL
  private let suffix = String(UInt32.random(in: 1000...9999))
  private var step = 0

  init(server: EmbeddedServer, sessionsDirectory: URL) {
    self.server = server
    self.sessionsDirectory = sessionsDirectory
  }

  mutating func run() async throws -> Summary {
    say(
      "Qapple demo on a throwaway local server at \(server.baseURL.absoluteString) "
        + "(in memory, seeded with the demo community).\n")

    narrate("Mina and Jun sign up: dev sign-in, academy e-mail code, nickname.")
    let mina = try await signUp(name: "Mina")
    let jun = try await signUp(name: "Jun")
    detail(
      "Welcome \(mina.user.nickname) (\(mina.user.id)) and \(jun.user.nickname) (\(jun.user.id)).")

    narrate("Mina reads today's question.")
    let question = try await mina.repositories.questions.fetchToday()
    detail(
      "\"\(question.content)\" (\(question.publishDate), \(question.answerCount) answers so far)")
    do {
      _ = try await mina.repositories.questions.fetchAnswers(question.id, .first)
      throw ToolError("demo: the answers were visible before Mina answered", exitCode: .failure)
    } catch DomainError.answerRequired {
      detail("The others' answers stay hidden until she answers.")
    }

    narrate("Mina answers, and now sees what others wrote.")
    let answer = try await mina.repositories.questions.submitAnswer(
      question.id, "Pair programming with Jun: explaining async/await made it click for me.")
    detail("Her answer \(answer.id): \"\(answer.content)\"")
    let answers = try await mina.repositories.questions.fetchAnswers(question.id, .first)
    for other in answers.items.filter({ !$0.isMine }).prefix(2) {
      detail("\(other.authorNickname): \"\(other.content)\"")
    }

    narrate("Jun posts on the board, anonymously.")
    let post = try await jun.repositories.board.createPost(
      PostDraft(content: "Anyone up for a SwiftUI study session after class tonight?"))
    detail("Post \(post.id) by \"\(post.authorName)\": \(post.content)")

    narrate("Mina comments and likes Jun's post.")
    let comment = try await mina.repositories.board.createComment(
      post.id, CommentDraft(content: "Count me in! Library, 7 pm?"))
    let like = try await mina.repositories.board.setPostLike(post.id, true)
    detail(
      "Comment \(comment.id) as \"\(comment.authorName)\"; the post has \(like.likeCount) like.")

    narrate("Jun checks his notifications.")
    let junInbox = try await jun.repositories.notifications.fetchNotifications(.first)
    for notification in junInbox.items {
      detail("[\(kindName(notification.kind))] \(notification.message)")
    }
    try await jun.repositories.notifications.markAllRead()

    narrate("Jun also posts an ad, which does not belong on a study board.")
    let advert = try await jun.repositories.board.createPost(
      PostDraft(content: "SELLING cheap followers!!! DM me for a discount code"))
    detail("Post \(advert.id).")

    narrate(
      "Mina reports it as spam, and so do seeded members, until "
        + "\(ModerationPolicy.autoHideThreshold) people have reported it.")
    let reporters = try await report(advert.id, first: mina)
    detail("Reported by \(reporters.joined(separator: ", ")).")
    do {
      _ = try await mina.repositories.board.fetchPost(advert.id)
      throw ToolError(
        "demo: the post was still visible after \(ModerationPolicy.autoHideThreshold) reports",
        exitCode: .failure)
    } catch DomainError.notFound {
      detail("The post is hidden automatically: members now get \"not found\".")
    }

    narrate("The admin opens the report inbox and resolves the case.")
    let admin = try await signIn(name: "Admin", token: LocalCommunity.adminToken)
    let reportCase = try await findCase(of: .post(advert.id), admin: admin)
    detail(
      "Case \(reportCase.id): \(reportCase.target), \(reportCase.reportCount) reports, "
        + "hidden: \(reportCase.isHidden ? "yes" : "no"), excerpt \"\(reportCase.excerpt ?? "")\"")
    let resolved = try await admin.repositories.admin.resolveReportCase(
      reportCase.id, .hideContent, "Advertising is not allowed on the board.")
    detail(
      "\(admin.user.nickname) resolved it: \(resolved.resolution?.rawValue ?? "-") "
        + "(status \(resolved.status.rawValue)).")

    narrate("Mina's notifications tell her how it ended.")
    let minaInbox = try await mina.repositories.notifications.fetchNotifications(.first)
    for notification in minaInbox.items {
      detail("[\(kindName(notification.kind))] \(notification.message)")
    }
    guard minaInbox.items.contains(where: { $0.kind == .reportResolved }) else {
      throw ToolError(
        "demo: Mina got no \(NotificationKind.Code.reportResolved.rawValue) notification",
        exitCode: .failure)
    }

    narrate("Mina invites Jun to a study group; they chat live, each with a local cache.")
    for line in try await chat(mina, jun) { detail(line) }

    let stats = try await admin.repositories.admin.fetchStats()
    return Summary(
      line: "2 sign-ups, 1 answer, 2 posts, 1 comment, 1 like, \(reporters.count) reports, "
        + "1 case resolved, 2 chat messages. The community now has \(stats.users) members, \(stats.posts) "
        + "posts and \(stats.openReports) open report cases.")
  }

  // MARK: - Steps

  /// Signs up a new member with a random dev token, reading the e-mail code the server logs.
  private func signUp(name: String) async throws -> Person {
    let backend = makeBackend(for: name)
    let auth = backend.repositories.auth
    let token = "demo-\(name.lowercased())-\(UUID().uuidString.prefix(8).lowercased())"
    guard case .needsSignUp(let signUpToken) = try await auth.signIn(.dev, token) else {
      throw ToolError("demo: the random token \(token) already had an account", exitCode: .failure)
    }
    let email = try EmailAddress(validating: "\(name.lowercased()).\(suffix)@academy.example")
    _ = try await auth.requestEmailCode(signUpToken, email)
    guard let code = server.emailCode(for: email) else {
      throw ToolError("demo: the local server sent no e-mail code to \(email)", exitCode: .failure)
    }
    detail("\(name): code \(code) sent to \(email) (the local server logs it).")
    let verification = try await auth.verifyEmailCode(
      signUpToken, email, try VerificationCode(validating: code))
    let user = try await auth.signUp(
      SignUpForm(
        signUpToken: signUpToken, verificationToken: verification,
        nickname: try Nickname(validating: name), cohort: "2026 Demo",
        agreedTermsVersion: QappleCommand.termsVersion))
    return Person(name: name, user: user, backend: backend)
  }

  /// Signs in an existing account of the seeded community.
  private func signIn(name: String, token: String) async throws -> Person {
    let backend = makeBackend(for: name)
    guard case .signedIn(let session) = try await backend.repositories.auth.signIn(.dev, token)
    else {
      throw ToolError("demo: the seeded account \(token) is missing", exitCode: .failure)
    }
    return Person(name: name, user: session.user, backend: backend)
  }

  /// Mina invites Jun to a study group and they chat live over `/realtime`, each with a local
  /// cache; returns the lines Jun's cache holds at the end.
  private func chat(_ mina: Person, _ jun: Person) async throws -> [String] {
    let group = try await mina.repositories.studyGroups.createGroup(
      StudyGroupDraft(name: "Swift 스터디", description: "Concurrency on Fridays"))
    try await mina.repositories.studyGroups.invite(jun.user.id, group.id)
    let invite = try await jun.repositories.notifications.fetchNotifications(.first).items.first
    detail("Jun: [\(invite.map { kindName($0.kind) } ?? "none")] \(invite?.message ?? "")")
    _ = try await jun.repositories.studyGroups.joinGroup(group.id)
    guard
      let room = try await mina.repositories.chat.fetchRooms(.first).items.first(where: {
        $0.kind == .group(group.id)
      })?.id
    else { throw ToolError("demo: the group has no chat room", exitCode: .failure) }
    let minaStore = try ChatStore(at: .inMemory, owner: mina.user.id)
    let junStore = try ChatStore(at: .inMemory, owner: jun.user.id)
    let minaChat = ChatSync(backend: mina.backend, store: minaStore, me: mina.summary)
    let junChat = ChatSync(backend: jun.backend, store: junStore, me: jun.summary)
    for sync in [minaChat, junChat] {
      await sync.start()
      await sync.open(room)
    }
    try await minaChat.send("Welcome, Jun! 금요일 7시에 봐요.", to: room)
    try await waitUntil(junStore, holds: 1, in: room)
    try await junChat.send("Thanks! I'll bring the actor questions.", to: room)
    try await waitUntil(minaStore, holds: 2, in: room)
    try await waitUntil(junStore, holds: 2, in: room)
    await minaChat.stop()
    await junChat.stop()
    return try junStore.latestMessages(in: room).map {
      "#\($0.seq ?? 0) \($0.sender.nickname): \($0.text)"
    }
  }

  /// Waits (at most 30 s: a debug build on a loaded machine is slow, a passing run never waits
  /// so long) until `store` holds `count` sent messages of `room`.
  private func waitUntil(_ store: ChatStore, holds count: Int, in room: ChatRoom.ID) async throws {
    let arrived = try await store.messages(in: room, within: .seconds(30)) { messages in
      messages.filter { $0.deliveryState == .sent }.count >= count
    }
    guard arrived else {
      throw ToolError("demo: chat messages did not arrive within 30 s", exitCode: .failure)
    }
  }

  /// Reports `post` as spam by `first` and then by seeded members until the threshold is met;
  /// returns the reporters' nicknames.
  private func report(_ post: BoardPost.ID, first: Person) async throws -> [String] {
    var reporters = [first.user.nickname.rawValue]
    _ = try await first.repositories.reports.report(.post(post), .spam)
    for token in LocalCommunity.memberTokens {
      guard reporters.count < ModerationPolicy.autoHideThreshold else { break }
      let member = try await signIn(name: token, token: token)
      do {
        _ = try await member.repositories.reports.report(.post(post), .spam)
        reporters.append(member.user.nickname.rawValue)
      } catch DomainError.banned {
        continue  // A banned seeded member cannot report; the next one will.
      }
    }
    guard reporters.count == ModerationPolicy.autoHideThreshold else {
      throw ToolError(
        "demo: only \(reporters.count) members could report the post", exitCode: .failure)
    }
    return reporters
  }

  /// The open case of `target` in the admin's inbox.
  private func findCase(of target: ReportTarget, admin: Person) async throws -> ReportCase {
    let inbox = admin.repositories.admin
    if let found = try await Page.first(
      in: { try await inbox.fetchReportCases(.open, $0) }, where: { $0.target == target })
    {
      return found
    }
    throw ToolError("demo: no open report case for \(target)", exitCode: .failure)
  }

  // MARK: - Plumbing

  private func makeBackend(for name: String) -> LiveBackend {
    let store = FileCredentialStore(
      fileURL: sessionsDirectory.appendingPathComponent("\(name).session.json"))
    return LiveBackend(
      configuration: LiveConfiguration(
        baseURL: server.baseURL, credentialStore: store,
        logger: ToolLogging.logger(label: "qapple.demo"), refreshesProfileOnRestore: false))
  }

  private mutating func narrate(_ text: String) {
    step += 1
    say("\(step). \(text)")
  }

  private func detail(_ text: String) {
    say("   \(text)")
  }

  private func say(_ text: String) {
    StandardStreams.write(text)
  }

  private func kindName(_ kind: NotificationKind) -> String {
    kind.outputName
  }
}
