import DTO
import Domain
import Foundation
import Hummingbird
import HummingbirdTesting
import LocalServer
import Logging
import TestSupport
import Testing

/// 2026-11-21 12:00 in Seoul: a fixed "now" so dates and "today" are predictable.
let testEpoch = Date(timeIntervalSince1970: 1_795_230_000)

extension ServerConfiguration {
  /// In memory, a stopped clock at `testEpoch`, no rate limit (tests that need one set it),
  /// week-long access tokens so tests that move the clock keep their sessions.
  static func testing(
    devMode: Bool = false, rateLimit: RateLimit? = nil, maxBodySize: Int = 1 << 20,
    seed: Seed = .none, database: Database = .inMemory,
    accessTokenLifetime: Duration = .seconds(7 * 86_400), faults: [FaultRule] = [],
    clock: ServerClock = ServerClock(fixed: testEpoch)
  ) -> ServerConfiguration {
    ServerConfiguration(
      port: 0, database: database, seed: seed, devMode: devMode,
      accessTokenLifetime: accessTokenLifetime, rateLimit: rateLimit, maxBodySize: maxBodySize,
      logLevel: .error, faults: faults, clock: clock)
  }
}

/// An HTTP answer as the tests look at it.
struct HTTPResult: Sendable {
  var status: HTTPResponse.Status
  var headers: HTTPFields
  var body: Data

  func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
    try QappleCoding.makeDecoder().decode(T.self, from: body)
  }

  /// The error body, when the answer is an error envelope.
  var error: ErrorBodyDTO? { try? decode(ErrorEnvelopeDTO.self).error }

  /// The body as a JSON object, to look at raw keys (explicit nulls).
  var object: [String: Any]? {
    (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
  }
}

/// A running server on 127.0.0.1 (random port) and a client connected to it.
struct Harness: Sendable {
  let server: QappleServer
  let url: URL
  let client: TestClient

  var clock: ServerClock { server.clock }
  var port: Int { url.port ?? 0 }

  /// Sends a request; `json` is encoded with the API's encoder, `raw` is sent as is.
  @discardableResult
  func send(
    _ method: HTTPRequest.Method, _ path: String, token: String? = nil,
    json: (any Encodable & Sendable)? = nil, raw: Data? = nil, contentType: String? = nil,
    headers: HTTPFields = [:], using client: TestClient? = nil
  ) async throws -> HTTPResult {
    var fields = headers
    var body: ByteBuffer?
    if let json {
      body = ByteBuffer(bytes: try QappleCoding.makeEncoder().encode(json))
      fields[.contentType] = contentType ?? "application/json"
    } else if let raw {
      body = ByteBuffer(bytes: raw)
      if let contentType { fields[.contentType] = contentType }
    }
    if let token { fields[.authorization] = "Bearer \(token)" }
    let request = TestClient.Request(
      path, method: method, authority: "127.0.0.1:\(port)", headers: fields, body: body)
    let response = try await (client ?? self.client).execute(request)
    let result = HTTPResult(
      status: response.status, headers: response.headers,
      body: response.body.map { Data(buffer: $0) } ?? Data())
    // A dev-mode fault answers whatever status it was told to.
    if result.error?.message.hasPrefix("Injected fault") != true {
      ContractDocument.checkListed(response.status, method, path)
    }
    return result
  }

  /// Sends and checks the status, returning the decoded body.
  func expect<T: Decodable>(
    _ status: HTTPResponse.Status, _ type: T.Type, _ method: HTTPRequest.Method, _ path: String,
    token: String? = nil, json: (any Encodable & Sendable)? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> T {
    let result = try await send(method, path, token: token, json: json)
    #expect(
      result.status == status, "\(method) \(path): \(String(decoding: result.body, as: UTF8.self))",
      sourceLocation: sourceLocation)
    return try result.decode(T.self)
  }

