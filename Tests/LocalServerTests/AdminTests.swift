import DTO
import Domain
import Foundation
import Hummingbird
import LocalServer
import Testing

@Suite("Admin: questions, CSV import, users, stats")
struct AdminTests {
  @Test("members get 403 on every admin route")
  func membersAreForbidden() async throws {
    try await withServer { h in
      let member = try await h.member("JustMember")
      for (method, path) in [
        (HTTPRequest.Method.get, "/admin/questions"), (.get, "/admin/reports"),
        (.get, "/admin/users"), (.get, "/admin/stats"), (.delete, "/admin/questions/q_1"),
      ] {
        try await h.expectError(.forbidden, "forbidden", method, path, token: member)
      }
      try await h.expectError(
        .forbidden, "forbidden", .post, "/admin/questions", token: member,
        json: CreateQuestionRequest(content: "Sneaky question", publishDate: testDay()))
    }
  }

  @Test("questions: 5-200 characters, a valid day, one per day, history cannot change")
  func questionRules() async throws {
    try await withServer { h in
      let admin = try await h.admin()
      // A rule's refusal carries its detail as data (`ValidationDetail`).
      let short = try await h.expectError(
        .badRequest, "validation_failed", field: "content", .post, "/admin/questions", token: admin,
        json: CreateQuestionRequest(content: "Hi?", publishDate: testDay(1)))
      #expect(
        short.error?.validation == ValidationDetailDTO(kind: .tooShort, minimum: 5, actual: 3))
      let badDay = try await h.expectError(
        .badRequest, "validation_failed", field: "publish_date", .post, "/admin/questions",
        token: admin,
        json: CreateQuestionRequest(content: "A fine question", publishDate: "2026-02-30"))
      #expect(badDay.error?.validation?.kind == .invalidFormat)
      let today = try await h.createQuestion("Today's fine question", on: testDay(), admin: admin)
      let later = try await h.createQuestion("A later question", on: testDay(3), admin: admin)
      try await h.expectError(
        .conflict, "conflict", .post, "/admin/questions", token: admin,
        json: CreateQuestionRequest(content: "Same day again", publishDate: testDay(3)))

      let moved = try await h.expect(
        .ok, AdminQuestionDTO.self, .patch, "/admin/questions/\(later.id)", token: admin,
        json: UpdateQuestionRequest(content: "A better later question", publishDate: testDay(4)))
      #expect(moved.publishDate == testDay(4))
      #expect(moved.content == "A better later question")
      try await h.expectError(
        .conflict, "conflict", .patch, "/admin/questions/\(later.id)", token: admin,
        json: UpdateQuestionRequest(publishDate: testDay()))

      let scheduled = try await h.expect(
        .ok, PageDTO<AdminQuestionDTO>.self, .get, "/admin/questions?status=scheduled", token: admin
      )
      #expect(scheduled.items.map(\.id) == [later.id])
      try await h.expectError(
        .badRequest, "validation_failed", field: "status", .get, "/admin/questions?status=soon",
        token: admin)

      // Once answered, a published question is history.
      let member = try await h.member("Answerer")
      _ = try await h.expect(
        .created, AnswerDTO.self, .post, "/questions/\(today.id)/answers", token: member,
        json: CreateAnswerRequest(content: "An answer"))
      try await h.expectError(
        .conflict, "conflict", .patch, "/admin/questions/\(today.id)", token: admin,
        json: UpdateQuestionRequest(content: "Rewritten history"))
      try await h.expectError(
        .conflict, "conflict", .delete, "/admin/questions/\(today.id)", token: admin)
      #expect(
        try await h.send(.delete, "/admin/questions/\(later.id)", token: admin).status == .noContent
      )
      try await h.expectError(
        .notFound, "not_found", .delete, "/admin/questions/\(later.id)", token: admin)

