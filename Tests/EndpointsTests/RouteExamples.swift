import DTO
import Domain
import Endpoints
import Foundation
import Testing

/// Identifiers used by the examples, one per path parameter of the contract. Each one holds
/// characters that must be percent-encoded, and each differs from the others, so a route that
/// put the wrong identifier in its path, or forgot to encode it, fails the contract test.
enum FixtureID {
  static let values: [String: String] = [
    "question_id": "q/0321 질문",
    "answer_id": "a?1024",
    "post_id": "p#0412",
    "comment_id": "c%2F2201",
    "notification_id": "n 0901",
    "group_id": "g&007=1",
    "room_id": "room/g_007",
    "user_id": "u_01 사과",
    "case_id": "rc/../0031",
  ]

  static let question = Question.ID(values["question_id"]!)
  static let answer = Answer.ID(values["answer_id"]!)
  static let post = BoardPost.ID(values["post_id"]!)
  static let comment = Comment.ID(values["comment_id"]!)
  static let notification = AppNotification.ID(values["notification_id"]!)
  static let group = StudyGroup.ID(values["group_id"]!)
  static let room = ChatRoom.ID(values["room_id"]!)
  static let user = User.ID(values["user_id"]!)
  static let reportCase = ReportCase.ID(values["case_id"]!)
}

/// Request bodies for the examples.
enum FixtureBody {
  static let clientMessageID = UUID(uuidString: "3F2504E0-4F89-41D3-9A0C-0305E82C3301")!
  static let signIn = SignInRequest(provider: .dev, token: "dev-token-사과러너")
  static let emailCode = EmailCodeRequest(signUpToken: "sut_1", email: "runner@academy.example")
  static let emailVerify = EmailVerifyRequest(
    signUpToken: "sut_1", email: "runner@academy.example", code: "123456")
  static let signUp = SignUpRequest(
    signUpToken: "sut_1", verificationToken: "vt_1", nickname: "사과러너", cohort: nil,
    agreedTermsVersion: "2026-03")
  static let refresh = RefreshRequest(refreshToken: "rt_1")
  static let signOut = SignOutRequest(refreshToken: "rt_1")
  static let updateProfile = UpdateProfileRequest(nickname: "코딩하는사과")
  static let answer = CreateAnswerRequest(content: "guard let 하나로 크래시를 막았어요.")
  static let post = CreatePostRequest(content: "팀원 구해요! Looking for a teammate.", isAnonymous: true)
  static let comment = CreateCommentRequest(content: "저요! Count me in.", isAnonymous: false)
  static let report = CreateReportRequest(target: .comment("c_2201"), reason: .other("실명 노출"))
  static let group = CreateGroupRequest(name: "알고리즘 아침반", description: "One problem a day.")
  static let updateGroup = UpdateGroupRequest(name: "SwiftUI 심화 스터디")
  static let openDirect = OpenDirectRoomRequest(user: "u_02")
  static let send = SendMessageRequest(clientMessageId: clientMessageID, text: "내일 7시에 봬요!")
  static let markRead = MarkReadRequest(seq: 1042)
  static let analytics = AnalyticsBatchRequest(events: [
    AnalyticsEventDTO(
      name: "answer_submitted", properties: ["length": "42"],
      occurredAt: Date(timeIntervalSince1970: 1_795_000_000), sessionId: "s_1")
  ])
  static let createQuestion = CreateQuestionRequest(
    content: "가장 기억에 남는 코드 리뷰 코멘트는?", publishDate: "2026-11-30")
  static let updateQuestion = UpdateQuestionRequest(publishDate: "2026-12-01")
  static let resolve = ResolveReportRequest(resolution: .hideContent, note: "반복 신고")
  static let ban = BanUserRequest(reason: "repeated advertising", until: nil)
  static let csv = Data("publish_date,content\n2026-12-01,오늘 웃게 만든 일은?\n".utf8)
  static let avatar = Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46])
}

// Every router lists representative values of each of its cases, with and without the optional
// parameters. `caseName` below is an exhaustive switch: adding a case to a router does not
// compile until it is named here, and the contract test then fails until an example of it is
// listed (the contract test compares the examples with Docs/openapi.yaml in both directions).

extension AuthAPI {
  static let examples: [AuthAPI] = [
    .signIn(FixtureBody.signIn), .requestEmailCode(FixtureBody.emailCode),
    .verifyEmailCode(FixtureBody.emailVerify), .signUp(FixtureBody.signUp),
    .refresh(FixtureBody.refresh), .signOut(FixtureBody.signOut),
  ]

  var caseName: String {
    switch self {
    case .signIn: "signIn"
    case .requestEmailCode: "requestEmailCode"
    case .verifyEmailCode: "verifyEmailCode"
    case .signUp: "signUp"
    case .refresh: "refresh"
    case .signOut: "signOut"
    }
  }
}

