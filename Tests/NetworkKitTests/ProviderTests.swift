import Foundation
import HTTPTypes
import NetworkKit
import Testing

/// The provider against the real server, once per transport.
@Suite("Provider against the server")
struct ProviderTests {
  // The provider's default timeout (60 s): these tests are not about timeouts, and a loaded
  // machine running the whole suite once made a 10 s deadline fire on a plain request.
  private func provider(_ transport: NamedTransport) -> NetworkProvider {
    NetworkProvider(errorBody: .testEnvelope, transport: transport.transport, retryPolicy: .never)
  }

  @Test(arguments: NamedTransport.all)
  func decodesJSONEchoedByTheServer(transport: NamedTransport) async throws {
    struct Note: Codable, Sendable, Equatable {
      var title: String
      var tags: [String]
    }
    let server = try await TestServer.shared()
    let note = Note(title: "héllo \"world\"", tags: ["a", "b"])
    let echoed = try await provider(transport).request(
      TestTarget(.post, "/json", on: server.baseURL, task: .json(note)), as: Note.self)
    #expect(echoed == note)
  }

  @Test(arguments: NamedTransport.all)
  func pathAndQueryReachTheServerIntact(transport: NamedTransport) async throws {
    let server = try await TestServer.shared()
    let segments = ["a b", "x?y#z", "100%", "..", "ü/ß"]
    let target = TestTarget(
      .get, "/echo" + Path.make(segments), on: server.baseURL,
      task: .query([
        URLQueryItem(name: "q", value: "a+b&c=d é"),
        URLQueryItem(name: "next", value: "/x?y=1"),
      ]),
      headers: [HTTPField.Name("X-Trace")!: "abc"])
    let echo = try await provider(transport).request(target, as: Echo.self)
    #expect(echo.method == "GET")
    #expect(echo.segments == ["echo"] + segments)
    #expect(echo.query == "q=a%2Bb%26c%3Dd%20%C3%A9&next=%2Fx%3Fy%3D1")
    #expect(echo.queryItems == [["q", "a+b&c=d é"], ["next", "/x?y=1"]])
    #expect(echo.headers["x-trace"] == "abc")
  }

