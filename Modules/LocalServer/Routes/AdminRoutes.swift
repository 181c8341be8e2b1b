import DTO
import Domain
import Foundation
import Hummingbird
import ServiceEngine

extension RouteTable {
  /// AdminAPI: scheduled questions, CSV import, report cases, users and bans, stats.
  mutating func addAdminRoutes() {
    add(.adminQuestions) { call in
      let page = try call.engine.scheduledQuestions(
        status: try call.query("status", as: QuestionStatus.self), try call.pageRequest(),
        as: try call.me)
      return try .json(PageDTO(page, AdminQuestionDTO.init))
    }
    add(.adminCreateQuestion, idempotent: true) { call in
      let body = try call.decode(CreateQuestionRequest.self)
      let day = try validate { () throws(ValidationError) in
        try CalendarDay(iso8601: body.publishDate)
      }
      let question = try call.engine.createQuestion(
        QuestionDraft(content: body.content, publishDate: day), as: try call.me)
      return try .json(AdminQuestionDTO(question), status: .created)
    }
    add(.adminUpdateQuestion) { call in
      let body = try call.decode(UpdateQuestionRequest.self)
      try call.rejectNulls(["content", "publish_date"])
      let day = try body.publishDate.map { text in
        try validate { () throws(ValidationError) in try CalendarDay(iso8601: text) }
      }
      let question = try call.engine.updateQuestion(
        call.id("question_id"), content: body.content, publishDate: day, as: try call.me)
      return try .json(AdminQuestionDTO(question))
    }
    addNoContent(.adminDeleteQuestion) { call in
      try call.engine.deleteQuestion(call.id("question_id"), as: try call.me)
    }
    add(.adminImportQuestions, idempotent: true) { call in
      if let type = call.request.headers[.contentType]?.lowercased(),
        !type.hasPrefix("text/csv") && !type.hasPrefix("text/plain")
      {
        throw APIError.malformed("Send the questions as text/csv (the request said \(type)).")
      }
      let result = try call.engine.importQuestions(Data(buffer: call.body), as: try call.me)
      return try .json(QuestionImportResultDTO(result))
    }
    add(.adminReports) { call in
      let page = try call.engine.reportCases(
        status: try call.query("status", as: ReportStatus.self), try call.pageRequest(),
        as: try call.me)
      return try .json(PageDTO(page, ReportCaseDTO.init))
    }
    add(.adminReport) { call in
      try .json(ReportCaseDetailDTO(try call.engine.reportCase(call.id("case_id"), as: call.me)))
    }
    add(.adminResolveReport) { call in
      let body = try call.decode(ResolveReportRequest.self)
      let resolution = try call.value(body.action, field: "action", as: ReportResolution.self)
      let resolved = try call.engine.resolveReportCase(
        call.id("case_id"), resolution, note: body.note, as: try call.me)
      return try .json(ReportCaseDTO(resolved))
    }
    addPage(.adminUsers, AdminUserDTO.init) {
      try $0.engine.adminUsers(matching: $0.query("q"), $1, as: $2)
    }
    add(.adminBanUser) { call in
      let body = try call.decode(BanUserRequest.self)
      let user = try call.engine.banUser(
        call.id("user_id"), reason: body.reason, until: body.until, as: try call.me)
      return try .json(AdminUserDTO(user))
    }
    add(.adminUnbanUser) { call in
      try .json(AdminUserDTO(try call.engine.unbanUser(call.id("user_id"), as: try call.me)))
    }
    add(.adminStats) { call in try .json(AdminStatsDTO(try call.engine.adminStats(as: call.me))) }
  }

  /// `/_dev/*` (dev mode only): fault injection, e-mail codes and the clock, for tools and tests
  /// that run the server in another process. Not rate-limited and never faulted.
  mutating func addDevRoutes() {
    add(serverOnly: "Dev.faults", .get, "/_dev/faults") { call in
      try .json(call.core.faults.settings)
    }
    add(serverOnly: "Dev.setFaults", .put, "/_dev/faults") { call in
      let settings = try call.decode(FaultSettings.self)
      for (index, rule) in settings.rules.enumerated() {
        do throws(FaultRule.Invalid) {
          _ = try rule.validated()
        } catch {
          throw APIError.validation(field: "rules[\(index)].\(error.field)", error.description)
        }
      }
      call.core.faults.replace(with: settings)
      call.core.logger.notice(
        "Fault rules replaced", metadata: ["rules": "\(settings.rules.count)"])
      return try .json(call.core.faults.settings)
    }
    add(serverOnly: "Dev.clearFaults", .delete, "/_dev/faults") { call in
      call.core.faults.clear()
      return .noContent
    }
    add(serverOnly: "Dev.emailCode", .get, "/_dev/email-code") { call in
      guard let email = call.query("email") else {
        throw APIError.validation(field: "email", "Pass the address as ?email=.")
      }
      let address = EmailAddress.key(email)
      let code = try call.engine.lastEmailCode(for: email)
      guard let code else { throw APIError.notFound("No code is waiting for \(address).") }
      return try .json(["email": address, "code": code])
    }
    add(serverOnly: "Dev.clock", .get, "/_dev/clock") { call in
      try .json(DevClock(now: call.engine.now, today: call.engine.today.iso8601))
    }
    add(serverOnly: "Dev.advanceClock", .post, "/_dev/clock/advance") {
      call in
      let body = try call.decode(DevClockAdvance.self)
      guard body.seconds.isFinite, abs(body.seconds) <= 366 * 86_400 else {
        throw APIError.validation(field: "seconds", "seconds must be within one year.")
      }
      call.core.configuration.clock.advance(by: .milliseconds(Int64(body.seconds * 1000)))
      return try .json(DevClock(now: call.engine.now, today: call.engine.today.iso8601))
    }
  }
}

/// `/_dev/clock`: the server's now and today.
private struct DevClock: Encodable {
  var now: Date
  var today: String
}

/// `POST /_dev/clock/advance`: `{"seconds": 3600}` moves the clock (negative moves it back).
private struct DevClockAdvance: Decodable {
  var seconds: Double
}