extension MeAPI {
  static let examples: [MeAPI] = [
    .me, .updateProfile(FixtureBody.updateProfile),
    .uploadAvatar(image: FixtureBody.avatar, fileName: "avatar.jpg", mimeType: "image/jpeg"),
    .withdraw, .nicknameAvailability(nickname: "코딩하는사과"), .user(FixtureID.user),
    .userByNickname("코딩하는사과"),
    .myAnswers(), .myAnswers(page: PageRequest(cursor: "c_a_0977", limit: 50)),
  ]

  var caseName: String {
    switch self {
    case .me: "me"
    case .updateProfile: "updateProfile"
    case .uploadAvatar: "uploadAvatar"
    case .withdraw: "withdraw"
    case .nicknameAvailability: "nicknameAvailability"
    case .user: "user"
    case .userByNickname: "userByNickname"
    case .myAnswers: "myAnswers"
    }
  }
}

extension QuestionAPI {
  static let examples: [QuestionAPI] = [
    .today, .list(), .list(page: PageRequest(cursor: "c_q_0319", limit: 10)),
    .question(FixtureID.question),
  ]

  var caseName: String {
    switch self {
    case .today: "today"
    case .list: "list"
    case .question: "question"
    }
  }
}

extension AnswerAPI {
  static let examples: [AnswerAPI] = [
    .answers(questionID: FixtureID.question),
    .answers(questionID: FixtureID.question, page: PageRequest(cursor: "c_a_1", limit: 100)),
    .create(questionID: FixtureID.question, body: FixtureBody.answer),
    .create(questionID: FixtureID.question, body: FixtureBody.answer, idempotencyKey: "k-1"),
    .delete(FixtureID.answer),
  ]

  var caseName: String {
    switch self {
    case .answers: "answers"
    case .create: "create"
    case .delete: "delete"
    }
  }
}

extension BoardAPI {
  static let examples: [BoardAPI] = [
    .posts(), .posts(page: PageRequest(cursor: "c_p_0412")),
    .search(query: "TCA 팀원"), .search(query: "swift", page: PageRequest(cursor: "c_s", limit: 5)),
    .post(FixtureID.post), .create(FixtureBody.post),
    .create(FixtureBody.post, idempotencyKey: "k-2"), .delete(FixtureID.post),
    .like(FixtureID.post), .unlike(FixtureID.post),
  ]

  var caseName: String {
    switch self {
    case .posts: "posts"
    case .search: "search"
    case .post: "post"
    case .create: "create"
    case .delete: "delete"
    case .like: "like"
    case .unlike: "unlike"
    }
  }
}

extension CommentAPI {
  static let examples: [CommentAPI] = [
    .comments(postID: FixtureID.post),
    .comments(postID: FixtureID.post, page: PageRequest(cursor: "c_c_2205", limit: 30)),
    .create(postID: FixtureID.post, body: FixtureBody.comment),
    .create(postID: FixtureID.post, body: FixtureBody.comment, idempotencyKey: "k-3"),
    .delete(FixtureID.comment), .like(FixtureID.comment), .unlike(FixtureID.comment),
  ]

  var caseName: String {
    switch self {
    case .comments: "comments"
    case .create: "create"
    case .delete: "delete"
    case .like: "like"
    case .unlike: "unlike"
    }
  }
}

extension ReportAPI {
  static let examples: [ReportAPI] = [
    .create(FixtureBody.report), .create(FixtureBody.report, idempotencyKey: "k-4"),
    .mine(), .mine(page: PageRequest(cursor: "c_r", limit: 1)),
  ]

  var caseName: String {
    switch self {
    case .create: "create"
    case .mine: "mine"
    }
  }
}

extension NotificationAPI {
  static let examples: [NotificationAPI] = [
    .list(), .list(page: PageRequest(cursor: "c_n_0894")), .unreadCount,
    .markRead(FixtureID.notification), .markAllRead,
  ]

  var caseName: String {
    switch self {
    case .list: "list"
    case .unreadCount: "unreadCount"
    case .markRead: "markRead"
    case .markAllRead: "markAllRead"
    }
  }
}

extension StudyGroupAPI {
  static let examples: [StudyGroupAPI] = [
    .groups(), .groups(query: "알고리즘", page: PageRequest(cursor: "c_g_007", limit: 10)),
    .group(FixtureID.group), .create(FixtureBody.group),
    .create(FixtureBody.group, idempotencyKey: "k-5"),
    .update(groupID: FixtureID.group, body: FixtureBody.updateGroup), .delete(FixtureID.group),
    .join(FixtureID.group), .leave(FixtureID.group), .members(groupID: FixtureID.group),
    .invite(FixtureID.group, FixtureBody.openDirect),
    .members(groupID: FixtureID.group, page: PageRequest(cursor: "c_m", limit: 100)),
  ]

