import Foundation
import Hummingbird
import Logging

/// A real Hummingbird 2 server on 127.0.0.1 with routes for every NetworkKit scenario.
///
/// One server is started per test process (port 0, the bound port is read in `onServerRunning`)
/// and shared by all tests; each test uses its own ids in paths and tokens, so tests can run in
/// parallel. The server's state is in-process, so tests read counters directly.
///
/// Routes:
/// - `ANY /echo/**`: describes the request as ``Echo`` JSON.
/// - `POST /json`: returns the request body as JSON.
/// - `ANY /status/:code?error_code=&message=&field=`: that status, with an error envelope when
///   `error_code` is given.
/// - `GET /html502`: a proxy-style HTML 502 page.
/// - `ANY /flaky/:id?failures=K&status=S&retry_after=V`: fails K times with S (and
///   `Retry-After: V`), then answers `{"calls": n}`.
/// - `ANY /protected/:id`: 401 unless the bearer token was issued by `/refresh` or `issue(_:)`.
/// - `POST /refresh?await_401s=N&scope=id`: exchanges `{"refresh_token"}` for a new access token;
///   401 for revoked tokens, 503 for tokens starting with `unavailable`; with `await_401s` it
///   answers only after `/protected/<scope>` has refused N requests.
/// - `GET /slow/:id`: never answers; it records when it starts and when the client goes away.
/// - `GET /session`: sets a cookie and returns tokens nested in JSON.
/// - `POST /multipart`: parses a multipart/form-data body into ``ParsedPart`` JSON.
/// - `GET /bad-json`: JSON whose second item has a string id.
final class TestServer: Sendable {
  let port: Int
  let state: ServerState

  var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

  private init(port: Int, state: ServerState) {
    self.port = port
    self.state = state
  }

  /// The process-wide server, started on first use.
  static func shared() async throws -> TestServer {
    try await launcher.server()
  }

  private static let launcher = Launcher()

  private actor Launcher {
    private var starting: Task<TestServer, any Error>?

    func server() async throws -> TestServer {
      if let starting { return try await starting.value }
      let task = Task { try await TestServer.start() }
      starting = task
      return try await task.value
    }
  }

  private static func start() async throws -> TestServer {
    let state = ServerState()
    let router = Router()
    addRoutes(to: router, state: state)
    let port = try await runForTestProcess("TestServer") { reportPort, logger in
      Application(
        router: router,
        configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { reportPort($0.localAddress?.port) }, logger: logger)
    }
    return TestServer(port: port, state: state)
  }

  // MARK: - Routes

  private static let allMethods: [HTTPRequest.Method] = [.get, .post, .put, .patch, .delete]