      // Creating today's question announced it to everyone (the member signed up later).
      let adminNotes = try await h.expect(
        .ok, PageDTO<NotificationDTO>.self, .get, "/notifications", token: admin)
      #expect(adminNotes.items.map(\.kind) == [.newQuestion])
      #expect(adminNotes.items.first?.questionId == today.id)
    }
  }

  @Test("CSV import: RFC 4180 quoting, BOM, line numbers for bad rows, good rows imported")
  func csvImport() async throws {
    try await withServer { h in
      let admin = try await h.admin()
      _ = try await h.createQuestion("Already scheduled", on: "2027-01-03", admin: admin)
      let csv = """
        \u{FEFF}publish_date,content\r
        2027-01-01,What made you smile today?\r
        2027-01-02,"Which bug taught you the most, and why?"\r
        2027-01-03,Duplicate day\r
        2027-13-01,Bad month here\r
        2027-01-05,Hi\r
        2027-01-06,"A question with ""quotes""
        and a line break"\r
        2027-01-07\r
        \r
        2027-01-08,오늘 가장 뿌듯했던 순간은?\r

        """
      let result = try await h.send(
        .post, "/admin/questions/import", token: admin, raw: Data(csv.utf8), contentType: "text/csv"
      )
      #expect(result.status == .ok, "\(String(decoding: result.body, as: UTF8.self))")
      let summary = try result.decode(QuestionImportResultDTO.self)
      #expect(summary.imported == 4)
      #expect(summary.errors.map(\.line) == [4, 5, 6, 9])
      #expect(summary.errors.first?.message.contains("already has a question") == true)

      let all = try await h.expect(
        .ok, PageDTO<AdminQuestionDTO>.self, .get, "/admin/questions?limit=100", token: admin)
      let quoted = all.items.first { $0.publishDate == "2027-01-06" }
      #expect(quoted?.content == "A question with \"quotes\"\nand a line break")
      #expect(
        all.items.first { $0.publishDate == "2027-01-02" }?.content
          == "Which bug taught you the most, and why?")

      try await h.expectError(
        .badRequest, "malformed_request", .post, "/admin/questions/import", token: admin,
        raw: Data(), contentType: "text/csv")
      try await h.expectError(
        .badRequest, "malformed_request", .post, "/admin/questions/import", token: admin,
        raw: Data("date,text\n2027-02-01,Hello there".utf8), contentType: "text/csv")
      try await h.expectError(
        .badRequest, "malformed_request", .post, "/admin/questions/import", token: admin,
        raw: Data("publish_date,content\n2027-02-01,\"never closed".utf8), contentType: "text/csv")
      try await h.expectError(
        .badRequest, "malformed_request", .post, "/admin/questions/import", token: admin,
        raw: Data([0x70, 0xFF, 0xFE]), contentType: "text/csv")
    }
  }

  @Test("idempotency keys replay the first answer")
  func idempotencyKey() async throws {
    try await withServer { h in
      let token = try await h.member("Retrier")
      let headers: HTTPFields = [.init("Idempotency-Key")!: "create-post-1"]
      let first = try await h.send(
        .post, "/posts", token: token, json: CreatePostRequest(content: "Once", isAnonymous: true),
        headers: headers)
      let second = try await h.send(
        .post, "/posts", token: token, json: CreatePostRequest(content: "Once", isAnonymous: true),
        headers: headers)
      #expect(first.status == .created)
      #expect(second.status == .created)
      #expect(try first.decode(PostDTO.self).id == second.decode(PostDTO.self).id)
      #expect(second.headers[.init("Idempotent-Replayed")!] == "true")
      let list = try await h.expect(.ok, PageDTO<PostDTO>.self, .get, "/posts", token: token)
      #expect(list.items.count == 1)
      // The same key with a different request is refused, not replayed.
      try await h.expectError(
        .badRequest, "validation_failed", field: "Idempotency-Key", .post, "/posts", token: token,
        json: CreatePostRequest(content: "Something else", isAnonymous: true), headers: headers)
    }
  }

  @Test("a repeat sent while the first request is still answered waits and gets its answer")
  func concurrentIdempotencyKey() async throws {
    try await withServer { h in
      let admin = try await h.admin()
      // A long import keeps the first request busy while the repeats arrive.
      let csv = (1...1_500).map { "\(testDay($0)),Question number \($0) of the import" }
      let body = Data((["publish_date,content"] + csv).joined(separator: "\n").utf8)
      let headers: HTTPFields = [.init("Idempotency-Key")!: "import-race"]
      let clients = (0..<4).map { _ in h.newClient() }
      let results = try await withThrowingTaskGroup(of: HTTPResult.self) { group in
        for client in clients {
          group.addTask {
            try await h.send(
              .post, "/admin/questions/import", token: admin, raw: body, contentType: "text/csv",
              headers: headers, using: client)
          }
        }
        return try await group.reduce(into: []) { $0.append($1) }
      }
      for client in clients { try? await client.shutdown() }
      #expect(results.map(\.status) == Array(repeating: .ok, count: clients.count))
      // One import ran; the others got its answer.
      #expect(Set(results.map(\.body)).count == 1)
      #expect(try results[0].decode(QuestionImportResultDTO.self).imported == 1_500)
      #expect(results.filter { $0.headers[.init("Idempotent-Replayed")!] == "true" }.count == 3)
    }
  }

  @Test("stats count what exists")
  func stats() async throws {
    try await withServer { h in
      let admin = try await h.admin()
      let member = try await h.member("Counter")
      _ = try await h.post("One", token: member)
      let post = try await h.post("Two", token: member)
      _ = try await h.expect(
        .created, CommentDTO.self, .post, "/posts/\(post.id)/comments", token: admin,
        json: CreateCommentRequest(content: "Hi", isAnonymous: true))
      _ = try await h.createQuestion("Counting question", on: testDay(), admin: admin)
      _ = try await h.expect(
        .created, StudyGroupDTO.self, .post, "/groups", token: member,
        json: CreateGroupRequest(name: "Counters", description: ""))
      let stats = try await h.expect(.ok, AdminStatsDTO.self, .get, "/admin/stats", token: admin)
      #expect(
        stats
          == AdminStatsDTO(
            users: 2, admins: 1, bannedUsers: 0, questions: 1, answers: 0, posts: 2, comments: 1,
            openReports: 0, hiddenContents: 0, groups: 1, messages: 0))
    }
  }
}
