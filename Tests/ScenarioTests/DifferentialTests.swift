import Domain
import Foundation
import Repositories
import Testing

/// The same community workload on both backends, then everything both sides can be asked
/// about, compared value by value. The scenarios check the rules one by one; this catches the
/// numbers nobody thought to assert (a count that includes hidden content on one side only, a
/// report count per user, notification messages' kinds and order).
// Only a hang guard, as in SharedScenarioTests (a live run can take near a minute).
@Suite("Differential: fakes vs live", .timeLimit(.minutes(3)))
struct DifferentialTests {
  @Test("one workload, identical observations")
  func identicalObservations() async throws {
    var snapshots: [BackendKind: CommunitySnapshot] = [:]
    for kind in BackendKind.allCases {
      try await withBackend(kind) { backend in
        snapshots[kind] = try await CommunityWorkload.run(on: backend)
      }
    }
    let fake = try #require(snapshots[.fake])
    let live = try #require(snapshots[.live])
    // Field by field, so a failure names what drifted.
    #expect(fake.stats == live.stats)
    #expect(fake.reportCases == live.reportCases)
    #expect(fake.users == live.users)
    #expect(fake.feeds == live.feeds)
    #expect(fake.comments == live.comments)
    #expect(fake.notifications == live.notifications)
    #expect(fake.groups == live.groups)
    #expect(fake.questions == live.questions)
    #expect(fake.rooms == live.rooms)
  }
}

/// What the workload observed, with identifiers replaced by content (they differ per side).
struct CommunitySnapshot: Equatable, Sendable {
  var stats: [String: Int] = [:]
  var reportCases: [String] = []
  var users: [String] = []
  var feeds: [String: [String]] = [:]
  var comments: [String] = []
  var notifications: [String: [String]] = [:]
  var groups: [String: [String]] = [:]
  var questions: [String] = []
  var rooms: [String: [String]] = [:]
}

/// A small community's morning, through the repositories only.
enum CommunityWorkload {
  static func run(on backend: any ScenarioBackend) async throws -> CommunitySnapshot {
    let admin = try await backend.makeAdmin()
    let question = try await backend.publishTodayQuestion(by: admin)
    var members: [String: RepositorySet] = [:]
    let names = ["alice", "bob", "carol", "dave", "erin", "frank"]
    for name in names {
      members[name] = try await backend.makeMember(nickname: name)
    }
    func member(_ name: String) -> RepositorySet { members[name]! }
    var labels: [String: String] = [:]

    // Questions and answers.
    for name in ["alice", "bob", "carol"] {
      let answer = try await member(name).questions.submitAnswer(question.id, "\(name) answers")
      labels[answer.id.rawValue] = "answer:\(name)"
    }

    // Posts, comments, likes.
    let welcome = try await member("alice").board.createPost(
      PostDraft(content: "Welcome thread", isAnonymous: false))
    let rant = try await member("bob").board.createPost(PostDraft(content: "Spammy rant"))
    let gone = try await member("carol").board.createPost(PostDraft(content: "Deleted soon"))
    for post in [welcome, rant, gone] { labels[post.id.rawValue] = post.content }
    for (name, anonymous) in [("bob", true), ("carol", false), ("bob", true), ("dave", true)] {
      let comment = try await member(name).board.createComment(
        welcome.id, CommentDraft(content: "\(name) says hi", isAnonymous: anonymous))
      labels[comment.id.rawValue] = comment.content
    }
    let doomed = try await member("erin").board.createComment(
      welcome.id, CommentDraft(content: "erin deletes this"))
    try await member("erin").board.deleteComment(doomed.id)
    _ = try await member("carol").board.createComment(gone.id, CommentDraft(content: "On gone"))
    try await member("carol").board.deletePost(gone.id)
    for name in ["bob", "carol", "dave"] {
      _ = try await member(name).board.setPostLike(welcome.id, true)
    }
    _ = try await member("dave").board.setPostLike(welcome.id, false)
    let firstComment = try #require(
      try await member("alice").board.fetchComments(welcome.id, .first).items.first)
    _ = try await member("alice").board.setCommentLike(firstComment.id, true)

