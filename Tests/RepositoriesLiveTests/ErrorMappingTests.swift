import DTO
import Domain
import Foundation
import HTTPTypes
import NetworkKit
import NetworkKitTesting
import Testing

@testable import RepositoriesLive

/// One row of the error table: what the server (or the transport) answered and what the
/// repository must throw.
struct ErrorCase: Sendable, CustomTestStringConvertible {
  var name: String
  var answer: StubResponse
  var expected: DomainError

  var testDescription: String { name }

  static func envelope(
    _ status: Int, _ code: String, _ message: String = "message", field: String? = nil,
    validation: String? = nil, headers: HTTPFields = [:], expect expected: DomainError
  ) -> ErrorCase {
    var fields = headers
    fields[.contentType] = "application/json"
    return ErrorCase(
      name: "\(status) \(code)",
      answer: .response(
        status: HTTPResponse.Status(code: status), headerFields: fields,
        body: Data(
          Fixtures.error(code: code, message: message, field: field, validation: validation).utf8
        )),
      expected: expected)
  }

  static func raw(
    _ status: Int, body: String, headers: HTTPFields = [:], expect expected: DomainError
  ) -> ErrorCase {
    ErrorCase(
      name: "\(status) without envelope",
      answer: .response(
        status: HTTPResponse.Status(code: status), headerFields: headers, body: Data(body.utf8)),
      expected: expected)
  }
}

@Suite("Error mapping")
struct ErrorMappingTests {
  static let envelopeCases: [ErrorCase] = [
    .envelope(
      400, "validation_failed", "The content is too long.", field: "content",
      validation: #"{"kind": "too_long", "maximum": 250, "actual": 300}"#,
      expect: .validation(.tooLong(field: "content", maximum: 250, actual: 300))),
    .envelope(
      400, "validation_failed", "Only dev sign-in works on the local server", field: "provider",
      expect: .validation(
        .invalidFormat(
          field: "provider",
          expected: "a value the server accepts (Only dev sign-in works on the local server)"))),
    .envelope(
      400, "malformed_request", "Body is not JSON.",
      expect: .validation(
        .invalidFormat(field: "request", expected: "a value the server accepts (Body is not JSON)"))
    ),
    .envelope(403, "forbidden", expect: .forbidden),
    .envelope(403, "banned", expect: .banned),
    .envelope(403, "answer_required", expect: .answerRequired),
    .envelope(404, "not_found", expect: .notFound),
    .envelope(409, "nickname_taken", expect: .nicknameTaken),
    .envelope(409, "already_reported", expect: .alreadyReported),
    .envelope(
      409, "conflict", "You already answered this question.",
      expect: .conflict("You already answered this question.")),
    .envelope(
      413, "payload_too_large", "The image exceeds 5 MB.", field: "image",
      expect: .validation(
        .invalidFormat(
          field: "image",
          expected: "smaller: the server refused it as too large (The image exceeds 5 MB.)"))),
    .envelope(
      429, "rate_limited", headers: [.retryAfter: "7"],
      expect: .rateLimited(retryAfter: .seconds(7))
    ),
    .envelope(429, "rate_limited", expect: .rateLimited(retryAfter: nil)),
    .envelope(
      500, "internal", "database is locked",
      expect: .server("BoardAPI.posts: HTTP 500 internal: database is locked")),
    // A code this version does not know: the status decides.
    .envelope(404, "gone_fishing", expect: .notFound),
    .envelope(
      418, "teapot", "short and stout",
      expect: .server("BoardAPI.posts: HTTP 418 with teapot: short and stout")),
    // No envelope (a proxy's page): the status decides.
    .raw(404, body: "<html>Not Found</html>", expect: .notFound),
    .raw(403, body: "", expect: .forbidden),
    .raw(
      409, body: "duplicate", expect: .conflict("a body that is not an error envelope: duplicate")),
    .raw(
      429, body: "", headers: [.retryAfter: "30"], expect: .rateLimited(retryAfter: .seconds(30))),
    .raw(
      502, body: "<html><body>Bad Gateway</body></html>",
      expect: .server(
        "BoardAPI.posts: HTTP 502 with a body that is not an error envelope: "
          + "<html><body>Bad Gateway</body></html>")),
    .raw(
      503, body: "",
      expect: .server("BoardAPI.posts: HTTP 503 with a body that is not an error envelope: (empty)")
    ),
  ]

