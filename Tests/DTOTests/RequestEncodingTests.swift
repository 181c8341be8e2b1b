import DTO
import Domain
import Foundation
import Testing

@Suite("Request encoding")
struct RequestEncodingTests {
  @Test("sign-in and sign-up bodies use the contract's keys")
  func auth() throws {
    #expect(
      try jsonText(SignInRequest(provider: AuthProvider.kakao, token: "kt_1"))
        == #"{"provider":"kakao","token":"kt_1"}"#)
    #expect(
      try jsonText(
        EmailCodeRequest(
          signUpToken: SignUpToken(rawValue: "sut_1"),
          email: try EmailAddress(validating: " Learner@Academy.example ")))
        == #"{"email":"learner@academy.example","sign_up_token":"sut_1"}"#)
    #expect(
      try jsonText(
        EmailVerifyRequest(
          signUpToken: SignUpToken(rawValue: "sut_1"),
          email: try EmailAddress(validating: "a@b.example"),
          code: try VerificationCode(validating: "493 021")))
        == #"{"code":"493021","email":"a@b.example","sign_up_token":"sut_1"}"#)
    let form = SignUpForm(
      signUpToken: SignUpToken(rawValue: "sut_1"),
      verificationToken: EmailVerificationToken(rawValue: "vt_1"),
      nickname: try Nickname(validating: "사과나무"), agreedTermsVersion: "2026-03")
    #expect(
      try jsonText(SignUpRequest(form))
        == #"{"agreed_terms_version":"2026-03","cohort":null,"nickname":"사과나무","#
        + #""sign_up_token":"sut_1","verification_token":"vt_1"}"#)
    #expect(try jsonText(RefreshRequest(refreshToken: "rt")) == #"{"refresh_token":"rt"}"#)
    #expect(try jsonText(SignOutRequest(refreshToken: "rt")) == #"{"refresh_token":"rt"}"#)
  }

  @Test("PATCH bodies leave nil fields out")
  func patches() throws {
    #expect(try jsonText(UpdateProfileRequest(nickname: "새닉네임")) == #"{"nickname":"새닉네임"}"#)
    #expect(try jsonText(UpdateProfileRequest()) == "{}")
    #expect(
      try jsonText(UpdateProfileRequest(ProfileUpdate(cohort: "2026 Morning")))
        == #"{"cohort":"2026 Morning"}"#)
    #expect(try jsonText(UpdateGroupRequest(description: "")) == #"{"description":""}"#)
    #expect(
      try jsonText(
        UpdateQuestionRequest(publishDay: try CalendarDay(year: 2026, month: 12, day: 1)))
        == #"{"publish_date":"2026-12-01"}"#)
  }

  @Test("board bodies spell is_anonymous")
  func board() throws {
    let post = try jsonObject(CreatePostRequest(PostDraft(content: "익명 글 🍎")))
    #expect(post["is_anonymous"] as? Bool == true)
    #expect(post["content"] as? String == "익명 글 🍎")
    #expect(Set(post.keys) == ["content", "is_anonymous"])
    #expect(
      try jsonText(CreateCommentRequest(CommentDraft(content: "Me too", isAnonymous: false)))
        == #"{"content":"Me too","is_anonymous":false}"#)
    #expect(try jsonText(CreateAnswerRequest(content: "네!")) == #"{"content":"네!"}"#)
  }

  @Test("report bodies carry the target ref and detail (null unless other)")
  func reports() throws {
    #expect(
      try jsonText(CreateReportRequest(target: .chatMessage("m_1"), reason: .spam))
        == #"{"detail":null,"reason":"spam","target":{"id":"m_1","type":"chat_message"}}"#)
    #expect(
      try jsonText(CreateReportRequest(target: .user("u_9"), reason: .other("사칭 계정")))
        == #"{"detail":"사칭 계정","reason":"other","target":{"id":"u_9","type":"user"}}"#)
  }

  @Test("group and chat bodies")
  func groupsAndChat() throws {
    #expect(
      try jsonText(CreateGroupRequest(StudyGroupDraft(name: "알고리즘", description: "Swift")))
        == #"{"description":"Swift","name":"알고리즘"}"#)
    #expect(try jsonText(OpenDirectRoomRequest(user: "u_2")) == #"{"user_id":"u_2"}"#)
    let id = try #require(UUID(uuidString: "6F1C2B1E-8D4A-4C1E-9A57-3E2F1B0C9D8E"))
    let message = try jsonObject(SendMessageRequest(clientMessageId: id, text: "안녕 👋"))
    #expect(message["client_message_id"] as? String == "6f1c2b1e-8d4a-4c1e-9a57-3e2f1b0c9d8e")
    #expect(message["text"] as? String == "안녕 👋")
    #expect(try jsonText(MarkReadRequest(seq: 9_000_000_000)) == #"{"seq":9000000000}"#)
  }

  @Test("analytics events write dates with milliseconds and a null session")
  func analytics() throws {
    let event = try AnalyticsEvent(
      name: "answer_submitted", properties: ["length": "42"],
      occurredAt: utc(2026, 11, 21, 5, 10, 0, milliseconds: 123))
    #expect(
      try jsonText(AnalyticsBatchRequest([event]))
        == #"{"events":[{"name":"answer_submitted","occurred_at":"2026-11-21T05:10:00.123Z","#
        + #""properties":{"length":"42"},"session_id":null}]}"#)
  }

  @Test("admin bodies")
  func admin() throws {
    let draft = QuestionDraft(
      content: "What did you learn today?", publishDate: try CalendarDay(iso8601: "2026-11-23"))
    #expect(
      try jsonText(CreateQuestionRequest(draft))
        == #"{"content":"What did you learn today?","publish_date":"2026-11-23"}"#)
    #expect(
      try jsonText(ResolveReportRequest(resolution: .hideContent))
        == #"{"action":"hide_content","note":null}"#)
    #expect(
      try jsonText(BanUserRequest(reason: "spam", until: utc(2026, 12, 31, 14, 59, 59)))
        == #"{"reason":"spam","until":"2026-12-31T14:59:59.000Z"}"#)
    #expect(try jsonText(BanUserRequest(reason: "spam")) == #"{"reason":"spam","until":null}"#)
  }

  @Test("request bodies decode back to equal values (the local server reads them)")
  func roundTrip() throws {
    let decoder = QappleCoding.makeDecoder()
    let encoder = QappleCoding.makeEncoder()
    func check<T: Codable & Equatable>(_ value: T) throws {
      #expect(try decoder.decode(T.self, from: encoder.encode(value)) == value)
    }
    try check(
      SignUpRequest(
        signUpToken: "s", verificationToken: "v", nickname: "n", cohort: "c",
        agreedTermsVersion: "1"))
    try check(
      SignUpRequest(
        signUpToken: "s", verificationToken: "v", nickname: "n", agreedTermsVersion: "1"))
    try check(UpdateGroupRequest(name: "x"))
    try check(CreateReportRequest(target: .init(type: "post", id: "p"), reason: "spam"))
    try check(SendMessageRequest(clientMessageId: UUID(), text: "hi"))
    try check(BanUserRequest(reason: "r", until: utc(2026, 1, 1, milliseconds: 250)))
    try check(
      AnalyticsEventDTO(
        name: "e", properties: [:], occurredAt: utc(2026, 1, 1, milliseconds: 7), sessionId: "s"))
  }
}