  /// Sends and checks that the answer is the error envelope with `code` (and `field`).
  @discardableResult
  func expectError(
    _ status: HTTPResponse.Status, _ code: String, field: String? = nil,
    _ method: HTTPRequest.Method, _ path: String, token: String? = nil,
    json: (any Encodable & Sendable)? = nil, raw: Data? = nil, contentType: String? = nil,
    headers: HTTPFields = [:], sourceLocation: SourceLocation = #_sourceLocation
  ) async throws -> HTTPResult {
    let result = try await send(
      method, path, token: token, json: json, raw: raw, contentType: contentType,
      headers: headers)
    let body = String(decoding: result.body, as: UTF8.self)
    #expect(result.status == status, "\(method) \(path): \(body)", sourceLocation: sourceLocation)
    #expect(
      result.error?.code == code, "\(method) \(path): \(body)", sourceLocation: sourceLocation)
    if let field {
      #expect(
        result.error?.field == field, "\(method) \(path): \(body)", sourceLocation: sourceLocation)
    }
    return result
  }

  // MARK: Accounts

  /// Signs up a new account through the whole flow (sign-in, e-mail code, verify, sign-up).
  func signUp(
    _ nickname: String, token: String? = nil, cohort: String? = nil
  ) async throws
    -> SessionDTO
  {
    let devToken = token ?? "dev-\(nickname)"
    let signIn = try await expect(
      .ok, SignInResponseDTO.self, .post, "/auth/sign-in",
      json: SignInRequest(provider: "dev", token: devToken))
    let signUpToken = try #require(signIn.signUpToken)
    let email = "\(devToken)@academy.example"
    _ = try await expect(
      .accepted, EmailCodeSentDTO.self, .post, "/auth/email/code",
      json: EmailCodeRequest(signUpToken: signUpToken, email: email))
    let code = try #require(try server.engine.lastEmailCode(for: email))
    let verified = try await expect(
      .ok, EmailVerifiedDTO.self, .post, "/auth/email/verify",
      json: EmailVerifyRequest(signUpToken: signUpToken, email: email, code: code))
    return try await expect(
      .created, SessionDTO.self, .post, "/auth/sign-up",
      json: SignUpRequest(
        signUpToken: signUpToken, verificationToken: verified.verificationToken,
        nickname: nickname, cohort: cohort, agreedTermsVersion: "2026-03"))
  }

  /// Signs up and returns the access token.
  func member(_ nickname: String) async throws -> String {
    try await signUp(nickname).accessToken
  }

  /// Signs up an account and makes it an admin; returns its access token.
  func admin(_ nickname: String = "Moderator1") async throws -> String {
    let token = try await member(nickname)
    try server.engine.promoteToAdmin(nickname: nickname)
    return token
  }

  /// Schedules a question through the admin API.
  @discardableResult
  func createQuestion(
    _ content: String, on day: String, admin: String
  ) async throws
    -> AdminQuestionDTO
  {
    try await expect(
      .created, AdminQuestionDTO.self, .post, "/admin/questions", token: admin,
      json: CreateQuestionRequest(content: content, publishDate: day))
  }

  /// Writes a post and returns it.
  func post(_ content: String, anonymous: Bool = false, token: String) async throws -> PostDTO {
    try await expect(
      .created, PostDTO.self, .post, "/posts", token: token,
      json: CreatePostRequest(content: content, isAnonymous: anonymous))
  }

  /// Creates the study group `name` as `token`'s user and returns it with its chat room.
  func groupWithRoom(
    _ name: String, token: String
  ) async throws -> (group: StudyGroupDTO, room: ChatRoomDTO) {
    let group = try await expect(
      .created, StudyGroupDTO.self, .post, "/groups", token: token,
      json: CreateGroupRequest(name: name, description: ""))
    let rooms = try await expect(
      .ok, PageDTO<ChatRoomDTO>.self, .get, "/chat/rooms", token: token)
    return (group, try #require(rooms.items.first { $0.groupId == group.id }))
  }

  /// A second client on its own connection (concurrency, dropped connections).
  func newClient() -> TestClient {
    TestClient.connected(to: port)
  }
}

extension TestClient {
  /// A connected client of the server on 127.0.0.1:`port` that waits up to 45 s for each read,
  /// not HummingbirdTesting's 15 s: beside the rest of the suite on a loaded two-core machine,
  /// a debug build's answers (a 1,500-row import, a demo seed) took longer than that, and a
  /// passing test never waits so long.
  static func connected(to port: Int) -> TestClient {
    let client = TestClient(
      host: "127.0.0.1", port: port, configuration: .init(timeout: .seconds(45)))
    client.connect()
    return client
  }
}

/// Starts a server (logging to `logger` when given), runs `body` against it, then stops it
/// (also when `body` throws).
func withServer<T: Sendable>(
  _ configuration: ServerConfiguration = .testing(), logger: Logger? = nil,
  _ body: @Sendable (Harness) async throws -> T
) async throws -> T {
  let server = try QappleServer(configuration: configuration, logger: logger)
  let url = try await server.start()
  let client = TestClient.connected(to: url.port ?? 0)
  let harness = Harness(server: server, url: url, client: client)
  do {
    let value = try await body(harness)
    try? await client.shutdown()
    await server.stop()
    return value
  } catch {
    try? await client.shutdown()
    await server.stop()
    throw error
  }
}

/// Runs `body` like ``withServer(_:logger:_:)``, on a database file of its own (in a
/// temporary folder, removed afterwards) instead of `configuration`'s database; `body` gets
/// the file's path, to reach it from the side (``failInserts(into:when:ofDatabaseAt:)``).
func withFileServer<T: Sendable>(
  _ configuration: ServerConfiguration = .testing(), logger: Logger? = nil,
  _ body: @Sendable (Harness, _ path: String) async throws -> T
) async throws -> T {
  let folder = try TemporaryDirectory("qapple-server")
  defer { folder.remove() }
  let path = folder.path("qapple.sqlite")
  var configuration = configuration
  configuration.database = .file(path: path)
  return try await withServer(configuration, logger: logger) { h in try await body(h, path) }
}

/// Today's date of the test clock in Seoul, shifted by `days`.
func testDay(_ days: Int = 0) -> String {
  CalendarDay(containing: testEpoch, in: .seoul).adding(days: days).iso8601
}
