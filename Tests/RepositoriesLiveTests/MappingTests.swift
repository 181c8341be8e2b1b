import DTO
import Domain
import Endpoints
import Foundation
import HTTPTypes
import NetworkKit
import NetworkKitTesting
import Testing

@testable import RepositoriesLive

/// Every repository endpoint against its route's sample response: the request that goes out
/// (method, path, query, body, headers) and the Domain value that comes back.
@Suite("DTO to Domain through the repositories")
struct MappingTests {
  static func date(_ text: String) -> Date { QappleCoding.date(from: text)! }

  /// The query items of the `index`-th request after sign-in.
  static func query(_ received: StubTransport.Received) -> [String: String] {
    let components = URLComponents(string: received.request.path ?? "")
    return Dictionary(
      (components?.queryItems ?? []).map { ($0.name, $0.value ?? "") }, uniquingKeysWith: { $1 })
  }

  @Test func questionsAndAnswers() async throws {
    let harness = Harness()
    try await harness.signIn()
    let questions = harness.repositories.questions
    harness.stubSample(QuestionAPI.today)
    harness.stubSample(QuestionAPI.list())
    harness.stubSample(QuestionAPI.question("q_0321"))
    harness.stubSample(AnswerAPI.answers(questionID: "q_0321"))
    harness.stubSample(
      AnswerAPI.create(questionID: "q_0321", body: CreateAnswerRequest(content: "x")),
      status: .created)
    harness.stub(.delete, "/answers/a_1024", status: .noContent, json: "")

    let today = try await questions.fetchToday()
    #expect(today.id == "q_0321")
    #expect(today.publishDate == (try CalendarDay(year: 2026, month: 11, day: 21)))
    #expect(today.answerCount == 37)
    #expect(today.myAnswer == nil)

    let page = try await questions.fetchQuestions(PageRequest(cursor: "c_1", limit: 2))
    #expect(page.items.map(\.id) == ["q_0320", "q_0319"])
    #expect(page.nextCursor == "c_q_0319")
    #expect(Self.query(harness.sentRequests[1]) == ["cursor": "c_1", "limit": "2"])

    let answered = try await questions.fetchQuestion("q_0321")
    #expect(answered.myAnswer?.id == "a_1024")
    #expect(answered.canSeeAnswers)

    let answers = try await questions.fetchAnswers("q_0321", .first)
    #expect(answers.items.count == 2)
    #expect(answers.items[0].authorNickname == "swiftie")
    #expect(answers.items[0].isMine == false)
    #expect(answers.items[0].createdAt == Self.date("2026-11-21T07:45:12.004Z"))
    #expect(answers.hasMore == false)

    let mine = try await questions.submitAnswer("q_0321", "  guard let 하나로 크래시를 막았어요.  ")
    #expect(mine.id == "a_1024")
    #expect(mine.isMine)
    let create = try #require(harness.sentRequests.last)
    #expect(create.request.method == .post)
    #expect(try Harness.jsonBody(create)["content"] as? String == "guard let 하나로 크래시를 막았어요.")
    #expect(create.request.headerFields[RetryPolicy.idempotencyKey] != nil)

    try await questions.deleteAnswer("a_1024")
    #expect(harness.sentRequests.last?.request.path == "/answers/a_1024")
    #expect(harness.transport.unstubbedRequests.isEmpty)
  }

