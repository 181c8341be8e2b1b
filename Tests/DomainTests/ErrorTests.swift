import Domain
import Foundation
import Testing

@Suite("ValidationError")
struct ValidationErrorTests {
  static let all: [(ValidationError, String)] = [
    (.empty(field: "content"), "content"),
    (.tooShort(field: "nickname", minimum: 2, actual: 1), "nickname"),
    (.tooLong(field: "text", maximum: 1000, actual: 1001), "text"),
    (.invalidCharacters(field: "nickname", characters: "😀"), "nickname"),
    (.invalidFormat(field: "email", expected: "an email address"), "email"),
    (.reserved(field: "nickname", value: "admin"), "nickname"),
    (.outOfRange(field: "day", range: 1...28, actual: 29), "day"),
  ]

  @Test("field names the field for every case", arguments: all)
  func field(error: ValidationError, field: String) {
    #expect(error.field == field)
    #expect(error.description.hasPrefix(field))
  }

  @Test("Descriptions carry the numbers and values that explain the error")
  func descriptions() {
    let tooLong = ValidationError.tooLong(field: "content", maximum: 250, actual: 251).description
    #expect(tooLong.contains("250") && tooLong.contains("251"))
    let tooShort = ValidationError.tooShort(field: "nickname", minimum: 2, actual: 1).description
    #expect(tooShort.contains("2") && tooShort.contains("1"))
    let characters = ValidationError.invalidCharacters(field: "nickname", characters: "ㅋ")
    #expect(characters.description.contains("ㅋ"))
    #expect(
      ValidationError.reserved(field: "nickname", value: "admin").description.contains("admin"))
    let range = ValidationError.outOfRange(field: "day", range: 1...28, actual: 29).description
    #expect(range.contains("1") && range.contains("28") && range.contains("29"))
    let format = ValidationError.invalidFormat(field: "code", expected: "6 digits").description
    #expect(format.contains("6 digits"))
  }
}

@Suite("DomainError")
struct DomainErrorTests {
  @Test(
    "Every error has a sentence to show",
    arguments: [
      DomainError.validation(.empty(field: "content")), .nicknameTaken, .alreadyReported, .banned,
      .notFound, .forbidden, .answerRequired, .conflict("Already answered today."), .signedOut,
      .offline, .timeout, .rateLimited(retryAfter: nil), .rateLimited(retryAfter: .seconds(3)),
      .server("database unavailable"),
    ])
  func descriptionsAreNotEmpty(error: DomainError) {
    #expect(!error.description.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
    #expect(error.description.hasSuffix(".") || error.description.hasSuffix("unavailable"))
  }

  @Test("Validation errors show the validation message")
  func validationMessage() {
    let inner = ValidationError.tooLong(field: "content", maximum: 250, actual: 251)
    #expect(DomainError.validation(inner).description == inner.description)
  }

  @Test("Conflict and server errors carry their messages")
  func carriedMessages() {
    #expect(
      DomainError.conflict("That date already has a question.").description
        == "That date already has a question.")
    #expect(DomainError.server("database unavailable").description.contains("database unavailable"))
  }

  @Test(
    "rateLimited says how many whole seconds to wait, rounded up",
    arguments: [
      (Duration.seconds(30), "30 s"), (.seconds(1), "1 s"), (.milliseconds(1500), "2 s"),
      (.milliseconds(500), "1 s"), (.milliseconds(1), "1 s"), (.seconds(120), "120 s"),
    ])
  func rateLimitedSeconds(retryAfter: Duration, expected: String) {
    let description = DomainError.rateLimited(retryAfter: retryAfter).description
    #expect(description.contains("in \(expected)."), "\(description)")
  }

  @Test("Any error becomes a domain error a screen can show")
  func fromAnyError() {
    struct Unexpected: Error, CustomStringConvertible { var description: String { "boom" } }
    #expect(DomainError(DomainError.banned as any Error) == .banned)
    let invalid = ValidationError.empty(field: "content")
    #expect(DomainError(invalid) == .validation(invalid))
    #expect(DomainError(Unexpected()) == .server("boom"))
  }

  @Test("failures that may pass on a later try, and refusals the user must act on")
  func worthRetrying() {
    let later: [DomainError] = [
      .offline, .timeout, .server("boom"), .rateLimited(retryAfter: nil), .signedOut,
    ]
    let refusals: [DomainError] = [
      .validation(.empty(field: "text")), .nicknameTaken, .alreadyReported, .banned, .notFound,
      .forbidden, .answerRequired, .conflict("taken"),
    ]
    #expect(later.allSatisfy { $0.isWorthRetrying })
    #expect(!refusals.contains { $0.isWorthRetrying })
  }

  @Test("rateLimited without a time says to wait a moment")
  func rateLimitedWithoutTime() {
    let description = DomainError.rateLimited(retryAfter: nil).description
    #expect(description.contains("moment"))
    #expect(!description.contains { $0.isNumber })
  }
}

@Suite("AnalyticsEvent")
struct AnalyticsEventTests {
  static let date = Date(timeIntervalSince1970: 1_800_000_000)

  @Test(
    "Lower-case snake_case names of 1-40 characters are accepted",
    arguments: [
      "answer_submitted", "a", "screen_view2", "x1_y2_", "post__liked", repeated("a", 40),
    ])
  func validNames(name: String) throws {
    let event = try AnalyticsEvent(
      name: name, properties: ["screen": "today"], occurredAt: Self.date, sessionID: "s_1")
    #expect(event.name == name)
    #expect(event.properties == ["screen": "today"])
    #expect(event.occurredAt == Self.date)
    #expect(event.sessionID == "s_1")
  }

  @Test("An empty name is empty")
  func emptyName() {
    #expect(throws: ValidationError.empty(field: "name")) {
      try AnalyticsEvent(name: "", occurredAt: Self.date)
    }
  }

  @Test("A name over 40 characters is too long")
  func longName() {
    #expect(throws: ValidationError.tooLong(field: "name", maximum: 40, actual: 41)) {
      try AnalyticsEvent(name: repeated("a", 41), occurredAt: Self.date)
    }
  }

  @Test(
    "Other names are refused",
    arguments: [
      "Answer", "answerSubmitted", "1st_answer", "_private", "answer-submitted",
      "answer submitted", "답변_제출", "café", "answer.submitted", " answer",
    ])
  func invalidNames(name: String) {
    let error = validationError { try AnalyticsEvent(name: name, occurredAt: Self.date) }
    #expect(error?.caseName == "invalidFormat")
    #expect(error?.field == "name")
  }

  @Test("At most 20 properties")
  func propertyCount() throws {
    let properties = { (count: Int) in
      Dictionary(uniqueKeysWithValues: (0..<count).map { ("key_\($0)", "\($0)") })
    }
    let event = try AnalyticsEvent(name: "x", properties: properties(20), occurredAt: Self.date)
    #expect(event.properties.count == 20)
    #expect(event.sessionID == nil)
    #expect(throws: ValidationError.outOfRange(field: "properties", range: 0...20, actual: 21)) {
      try AnalyticsEvent(name: "x", properties: properties(21), occurredAt: Self.date)
    }
  }
}
