import DTO
import Domain
import Foundation
import NetworkKit

/// Moderation and scheduling for admins: questions, the report inbox, bans and stats.
/// Members get `403 forbidden` from every case.
public enum AdminAPI: Sendable, Hashable {
  /// Questions, latest publish date first, optionally only scheduled or only published ones.
  case questions(status: QuestionStatus? = nil, page: PageRequest = .first)
  /// Schedules a question (`409 conflict` when its date is taken). A retry with the same
  /// `idempotencyKey` answers the first result.
  case createQuestion(CreateQuestionRequest, idempotencyKey: String? = nil)
  /// Edits a question's text and/or date.
  case updateQuestion(questionID: Question.ID, body: UpdateQuestionRequest)
  /// Deletes a question.
  case deleteQuestion(Question.ID)
  /// Imports questions from UTF-8 CSV with a `publish_date,content` header row, sent as
  /// `text/csv`; the answer lists the lines it refused. A retry with the same `idempotencyKey`
  /// answers the first result instead of importing twice.
  case importQuestions(csv: Data, idempotencyKey: String? = nil)
  /// The report inbox, one case per reported target, optionally only open or only resolved.
  case reports(status: ReportStatus? = nil, page: PageRequest = .first)
  /// One case with all of its reports.
  case report(ReportCase.ID)
  /// Decides a case: dismiss, hide the content, or also ban its author.
  case resolveReport(caseID: ReportCase.ID, body: ResolveReportRequest)
  /// Users, optionally filtered by nickname.
  case users(query: String? = nil, page: PageRequest = .first)
  /// Bans a user, until a date or indefinitely.
  case banUser(userID: User.ID, body: BanUserRequest)
  /// Lifts a user's ban.
  case unbanUser(User.ID)
  /// Counts for the dashboard.
  case stats
}

extension AdminAPI: DeclaredRoute {
  var declaration: RouteDeclaration {
    switch self {
    case .questions(let status, let page):
      RouteDeclaration(
        .adminQuestions, task: .query(Query.optional("status", status?.rawValue) + page.queryItems),
        sample: SampleData.questions)
    case .createQuestion(let body, let key):
      RouteDeclaration(
        .adminCreateQuestion, task: .json(body), headers: Header.idempotencyKey(key),
        sample: SampleData.createdQuestion)
    case .updateQuestion(let id, let body):
      RouteDeclaration(
        .adminUpdateQuestion, id.rawValue, task: .json(body), sample: SampleData.updatedQuestion)
    case .deleteQuestion(let id):
      RouteDeclaration(.adminDeleteQuestion, id.rawValue)
    case .importQuestions(let csv, let key):
      RouteDeclaration(
        .adminImportQuestions, task: .data(csv, contentType: "text/csv"),
        headers: Header.idempotencyKey(key), sample: SampleData.importResult)
    case .reports(let status, let page):
      RouteDeclaration(
        .adminReports, task: .query(Query.optional("status", status?.rawValue) + page.queryItems),
        sample: SampleData.reportCases)
    case .report(let id):
      RouteDeclaration(.adminReport, id.rawValue, sample: SampleData.reportCaseDetail)
    case .resolveReport(let id, let body):
      RouteDeclaration(
        .adminResolveReport, id.rawValue, task: .json(body), sample: SampleData.resolvedCase)
    case .users(let query, let page):
      RouteDeclaration(
        .adminUsers, task: .query(Query.optional("q", query) + page.queryItems),
        sample: SampleData.users)
    case .banUser(let id, let body):
      RouteDeclaration(.adminBanUser, id.rawValue, task: .json(body), sample: SampleData.bannedUser)
    case .unbanUser(let id):
      RouteDeclaration(.adminUnbanUser, id.rawValue, sample: SampleData.unbannedUser)
    case .stats:
      RouteDeclaration(.adminStats, sample: SampleData.stats)
    }
  }
}

extension AdminAPI {
  /// Sample response bodies of the admin operations.
  enum SampleData {
    static let createdQuestion = """
      {
        "id": "q_0330",
        "content": "가장 기억에 남는 코드 리뷰 코멘트는? Which review comment stuck with you?",
        "publish_date": "2026-11-30",
        "answer_count": 0,
        "created_at": "2026-11-21T05:10:00.123Z",
        "status": "scheduled"
      }
      """

    static let updatedQuestion = """
      {
        "id": "q_0330",
        "content": "가장 기억에 남는 코드 리뷰 한마디는? The review comment you still remember?",
        "publish_date": "2026-12-01",
        "answer_count": 0,
        "created_at": "2026-11-21T05:10:00.123Z",
        "status": "scheduled"
      }
      """

    static let questions = """
      {
        "items": [
          \(createdQuestion),
          {
            "id": "q_0321",
            "content": "오늘 가장 뿌듯했던 코드 한 줄은? What line of code made you proud today?",
            "publish_date": "2026-11-21",
            "answer_count": 38,
            "created_at": "2026-10-30T08:00:00.000Z",
            "status": "published"
          }
        ],
        "next_cursor": "c_aq_0321"
      }
      """

