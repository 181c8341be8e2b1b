import DTO
import Domain
import Foundation
import Hummingbird

extension RouteTable {
  /// AdminAPI (admin role only).
  mutating func addAdminRoutes() {
    add("AdminAPI.questions", .get, "/admin/questions", access: .admin) { call in
      let page = try call.pageRequest()
      var status: QuestionStatus?
      if let text = call.query("status") {
        guard let value = QuestionStatus(rawValue: text) else {
          throw APIError.validation(field: "status", "status must be scheduled or published.")
        }
        status = value
      }
      let (today, filter) = (call.core.today, status)
      return try .json(
        try await call.core.read { db in
          try Admin.questions(db, status: filter, today: today, page)
        })
    }
    add("AdminAPI.createQuestion", .post, "/admin/questions", access: .admin, idempotent: true) {
      call in
      let body = try call.decode(CreateQuestionRequest.self)
      let draft = try validate { () throws(ValidationError) in
        try QuestionDraft(
          content: body.content, publishDate: CalendarDay(iso8601: body.publishDate)
        )
        .validated()
      }
      let (now, today) = (call.now, call.core.today)
      return try .json(
        try await call.core.write { db in
          try Admin.createQuestion(db, draft, now: now, today: today)
        }, status: .created)
    }
    add("AdminAPI.updateQuestion", .patch, "/admin/questions/:question_id", access: .admin) {
      call in
      let key = try call.key("question_id", .question, what: "question")
      let body = try call.decode(UpdateQuestionRequest.self)
      try call.rejectNulls(["content", "publish_date"])
      let content = try body.content.map { text in
        try validate { () throws(ValidationError) in try TextRule.question.validate(text) }
      }
      let day = try body.publishDate.map { text in
        try validate { () throws(ValidationError) in try CalendarDay(iso8601: text) }
      }
      let (now, today) = (call.now, call.core.today)
      return try .json(
        try await call.core.write { db in
          try Admin.updateQuestion(db, key, content: content, day: day, now: now, today: today)
        })
    }
    add("AdminAPI.deleteQuestion", .delete, "/admin/questions/:question_id", access: .admin) {
      call in
      let key = try call.key("question_id", .question, what: "question")
      let today = call.core.today
      try await call.core.write { db in try Admin.deleteQuestion(db, key, today: today) }
      return .noContent
    }
    add(
      "AdminAPI.importQuestions", .post, "/admin/questions/import", access: .admin,
      idempotent: true
    ) { call in
      if let type = call.request.headers[.contentType]?.lowercased(),
        !type.hasPrefix("text/csv") && !type.hasPrefix("text/plain")
      {
        throw APIError.malformed("Send the questions as text/csv (the request said \(type)).")
      }
      guard let text = String(validating: Data(buffer: call.body), as: UTF8.self) else {
        throw APIError.malformed("The CSV is not valid UTF-8.")
      }
      guard !text.trimmingCharacters(in: .whitespacesAndNewlines.union(["\u{FEFF}"])).isEmpty
      else {
        throw APIError.malformed("The CSV is empty; send a header row publish_date,content.")
      }
      return try .json(try await Admin.importQuestions(text, core: call.core))
    }
    add("AdminAPI.reports", .get, "/admin/reports", access: .admin) { call in
      let page = try call.pageRequest()
      var status: ReportStatus?
      if let text = call.query("status") {
        guard let value = ReportStatus(rawValue: text) else {
          throw APIError.validation(field: "status", "status must be open or resolved.")
        }
        status = value
      }
      let filter = status
      return try .json(
        try await call.core.read { db in try Moderation.cases(db, status: filter, page) })
    }
    add("AdminAPI.report", .get, "/admin/reports/:case_id", access: .admin) { call in
      let key = try call.key("case_id", .reportCase, what: "report case")
      return try .json(try await call.core.read { db in try Moderation.detail(db, key) })
    }
    add("AdminAPI.resolveReport", .post, "/admin/reports/:case_id/resolve", access: .admin) {
      call in
      let me = try call.me
      let key = try call.key("case_id", .reportCase, what: "report case")
      let body = try call.decode(ResolveReportRequest.self)
      guard let resolution = ReportResolution(rawValue: body.action) else {
        throw APIError.validation(
          field: "action", "action must be dismiss, hide_content or ban_author.")
      }
      var note = body.note?.trimmingCharacters(in: .whitespacesAndNewlines)
      if note?.isEmpty == true { note = nil }
      if let text = note, text.count > 500 {
        throw APIError.validation(.tooLong(field: "note", maximum: 500, actual: text.count))
      }
      let now = call.now
      let finalNote = note
      return try .json(
        try await call.core.write { db in
          try Moderation.resolve(
            db, key, resolution: resolution, note: finalNote, admin: me, now: now)
        })
    }
    add("AdminAPI.users", .get, "/admin/users", access: .admin) { call in
      let page = try call.pageRequest()
      let query = call.query("q")?.trimmingCharacters(in: .whitespacesAndNewlines)
      let filter = query?.isEmpty == false ? query : nil
      let now = call.now
      return try .json(
        try await call.core.read { db in try Admin.users(db, query: filter, now: now, page) })
    }
    add("AdminAPI.banUser", .put, "/admin/users/:user_id/ban", access: .admin) { call in
      let me = try call.me
      let key = try call.key("user_id", .user, what: "user")
      let body = try call.decode(BanUserRequest.self)
      let reason = try validate { () throws(ValidationError) in
        try TextRule.banReason.validate(body.reason)
      }
      let now = call.now
      if let until = body.until, until <= now {
        throw APIError.validation(field: "until", "until must be in the future.")
      }
      return try .json(
        try await call.core.write { db in
          try Admin.ban(db, key, reason: reason, until: body.until, admin: me, now: now)
        })
    }
    add("AdminAPI.unbanUser", .delete, "/admin/users/:user_id/ban", access: .admin) { call in
      let key = try call.key("user_id", .user, what: "user")
      let now = call.now
      return try .json(try await call.core.write { db in try Admin.unban(db, key, now: now) })
    }
    add("AdminAPI.stats", .get, "/admin/stats", access: .admin) { call in
      let now = call.now
      return try .json(try await call.core.read { db in try Admin.stats(db, now: now) })
    }
  }