  var caseName: String {
    switch self {
    case .groups: "groups"
    case .group: "group"
    case .create: "create"
    case .update: "update"
    case .delete: "delete"
    case .join: "join"
    case .leave: "leave"
    case .invite: "invite"
    case .members: "members"
    }
  }
}

extension ChatAPI {
  static let examples: [ChatAPI] = [
    .rooms(), .rooms(page: PageRequest(cursor: "c_room")), .openDirect(FixtureBody.openDirect),
    .messages(roomID: FixtureID.room), .messages(roomID: FixtureID.room, afterSeq: 1040),
    .messages(roomID: FixtureID.room, beforeSeq: 1000, limit: 50),
    .send(roomID: FixtureID.room, body: FixtureBody.send),
    .markRead(roomID: FixtureID.room, body: FixtureBody.markRead), .realtime,
  ]

  var caseName: String {
    switch self {
    case .rooms: "rooms"
    case .openDirect: "openDirect"
    case .messages: "messages"
    case .send: "send"
    case .markRead: "markRead"
    case .realtime: "realtime"
    }
  }
}

extension AnalyticsAPI {
  static let examples: [AnalyticsAPI] = [
    .track(FixtureBody.analytics), .track(FixtureBody.analytics, idempotencyKey: "batch-7"),
  ]

  var caseName: String {
    switch self {
    case .track: "track"
    }
  }
}

extension AdminAPI {
  static let examples: [AdminAPI] = [
    .questions(), .questions(status: .scheduled, page: PageRequest(cursor: "c_aq", limit: 50)),
    .createQuestion(FixtureBody.createQuestion),
    .createQuestion(FixtureBody.createQuestion, idempotencyKey: "k-6"),
    .updateQuestion(questionID: FixtureID.question, body: FixtureBody.updateQuestion),
    .deleteQuestion(FixtureID.question), .importQuestions(csv: FixtureBody.csv),
    .importQuestions(csv: FixtureBody.csv, idempotencyKey: "import-2026-12"),
    .reports(), .reports(status: .open), .report(FixtureID.reportCase),
    .resolveReport(caseID: FixtureID.reportCase, body: FixtureBody.resolve),
    .users(), .users(query: "사과 & swift", page: PageRequest(cursor: "c_u")),
    .banUser(userID: FixtureID.user, body: FixtureBody.ban), .unbanUser(FixtureID.user),
    .stats,
  ]

  var caseName: String {
    switch self {
    case .questions: "questions"
    case .createQuestion: "createQuestion"
    case .updateQuestion: "updateQuestion"
    case .deleteQuestion: "deleteQuestion"
    case .importQuestions: "importQuestions"
    case .reports: "reports"
    case .report: "report"
    case .resolveReport: "resolveReport"
    case .users: "users"
    case .banUser: "banUser"
    case .unbanUser: "unbanUser"
    case .stats: "stats"
    }
  }
}

/// One example route with the case name the exhaustive switches give it.
struct RouteExample: Sendable, CustomStringConvertible, CustomTestStringConvertible {
  let route: any APITarget
  /// `<Router>.<case>` as named by the test's exhaustive switch, independent of the router.
  let expectedOperationID: String

  var description: String { "\(route.method.rawValue) \(route.path) (\(route.operation.id))" }
  var testDescription: String { description }
}

enum RouteExamples {
  static let baseURL = URL(string: "https://api.qapple.example/v1")!

  /// Every example of every router.
  static let all: [RouteExample] = [
    tagged("AuthAPI", AuthAPI.examples, \.caseName),
    tagged("MeAPI", MeAPI.examples, \.caseName),
    tagged("QuestionAPI", QuestionAPI.examples, \.caseName),
    tagged("AnswerAPI", AnswerAPI.examples, \.caseName),
    tagged("BoardAPI", BoardAPI.examples, \.caseName),
    tagged("CommentAPI", CommentAPI.examples, \.caseName),
    tagged("ReportAPI", ReportAPI.examples, \.caseName),
    tagged("NotificationAPI", NotificationAPI.examples, \.caseName),
    tagged("StudyGroupAPI", StudyGroupAPI.examples, \.caseName),
    tagged("ChatAPI", ChatAPI.examples, \.caseName),
    tagged("AnalyticsAPI", AnalyticsAPI.examples, \.caseName),
    tagged("AdminAPI", AdminAPI.examples, \.caseName),
  ].flatMap { $0 }

  private static func tagged<Route: APITarget>(
    _ router: String, _ routes: [Route], _ caseName: (Route) -> String
  ) -> [RouteExample] {
    routes.map { RouteExample(route: $0, expectedOperationID: "\(router).\(caseName($0))") }
  }
}
