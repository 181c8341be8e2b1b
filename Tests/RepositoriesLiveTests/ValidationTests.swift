import Domain
import Foundation
import Repositories
import Testing

@testable import RepositoriesLive

/// A call that must be refused locally, and the validation error it must throw.
struct RefusedCall: Sendable, CustomTestStringConvertible {
  var name: String
  var expected: ValidationError
  var call: @Sendable (RepositorySet) async throws -> Void

  var testDescription: String { name }

  init(
    _ name: String, _ expected: ValidationError,
    _ call: @escaping @Sendable (RepositorySet) async throws -> Void
  ) {
    self.name = name
    self.expected = expected
    self.call = call
  }
}

@Suite("Validation before sending")
struct ValidationTests {
  static let now = Date(timeIntervalSince1970: 1_784_000_000)
  static let day = try! CalendarDay(year: 2026, month: 12, day: 1)

  static let refused: [RefusedCall] = [
    RefusedCall(
      "answer over 250 characters", .tooLong(field: "content", maximum: 250, actual: 251)
    ) { _ = try await $0.questions.submitAnswer("q_1", String(repeating: "가", count: 251)) },
    RefusedCall("blank answer", .empty(field: "content")) {
      _ = try await $0.questions.submitAnswer("q_1", " \n ")
    },
    RefusedCall("answer to an empty question id", .empty(field: "question_id")) {
      _ = try await $0.questions.submitAnswer("", "hello")
    },
    RefusedCall("post over 1000", .tooLong(field: "content", maximum: 1000, actual: 1001)) {
      _ = try await $0.board.createPost(PostDraft(content: String(repeating: "a", count: 1001)))
    },
    RefusedCall("comment over 300", .tooLong(field: "content", maximum: 300, actual: 301)) {
      _ = try await $0.board.createComment(
        "p_1", CommentDraft(content: String(repeating: "a", count: 301)))
    },
    RefusedCall("empty search", .empty(field: "q")) {
      _ = try await $0.board.searchPosts("   ", .first)
    },
    RefusedCall("search over 100", .tooLong(field: "q", maximum: 100, actual: 101)) {
      _ = try await $0.board.searchPosts(String(repeating: "q", count: 101), .first)
    },
    RefusedCall("like of an empty post id", .empty(field: "post_id")) {
      _ = try await $0.board.setPostLike("", true)
    },
    RefusedCall("report other without detail", .empty(field: "detail")) {
      _ = try await $0.reports.report(.post("p_1"), .other("  "))
    },
    RefusedCall("report of an empty target", .empty(field: "target")) {
      _ = try await $0.reports.report(.post(""), .spam)
    },
    RefusedCall("group name over 30", .tooLong(field: "name", maximum: 30, actual: 31)) {
      _ = try await $0.studyGroups.createGroup(
        StudyGroupDraft(name: String(repeating: "n", count: 31)))
    },
    RefusedCall(
      "group description over 500", .tooLong(field: "description", maximum: 500, actual: 501)
    ) {
      _ = try await $0.studyGroups.updateGroup(
        "g_1", StudyGroupDraft(name: "ok", description: String(repeating: "d", count: 501)))
    },
    RefusedCall("empty chat message", .empty(field: "text")) {
      _ = try await $0.chat.sendMessage("", "room_1", UUID())
    },
    RefusedCall("chat message over 1000", .tooLong(field: "text", maximum: 1000, actual: 1001)) {
      _ = try await $0.chat.sendMessage(String(repeating: "m", count: 1001), "room_1", UUID())
    },
    RefusedCall(
      "negative after_seq", .outOfRange(field: "after_seq", range: 0...Int.max, actual: -1)
    ) {
      _ = try await $0.chat.fetchMessages("room_1", -1, nil, 20)
    },
    RefusedCall("negative read seq", .outOfRange(field: "seq", range: 0...Int.max, actual: -5)) {
      try await $0.chat.markRead("room_1", -5)
    },
    RefusedCall(
      "avatar that is not an image",
      .invalidFormat(field: "image", expected: "a JPEG or PNG picture")
    ) {
      _ = try await $0.profile.uploadAvatar(Data([1]), "a.gif", "image/gif")
    },
    RefusedCall(
      "avatar that says PNG but is not one",
      .invalidFormat(field: "image", expected: "a JPEG or PNG picture")
    ) {
      _ = try await $0.profile.uploadAvatar(Data("not a picture".utf8), "fake.png", "image/png")
    },

    RefusedCall("empty avatar", .empty(field: "image")) {
      _ = try await $0.profile.uploadAvatar(Data(), "a.png", "image/png")
    },
    RefusedCall("question under 5 characters", .tooShort(field: "content", minimum: 5, actual: 3)) {
      _ = try await $0.admin.createQuestion(QuestionDraft(content: "Why", publishDate: day))
    },
    RefusedCall("empty CSV", .empty(field: "file")) {
      _ = try await $0.admin.importQuestions(Data())
    },
    RefusedCall("CSV that is not UTF-8", .invalidFormat(field: "file", expected: "UTF-8 text")) {
      _ = try await $0.admin.importQuestions(Data([0xFF, 0xFE, 0xC3, 0x28]))
    },
    RefusedCall("blank ban reason", .empty(field: "reason")) {
      _ = try await $0.admin.banUser("u_1", "  ", nil)
    },
    RefusedCall(
      "ban ending in the past", .invalidFormat(field: "until", expected: "a time in the future")
    ) {
      _ = try await $0.admin.banUser("u_1", "spam", now.addingTimeInterval(-60))
    },
    RefusedCall("blank sign-in token", .empty(field: "token")) {
      _ = try await $0.auth.signIn(.dev, "  ")
    },
    RefusedCall("blank terms version", .empty(field: "agreed_terms_version")) {
      _ = try await $0.auth.signUp(
        SignUpForm(
          signUpToken: SignUpToken(rawValue: "s"),
          verificationToken: EmailVerificationToken(rawValue: "v"),
          nickname: Nickname(trusted: "runner"), agreedTermsVersion: " "))
    },
    RefusedCall("cohort over 30 at sign-up", .tooLong(field: "cohort", maximum: 30, actual: 31)) {
      _ = try await $0.auth.signUp(
        SignUpForm(
          signUpToken: SignUpToken(rawValue: "s"),
          verificationToken: EmailVerificationToken(rawValue: "v"),
          nickname: Nickname(trusted: "runner"), cohort: String(repeating: "7", count: 31),
          agreedTermsVersion: "2026-01"))
    },
    RefusedCall("moderator note over 500", .tooLong(field: "note", maximum: 500, actual: 501)) {
      _ = try await $0.admin.resolveReportCase(
        "case_1", .dismiss, String(repeating: "n", count: 501))
    },
  ]

  @Test("refused before any request goes out", arguments: refused)
  func refusesLocally(_ row: RefusedCall) async throws {
    let harness = Harness(now: { Self.now })
    try await harness.signIn()
    let repositories = harness.repositories
    let error = await domainError { try await row.call(repositories) }
    #expect(error == .validation(row.expected))
    #expect(harness.sentRequests.isEmpty, "no request may reach the transport")
  }
}