    static let importResult = """
      {
        "imported": 28,
        "errors": [
          { "line": 7, "message": "publish_date 2026-12-05 is already taken" },
          { "line": 19, "message": "content must be 5-200 characters (got 3)" }
        ]
      }
      """

    static let openCase = """
      {
        "id": "rc_0031",
        "target": { "type": "comment", "id": "c_2201" },
        "excerpt": "캘린더 앱 재밌겠네요. What's the deadline?",
        "author": { "id": "u_09", "nickname": "nightowl" },
        "report_count": 2,
        "reason_counts": { "abuse": 1, "spam": 1 },
        "status": "open",
        "resolution": null,
        "is_hidden": false,
        "first_reported_at": "2026-11-21T05:10:00.123Z",
        "last_reported_at": "2026-11-21T05:31:42.600Z"
      }
      """

    static let resolvedCase = """
      {
        "id": "rc_0031",
        "target": { "type": "comment", "id": "c_2201" },
        "excerpt": "캘린더 앱 재밌겠네요. What's the deadline?",
        "author": { "id": "u_09", "nickname": "nightowl" },
        "report_count": 2,
        "reason_counts": { "abuse": 1, "spam": 1 },
        "status": "resolved",
        "resolution": "dismiss",
        "is_hidden": false,
        "first_reported_at": "2026-11-21T05:10:00.123Z",
        "last_reported_at": "2026-11-21T05:31:42.600Z"
      }
      """

    static let reportCases = """
      {
        "items": [
          \(openCase),
          {
            "id": "rc_0029",
            "target": { "type": "post", "id": "p_0388" },
            "excerpt": "광고) 코딩 과외 최저가! Cheapest tutoring, DM me.",
            "author": { "id": "u_13", "nickname": "deal4u" },
            "report_count": 5,
            "reason_counts": { "spam": 4, "other": 1 },
            "status": "open",
            "resolution": null,
            "is_hidden": true,
            "first_reported_at": "2026-11-18T11:24:36.900Z",
            "last_reported_at": "2026-11-19T02:03:04.050Z"
          },
          {
            "id": "rc_0027",
            "target": { "type": "user", "id": "u_13" },
            "excerpt": null,
            "author": null,
            "report_count": 1,
            "reason_counts": { "impersonation": 1 },
            "status": "resolved",
            "resolution": "ban_author",
            "is_hidden": false,
            "first_reported_at": "2026-11-17T09:00:00.000Z",
            "last_reported_at": "2026-11-17T09:00:00.000Z"
          }
        ],
        "next_cursor": "c_rc_0027"
      }
      """

    static let reportCaseDetail = """
      {
        "case": \(openCase),
        "reports": [
          \(ReportAPI.SampleData.report),
          {
            "id": "r_0090",
            "target": { "type": "comment", "id": "c_2201" },
            "reason": "spam",
            "detail": null,
            "status": "open",
            "created_at": "2026-11-21T05:31:42.600Z"
          }
        ]
      }
      """

    static let bannedUser = """
      {
        "user": {
          "id": "u_13",
          "nickname": "deal4u",
          "role": "member",
          "cohort": null,
          "joined_at": "2026-10-02T13:14:15.160Z",
          "answer_count": 0,
          "avatar_url": null,
          "is_banned": true
        },
        "report_count": 6,
        "banned_until": "2026-12-21T00:00:00.000Z",
        "ban_reason": "반복적인 광고 게시 (repeated advertising)"
      }
      """

    static let unbannedUser = """
      {
        "user": {
          "id": "u_13",
          "nickname": "deal4u",
          "role": "member",
          "cohort": null,
          "joined_at": "2026-10-02T13:14:15.160Z",
          "answer_count": 0,
          "avatar_url": null,
          "is_banned": false
        },
        "report_count": 6,
        "banned_until": null,
        "ban_reason": null
      }
      """

    static let users = """
      {
        "items": [
          {
            "user": \(MeAPI.SampleData.user),
            "report_count": 0,
            "banned_until": null,
            "ban_reason": null
          },
          \(bannedUser),
          {
            "user": {
              "id": "u_00",
              "nickname": "지킴이",
              "role": "admin",
              "cohort": null,
              "joined_at": "2026-02-20T09:00:00.000Z",
              "answer_count": 3,
              "avatar_url": null,
              "is_banned": false
            },
            "report_count": 0,
            "banned_until": null,
            "ban_reason": null
          }
        ],
        "next_cursor": null
      }
      """

    static let stats = """
      {
        "users": 214,
        "admins": 3,
        "banned_users": 2,
        "questions": 330,
        "answers": 8112,
        "posts": 1406,
        "comments": 5521,
        "open_reports": 4,
        "hidden_contents": 11,
        "groups": 12,
        "messages": 48230
      }
      """
  }
}
