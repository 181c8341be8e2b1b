import Domain
import Foundation
import Repositories
import Testing

/// Edge cases where `Docs/Rules.md` leaves the answer open (may a banned user delete their own
/// post? what does a deleted group answer?): each probe runs on both backends and only the
/// outcomes are compared. Whatever the answer, the fakes must give the server's.
// Only a hang guard, as in SharedScenarioTests (a live run can take near a minute).
@Suite("Differential: outcomes of edge cases", .timeLimit(.minutes(3)))
struct OutcomeProbeTests {
  @Test("what a banned user may still do")
  func bannedUser() async throws {
    try await compareOutcomes(OutcomeProbes.bannedUser)
  }

  @Test("hidden and deleted content, deleted groups, strangers")
  func goneContent() async throws {
    try await compareOutcomes(OutcomeProbes.goneContent)
  }

  /// Runs `probes` on both backends and expects the same outcome for every step.
  private func compareOutcomes(
    _ probes: @escaping (any ScenarioBackend, inout OutcomeLog) async throws -> Void,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws {
    var logs: [BackendKind: OutcomeLog] = [:]
    for kind in BackendKind.allCases {
      try await withBackend(kind) { backend in
        var log = OutcomeLog()
        try await probes(backend, &log)
        logs[kind] = log
      }
    }
    let fake = try #require(logs[.fake])
    let live = try #require(logs[.live])
    #expect(fake.steps == live.steps, sourceLocation: sourceLocation)
    for (step, liveOutcome) in live.outcomes {
      let fakeOutcome = fake.outcomes[step]
      #expect(
        fakeOutcome == liveOutcome, "\(step): fake \(fakeOutcome ?? "-"), live \(liveOutcome)",
        sourceLocation: sourceLocation)
    }
  }
}

/// The outcome of each named step: `ok` or the error's case (validation with its field).
struct OutcomeLog: Sendable {
  private(set) var steps: [String] = []
  private(set) var outcomes: [String: String] = [:]

  /// Runs `body` and records how it ended.
  mutating func record<T>(_ step: String, _ body: () async throws -> T) async {
    let outcome: String
    do {
      _ = try await body()
      outcome = "ok"
    } catch let error as DomainError {
      outcome = Self.name(of: error)
    } catch {
      outcome = "non-domain error \(type(of: error))"
    }
    steps.append(step)
    outcomes[step] = outcome
  }

  /// A backend-independent name of `error` (messages differ by design).
  static func name(of error: DomainError) -> String {
    switch error {
    case .validation(let validation): "validation(\(validation.field))"
    case .nicknameTaken: "nicknameTaken"
    case .alreadyReported: "alreadyReported"
    case .banned: "banned"
    case .notFound: "notFound"
    case .forbidden: "forbidden"
    case .answerRequired: "answerRequired"
    case .conflict: "conflict"
    case .signedOut: "signedOut"
    case .offline: "offline"
    case .timeout: "timeout"
    case .rateLimited: "rateLimited"
    case .server: "server"
    }
  }
}

/// The probes: short stories whose every step's outcome is recorded.
enum OutcomeProbes {
  static func bannedUser(_ backend: any ScenarioBackend, _ log: inout OutcomeLog) async throws {
    let admin = try await backend.makeAdmin()
    let question = try await backend.publishTodayQuestion(by: admin)
    let alice = try await backend.makeMember(nickname: "alice")
    let bob = try await backend.makeMember(nickname: "bob")
    let aliceID = try await alice.profile.fetchMe().id
    let bobID = try await bob.profile.fetchMe().id
    let post = try await alice.board.createPost(PostDraft(content: "Alice's post"))
    let comment = try await alice.board.createComment(post.id, CommentDraft(content: "Hers"))
    let bobsPost = try await bob.board.createPost(PostDraft(content: "Bob's post"))
    let bobsComment = try await bob.board.createComment(bobsPost.id, CommentDraft(content: "His"))
    _ = try await alice.board.setPostLike(bobsPost.id, true)
    let answer = try await alice.questions.submitAnswer(question.id, "Her answer")
    let ownGroup = try await alice.studyGroups.createGroup(StudyGroupDraft(name: "Alice's"))
    let bobsGroup = try await bob.studyGroups.createGroup(StudyGroupDraft(name: "Bob's"))
    _ = try await alice.studyGroups.joinGroup(bobsGroup.id)
    let room = try #require(
      try await alice.chat.fetchRooms(.first).items.first { $0.kind == .group(bobsGroup.id) })
    _ = try await bob.chat.sendMessage("Hello", room.id, UUID())
    _ = try await bob.board.createComment(post.id, CommentDraft(content: "Notify her"))
    _ = try await admin.admin.banUser(aliceID, "Probe", nil)