    // Reports: the rant is hidden by five reporters and then banned; a comment gets one report;
    // a user gets one.
    for name in ["alice", "carol", "dave", "erin", "frank"] {
      _ = try await member(name).reports.report(
        .post(rant.id), name == "frank" ? .other("Ads") : .spam)
    }
    _ = try await member("dave").reports.report(.comment(firstComment.id), .abuse)
    let bobID = try await member("bob").profile.fetchMe().id
    _ = try await member("erin").reports.report(.user(bobID), .impersonation)
    let rantCase = try #require(
      try await admin.admin.fetchReportCases(.open, PageRequest(limit: 100)).items.first {
        $0.target == .post(rant.id)
      })
    _ = try await admin.admin.resolveReportCase(rantCase.id, .banAuthor, "Spam")

    // Groups and chat.
    let group = try await member("carol").studyGroups.createGroup(
      StudyGroupDraft(name: "Morning study", description: "7 am, library"))
    labels[group.id.rawValue] = group.name
    for name in ["dave", "erin"] { _ = try await member(name).studyGroups.joinGroup(group.id) }
    try await member("erin").studyGroups.leaveGroup(group.id)
    let room = try #require(
      try await member("dave").chat.fetchRooms(.first).items.first { $0.kind == .group(group.id) })
    _ = try await member("carol").chat.sendMessage("Good morning", room.id, UUID())
    _ = try await member("dave").chat.sendMessage("Coffee first", room.id, UUID())
    try await member("carol").chat.markRead(room.id, 2)
    let daveID = try await member("dave").profile.fetchMe().id
    let direct = try await member("carol").chat.openDirectRoom(daveID)
    _ = try await member("carol").chat.sendMessage("Are you coming?", direct.id, UUID())

    // Someone leaves for good.
    try await member("frank").auth.withdraw()
    members["frank"] = nil

    // Observe.
    var snapshot = CommunitySnapshot()
    let stats = try await admin.admin.fetchStats()
    snapshot.stats = [
      "users": stats.users, "admins": stats.admins, "bannedUsers": stats.bannedUsers,
      "questions": stats.questions, "answers": stats.answers, "posts": stats.posts,
      "comments": stats.comments, "openReports": stats.openReports,
      "hiddenContents": stats.hiddenContents, "groups": stats.groups, "messages": stats.messages,
    ]
    func label(_ id: String) -> String { labels[id] ?? "?\(id.prefix(2))" }
    func describe(_ target: ReportTarget) -> String {
      switch target {
      case .user: "user"
      default: "\(target.kind.rawValue):\(label(target.rawID))"
      }
    }
    let cases = try await admin.admin.fetchReportCases(nil, PageRequest(limit: 100)).items
    snapshot.reportCases = cases.map { item in
      let reasons = item.reasonCounts.sorted { $0.key.rawValue < $1.key.rawValue }
        .map { "\($0.key.rawValue)=\($0.value)" }.joined(separator: ",")
      return
        "\(describe(item.target)) count=\(item.reportCount) reasons=\(reasons) "
        + "status=\(item.status) resolution=\(item.resolution?.rawValue ?? "-") "
        + "hidden=\(item.isHidden) excerpt=\(item.excerpt ?? "-") "
        + "author=\(item.author?.nickname ?? "-")"
    }
    let users = try await admin.admin.fetchUsers(nil, PageRequest(limit: 100)).items
    snapshot.users = users.map {
      "\($0.user.nickname) role=\($0.user.role) banned=\($0.user.isBanned) "
        + "reports=\($0.reportCount) reason=\($0.banReason ?? "-") answers=\($0.user.answerCount)"
    }.sorted()
    for (name, client) in members.sorted(by: { $0.key < $1.key }) {
      snapshot.feeds[name] = try await client.board.fetchPosts(.first).items.map {
        "\($0.content) by=\($0.authorName) likes=\($0.likeCount) liked=\($0.isLiked) "
          + "comments=\($0.commentCount) mine=\($0.isMine)"
      }
      snapshot.notifications[name] =
        try await client.notifications.fetchNotifications(.first).items.map {
          "\(Self.describe($0.kind, label: label)) read=\($0.isRead)"
        } + ["unread=\(try await client.notifications.fetchUnreadCount())"]
      snapshot.groups[name] = try await client.studyGroups.fetchGroups(nil, .first).items.map {
        "\($0.name) owner=\($0.owner.nickname) members=\($0.memberCount) member=\($0.isMember)"
      }
      snapshot.rooms[name] = try await client.chat.fetchRooms(.first).items.map {
        "\($0.title) unread=\($0.unreadCount) read=\($0.lastReadSeq) "
          + "last=\($0.lastMessage?.text ?? "-")"
      }.sorted()
    }
    snapshot.comments = try await member("alice").board.fetchComments(welcome.id, .first).items
      .map {
        "\($0.content) by=\($0.authorName) likes=\($0.likeCount) liked=\($0.isLiked) "
          + "mine=\($0.isMine)"
      }
    snapshot.questions = try await member("alice").questions.fetchQuestions(.first).items.map {
      "\($0.content) answers=\($0.answerCount) mine=\($0.myAnswer?.content ?? "-")"
    }
    return snapshot
  }

  /// A notification kind with its identifiers replaced by labels.
  static func describe(_ kind: NotificationKind, label: (String) -> String) -> String {
    switch kind {
    case .commentOnMyPost(let post, let comment):
      "commentOnMyPost(\(label(post.rawValue)), \(label(comment.rawValue)))"
    case .replyToMyComment(let post, let comment):
      "replyToMyComment(\(label(post.rawValue)), \(label(comment.rawValue)))"
    case .likeOnMyPost(let post): "likeOnMyPost(\(label(post.rawValue)))"
    case .likeOnMyComment(let post, let comment):
      "likeOnMyComment(\(label(post.rawValue)), \(label(comment.rawValue)))"
    case .newQuestion: "newQuestion"
    case .groupInvite(let group): "groupInvite(\(label(group.rawValue)))"
    case .groupMessage: "groupMessage"
    case .reportResolved: "reportResolved"
    case .unknown(let kind): "unknown(\(kind))"
    }
  }
}