  static let transportCases: [ErrorCase] = [
    ErrorCase(name: "offline", answer: .failure(.offline), expected: .offline),
    ErrorCase(
      name: "connection reset", answer: .failure(.transport("connection reset")),
      expected: .offline),
    ErrorCase(name: "timeout", answer: .failure(.timeout), expected: .timeout),
  ]

  @Test("server answers become DomainError", arguments: envelopeCases + transportCases)
  func mapsServerAnswers(_ row: ErrorCase) async throws {
    let harness = Harness()
    try await harness.signIn()
    harness.transport.stub(.get, "/posts", with: row.answer)
    let error = await domainError { try await harness.repositories.board.fetchPosts(.first) }
    #expect(error == row.expected)
  }

  @Test func retryAfterAsAnHTTPDateIsMeasuredFromNow() async throws {
    let now = Date(timeIntervalSince1970: 1_784_000_000)
    let harness = Harness(now: { now })
    try await harness.signIn()
    let later = now.addingTimeInterval(90)
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    harness.stubError(
      .put, "/posts/p_1/like", status: 429, code: "rate_limited", message: "slow down",
      headers: [.retryAfter: formatter.string(from: later)])
    let error = await domainError { try await harness.repositories.board.setPostLike("p_1", true) }
    #expect(error == .rateLimited(retryAfter: .seconds(90)))
  }

  @Test func a401OnAPublicRouteMeansSignedOut() async throws {
    let harness = Harness()
    harness.stubError(
      .get, "/nicknames/availability", status: 401, code: "unauthorized", message: "no")
    let error = await domainError {
      try await harness.repositories.auth.checkNickname(Nickname(validating: "swiftie"))
    }
    #expect(error == .signedOut)
  }

  @Test func bearerCallsWithoutASessionThrowSignedOutWithoutSending() async throws {
    let harness = Harness()
    let error = await domainError {
      try await harness.repositories.notifications.fetchUnreadCount()
    }
    #expect(error == .signedOut)
    #expect(harness.transport.receivedRequests.isEmpty)
  }

  @Test func cancellationIsReportedAsCancellationError() async throws {
    let harness = Harness()
    try await harness.signIn()
    harness.transport.stub(.get, "/posts", with: .failure(.cancelled))
    await #expect(throws: CancellationError.self) {
      try await harness.repositories.board.fetchPosts(.first)
    }
  }

  @Test func undecodableBodiesBecomeServerErrorsNamingTheField() async throws {
    let harness = Harness()
    try await harness.signIn()
    harness.stub(.get, "/notifications/unread-count", json: #"{"total": 3}"#)
    let missing = await domainError {
      try await harness.repositories.notifications.fetchUnreadCount()
    }
    #expect(
      missing
        == .server(
          "NotificationAPI.unreadCount: The server's JSON lacks the required field count."))

    harness.stub(.get, "/notifications/unread-count", json: "<html>maintenance</html>")
    guard
      case .server(let message) = await domainError({
        try await harness.repositories.notifications.fetchUnreadCount()
      })
    else {
      Issue.record("expected .server")
      return
    }
    #expect(message.contains("not JSON"))
  }

  @Test func unmappableValuesBecomeServerErrorsNamingTheItem() async throws {
    let harness = Harness()
    try await harness.signIn()
    harness.stub(
      .get, "/notifications/unread-count", json: #"{"count": -1}"#)
    let error = await domainError {
      try await harness.repositories.notifications.fetchUnreadCount()
    }
    guard case .server(let message) = error else {
      Issue.record("expected .server, got \(String(describing: error))")
      return
    }
    #expect(message.contains("count"))
    #expect(message.contains("negative"))
  }
}

@Suite("Validation messages from the server")
struct ServerValidationMessageTests {
  static let errors: [ValidationError] = [
    .empty(field: "content"),
    .tooShort(field: "nickname", minimum: 2, actual: 1),
    .tooLong(field: "content", maximum: 250, actual: 251),
    .invalidCharacters(field: "nickname", characters: "!?"),
    .invalidFormat(field: "email", expected: "an email address such as name@example.com"),
    .reserved(field: "nickname", value: "admin"),
    .outOfRange(field: "limit", range: 1...100, actual: 500),
  ]