  @Test func boardPostsCommentsAndLikes() async throws {
    let harness = Harness()
    try await harness.signIn()
    let board = harness.repositories.board
    harness.stubSample(BoardAPI.posts())
    harness.stubSample(BoardAPI.search(query: "x"))
    harness.stubSample(BoardAPI.post("p_0412"))
    harness.stubSample(
      BoardAPI.create(CreatePostRequest(content: "x", isAnonymous: true)), status: .created)
    harness.stubSample(BoardAPI.like("p_0412"))
    harness.stubSample(BoardAPI.unlike("p_0412"))
    harness.stubSample(CommentAPI.comments(postID: "p_0412"))
    harness.stubSample(
      CommentAPI.create(
        postID: "p_0412", body: CreateCommentRequest(content: "x", isAnonymous: true)),
      status: .created)
    harness.stubSample(CommentAPI.like("c_2201"))
    harness.stubSample(CommentAPI.unlike("c_2201"))
    harness.stub(.delete, "/posts/p_0415", status: .noContent, json: "")
    harness.stub(.delete, "/comments/c_2210", status: .noContent, json: "")

    let posts = try await board.fetchPosts(.first)
    #expect(posts.items.count == 2)
    let created = posts.items[0]
    #expect(created.id == "p_0415")
    #expect(created.isAnonymous && created.isMine)
    #expect(created.authorName == "Anonymous")
    #expect(posts.items[1].likeState == LikeState(isLiked: true, likeCount: 12))
    #expect(posts.items[1].commentCount == 4)
    #expect(posts.nextCursor == "c_p_0412")

    let found = try await board.searchPosts("  TCA ", .first)
    #expect(found.items.map(\.id) == ["p_0412"])
    #expect(Self.query(harness.sentRequests[1])["q"] == "TCA")

    #expect(try await board.fetchPost("p_0412").authorName == "swiftie")

    let post = try await board.createPost(PostDraft(content: " 떨려요 ", isAnonymous: true))
    #expect(post.id == "p_0415")
    let body = try Harness.jsonBody(harness.sentRequests[3])
    #expect(body["content"] as? String == "떨려요")
    #expect(body["is_anonymous"] as? Bool == true)

    #expect(try await board.setPostLike("p_0412", true) == LikeState(isLiked: true, likeCount: 13))
    #expect(
      try await board.setPostLike("p_0412", false) == LikeState(isLiked: false, likeCount: 12))
    #expect(harness.sentRequests[4].request.method == .put)
    #expect(harness.sentRequests[5].request.method == .delete)

    let comments = try await board.fetchComments("p_0412", .first)
    #expect(comments.items.map(\.authorName) == ["Anonymous 1", "swiftie"])
    #expect(comments.items[0].postID == "p_0412")

    let comment = try await board.createComment("p_0412", CommentDraft(content: "저요!"))
    #expect(comment.authorName == "Anonymous 2")
    #expect(try await board.setCommentLike("c_2201", true).likeCount == 4)
    #expect(try await board.setCommentLike("c_2201", false).isLiked == false)