  private static func addRoutes(to router: Router<BasicRequestContext>, state: ServerState) {
    for method in allMethods {
      router.on("/echo/**", method: method) { request, _ in
        var request = request
        let body = Data(try await request.collectBody(upTo: 16 << 20).readableBytesView)
        return try json(Echo(request: request, body: body))
      }
      router.on("/status/:code", method: method) { request, context in
        let code = try context.parameters.require("code", as: Int.self)
        let query = request.uri.queryParameters
        guard let errorCode = query["error_code"].map(String.init) else {
          return Response(status: .init(code: code))
        }
        let error = ServerErrorBody(
          code: errorCode, message: query["message"].map(String.init) ?? "",
          field: query["field"].map(String.init))
        return try json(["error": error], status: .init(code: code))
      }
      router.on("/flaky/:id", method: method) { request, context in
        let id = try context.parameters.require("id")
        let query = request.uri.queryParameters
        let failures = query["failures"].flatMap { Int($0) } ?? 0
        let status = query["status"].flatMap { Int($0) } ?? 503
        let calls = await state.increment("flaky:\(id)")
        guard calls > failures else {
          var response = try json(
            ["error": ServerErrorBody(code: "unavailable", message: "try again", field: nil)],
            status: .init(code: status))
          if let retryAfter = query["retry_after"] {
            response.headers[.retryAfter] = String(retryAfter)
          }
          return response
        }
        return try json(["calls": calls])
      }
      router.on("/protected/:id", method: method) { request, context in
        let id = try context.parameters.require("id")
        let authorization = request.headers[.authorization] ?? ""
        let token = authorization.hasPrefix("Bearer ") ? String(authorization.dropFirst(7)) : ""
        guard await state.isValid(accessToken: token) else {
          let refused = await state.increment("protected-401:\(id)")
          await state.fire("protected-401:\(id):\(refused)")
          return try json(
            ["error": ServerErrorBody(code: "token_expired", message: "expired", field: nil)],
            status: .unauthorized)
        }
        return try json(["calls": await state.increment("protected:\(id)")])
      }
    }

    router.post("/json") { request, _ in
      var request = request
      let body = try await request.collectBody(upTo: 16 << 20)
      return Response(
        status: .ok, headers: [.contentType: "application/json"],
        body: .init(byteBuffer: body))
    }

    router.get("/html502") { _, _ in
      Response(
        status: .badGateway, headers: [.contentType: "text/html"],
        body: .init(byteBuffer: ByteBuffer(string: html502)))
    }

    router.post("/refresh") { request, _ in
      var request = request
      let body = Data(try await request.collectBody(upTo: 1 << 20).readableBytesView)
      let refreshToken =
        try JSONDecoder().decode([String: String].self, from: body)[
          "refresh_token"] ?? ""
      _ = await state.increment("refresh:\(refreshToken)")
      let query = request.uri.queryParameters
      if let scope = query["scope"], let count = query["await_401s"].flatMap({ Int($0) }) {
        await state.wait(for: "protected-401:\(scope):\(count)")
      }
      if await state.isRevoked(refreshToken: refreshToken) {
        return try json(
          ["error": ServerErrorBody(code: "unauthorized", message: "revoked", field: nil)],
          status: .unauthorized)
      }
      if refreshToken.hasPrefix("unavailable") {
        return Response(status: .serviceUnavailable)
      }
      let accessToken = "access-\(UUID().uuidString)"
      await state.issue(accessToken: accessToken)
      return try json(
        TokenPair(accessToken: accessToken, refreshToken: refreshToken, expiresIn: 3600))
    }

    router.get("/slow/:id") { request, context in
      let id = try context.parameters.require("id")
      await state.fire("slow-started:\(id)")
      return try await request.body.consumeWithInboundCloseHandler { _ in
        await state.wait(for: "slow-release:\(id)")
        return Response(status: .ok)
      } onInboundClosed: {
        Task {
          await state.fire("slow-closed:\(id)")
          await state.fire("slow-release:\(id)")
        }
      }
    }

    router.get("/session") { _, _ in
      var response = try json(sessionBody)
      response.headers[.setCookie] = "session=cookie-secret-3f9a; HttpOnly"
      return response
    }

    router.post("/multipart") { request, _ in
      var request = request
      let body = Data(try await request.collectBody(upTo: 16 << 20).readableBytesView)
      let contentType = request.headers[.contentType] ?? ""
      guard let boundary = contentType.components(separatedBy: "boundary=").last,
        contentType.hasPrefix("multipart/form-data"),
        let parts = MultipartParser.parse(body, boundary: boundary)
      else { return Response(status: .badRequest) }
      return try json(parts)
    }

    router.get("/bad-json") { _, _ in
      Response(
        status: .ok, headers: [.contentType: "application/json"],
        body: .init(
          byteBuffer: ByteBuffer(
            string: #"{"items":[{"id":1,"name":"a"},{"id":"two","name":"b"}]}"#)))
    }
  }

  private static func json(
    _ value: some Encodable, status: HTTPResponse.Status = .ok
  ) throws
    -> Response
  {
    let data = try JSONEncoder().encode(value)
    return Response(
      status: status, headers: [.contentType: "application/json"],
      body: .init(byteBuffer: ByteBuffer(bytes: data)))
  }

  static let html502 = "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"

  /// Secrets at several depths, in a JSON body the logging tests look for.
  static let sessionBody: [String: [String: [String: String]]] = [
    "session": [
      "tokens": ["access": "resp-access-7c1d", "refresh": "resp-refresh-88e2"],
      "user": ["nickname": "visible-nickname", "sign_up_token": "resp-signup-0f0f"],
    ]
  ]
}

// MARK: - Wire types shared by server and tests

/// What `/echo/**` saw.
struct Echo: Codable, Sendable {
  var method: String
  var path: String
  var query: String?
  var queryItems: [[String]]
  var segments: [String]
  var headers: [String: String]
  var body: String

  init(request: Request, body: Data) {
    method = request.method.rawValue
    path = request.uri.path
    query = request.uri.query
    queryItems = (request.uri.query ?? "").split(separator: "&").map { pair in
      pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
        String($0).removingPercentEncoding ?? String($0)
      }
    }
    segments = request.uri.path.split(separator: "/").map {
      String($0).removingPercentEncoding ?? String($0)
    }
    var headers: [String: String] = [:]
    for field in request.headers {
      let name = field.name.canonicalName
      headers[name] = headers[name].map { $0 + ", " + field.value } ?? field.value
    }
    self.headers = headers
    self.body = String(decoding: body, as: UTF8.self)
  }
}

/// The `error` object of the server's error envelope.
struct ServerErrorBody: Codable, Sendable {
  var code: String
  var message: String
  var field: String?
}

/// What `/refresh` returns.
struct TokenPair: Codable, Sendable {
  var accessToken: String
  var refreshToken: String
  var expiresIn: Int

  enum CodingKeys: String, CodingKey {
    case accessToken = "access_token"
    case refreshToken = "refresh_token"
    case expiresIn = "expires_in"
  }
}

/// One part of a multipart body as the server parsed it.
struct ParsedPart: Codable, Sendable, Equatable {
  var name: String
  var fileName: String?
  var contentType: String?
  var data: Data
}

/// The server's mutable state: counters, issued tokens and one-shot signals tests can await.
actor ServerState {
  private var counters: [String: Int] = [:]
  private var validAccessTokens: Set<String> = []
  private var revokedRefreshTokens: Set<String> = []
  private var fired: Set<String> = []
  private var waiters: [String: [UUID: CheckedContinuation<Void, Never>]] = [:]

  func increment(_ key: String) -> Int {
    counters[key, default: 0] += 1
    return counters[key]!
  }

  func count(_ key: String) -> Int { counters[key] ?? 0 }

  func issue(accessToken: String) { validAccessTokens.insert(accessToken) }
  func isValid(accessToken: String) -> Bool { validAccessTokens.contains(accessToken) }

  func revoke(refreshToken: String) { revokedRefreshTokens.insert(refreshToken) }
  func isRevoked(refreshToken: String) -> Bool { revokedRefreshTokens.contains(refreshToken) }

  /// Marks `signal` as happened and wakes everyone waiting for it.
  func fire(_ signal: String) {
    fired.insert(signal)
    for waiter in (waiters.removeValue(forKey: signal) ?? [:]).values { waiter.resume() }
  }

  /// Returns once `signal` has fired (at once if it already has), or once the waiting task is
  /// cancelled: a suite's time limit then ends a test whose signal never comes instead of
  /// leaving it suspended forever.
  func wait(for signal: String) async {
    if fired.contains(signal) { return }
    let id = UUID()
    await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        // On the actor: either cancelled already, or stored before `stopWaiting` can run.
        if Task.isCancelled { return continuation.resume() }
        waiters[signal, default: [:]][id] = continuation
      }
    } onCancel: {
      Task { await self.stopWaiting(id, for: signal) }
    }
  }