  @Test(
    "a validation detail goes over the wire and maps back to the same case",
    arguments: errors)
  func roundTrips(_ error: ValidationError) throws {
    let body = ErrorBodyDTO(
      code: "validation_failed", message: "any wording", field: error.field,
      validation: ValidationDetailDTO(error))
    let wire = try JSONDecoder().decode(
      ErrorBodyDTO.self, from: try QappleCoding.makeEncoder().encode(body))
    #expect(
      ValidationError(serverField: wire.field, message: wire.message, detail: wire.validation)
        == error)
  }

  @Test func otherWordingKeepsTheMessageAndTheField() {
    let error = ValidationError(serverField: "detail", message: "Tell us more.")
    #expect(
      error
        == .invalidFormat(field: "detail", expected: "a value the server accepts (Tell us more)"))
    #expect(error.description == "detail must be a value the server accepts (Tell us more).")
  }

  @Test(
    "without a detail this version reads, the message is kept: Domain's own wording is not parsed, an unknown kind or a detail missing its values is not guessed",
    arguments: [
      nil, ValidationDetailDTO(kind: .unknown("too_loud")),
      ValidationDetailDTO(kind: .tooLong, maximum: 100),
      ValidationDetailDTO(kind: .outOfRange, minimum: 9, maximum: 1, actual: 5),
      ValidationDetailDTO(kind: .reserved),
    ])
  func unreadableDetailsKeepTheMessage(_ detail: ValidationDetailDTO?) {
    let message = "limit must be between 1 and 100 (got 500)."
    #expect(
      ValidationError(serverField: "limit", message: message, detail: detail)
        == .invalidFormat(
          field: "limit",
          expected: "a value the server accepts (limit must be between 1 and 100 (got 500))"))
  }

  @Test func aMissingFieldIsNamedRequest() {
    #expect(ValidationError(serverField: nil, message: "").field == "request")
    #expect(ValidationError(serverField: "", message: "x").field == "request")
  }
}

@Suite("The API's error envelope, configured on NetworkKit")
struct ErrorEnvelopeDecodingTests {
  @Test("qappleEnvelope reads code, message and field; other bodies give no server error")
  func envelope() {
    let body = Data(
      #"{"error":{"code":"nickname_taken","message":"taken","field":"nickname"}}"#.utf8)
    #expect(
      ErrorBodyDecoder.qappleEnvelope.serverError(in: body)
        == ServerError(code: "nickname_taken", message: "taken", field: "nickname"))
    #expect(ErrorBodyDecoder.qappleEnvelope.serverError(in: Data("<html>".utf8)) == nil)
    #expect(ErrorBodyDecoder.qappleEnvelope.serverError(in: Data()) == nil)
  }

  @Test("a 429's Retry-After reaches DomainError.rateLimited through the failure")
  func retryAfterFromTheFailure() {
    let error = NetworkError.status(
      code: 429, error: ServerError(code: "rate_limited", message: "slow down"),
      headers: [.retryAfter: "12"])
    #expect(LiveErrorMapping.domainError(for: error) == .rateLimited(retryAfter: .seconds(12)))
  }

  @Test("a realtime error frame means what its code means over REST")
  func realtimeErrorFrames() {
    func mapped(_ code: String) -> DomainError {
      LiveErrorMapping.domainError(realtime: RealtimeErrorDTO(code: code, message: "m"))
    }
    #expect(mapped("forbidden") == .forbidden)
    #expect(mapped("banned") == .banned)
    #expect(mapped("rate_limited") == .rateLimited(retryAfter: nil))
    let tooLong = ValidationError.tooLong(field: "text", maximum: 1000, actual: 1001)
    let refused = RealtimeErrorDTO(
      code: "validation_failed", message: "m", field: "text",
      validation: ValidationDetailDTO(tooLong))
    #expect(LiveErrorMapping.domainError(realtime: refused) == .validation(tooLong))
    guard case .server = mapped("slow_consumer") else {
      Issue.record("a socket-only code should be a server condition")
      return
    }
  }
}