    let a = alice
    await log.record("read feed") { try await a.board.fetchPosts(.first) }
    await log.record("read answers") { try await a.questions.fetchAnswers(question.id, .first) }
    await log.record("answer") { try await a.questions.submitAnswer(question.id, "Again") }
    await log.record("delete own answer") { try await a.questions.deleteAnswer(answer.id) }
    await log.record("post") { try await a.board.createPost(PostDraft(content: "New")) }
    await log.record("comment") {
      try await a.board.createComment(bobsPost.id, CommentDraft(content: "Hi"))
    }
    await log.record("like post") { try await a.board.setPostLike(post.id, true) }
    await log.record("unlike post") { try await a.board.setPostLike(bobsPost.id, false) }
    await log.record("like comment") { try await a.board.setCommentLike(bobsComment.id, true) }
    await log.record("delete own comment") { try await a.board.deleteComment(comment.id) }
    await log.record("delete own post") { try await a.board.deletePost(post.id) }
    await log.record("report") { try await a.reports.report(.post(bobsPost.id), .spam) }
    await log.record("my reports") { try await a.reports.fetchMyReports(.first) }
    await log.record("create group") {
      try await a.studyGroups.createGroup(StudyGroupDraft(name: "Another"))
    }
    await log.record("update own group") {
      try await a.studyGroups.updateGroup(ownGroup.id, StudyGroupDraft(name: "Renamed"))
    }
    await log.record("join group") { try await a.studyGroups.joinGroup(bobsGroup.id) }
    await log.record("read messages") { try await a.chat.fetchMessages(room.id, nil, nil, 10) }
    await log.record("read messages, a limit past the largest page") {
      try await a.chat.fetchMessages(room.id, nil, nil, 500)
    }
    await log.record("read messages, a limit of 0") {
      try await a.chat.fetchMessages(room.id, nil, nil, 0)
    }
    await log.record("read messages after a negative seq") {
      try await a.chat.fetchMessages(room.id, -1, nil, 10)
    }
    await log.record("read messages before a negative seq") {
      try await a.chat.fetchMessages(room.id, nil, -1, 10)
    }
    await log.record("send message") { try await a.chat.sendMessage("Hey", room.id, UUID()) }
    await log.record("mark room read") { try await a.chat.markRead(room.id, 1) }
    await log.record("open direct room") { try await a.chat.openDirectRoom(bobID) }
    await log.record("leave group") { try await a.studyGroups.leaveGroup(bobsGroup.id) }
    await log.record("delete own group") { try await a.studyGroups.deleteGroup(ownGroup.id) }
    await log.record("update cohort") {
      try await a.profile.updateProfile(ProfileUpdate(cohort: "2027"))
    }
    await log.record("upload avatar") {
      try await a.profile.uploadAvatar(ProfileScenarios.pngBytes, "a.png", "image/png")
    }
    await log.record("mark all notifications read") { try await a.notifications.markAllRead() }
    await log.record("check nickname") {
      try await a.auth.checkNickname(try Nickname(validating: "newname"))
    }
    await log.record("sign out") { try await a.auth.signOut() }
    await log.record("sign in again") { try await a.auth.signIn(.dev, "alice") }
    await log.record("withdraw") { try await a.auth.withdraw() }
  }

  static func goneContent(_ backend: any ScenarioBackend, _ log: inout OutcomeLog) async throws {
    let admin = try await backend.makeAdmin()
    let alice = try await backend.makeMember(nickname: "alice")
    var reporters: [RepositorySet] = []
    for nickname in ["bob", "carol", "dave", "erin", "frank", "grace"] {
      reporters.append(try await backend.makeMember(nickname: nickname))
    }
    let bob = reporters[0]
    let grace = reporters[5]

    // A post hidden by reports, with a comment on it.
    let hidden = try await alice.board.createPost(PostDraft(content: "To be hidden"))
    let onHidden = try await bob.board.createComment(hidden.id, CommentDraft(content: "Mine"))
    for reporter in reporters.prefix(5) {
      _ = try await reporter.reports.report(.post(hidden.id), .spam)
    }
    await log.record("author reads hidden post") { try await alice.board.fetchPost(hidden.id) }
    await log.record("author deletes hidden post") { try await alice.board.deletePost(hidden.id) }
    await log.record("comments of hidden post") {
      try await bob.board.fetchComments(hidden.id, .first)
    }
    await log.record("comment on hidden post") {
      try await bob.board.createComment(hidden.id, CommentDraft(content: "Hello?"))
    }
    await log.record("like comment on hidden post") {
      try await grace.board.setCommentLike(onHidden.id, true)
    }
    await log.record("delete own comment on hidden post") {
      try await bob.board.deleteComment(onHidden.id)
    }
    await log.record("sixth reporter reports hidden post") {
      try await grace.reports.report(.post(hidden.id), .spam)
    }
    await log.record("report comment on hidden post") {
      try await grace.reports.report(.comment(onHidden.id), .spam)
    }
    await log.record("admin deletes hidden post") { try await admin.board.deletePost(hidden.id) }

    // A deleted post and its comment.
    let deleted = try await alice.board.createPost(PostDraft(content: "To be deleted"))
    let onDeleted = try await bob.board.createComment(deleted.id, CommentDraft(content: "Gone"))
    try await alice.board.deletePost(deleted.id)
    await log.record("delete deleted post") { try await alice.board.deletePost(deleted.id) }
    await log.record("report deleted post") {
      try await bob.reports.report(.post(deleted.id), .spam)
    }
    await log.record("like comment of deleted post") {
      try await grace.board.setCommentLike(onDeleted.id, true)
    }
    await log.record("delete comment of deleted post") {
      try await bob.board.deleteComment(onDeleted.id)
    }

    // A deleted group.
    let group = try await alice.studyGroups.createGroup(StudyGroupDraft(name: "Short-lived"))
    _ = try await bob.studyGroups.joinGroup(group.id)
    let room = try #require(
      try await bob.chat.fetchRooms(.first).items.first { $0.kind == .group(group.id) })
    try await alice.studyGroups.deleteGroup(group.id)
    await log.record("join deleted group") { try await grace.studyGroups.joinGroup(group.id) }
    await log.record("leave deleted group") { try await bob.studyGroups.leaveGroup(group.id) }
    await log.record("members of deleted group") {
      try await bob.studyGroups.fetchMembers(group.id, .first)
    }
    await log.record("update deleted group") {
      try await alice.studyGroups.updateGroup(group.id, StudyGroupDraft(name: "Back"))
    }
    await log.record("room of deleted group listed") {
      let rooms = try await bob.chat.fetchRooms(.first).items
      if rooms.contains(where: { $0.id == room.id }) {
        throw DomainError.conflict("still listed")
      }
    }
    await log.record("send to room of deleted group") {
      try await bob.chat.sendMessage("Anyone?", room.id, UUID())
    }

    // Strangers and unknown identifiers.
    let other = try await alice.studyGroups.createGroup(StudyGroupDraft(name: "Members only"))
    await log.record("stranger reads members") {
      try await grace.studyGroups.fetchMembers(other.id, .first)
    }
    await log.record("stranger deletes group") { try await grace.studyGroups.deleteGroup(other.id) }
    await log.record("unknown post") { try await bob.board.fetchPost("p_424242") }
    await log.record("unknown comment like") {
      try await bob.board.setCommentLike("c_424242", true)
    }
    await log.record("unknown group") { try await bob.studyGroups.fetchGroup("g_424242") }
    await log.record("unknown question") { try await bob.questions.fetchQuestion("q_424242") }
    await log.record("unknown user report") {
      try await bob.reports.report(.user("u_424242"), .spam)
    }
    await log.record("unknown answer report") {
      try await bob.reports.report(.answer("a_424242"), .spam)
    }
    await log.record("unknown notification") { try await bob.notifications.markRead("n_424242") }
    await log.record("unknown direct peer") { try await bob.chat.openDirectRoom("u_424242") }
    await log.record("unknown room") {
      try await bob.chat.fetchMessages("room_424242", nil, nil, 5)
    }
    await log.record("admin unbans unknown user") { try await admin.admin.unbanUser("u_424242") }
    await log.record("admin resolves unknown case") {
      try await admin.admin.resolveReportCase("case_424242", .dismiss, nil)
    }
    await log.record("admin deletes unknown question") {
      try await admin.admin.deleteQuestion("q_424242")
    }
  }
}
