import DTO
import Domain
import Endpoints
import Foundation
import Repositories

extension AdminRepository {
  /// Moderation and question scheduling over `/admin`; `now` decides whether a ban end lies in
  /// the future.
  static func live(client: APIClient) -> AdminRepository {
    AdminRepository(
      fetchQuestions: { status, page in
        try await client.fetchPage(
          AdminAPI.questions(status: status, page: page), of: AdminQuestionDTO.self)
      },
      createQuestion: { draft in
        let draft = try validate { () throws(ValidationError) in try draft.validated() }
        return try await client.fetch(
          AdminAPI.createQuestion(
            CreateQuestionRequest(draft), idempotencyKey: newIdempotencyKey()),
          as: AdminQuestionDTO.self)
      },
      updateQuestion: { id, draft in
        try id.requireNonEmpty(field: "question_id")
        let draft = try validate { () throws(ValidationError) in try draft.validated() }
        return try await client.fetch(
          AdminAPI.updateQuestion(questionID: id, body: UpdateQuestionRequest(draft)),
          as: AdminQuestionDTO.self)
      },
      deleteQuestion: { id in
        try id.requireNonEmpty(field: "question_id")
        try await client.send(AdminAPI.deleteQuestion(id))
      },
      importQuestions: { csv in
        guard !csv.isEmpty else { throw DomainError.validation(.empty(field: "file")) }
        guard String(data: csv, encoding: .utf8) != nil else {
          throw DomainError.validation(.invalidFormat(field: "file", expected: "UTF-8 text"))
        }
        return try await client.fetch(
          AdminAPI.importQuestions(csv: csv, idempotencyKey: newIdempotencyKey()),
          as: QuestionImportResultDTO.self)
      },
      fetchReportCases: { status, page in
        try await client.fetchPage(
          AdminAPI.reports(status: status, page: page), of: ReportCaseDTO.self)
      },
      fetchReportCase: { id in
        try id.requireNonEmpty(field: "case_id")
        return try await client.fetch(AdminAPI.report(id), as: ReportCaseDetailDTO.self)
      },
      resolveReportCase: { id, resolution, note in
        try id.requireNonEmpty(field: "case_id")
        let note = try validate { () throws(ValidationError) in
          try TextRule.moderatorNote(for: resolution).validate(optional: note)
        }
        return try await client.fetch(
          AdminAPI.resolveReport(
            caseID: id, body: ResolveReportRequest(resolution: resolution, note: note)),
          as: ReportCaseDTO.self)
      },
      fetchUsers: { query, page in
        let query = try validate { () throws(ValidationError) in
          try TextRule.search.validate(optional: query)
        }
        return try await client.fetchPage(
          AdminAPI.users(query: query, page: page), of: AdminUserDTO.self)
      },
      banUser: { id, reason, until in
        try id.requireNonEmpty(field: "user_id")
        let reason = try validate { () throws(ValidationError) in
          try TextRule.banReason.validate(reason)
        }
        if let until, until <= client.now() {
          throw DomainError.validation(
            .invalidFormat(field: "until", expected: "a time in the future"))
        }
        return try await client.fetch(
          AdminAPI.banUser(userID: id, body: BanUserRequest(reason: reason, until: until)),
          as: AdminUserDTO.self)
      },
      unbanUser: { id in
        try id.requireNonEmpty(field: "user_id")
        return try await client.fetch(AdminAPI.unbanUser(id), as: AdminUserDTO.self)
      },
      fetchStats: {
        try await client.fetch(AdminAPI.stats, as: AdminStatsDTO.self)
      })
  }
}

extension AnalyticsRepository {
  /// Buffered events, uploaded in batches by `uploader`.
  static func live(_ uploader: AnalyticsUploader) -> AnalyticsRepository {
    AnalyticsRepository(
      track: { event in await uploader.track(event) },
      flush: { try await uploader.flush() })
  }
}