    try await board.deletePost("p_0415")
    try await board.deleteComment("c_2210")
    #expect(harness.transport.unstubbedRequests.isEmpty)
  }

  @Test func reportsAndNotifications() async throws {
    let harness = Harness()
    try await harness.signIn()
    harness.stubSample(
      ReportAPI.create(CreateReportRequest(target: .comment("c_2201"), reason: .abuse)),
      status: .created)
    harness.stubSample(ReportAPI.mine())
    harness.stubSample(NotificationAPI.list())
    harness.stubSample(NotificationAPI.unreadCount)
    harness.stub(.post, "/notifications/n_0901/read", status: .noContent, json: "")
    harness.stub(.post, "/notifications/read-all", status: .noContent, json: "")

    let report = try await harness.repositories.reports.report(.comment("c_2201"), .abuse)
    #expect(report.target == .comment("c_2201"))
    #expect(report.reason == .abuse)
    #expect(report.status == .open)
    let body = try Harness.jsonBody(try #require(harness.sentRequests.first))
    #expect(body["reason"] as? String == "abuse")
    #expect((body["target"] as? [String: String]) == ["type": "comment", "id": "c_2201"])

    let mine = try await harness.repositories.reports.fetchMyReports(.first)
    #expect(mine.items[1].reason.code == .other)
    #expect(mine.items[1].reason.detail?.isEmpty == false)
    #expect(mine.items[1].status == .resolved)

    let notifications = try await harness.repositories.notifications.fetchNotifications(.first)
    #expect(
      notifications.items[0].kind == .commentOnMyPost(post: "p_0412", comment: "c_2210"))
    #expect(notifications.items[0].deepLink == .comment(post: "p_0412", comment: "c_2210"))
    #expect(notifications.items[4].kind == .newQuestion("q_0321"))
    #expect(notifications.items[5].kind == .groupInvite("g_007"))
    #expect(try await harness.repositories.notifications.fetchUnreadCount() >= 0)
    try await harness.repositories.notifications.markRead("n_0901")
    try await harness.repositories.notifications.markAllRead()
    #expect(harness.transport.unstubbedRequests.isEmpty)
  }

  @Test func profile() async throws {
    let harness = Harness()
    try await harness.signIn()
    let profile = harness.repositories.profile
    harness.stubSample(MeAPI.me)
    harness.stubSample(MeAPI.user("u_02"))
    harness.stubSample(MeAPI.myAnswers())
    harness.stubSample(MeAPI.uploadAvatar(image: Data(), fileName: "", mimeType: ""))
    harness.stubSample(MeAPI.nicknameAvailability(nickname: "x"))

    #expect(try await profile.fetchMe() == Fixtures.domainUser())
    let other = try await profile.fetchUser("u_02")
    #expect(other.nickname.rawValue == "swiftie")
    #expect(other.avatarURL?.absoluteString == "https://cdn.qapple.example/avatars/u_02/a1b2.png")
    #expect(try await profile.fetchMyAnswers(.first).items.allSatisfy(\.isMine))

    // A JPEG declared as PNG goes up as what its bytes are, as the service reads it.
    let image = Data([0xFF, 0xD8, 0xFF, 0xE0])
    let withAvatar = try await profile.uploadAvatar(image, "me.jpg", "image/png")
    #expect(withAvatar.avatarURL != nil)
    let upload = try #require(harness.sentRequests.last)
    #expect(upload.request.method == .put)
    #expect(upload.request.headerFields[.contentType]?.hasPrefix("multipart/form-data") == true)
    let part = String(decoding: try #require(upload.body), as: UTF8.self)
    #expect(part.contains("Content-Type: image/jpeg"))
    #expect(await harness.repositories.auth.currentState() == .signedIn(withAvatar))

    let availability = try await harness.repositories.auth.checkNickname(
      try Nickname(validating: "코딩하는사과"))
    #expect(availability.isAvailable)
    #expect(
      Self.query(try #require(harness.transport.receivedRequests.last))["nickname"] == "코딩하는사과")
    #expect(harness.transport.unstubbedRequests.isEmpty)
  }

  @Test func emailVerification() async throws {
    let harness = Harness()
    harness.stubSample(
      AuthAPI.requestEmailCode(EmailCodeRequest(signUpToken: "t", email: "e")), status: .accepted)
    harness.stubSample(
      AuthAPI.verifyEmailCode(EmailVerifyRequest(signUpToken: "t", email: "e", code: "c")))
    let token = SignUpToken(rawValue: "sut_1")
    let email = try EmailAddress(validating: "Runner@Academy.example")

    let expiry = try await harness.repositories.auth.requestEmailCode(token, email)
    #expect(expiry == Self.date("2026-11-21T05:20:00.000Z"))
    let verified = try await harness.repositories.auth.verifyEmailCode(
      token, email, try VerificationCode(validating: "123 456"))
    #expect(verified.rawValue == "vt_8d2c41e0b6a3")
    let body = try Harness.jsonBody(try #require(harness.transport.receivedRequests.last))
    #expect(body["email"] as? String == "runner@academy.example")
    #expect(body["code"] as? String == "123456")
    #expect(body["sign_up_token"] as? String == "sut_1")
  }

  @Test(
    "a list item with an enumeration value this SDK does not know is left out; any other broken item fails the page"
  )
  func unknownValuesLeaveOneItemOut() async throws {
    let harness = Harness()
    try await harness.signIn()
    let sample = String(decoding: ChatAPI.rooms().sampleData, as: UTF8.self)
    // A newer server's room kind: the two rooms this SDK can show still come.
    let newer = sample.replacingOccurrences(of: #""kind": "direct""#, with: #""kind": "channel""#)
    #expect(newer != sample)
    harness.stub(.get, "/chat/rooms", json: newer)
    let rooms = try await harness.repositories.chat.fetchRooms(.first)
    #expect(rooms.items.map(\.id) == ["room_g_007", "room_g_012"])
    // A broken item (a group room without its group) is a server bug, not growth: the page
    // fails.
    let broken = sample.replacingOccurrences(of: #""kind": "direct""#, with: #""kind": "group""#)
    harness.stub(.get, "/chat/rooms", json: broken)
    await #expect(throws: DomainError.self) {
      _ = try await harness.repositories.chat.fetchRooms(.first)
    }
  }

  @Test func studyGroupsAndChat() async throws {
    let harness = Harness()
    try await harness.signIn()
    let groups = harness.repositories.studyGroups
    let chat = harness.repositories.chat
    harness.stubSample(StudyGroupAPI.groups())
    harness.stubSample(StudyGroupAPI.group("g_007"))
    harness.stubSample(
      StudyGroupAPI.create(CreateGroupRequest(name: "x", description: "")), status: .created)
    harness.stubSample(StudyGroupAPI.update(groupID: "g_012", body: UpdateGroupRequest()))
    harness.stubSample(StudyGroupAPI.join("g_007"))
    harness.stubSample(StudyGroupAPI.members(groupID: "g_007"))
    harness.stub(.delete, "/groups/g_007/membership", status: .noContent, json: "")
    harness.stub(.delete, "/groups/g_012", status: .noContent, json: "")
    harness.stubSample(ChatAPI.rooms())
    harness.stubSample(ChatAPI.openDirect(OpenDirectRoomRequest(userId: "u_02")))
    harness.stubSample(ChatAPI.messages(roomID: "room_g_007"))
    harness.stubSample(
      ChatAPI.send(
        roomID: "room_g_007", body: SendMessageRequest(clientMessageId: UUID(), text: "x")),
      status: .created)
    harness.stub(.put, "/chat/rooms/room_g_007/read", status: .noContent, json: "")

    let list = try await groups.fetchGroups("  알고리즘 ", .first)
    #expect(list.items.isEmpty == false)
    #expect(Self.query(harness.sentRequests[0])["q"] == "알고리즘")
    _ = try await groups.fetchGroups("   ", .first)
    #expect(Self.query(harness.sentRequests[1])["q"] == nil)
    // Checked before sending, by the server's rule (`TextRule.search`).
    await #expect(throws: DomainError.validation(.tooLong(field: "q", maximum: 100, actual: 101))) {
      try await groups.fetchGroups(String(repeating: "가", count: 101), .first)
    }
    #expect(harness.sentRequests.count == 2)

    let group = try await groups.fetchGroup("g_007")
    #expect(group.owner == UserSummary(id: "u_02", nickname: "swiftie"))
    #expect(group.memberCount == 6 && !group.isMember)
    let created = try await groups.createGroup(StudyGroupDraft(name: " SwiftUI Study "))
    #expect(created.isOwned(by: "u_01"))
    #expect(try Harness.jsonBody(harness.sentRequests[3])["name"] as? String == "SwiftUI Study")
    #expect(
      try await groups.updateGroup("g_012", StudyGroupDraft(name: "SwiftUI 심화 스터디")).memberCount
        == 3)
    #expect(try await groups.joinGroup("g_007").isMember)
    let members = try await groups.fetchMembers("g_007", .first)
    #expect(members.items.contains { $0.role == .owner })
    try await groups.leaveGroup("g_007")
    try await groups.deleteGroup("g_012")

    let rooms = try await chat.fetchRooms(.first)
    #expect(rooms.items[0].kind == .group("g_007"))
    #expect(rooms.items[1].kind == .direct("u_02"))
    #expect(rooms.items[0].lastMessage?.seq == 1042)
    let direct = try await chat.openDirectRoom("u_02")
    #expect(direct.unreadCount == 1 && direct.lastReadSeq == 17)
    #expect(
      try Harness.jsonBody(try #require(harness.sentRequests.last))["user_id"] as? String == "u_02")

    let messages = try await chat.fetchMessages("room_g_007", 1039, nil, 50)
    #expect(messages.first?.seq == 1040)
    #expect(messages.compactMap(\.seq) == messages.compactMap(\.seq).sorted())
    #expect(
      Self.query(try #require(harness.sentRequests.last)) == ["after_seq": "1039", "limit": "50"])

    let clientID = UUID(uuidString: "3F2504E0-4F89-41D3-9A0C-0305E82C3301")!
    let sent = try await chat.sendMessage(" 좋아요! ", "room_g_007", clientID)
    #expect(sent.clientMessageID == clientID)
    #expect(sent.deliveryState == .sent)
    let send = try #require(harness.sentRequests.last)
    #expect(send.request.headerFields[RetryPolicy.idempotencyKey] == clientID.lowercasedText)
    #expect(try Harness.jsonBody(send)["text"] as? String == "좋아요!")

    try await chat.markRead("room_g_007", 1042)
    #expect(try Harness.jsonBody(try #require(harness.sentRequests.last))["seq"] as? Int == 1042)
    #expect(harness.transport.unstubbedRequests.isEmpty)
  }

  @Test func admin() async throws {
    let now = Self.date("2026-11-21T00:00:00.000Z")
    let harness = Harness(now: { now })
    try await harness.signIn()
    let admin = harness.repositories.admin
    let day = try CalendarDay(year: 2026, month: 11, day: 30)
    harness.stubSample(AdminAPI.questions())
    harness.stubSample(
      AdminAPI.createQuestion(CreateQuestionRequest(content: "x", publishDate: "x")),
      status: .created)
    harness.stubSample(AdminAPI.updateQuestion(questionID: "q_0330", body: UpdateQuestionRequest()))
    harness.stub(.delete, "/admin/questions/q_0330", status: .noContent, json: "")
    harness.stubSample(AdminAPI.importQuestions(csv: Data()))
    harness.stubSample(AdminAPI.reports())
    harness.stubSample(AdminAPI.report("rc_0031"))
    harness.stubSample(
      AdminAPI.resolveReport(caseID: "rc_0031", body: ResolveReportRequest(action: "dismiss")))
    harness.stubSample(AdminAPI.users())
    harness.stubSample(AdminAPI.banUser(userID: "u_13", body: BanUserRequest(reason: "x")))
    harness.stubSample(AdminAPI.unbanUser("u_13"))
    harness.stubSample(AdminAPI.stats)

    let scheduled = try await admin.fetchQuestions(.published, .first)
    #expect(scheduled.items.map(\.status) == [.scheduled, .published])
    #expect(Self.query(harness.sentRequests[0])["status"] == "published")
    let created = try await admin.createQuestion(
      QuestionDraft(content: "  What did you refactor today?  ", publishDate: day))
    #expect(created.status == .scheduled)
    let createBody = try Harness.jsonBody(harness.sentRequests[1])
    #expect(createBody["content"] as? String == "What did you refactor today?")
    #expect(createBody["publish_date"] as? String == "2026-11-30")
    _ = try await admin.updateQuestion(
      "q_0330", QuestionDraft(content: "What did you learn today?", publishDate: day))
    try await admin.deleteQuestion("q_0330")

    let csv = Data("publish_date,content\n2026-12-01,What is new?\n".utf8)
    let imported = try await admin.importQuestions(csv)
    #expect(imported.imported == 28)
    #expect(imported.errors.isEmpty == false)
    let upload = harness.sentRequests[4]
    #expect(upload.request.headerFields[.contentType] == "text/csv")
    #expect(upload.body == csv)

    let cases = try await admin.fetchReportCases(.open, .first)
    #expect(cases.items.map(\.target).contains(.post("p_0388")))
    #expect(cases.items.map(\.target).contains(.user("u_13")))
    let detail = try await admin.fetchReportCase("rc_0031")
    #expect(detail.reportCase.target == .comment("c_2201"))
    #expect(detail.reports.isEmpty == false)
    let resolved = try await admin.resolveReportCase("rc_0031", .hideContent, "  ")
    #expect(resolved.status == .resolved)
    let resolveBody = try Harness.jsonBody(harness.sentRequests[7])
    #expect(resolveBody["action"] as? String == "hide_content")
    #expect(resolveBody["note"] is NSNull)

    #expect(try await admin.fetchUsers(nil, .first).items.isEmpty == false)
    await #expect(throws: DomainError.validation(.tooLong(field: "q", maximum: 100, actual: 101))) {
      try await admin.fetchUsers(String(repeating: "a", count: 101), .first)
    }
    let until = now.addingTimeInterval(86_400)
    let banned = try await admin.banUser("u_13", " spam ", until)
    #expect(banned.user.isBanned)
    let banBody = try Harness.jsonBody(harness.sentRequests[9])
    #expect(banBody["reason"] as? String == "spam")
    #expect(banBody["until"] as? String == "2026-11-22T00:00:00.000Z")
    #expect(try await admin.unbanUser("u_13").user.isBanned == false)
    let stats = try await admin.fetchStats()
    #expect(stats.users > 0)
    #expect(harness.transport.unstubbedRequests.isEmpty)
  }
}