  private func stopWaiting(_ id: UUID, for signal: String) {
    waiters[signal]?.removeValue(forKey: id)?.resume()
  }

  func hasFired(_ signal: String) -> Bool { fired.contains(signal) }
}

/// A small multipart/form-data parser, enough to check what NetworkKit sends.
enum MultipartParser {
  static func parse(_ body: Data, boundary: String) -> [ParsedPart]? {
    let delimiter = Data("--\(boundary)".utf8)
    let crlf = Data("\r\n".utf8)
    var parts: [ParsedPart] = []
    guard var cursor = body.range(of: delimiter)?.upperBound else { return nil }
    while true {
      // After a delimiter: "--" ends the body, CRLF starts a part.
      if body[cursor...].starts(with: Data("--".utf8)) { return parts }
      guard body[cursor...].starts(with: crlf) else { return nil }
      cursor += crlf.count
      guard let headerEnd = body.range(of: Data("\r\n\r\n".utf8), in: cursor..<body.endIndex),
        let next = body.range(of: crlf + delimiter, in: headerEnd.upperBound..<body.endIndex)
      else { return nil }
      let headerText = String(decoding: body[cursor..<headerEnd.lowerBound], as: UTF8.self)
      var part = ParsedPart(
        name: "", fileName: nil, contentType: nil,
        data: Data(body[headerEnd.upperBound..<next.lowerBound]))
      for line in headerText.components(separatedBy: "\r\n") {
        let lowered = line.lowercased()
        if lowered.hasPrefix("content-disposition:") {
          part.name = value(of: "name", in: line) ?? ""
          part.fileName = value(of: "filename", in: line)
        } else if lowered.hasPrefix("content-type:") {
          part.contentType = line.dropFirst("content-type:".count)
            .trimmingCharacters(in: .whitespaces)
        }
      }
      parts.append(part)
      cursor = next.upperBound
    }
  }

  private static func value(of parameter: String, in line: String) -> String? {
    for item in line.components(separatedBy: ";") {
      let trimmed = item.trimmingCharacters(in: .whitespaces)
      guard trimmed.hasPrefix("\(parameter)=\"") else { continue }
      return String(trimmed.dropFirst(parameter.count + 2).dropLast())
    }
    return nil
  }
}

/// Runs the Hummingbird app that `make` builds on 127.0.0.1 until the test process exits (the
/// test servers are shared by every test) and returns the port it bound. `make` gets a closure
/// to call from `onServerRunning` with the bound port, and a quiet logger named `name`.
func runForTestProcess<App: ApplicationProtocol>(
  _ name: String,
  _ make: (_ reportPort: @escaping @Sendable (Int?) -> Void, Logger) -> App
) async throws -> Int {
  let (ports, continuation) = AsyncStream<Int>.makeStream()
  var logger = Logger(label: name)
  logger.logLevel = .critical
  let app = make(
    { port in
      continuation.yield(port ?? 0)
      continuation.finish()
    }, logger)
  Task.detached {
    do {
      try await app.run()
    } catch {
      print("\(name) stopped: \(error)")
    }
    continuation.finish()
  }
  var iterator = ports.makeAsyncIterator()
  guard let port = await iterator.next(), port > 0 else { throw TestServerStartupFailed(name) }
  return port
}

/// A test server did not report a port.
struct TestServerStartupFailed: Error, CustomStringConvertible {
  let name: String
  init(_ name: String) { self.name = name }
  var description: String { "\(name) did not start" }
}