  /// `/_dev/*` (dev mode only): fault injection, e-mail codes and the clock, for tools and tests
  /// that run the server in another process. Not rate-limited and never faulted.
  mutating func addDevRoutes() {
    add("Dev.faults", .get, "/_dev/faults", access: .anyone, rateLimited: false) { call in
      try .json(call.core.faults.settings)
    }
    add("Dev.setFaults", .put, "/_dev/faults", access: .anyone, rateLimited: false) { call in
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
    add("Dev.clearFaults", .delete, "/_dev/faults", access: .anyone, rateLimited: false) { call in
      call.core.faults.clear()
      return .noContent
    }
    add("Dev.emailCode", .get, "/_dev/email-code", access: .anyone, rateLimited: false) { call in
      guard let email = call.query("email") else {
        throw APIError.validation(field: "email", "Pass the address as ?email=.")
      }
      let address = (try? EmailAddress(validating: email))?.rawValue ?? email.lowercased()
      let code = try await call.core.read { db in
        try String.fetchOne(
          db,
          sql: """
            SELECT code FROM sign_up WHERE email = ? AND code IS NOT NULL
            ORDER BY code_expires_at DESC LIMIT 1
            """,
          arguments: [address])
      }
      guard let code else { throw APIError.notFound("No code is waiting for \(address).") }
      return try .json(["email": address, "code": code])
    }
    add("Dev.clock", .get, "/_dev/clock", access: .anyone, rateLimited: false) { call in
      try .json(DevClock(now: call.now, today: call.core.today.iso8601))
    }
    add("Dev.advanceClock", .post, "/_dev/clock/advance", access: .anyone, rateLimited: false) {
      call in
      let body = try call.decode(DevClockAdvance.self)
      guard body.seconds.isFinite, abs(body.seconds) <= 366 * 86_400 else {
        throw APIError.validation(field: "seconds", "seconds must be within one year.")
      }
      call.core.configuration.clock.advance(by: .milliseconds(Int64(body.seconds * 1000)))
      return try .json(DevClock(now: call.now, today: call.core.today.iso8601))
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
