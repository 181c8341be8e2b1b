import Foundation
import HTTPTypes
import Logging
import NetworkKit
import NetworkKitTesting
import TestSupport
import Testing

@Suite("Logging and redaction")
struct LoggingTests {
  /// Every secret the exchanges below carry; none may appear in the log.
  private static let secrets = [
    "bearer-secret-71f0", "cookie-req-secret", "query-secret-5d", "req-access-11aa",
    "req-refresh-22bb", "req-signup-33cc", "hunter2-pass", "654321", "resp-access-7c1d",
    "resp-refresh-88e2", "resp-signup-0f0f", "cookie-secret-3f9a",
  ]

  private func provider(
    capture: LogCapture, bodyLimit: Int = 4_096
  ) -> NetworkProvider {
    let authenticator = Authenticator(
      store: InMemoryCredentialStore(
        Credentials(accessToken: "bearer-secret-71f0", refreshToken: "unused"))
    ) { _ in throw NetworkError.offline }
    return NetworkProvider(
      authenticator: authenticator,
      plugins: [LoggingPlugin(logger: capture.logger, level: .info, bodyLimit: bodyLimit)],
      retryPolicy: .never)
  }

  @Test func logsMethodURLStatusDurationAndBodiesWithoutSecrets() async throws {
    let server = try await TestServer.shared()
    let capture = LogCapture()
    let body: [String: AnyEncodable] = [
      "access_token": "req-access-11aa",
      "nickname": "visible-kim",
      "nested": [
        "refresh_token": "req-refresh-22bb",
        "deeper": ["password": "hunter2-pass", "sign_up_token": "req-signup-33cc"],
        "codes": [["verification_code": "654321"]],
      ],
    ]
    let target = TestTarget(
      .post, "/json", on: server.baseURL,
      task: .json(
        body,
        query: [
          URLQueryItem(name: "token", value: "query-secret-5d"),
          URLQueryItem(name: "page", value: "2"),
        ]),
      headers: [.cookie: "sid=cookie-req-secret"], authorization: .bearer)
    _ = try await provider(capture: capture).response(target)

    let log = capture.text
    for secret in Self.secrets {
      #expect(!log.contains(secret), "\(secret) leaked into the log")
    }
    let entries = capture.entries
    #expect(entries.count == 2)
    let request = try #require(entries.first)
    #expect(
      request.message == "-> POST http://127.0.0.1:\(server.port)/json?token=<redacted>&page=2")
    #expect("\(request.metadata["http.request.headers"]!)".contains("Authorization: <redacted>"))
    #expect("\(request.metadata["http.request.headers"]!)".contains("Cookie: <redacted>"))
    let requestBody = "\(request.metadata["http.request.body"]!)"
    #expect(requestBody.contains(#""nickname":"visible-kim""#))
    #expect(requestBody.contains(#""verification_code":"<redacted>""#))
    #expect(requestBody.contains(#""password":"<redacted>""#))

    let response = try #require(entries.last)
    #expect(response.level == .info)
    #expect(response.message.hasPrefix("<- 200 POST http://127.0.0.1:\(server.port)/json?"))
    #expect(response.message.hasSuffix(" ms)"))
    #expect(response.metadata["http.status"] == "200")
    #expect(response.metadata["http.duration_ms"] != nil)
    let responseBody = "\(response.metadata["http.response.body"]!)"
    #expect(responseBody.contains(#""refresh_token":"<redacted>""#))
    #expect(responseBody.contains("visible-kim"))
  }

  @Test func redactsSetCookieAndNestedTokensInResponses() async throws {
    let server = try await TestServer.shared()
    let capture = LogCapture()
    _ = try await provider(capture: capture).response(
      TestTarget(.get, "/session", on: server.baseURL))
    let log = capture.text
    for secret in Self.secrets {
      #expect(!log.contains(secret), "\(secret) leaked into the log")
    }
    #expect(log.contains("Set-Cookie: <redacted>"))
    #expect(log.contains("visible-nickname"))
  }

  @Test func truncatesLongBodiesAfterRedaction() async throws {
    let server = try await TestServer.shared()
    let capture = LogCapture()
    let text = String(repeating: "x", count: 500)
    _ = try await provider(capture: capture, bodyLimit: 40).response(
      TestTarget(.post, "/json", on: server.baseURL, task: .json(["text": text])))
    let body = "\(capture.entries.last!.metadata["http.response.body"]!)"
    #expect(body.hasPrefix(#"{"text":"xxxx"#))
    #expect(body.hasSuffix("... (\(text.count + 11) characters)"))
    #expect(body.count < 80)
  }

  @Test func errorAnswersKeepTheServerErrorCodeAndLogAsWarnings() async throws {
    let server = try await TestServer.shared()
    let capture = LogCapture()
    await #expect(throws: NetworkError.self) {
      try await provider(capture: capture).send(
        TestTarget(
          .get, "/status/409", on: server.baseURL,
          task: .query([URLQueryItem(name: "error_code", value: "nickname_taken")])))
    }
    let entry = try #require(capture.entries.last)
    #expect(entry.level == .warning)
    #expect("\(entry.metadata["http.response.body"]!)".contains("nickname_taken"))
  }

  @Test func transportFailuresAreLoggedAsErrors() async throws {
    let capture = LogCapture()
    let provider = NetworkProvider(
      plugins: [LoggingPlugin(logger: capture.logger)], retryPolicy: .never)
    await #expect(throws: NetworkError.offline) {
      try await provider.send(TestTarget(.get, "/", on: URL(string: "http://127.0.0.1:9")!))
    }
    let entry = try #require(capture.entries.last)
    #expect(entry.level == .error)
    #expect(entry.message.hasPrefix("<- failed GET http://127.0.0.1:9/"))
  }
}

