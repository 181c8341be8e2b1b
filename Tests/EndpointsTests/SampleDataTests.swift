import DTO
import Domain
import Endpoints
import Foundation
import TestSupport
import Testing

/// How a sample body is checked: the schema the contract names for the operation, and a
/// function that decodes the body into that schema's DTO, maps it to Domain and encodes the DTO
/// again (to find sample keys the DTO ignores).
struct ResponseCheck: Sendable {
  let schema: String
  let decodeMapAndReencode: @Sendable (Data) throws -> Data

  /// A single `Schema` answered by `DTO`.
  static func single<DTO: Codable & DomainConvertible>(_ schema: String, _: DTO.Type) -> Self {
    ResponseCheck(schema: schema) { data in
      let dto = try DTODecoding.decode(DTO.self, from: data)
      _ = try dto.toDomain()
      return try JSONEncoder.qapple().encode(dto)
    }
  }

  /// A `SchemaPage` of `Item`s.
  static func page<Item: Codable & DomainConvertible>(_ schema: String, _: Item.Type) -> Self {
    ResponseCheck(schema: schema) { data in
      let dto = try DTODecoding.decode(PageDTO<Item>.self, from: data)
      _ = try dto.toDomain()
      return try JSONEncoder.qapple().encode(dto)
    }
  }
}

/// The response type of every operation that answers a body, as the contract names it.
let responseChecks: [String: ResponseCheck] = [
  "AuthAPI.signIn": .single("SignInResponse", SignInResponseDTO.self),
  "AuthAPI.requestEmailCode": .single("EmailCodeSent", EmailCodeSentDTO.self),
  "AuthAPI.verifyEmailCode": .single("EmailVerified", EmailVerifiedDTO.self),
  "AuthAPI.signUp": .single("Session", SessionDTO.self),
  "AuthAPI.refresh": .single("Session", SessionDTO.self),
  "MeAPI.me": .single("User", UserDTO.self),
  "MeAPI.updateProfile": .single("User", UserDTO.self),
  "MeAPI.uploadAvatar": .single("User", UserDTO.self),
  "MeAPI.nicknameAvailability": .single("NicknameAvailability", NicknameAvailabilityDTO.self),
  "MeAPI.user": .single("User", UserDTO.self),
  "MeAPI.userByNickname": .single("User", UserDTO.self),
  "MeAPI.myAnswers": .page("AnswerPage", AnswerDTO.self),
  "QuestionAPI.today": .single("Question", QuestionDTO.self),
  "QuestionAPI.list": .page("QuestionPage", QuestionDTO.self),
  "QuestionAPI.question": .single("Question", QuestionDTO.self),
  "AnswerAPI.answers": .page("AnswerPage", AnswerDTO.self),
  "AnswerAPI.create": .single("Answer", AnswerDTO.self),
  "BoardAPI.posts": .page("PostPage", PostDTO.self),
  "BoardAPI.search": .page("PostPage", PostDTO.self),
  "BoardAPI.post": .single("Post", PostDTO.self),
  "BoardAPI.create": .single("Post", PostDTO.self),
  "BoardAPI.like": .single("LikeState", LikeStateDTO.self),
  "BoardAPI.unlike": .single("LikeState", LikeStateDTO.self),
  "CommentAPI.comments": .page("CommentPage", CommentDTO.self),
  "CommentAPI.create": .single("Comment", CommentDTO.self),
  "CommentAPI.like": .single("LikeState", LikeStateDTO.self),
  "CommentAPI.unlike": .single("LikeState", LikeStateDTO.self),
  "ReportAPI.create": .single("Report", ReportDTO.self),
  "ReportAPI.mine": .page("ReportPage", ReportDTO.self),
  "NotificationAPI.list": .page("NotificationPage", NotificationDTO.self),
  "NotificationAPI.unreadCount": .single("UnreadCount", UnreadCountDTO.self),
  "StudyGroupAPI.groups": .page("StudyGroupPage", StudyGroupDTO.self),
  "StudyGroupAPI.group": .single("StudyGroup", StudyGroupDTO.self),
  "StudyGroupAPI.create": .single("StudyGroup", StudyGroupDTO.self),
  "StudyGroupAPI.update": .single("StudyGroup", StudyGroupDTO.self),
  "StudyGroupAPI.join": .single("StudyGroup", StudyGroupDTO.self),
  "StudyGroupAPI.members": .page("GroupMemberPage", GroupMemberDTO.self),
  "ChatAPI.rooms": .page("ChatRoomPage", ChatRoomDTO.self),
  "ChatAPI.openDirect": .single("ChatRoom", ChatRoomDTO.self),
  "ChatAPI.messages": .page("ChatMessagePage", ChatMessageDTO.self),
  "ChatAPI.send": .single("ChatMessage", ChatMessageDTO.self),
  "AnalyticsAPI.track": .single("AnalyticsBatchResult", AnalyticsBatchResultDTO.self),
  "AdminAPI.questions": .page("AdminQuestionPage", AdminQuestionDTO.self),
  "AdminAPI.createQuestion": .single("AdminQuestion", AdminQuestionDTO.self),
  "AdminAPI.updateQuestion": .single("AdminQuestion", AdminQuestionDTO.self),
  "AdminAPI.importQuestions": .single("QuestionImportResult", QuestionImportResultDTO.self),
  "AdminAPI.reports": .page("ReportCasePage", ReportCaseDTO.self),
  "AdminAPI.report": .single("ReportCaseDetail", ReportCaseDetailDTO.self),
  "AdminAPI.resolveReport": .single("ReportCase", ReportCaseDTO.self),
  "AdminAPI.users": .page("AdminUserPage", AdminUserDTO.self),
  "AdminAPI.banUser": .single("AdminUser", AdminUserDTO.self),
  "AdminAPI.unbanUser": .single("AdminUser", AdminUserDTO.self),
  "AdminAPI.stats": .single("AdminStats", AdminStatsDTO.self),
]

