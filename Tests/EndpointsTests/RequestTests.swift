import DTO
import Domain
import Endpoints
import Foundation
import HTTPTypes
import NetworkKit
import Testing

/// What the requests carry: JSON keys, the avatar form, the CSV body, query items, headers.
@Suite("Request bodies, queries and headers")
struct RequestTests {
  private func encoded(_ route: any APITarget) throws -> EncodedRequest {
    try route.encodedRequest(baseURL: RouteExamples.baseURL, using: .qapple())
  }

  private func jsonObject(_ route: any APITarget) throws -> [String: Any] {
    let body = try #require(try encoded(route).body, "\(route.operation.id) has no body")
    return try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
  }

  private func target(_ route: any APITarget) throws -> String {
    try #require(try encoded(route).request.path)
  }

  @Test("JSON bodies use the contract's snake_case keys")
  func jsonKeys() throws {
    #expect(
      Set(try jsonObject(BoardAPI.create(FixtureBody.post)).keys) == ["content", "is_anonymous"])
    #expect(
      Set(try jsonObject(AuthAPI.signUp(FixtureBody.signUp)).keys) == [
        "sign_up_token", "verification_token", "nickname", "cohort", "agreed_terms_version",
      ])
    #expect(try jsonObject(AuthAPI.signUp(FixtureBody.signUp))["cohort"] is NSNull)
    #expect(
      Set(try jsonObject(AuthAPI.requestEmailCode(FixtureBody.emailCode)).keys) == [
        "sign_up_token", "email",
      ])
    #expect(
      Set(try jsonObject(ChatAPI.openDirect(FixtureBody.openDirect)).keys) == ["user_id"])

    let report = try jsonObject(ReportAPI.create(FixtureBody.report))
    #expect(Set(report.keys) == ["target", "reason", "detail"])
    let reportTarget = try #require(report["target"] as? [String: String])
    #expect(reportTarget == ["type": "comment", "id": "c_2201"])
    #expect(report["reason"] as? String == "other")

    let event = try #require(
      (try jsonObject(AnalyticsAPI.track(FixtureBody.analytics))["events"] as? [[String: Any]])?
        .first)
    #expect(Set(event.keys) == ["name", "properties", "occurred_at", "session_id"])
    #expect(
      Set(try jsonObject(AdminAPI.createQuestion(FixtureBody.createQuestion)).keys) == [
        "content", "publish_date",
      ])
    let resolve = try jsonObject(
      AdminAPI.resolveReport(caseID: "rc_1", body: FixtureBody.resolve))
    #expect(resolve["action"] as? String == "hide_content")
  }

  @Test("a chat send carries its client message id as Idempotency-Key")
  func chatSendIdempotencyKey() throws {
    let route = ChatAPI.send(roomID: "room_g_007", body: FixtureBody.send)
    let request = try encoded(route)
    let key = try #require(request.request.headerFields[HTTPField.Name("Idempotency-Key")!])
    let body = try jsonObject(route)
    #expect(Set(body.keys) == ["client_message_id", "text"])
    #expect(body["client_message_id"] as? String == key)
    #expect(UUID(uuidString: key) == FixtureBody.clientMessageID)
    #expect(request.request.headerFields[.contentType] == "application/json")
    #expect(request.request.method == .post)
  }

  @Test("optional idempotency keys are sent only when given")
  func optionalIdempotencyKeys() throws {
    let name = HTTPField.Name("Idempotency-Key")!
    #expect(BoardAPI.create(FixtureBody.post).headers[name] == nil)
    #expect(BoardAPI.create(FixtureBody.post, idempotencyKey: "k-9").headers[name] == "k-9")
    let imported = try encoded(AdminAPI.importQuestions(csv: FixtureBody.csv, idempotencyKey: "i"))
    #expect(imported.request.headerFields[name] == "i")
  }

  @Test("the avatar upload is multipart/form-data with one `image` part")
  func avatarMultipart() throws {
    let route = MeAPI.uploadAvatar(
      image: FixtureBody.avatar, fileName: "avatar.jpg", mimeType: "image/jpeg")
    guard case .multipart(let form) = route.task else {
      Issue.record("uploadAvatar must send multipart/form-data, not \(route.task)")
      return
    }
    #expect(form.parts.count == 1)
    let part = try #require(form.parts.first)
    #expect(part.name == "image")
    #expect(part.fileName == "avatar.jpg")
    #expect(part.contentType == "image/jpeg")
    #expect(part.data == FixtureBody.avatar)

    let request = try encoded(route)
    let contentType = try #require(request.request.headerFields[.contentType])
    #expect(contentType.hasPrefix("multipart/form-data; boundary="))
    let boundary = String(contentType.dropFirst("multipart/form-data; boundary=".count))
    let body = try #require(request.body)
    let header = Data(
      ("--\(boundary)\r\nContent-Disposition: form-data; name=\"image\"; "
        + "filename=\"avatar.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n").utf8)
    #expect(body.starts(with: header))
    #expect(body.range(of: FixtureBody.avatar) != nil)
    #expect(body.suffix(boundary.count + 8) == Data("\r\n--\(boundary)--\r\n".utf8))
    #expect(request.request.method == .put)
  }

  @Test("the question import sends the CSV bytes unchanged as text/csv")
  func csvImport() throws {
    let request = try encoded(AdminAPI.importQuestions(csv: FixtureBody.csv))
    #expect(request.request.headerFields[.contentType] == "text/csv")
    #expect(request.body == FixtureBody.csv)
    #expect(request.request.method == .post)
    #expect(request.request.path == "/v1/admin/questions/import")
  }

  @Test("lists send limit always and cursor only when continuing")
  func pageQuery() throws {
    #expect(try target(BoardAPI.posts()) == "/v1/posts?limit=20")
    #expect(
      try target(BoardAPI.posts(page: PageRequest(cursor: "c/1 2", limit: 50)))
        == "/v1/posts?cursor=c%2F1%202&limit=50")
    #expect(
      try target(BoardAPI.search(query: "TCA 팀원"))
        == "/v1/posts/search?q=TCA%20%ED%8C%80%EC%9B%90&limit=20")
    #expect(try target(StudyGroupAPI.groups()) == "/v1/groups?limit=20")
    #expect(try target(AdminAPI.reports(status: .open)) == "/v1/admin/reports?status=open&limit=20")
    #expect(
      try target(AdminAPI.questions(status: .published, page: PageRequest(limit: 500)))
        == "/v1/admin/questions?status=published&limit=100")
    #expect(try target(AdminAPI.users()) == "/v1/admin/users?limit=20")
  }

  @Test("chat history pages by seq and clamps the limit")
  func chatMessagesQuery() throws {
    let room: ChatRoom.ID = "room_g_007"
    #expect(
      try target(ChatAPI.messages(roomID: room)) == "/v1/chat/rooms/room_g_007/messages?limit=20")
    #expect(
      try target(ChatAPI.messages(roomID: room, afterSeq: 1040))
        == "/v1/chat/rooms/room_g_007/messages?after_seq=1040&limit=20")
    #expect(
      try target(ChatAPI.messages(roomID: room, beforeSeq: 9_000_000_000, limit: 500))
        == "/v1/chat/rooms/room_g_007/messages?before_seq=9000000000&limit=100")
    #expect(
      try target(ChatAPI.messages(roomID: room, afterSeq: 0, limit: 0))
        == "/v1/chat/rooms/room_g_007/messages?after_seq=0&limit=1")
  }

  @Test("bodiless operations send no body and no content type")
  func bodilessOperations() throws {
    for route in [BoardAPI.like("p_1"), BoardAPI.unlike("p_1")] as [any APITarget]
      + [MeAPI.withdraw, NotificationAPI.markAllRead, StudyGroupAPI.join("g_1")]
    {
      let request = try encoded(route)
      #expect(request.body == nil, "\(route.operation.id)")
      #expect(request.request.headerFields[.contentType] == nil, "\(route.operation.id)")
    }
  }

  @Test("public operations are exactly the sign-in flow and the nickname check")
  func publicOperations() {
    let publicIDs = RouteExamples.all.map(\.route).filter { $0.authorization == .none }
      .map(\.operation.id)
    #expect(
      Set(publicIDs) == [
        "AuthAPI.signIn", "AuthAPI.requestEmailCode", "AuthAPI.verifyEmailCode", "AuthAPI.signUp",
        "AuthAPI.refresh", "MeAPI.nicknameAvailability",
      ])
    #expect(AuthAPI.signOut(FixtureBody.signOut).authorization == .bearer)
  }
}