@Suite("Log redactor")
struct LogRedactorTests {
  let redactor = LogRedactor()

  @Test func hidesSensitiveKeysAtAnyDepthAndKeepsTheRest() throws {
    let json = Data(
      #"""
      {"user":{"id":7,"access_token":"A","Password":"P","tokens":{"list":["x",{"v":"y"}],"n":3}},
       "items":[{"otp":"1"}],"error":{"code":"bad","message":"m"},"code":"9","note":null}
      """#.utf8)
    let redacted = try #require(redactor.redact(json: json))
    let expected: [String: Any] = [
      "user": [
        "id": 7, "access_token": "<redacted>", "Password": "<redacted>",
        "tokens": ["list": ["<redacted>", ["v": "<redacted>"]], "n": "<redacted>"],
      ],
      "items": [["otp": "<redacted>"]],
      "error": ["code": "bad", "message": "m"],
      "code": "<redacted>",
      "note": NSNull(),
    ]
    let parsed = try #require(jsonObject(Data(redacted.utf8)))
    #expect(NSDictionary(dictionary: parsed).isEqual(to: expected), "\(redacted)")
  }

  @Test func fallsBackToPatternsForBrokenJSON() {
    let truncated = #"{"nickname":"kim","refresh_token":"abc123","access_token":"de"#
    let redacted = redactor.redact(text: truncated)
    #expect(!redacted.contains("abc123"))
    #expect(!redacted.contains(#""de"#))
    #expect(redacted.contains(#""nickname":"kim""#))
  }

  @Test func hidesBearerCredentialsInFreeText() {
    let text = "upstream said: Authorization: Bearer eyJhbGciOi.payload.sig failed"
    #expect(redactor.redact(text: text) == "upstream said: Authorization: Bearer <redacted> failed")
  }

  @Test func hidesSensitiveFormAndQueryParameters() {
    #expect(
      redactor.redact(formEncoded: "grant_type=refresh&refresh_token=abc&x=1")
        == "grant_type=refresh&refresh_token=<redacted>&x=1")
    #expect(
      redactor.redact(pathAndQuery: "/a?b=1&sign_up_token=z") == "/a?b=1&sign_up_token=<redacted>")
    #expect(redactor.redact(pathAndQuery: "/no-query") == "/no-query")
  }

  @Test func describesBinaryAndMultipartBodiesBySize() {
    #expect(
      redactor.render(
        body: Data([0xFF, 0xFE, 0x00]), contentType: "application/octet-stream", limit: 100)
        == "<3 bytes>")
    #expect(
      redactor.render(
        body: Data("password=1".utf8), contentType: "multipart/form-data; boundary=x", limit: 100)
        == "<10 bytes of multipart/form-data>")
  }

  @Test func redactsHeaderFields() {
    let fields: HTTPFields = [
      .authorization: "Bearer t", .cookie: "a=b", .setCookie: "c=d", .proxyAuthorization: "Basic x",
      .accept: "application/json",
    ]
    let redacted = redactor.redact(fields)
    #expect(redacted[.authorization] == "<redacted>")
    #expect(redacted[.cookie] == "<redacted>")
    #expect(redacted[.setCookie] == "<redacted>")
    #expect(redacted[.proxyAuthorization] == "<redacted>")
    #expect(redacted[.accept] == "application/json")
  }
}

/// A JSON value of mixed types for request bodies in tests.
enum AnyEncodable: Encodable, Sendable, ExpressibleByStringLiteral, ExpressibleByDictionaryLiteral,
  ExpressibleByArrayLiteral
{
  case string(String)
  case object([String: AnyEncodable])
  case array([AnyEncodable])

  init(stringLiteral value: String) { self = .string(value) }
  init(dictionaryLiteral elements: (String, AnyEncodable)...) {
    self = .object(Dictionary(uniqueKeysWithValues: elements))
  }
  init(arrayLiteral elements: AnyEncodable...) { self = .array(elements) }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .string(let value): try container.encode(value)
    case .object(let value): try container.encode(value)
    case .array(let value): try container.encode(value)
    }
  }
}
