import DTO
import Domain
import Foundation
import Testing

@Suite("Fixtures: admin")
struct AdminFixtureTests {
  @Test("admin_question_page.json maps days and statuses")
  func questions() throws {
    let page = try Fixture.decode(PageDTO<AdminQuestionDTO>.self, "admin_question_page")
      .toDomain()
    #expect(page.items.map(\.status) == [.scheduled, .published])
    #expect(page.items.map(\.publishDate.iso8601) == ["2026-11-23", "2026-11-21"])
    #expect(page.items[0].content == "What would you build with one more week?")
    #expect(page.items[1].answerCount == 17)
    #expect(page.nextCursor == "c_q_01")
  }

  @Test("question_import_result.json")
  func importResult() throws {
    let result = try Fixture.decode(QuestionImportResultDTO.self, "question_import_result")
      .toDomain()
    #expect(result.imported == 28)
    #expect(
      result.errors == [
        .init(line: 4, message: "publish_date 2026-02-30 is not a date"),
        .init(line: 17, message: "2026-12-01 already has a question"),
      ])
  }

  @Test("report_case_page.json maps reason counts, resolution and missing author")
  func cases() throws {
    let page = try Fixture.decode(PageDTO<ReportCaseDTO>.self, "report_case_page").toDomain()
    let open = page.items[0]
    #expect(open.id == "case_c_3")
    #expect(open.target == .comment("c_3"))
    #expect(open.author == UserSummary(id: "u_99", nickname: "Spammer9"))
    #expect(open.reasonCounts == [.spam: 3, .other: 2])
    #expect(open.reportCount == 5)
    #expect(open.reachedAutoHideThreshold)
    #expect(open.isHidden)
    #expect(open.status == .open)
    #expect(open.resolution == nil)
    #expect(open.lastReportedAt == utc(2026, 11, 21, 8, 45, 10))
    let resolved = page.items[1]
    #expect(resolved.target == .user("u_42"))
    #expect(resolved.excerpt == nil)
    #expect(resolved.author == nil)
    #expect(resolved.resolution == .dismiss)
    #expect(resolved.reasonCounts == [.impersonation: 1])
  }

  @Test("report_case_detail.json reads the `case` key into reportCase")
  func caseDetail() throws {
    let dto = try Fixture.decode(ReportCaseDetailDTO.self, "report_case_detail")
    #expect(dto.reportCase.id == "case_p_8")
    let detail = try dto.toDomain()
    #expect(detail.reportCase.target == .post("p_8"))
    #expect(detail.reportCase.resolution == .hideContent)
    #expect(detail.reportCase.reasonCounts == [.spam: 1, .privacy: 1])
    #expect(detail.reports.map(\.id) == ["r_10", "r_11"])
    #expect(detail.reports.map(\.reason) == [.spam, .privacy])
    #expect(try jsonObject(dto)["case"] != nil)
  }

  @Test("admin_user_page.json maps bans")
  func users() throws {
    let page = try Fixture.decode(PageDTO<AdminUserDTO>.self, "admin_user_page").toDomain()
    let banned = page.items[0]
    #expect(banned.id == "u_99")
    #expect(banned.user.isBanned)
    #expect(banned.reportCount == 9)
    #expect(banned.bannedUntil == utc(2026, 12, 31, 14, 59, 59))
    #expect(banned.banReason == "반복적인 스팸 링크 (repeated spam links)")
    let admin = page.items[1]
    #expect(admin.user.role == .admin)
    #expect(admin.bannedUntil == nil)
    #expect(admin.banReason == nil)
    #expect(page.nextCursor == "c_u_7f3c")
  }

  @Test("admin_stats.json maps every count")
  func stats() throws {
    let stats = try Fixture.decode(AdminStatsDTO.self, "admin_stats").toDomain()
    #expect(
      stats
        == AdminStats(
          users: 120, admins: 3, bannedUsers: 2, questions: 60, answers: 1834, posts: 412,
          comments: 1290, openReports: 4, hiddenContents: 7, groups: 15, messages: 9876))
  }
}