/// Keeps the sample responses honest: each decodes into the contract's DTO, maps to Domain, and
/// holds no key the DTO does not read.
@Suite("Sample data decodes into the contract's response types")
struct SampleDataTests {
  /// One example per operation that answers a body.
  static let routesWithSamples: [RouteExample] = {
    var seen: Set<String> = []
    return RouteExamples.all.filter {
      !$0.route.sampleData.isEmpty && seen.insert($0.route.operation.id).inserted
    }
  }()

  @Test("the table names the schema openapi.yaml documents, for exactly the operations with bodies")
  func tableMatchesDocument() throws {
    let document = try OpenAPIDocument.load()
    let withBodies = Set(document.operations.filter { $0.successSchema != nil }.map(\.operationID))
    #expect(Set(responseChecks.keys) == withBodies)
    #expect(Set(Self.routesWithSamples.map(\.route.operation.id)) == withBodies)
    for operation in document.operations {
      #expect(
        responseChecks[operation.operationID]?.schema == operation.successSchema,
        "\(operation)")
    }
  }

  @Test(
    "the sample decodes, maps to Domain and every key in it is read", arguments: routesWithSamples)
  func sampleDecodes(example: RouteExample) throws {
    let route = example.route
    let check = try #require(responseChecks[route.operation.id], "no response type for \(example)")
    let reencoded = try check.decodeMapAndReencode(route.sampleData)
    let sample = try JSONSerialization.jsonObject(with: route.sampleData)
    let roundTrip = try JSONSerialization.jsonObject(with: reencoded)
    #expect(differences(sample, roundTrip) == [], "\(route.operation.id)")
  }

  @Test("every sample of the same operation decodes, whatever the case's parameters")
  func everyExampleDecodes() throws {
    for example in RouteExamples.all where !example.route.sampleData.isEmpty {
      let check = try #require(responseChecks[example.route.operation.id])
      _ = try check.decodeMapAndReencode(example.route.sampleData)
    }
  }

  @Test("samples tell a consistent story")
  func samplesAreRealistic() throws {
    let decoder = QappleCoding.makeDecoder()
    let signIn = try DTODecoding.decode(
      SignInResponseDTO.self, from: AuthAPI.signIn(FixtureBody.signIn).sampleData, using: decoder
    ).toDomain()
    guard case .signedIn(let session) = signIn else {
      Issue.record("the sign-in sample should be signed in, got \(signIn)")
      return
    }
    #expect(session.user.nickname.rawValue == "사과러너")
    #expect(session.expiresAt > session.user.joinedAt)

    let notifications = try DTODecoding.decode(
      PageDTO<NotificationDTO>.self, from: NotificationAPI.list().sampleData, using: decoder
    ).toDomain()
    let kinds = notifications.items.map { "\($0.kind)".prefix { $0 != "(" } }
    #expect(Set(kinds).count == 8, "one notification of each kind: \(kinds)")
    #expect(!kinds.contains("unknown"))

    let messages = try DTODecoding.decode(
      PageDTO<ChatMessageDTO>.self, from: ChatAPI.messages(roomID: "room_g_007").sampleData,
      using: decoder
    ).toDomain()
    let seqs = messages.items.compactMap(\.seq)
    #expect(seqs == seqs.sorted() && Set(seqs).count == seqs.count, "ascending by seq")
    #expect(messages.nextCursor == nil, "chat history pages by seq, not by cursor")

    let question = try DTODecoding.decode(
      QuestionDTO.self, from: QuestionAPI.question("q_0321").sampleData, using: decoder
    ).toDomain()
    #expect(question.myAnswer?.questionID == question.id)

    let detail = try DTODecoding.decode(
      ReportCaseDetailDTO.self, from: AdminAPI.report("rc_0031").sampleData, using: decoder
    ).toDomain()
    #expect(detail.reports.count == detail.reportCase.reportCount)
    #expect(detail.reports.allSatisfy { $0.target == detail.reportCase.target })
  }
}

/// Where `reencoded` differs from `sample`: keys the DTO dropped (a `null` may be left out) and
/// values that changed, by wire path.
func differences(_ sample: Any, _ reencoded: Any?, path: String = "") -> [String] {
  let here = path.isEmpty ? "the top level" : path
  switch sample {
  case let object as [String: Any]:
    guard let other = reencoded as? [String: Any] else { return ["\(here): not an object"] }
    return object.keys.sorted().flatMap { key -> [String] in
      let child = path.isEmpty ? key : "\(path).\(key)"
      guard let value = other[key] else {
        return object[key] is NSNull ? [] : ["\(child): the DTO does not read it"]
      }
      return differences(object[key]!, value, path: child)
    }
  case let array as [Any]:
    guard let other = reencoded as? [Any], other.count == array.count else {
      return ["\(here): array length changed"]
    }
    return zip(array, other).enumerated().flatMap { index, pair in
      differences(pair.0, pair.1, path: "\(path)[\(index)]")
    }
  default:
    let before = canonicalJSON(sample)
    let after = reencoded.map(canonicalJSON) ?? "missing"
    return before == after ? [] : ["\(here): \(before) became \(after)"]
  }
}

/// A scalar as JSON text, so numbers, booleans, strings and null compare by their wire form.
private func canonicalJSON(_ value: Any) -> String {
  guard let data = try? JSONSerialization.data(withJSONObject: [value]) else { return "\(value)" }
  return String(decoding: data, as: UTF8.self)
}