  @Test(arguments: NamedTransport.all)
  func multipartBodiesAreParsedByTheServer(transport: NamedTransport) async throws {
    let server = try await TestServer.shared()
    let image = Data((0...255).map(UInt8.init)) + Data("\r\n--not-a-boundary\r\n".utf8)
    let form = MultipartFormData(parts: [
      .init(name: "caption", data: Data("Sunset 🌅".utf8)),
      .init(name: "photo", fileName: "sun \"set\".jpg", contentType: "image/jpeg", data: image),
    ])
    let parts = try await provider(transport).request(
      TestTarget(.post, "/multipart", on: server.baseURL, task: .multipart(form)),
      as: [ParsedPart].self)
    #expect(
      parts == [
        ParsedPart(name: "caption", fileName: nil, contentType: nil, data: Data("Sunset 🌅".utf8)),
        ParsedPart(
          name: "photo", fileName: "sun %22set%22.jpg", contentType: "image/jpeg", data: image),
      ])
  }

  @Test(arguments: NamedTransport.all)
  func errorStatusesDecodeTheServerEnvelope(transport: NamedTransport) async throws {
    let server = try await TestServer.shared()
    let target = TestTarget(
      .post, "/status/409", on: server.baseURL,
      task: .query([
        URLQueryItem(name: "error_code", value: "nickname_taken"),
        URLQueryItem(name: "message", value: "Nickname is taken"),
        URLQueryItem(name: "field", value: "nickname"),
      ]))
    let error = await #expect(throws: NetworkError.self) {
      try await provider(transport).send(target)
    }
    #expect(error?.statusCode == 409, "\(String(describing: error))")
    #expect(
      error?.serverError
        == ServerError(code: "nickname_taken", message: "Nickname is taken", field: "nickname"))
    #expect(error?.description.contains("nickname_taken") == true)
  }

  @Test(arguments: NamedTransport.all)
  func nonJSONErrorBodiesAreKeptRaw(transport: NamedTransport) async throws {
    let server = try await TestServer.shared()
    let error = await #expect(throws: NetworkError.self) {
      try await provider(transport).send(TestTarget(.get, "/html502", on: server.baseURL))
    }
    #expect(error?.statusCode == 502 && error?.serverError == nil)
    guard case .status(let failure) = error else { return }
    #expect(failure.body == Data(TestServer.html502.utf8))
  }

  @Test(arguments: NamedTransport.all)
  func emptyErrorBodiesHaveNoEnvelope(transport: NamedTransport) async throws {
    let server = try await TestServer.shared()
    let error = await #expect(throws: NetworkError.self) {
      try await provider(transport).response(TestTarget(.delete, "/status/404", on: server.baseURL))
    }
    guard case .status(let failure) = error else { return }
    #expect(failure.status == 404 && failure.body.isEmpty && failure.serverError == nil)
  }

  @Test func acceptedStatusCodesComeFromTheTarget() async throws {
    struct Accepting404: TargetType {
      var baseURL: URL?
      var path: String { "/status/404" }
      var method: HTTPRequest.Method { .get }
      var task: HTTPTask { .plain }
      var authorization: AuthorizationRequirement { .none }
      var acceptedStatusCodes: ClosedRange<Int> { 200...404 }
    }
    let server = try await TestServer.shared()
    let provider = NetworkProvider(retryPolicy: .never)
    let response = try await provider.response(Accepting404(baseURL: server.baseURL))
    #expect(response.status == .notFound)
    #expect(response.request.path == "/status/404")
  }

  @Test func decodingFailuresNameTheTypeAndCodingPath() async throws {
    struct Item: Decodable { var id: Int }
    struct Page: Decodable { var items: [Item] }
    let server = try await TestServer.shared()
    let error = await #expect(throws: NetworkError.self) {
      try await NetworkProvider(retryPolicy: .never).request(
        TestTarget(.get, "/bad-json", on: server.baseURL), as: Page.self)
    }
    guard case .decoding(let type, let codingPath, _) = error else {
      Issue.record("expected a decoding error, got \(String(describing: error))")
      return
    }
    #expect(type.hasSuffix("Page"))
    #expect(codingPath == "items[1].id")
    #expect(error?.description.contains("'items[1].id'") == true)
  }

  @Test func theDecoderIsConfigurable() async throws {
    struct Pair: Decodable, Equatable { var accessToken: String }
    let server = try await TestServer.shared()
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    let provider = NetworkProvider(retryPolicy: .never, decoder: decoder)
    let pair = try await provider.request(
      TestTarget(.post, "/json", on: server.baseURL, task: .json(["access_token": "x"])),
      as: Pair.self)
    #expect(pair == Pair(accessToken: "x"))
  }

  @Test func pluginsPrepareTheRequestAndObserveEveryAttempt() async throws {
    let server = try await TestServer.shared()
    let recorder = RecordingPlugin()
    let provider = NetworkProvider(
      plugins: [HeaderPlugin([.userAgent: "QappleTests/1"]), recorder],
      retryPolicy: RetryPolicy(maxAttempts: 2, random: { $0.lowerBound }),
      clock: TestClock())
    let id = uniqueID()
    let echo = try await provider.request(
      TestTarget(.get, "/echo/\(id)", on: server.baseURL), as: Echo.self)
    #expect(echo.headers["user-agent"] == "QappleTests/1")
    #expect(echo.headers["x-prepared-by"] == "RecordingPlugin")

    _ = try await provider.response(
      TestTarget(
        .get, "/flaky/\(id)", on: server.baseURL,
        task: .query([.init(name: "failures", value: "1")])))
    #expect(await recorder.statuses == [200, 503, 200])
    #expect(await recorder.sentPaths.count == 3)
  }
}

/// Adds a header in `prepare` and records what it saw.
actor RecordingPlugin: NetworkPlugin {
  private(set) var sentPaths: [String] = []
  private(set) var statuses: [Int] = []

  nonisolated func prepare(
    _ request: HTTPRequest, body: Data?, target: any TargetType
  )
    async throws(NetworkError) -> HTTPRequest
  {
    var request = request
    request.headerFields[HTTPField.Name("X-Prepared-By")!] = "RecordingPlugin"
    return request
  }

  func willSend(_ request: HTTPRequest, body: Data?, target: any TargetType) async {
    sentPaths.append(request.path ?? "")
  }

  func didReceive(
    _ result: Result<NetworkResponse, NetworkError>, for request: HTTPRequest,
    target: any TargetType, duration: Duration
  ) async {
    if case .success(let response) = result { statuses.append(response.status.code) }
  }
}
