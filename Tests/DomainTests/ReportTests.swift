import Domain
import Foundation
import Testing

@Suite("ReportTarget")
struct ReportTargetTests {
  @Test(
    "kind and rawID rebuild the same target",
    arguments: [
      ReportTarget.answer("a_1"), .post("p_12"), .comment("c/3"), .chatMessage("m 4"),
      .user("u_한글"), .post(""),
    ])
  func roundTrip(target: ReportTarget) {
    #expect(ReportTarget(kind: target.kind, id: target.rawID) == target)
  }

  @Test(
    "Each kind has its wire name and builds its case",
    arguments: [
      (ReportTarget.Kind.answer, "answer", ReportTarget.answer("x")),
      (.post, "post", .post("x")),
      (.comment, "comment", .comment("x")),
      (.chatMessage, "chat_message", .chatMessage("x")),
      (.user, "user", .user("x")),
    ])
  func kinds(kind: ReportTarget.Kind, wireName: String, expected: ReportTarget) {
    #expect(kind.rawValue == wireName)
    #expect(ReportTarget.Kind(rawValue: wireName) == kind)
    #expect(ReportTarget(kind: kind, id: "x") == expected)
    #expect(expected.kind == kind)
    #expect(expected.rawID == "x")
  }

  @Test("Every kind is covered")
  func allKinds() {
    #expect(ReportTarget.Kind.allCases.count == 5)
    #expect(ReportTarget.Kind(rawValue: "chatMessage") == nil)
  }

  @Test("Targets of different kinds with the same id differ")
  func kindsAreDistinct() {
    let targets = ReportTarget.Kind.allCases.map { ReportTarget(kind: $0, id: "1") }
    #expect(Set(targets).count == targets.count)
  }

  @Test(
    "description is kind:id",
    arguments: [
      (ReportTarget.post("p_12"), "post:p_12"), (.chatMessage("m_1"), "chat_message:m_1"),
      (.answer("a_9"), "answer:a_9"), (.comment("c_2"), "comment:c_2"), (.user("u_7"), "user:u_7"),
    ])
  func description(target: ReportTarget, expected: String) {
    #expect(target.description == expected)
  }
}

@Suite("ReportReason")
struct ReportReasonTests {
  @Test(
    "Codes without text round-trip; blank detail is none, any other is refused",
    arguments: ReportReason.Code.allCases.filter { $0 != .other })
  func codesRoundTrip(code: ReportReason.Code) throws {
    let reason = try ReportReason(code: code, detail: nil)
    #expect(reason.code == code)
    #expect(reason.detail == nil)
    #expect(reason.description == code.rawValue)
    #expect(try ReportReason(code: code, detail: "  ") == reason)
    #expect(
      throws: ValidationError.invalidFormat(
        field: "detail", expected: "left out: only the reason other takes an explanation")
    ) { try ReportReason(code: code, detail: "not dropped unseen") }
    #expect(try reason.validated() == reason)
  }

  @Test("Wire codes are the lower-case names")
  func wireCodes() {
    #expect(
      ReportReason.Code.allCases.map(\.rawValue) == [
        "spam", "abuse", "obscene", "privacy", "impersonation", "illegal", "other",
      ])
  }

  @Test("\"other\" keeps its trimmed text")
  func otherKeepsText() throws {
    let reason = try ReportReason(code: .other, detail: "  광고 같아요 ")
    #expect(reason == .other("광고 같아요"))
    #expect(reason.code == .other)
    #expect(reason.detail == "광고 같아요")
    #expect(reason.description == "other")
  }

  @Test("\"other\" needs text", arguments: [nil, "", "   ", "\n"] as [String?])
  func otherNeedsText(detail: String?) {
    #expect(throws: ValidationError.empty(field: "detail")) {
      try ReportReason(code: .other, detail: detail)
    }
  }

  @Test("\"other\" allows 1-500 characters")
  func otherLength() throws {
    #expect(try ReportReason(code: .other, detail: "x") == .other("x"))
    #expect(try ReportReason(code: .other, detail: repeated("가", 500)).detail?.count == 500)
    #expect(throws: ValidationError.tooLong(field: "detail", maximum: 500, actual: 501)) {
      try ReportReason(code: .other, detail: repeated("가", 501))
    }
  }

  @Test("validated() checks the text of \"other\"")
  func validated() throws {
    #expect(try ReportReason.other(" 도배 ").validated() == .other("도배"))
    #expect(throws: ValidationError.empty(field: "detail")) {
      try ReportReason.other("").validated()
    }
    #expect(throws: ValidationError.tooLong(field: "detail", maximum: 500, actual: 501)) {
      try ReportReason.other(repeated("a", 501)).validated()
    }
  }

  @Test("choices offers every code once, in order, other last and empty")
  func choices() {
    let choices = ReportReason.choices
    #expect(choices.map(\.code) == ReportReason.Code.allCases)
    #expect(choices.last == .other(""))
    #expect(choices.dropLast().allSatisfy { $0.detail == nil })
    #expect(Set(choices.map(\.title)).count == choices.count)
    #expect(choices.allSatisfy { !$0.title.isEmpty })
  }
}

@Suite("ReportCase")
struct ReportCaseTests {
  static func reportCase(count: Int) -> ReportCase {
    let date = Date(timeIntervalSince1970: 1_800_000_000)
    return ReportCase(
      id: "case_1", target: .post("p_1"), excerpt: "text", author: nil, reportCount: count,
      reasonCounts: [.spam: count], status: .open, resolution: nil, isHidden: false,
      firstReportedAt: date, lastReportedAt: date)
  }

  @Test(
    "Content is auto-hidden at five distinct reports",
    arguments: [(0, false), (1, false), (4, false), (5, true), (6, true), (100, true)])
  func autoHideThreshold(count: Int, reached: Bool) {
    #expect(Self.reportCase(count: count).reachedAutoHideThreshold == reached)
  }

  @Test("The policy threshold is five")
  func threshold() {
    #expect(ModerationPolicy.autoHideThreshold == 5)
  }

  @Test("Resolutions use their wire names")
  func resolutions() {
    #expect(ReportResolution.allCases.map(\.rawValue) == ["dismiss", "hide_content", "ban_author"])
  }
}
