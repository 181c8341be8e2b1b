import DTO
import Domain
import Foundation
import Hummingbird
import HummingbirdTesting
import LocalServer
import ServiceEngine
import TestSupport
import Testing

@Suite("Rate limit, fault injection, lifecycle, seed")
struct OperationsTests {
  @Test("writes over the limit are 429 with Retry-After; the window moves with the clock")
  func rateLimit() async throws {
    let limit = ServerConfiguration.RateLimit(count: 4, window: .seconds(10))
    try await withServer(.testing(rateLimit: limit)) { h in
      // Sign-up makes four public writes, counted per address; posts count per user.
      let token = try await h.member("Hasty")
      for index in 0..<4 {
        _ = try await h.post("Post \(index)", token: token)
        h.clock.advance(by: .seconds(1))
      }
      let limited = try await h.expectError(
        .tooManyRequests, "rate_limited", .post, "/posts", token: token,
        json: CreatePostRequest(content: "One too many", isAnonymous: true))
      #expect(limited.headers[.retryAfter] == "6")
      #expect(
        limited.error?.message == DomainError.rateLimited(retryAfter: .seconds(6)).description)
      // Reads are not limited; public writes count per address (sign-up used all four).
      _ = try await h.expect(.ok, PageDTO<PostDTO>.self, .get, "/posts", token: token)
      try await h.expectError(
        .tooManyRequests, "rate_limited", .post, "/auth/sign-in",
        json: SignInRequest(provider: "dev", token: "fifth-public-write"))
      h.clock.advance(by: .seconds(7))
      _ = try await h.post("Patient now", token: token)
    }
  }

  @Test(
    "a repeat with its Idempotency-Key gets the stored answer even when the write limit is used up")
  func replayIsNotAWrite() async throws {
    let limit = ServerConfiguration.RateLimit(count: 4, window: .seconds(10))
    try await withServer(.testing(rateLimit: limit)) { h in
      let token = try await h.member("Retrier")
      let request = CreatePostRequest(content: "Sent once", isAnonymous: false)
      let key: HTTPFields = [.init("Idempotency-Key")!: "post-1"]
      let first = try await h.send(.post, "/posts", token: token, json: request, headers: key)
      #expect(first.status == .created)
      for index in 0..<3 { _ = try await h.post("Post \(index)", token: token) }
      // The answer to the first was lost; its retry comes with the limit used up.
      let repeated = try await h.send(.post, "/posts", token: token, json: request, headers: key)
      #expect(repeated.status == .created)
      #expect(repeated.headers[.init("Idempotent-Replayed")!] == "true")
      #expect(try repeated.decode(PostDTO.self).id == first.decode(PostDTO.self).id)
      try await h.expectError(
        .tooManyRequests, "rate_limited", .post, "/posts", token: token,
        json: CreatePostRequest(content: "A new write", isAnonymous: false))
    }
  }

  @Test("a chat send repeated with its client message id is answered when the limit is used up")
  func chatResendIsNotAWrite() async throws {
    let limit = ServerConfiguration.RateLimit(count: 4, window: .seconds(10))
    try await withServer(.testing(rateLimit: limit)) { h in
      let token = try await h.member("Chatty")
      let room = try await h.groupWithRoom("Retries", token: token).room
      func send(_ text: String, id: UUID) async throws -> HTTPResult {
        try await h.send(
          .post, "/chat/rooms/\(room.id)/messages", token: token,
          json: SendMessageRequest(clientMessageId: id, text: text),
          headers: [.init("Idempotency-Key")!: id.uuidString])
      }
      let ids = [UUID(), UUID(), UUID()]
      for (index, id) in ids.enumerated() {
        #expect(try await send("Message \(index)", id: id).status == .created)
      }
      // The group and three messages used the limit up; the last answer was lost: its resend
      // gets the message, and does not count.
      let resent = try await send("Message 2", id: ids[2])
      #expect(resent.status == .ok, "\(resent)")
      #expect(try resent.decode(ChatMessageDTO.self).seq == 3)
      let fresh = try await send("A new message", id: UUID())
      #expect(fresh.status == .tooManyRequests)
      #expect(fresh.error?.code == "rate_limited")
    }
  }

  @Test("a write whose answer cannot be stored for its Idempotency-Key still answers its result")
  func unstoredReplyKeepsTheWrite() async throws {
    let capture = LogCapture()
    try await withFileServer(logger: capture.logger) { h, path in
      try failInserts(into: "idempotency", ofDatabaseAt: path)
      let token = try await h.member("Unlucky")
      let key: HTTPFields = [.init("Idempotency-Key")!: "post-1"]
      let answer = try await h.send(
        .post, "/posts", token: token,
        json: CreatePostRequest(content: "Stored anyway", isAnonymous: false), headers: key)
      #expect(answer.status == .created)
      let posts = try await h.expect(.ok, PageDTO<PostDTO>.self, .get, "/posts", token: token)
      #expect(posts.items.map(\.content) == ["Stored anyway"])
      #expect(capture.entries.contains { $0.level == .error && $0.message.contains("post-1") })
    }
  }

  @Test("analytics uploads count against a limit of their own, not the member's writes")
  func analyticsRateLimit() async throws {
    let limit = ServerConfiguration.RateLimit(count: 4, window: .seconds(10))
    try await withServer(.testing(rateLimit: limit)) { h in
      let token = try await h.member("Tracked")
      let event = AnalyticsEventDTO(
        name: "screen_viewed", properties: [:], occurredAt: testEpoch)
      let batch = AnalyticsBatchRequest(events: [event])
      for _ in 0..<4 {
        _ = try await h.expect(
          .accepted, AnalyticsBatchResultDTO.self, .post, "/analytics/events", token: token,
          json: batch)
      }
      try await h.expectError(
        .tooManyRequests, "rate_limited", .post, "/analytics/events", token: token, json: batch)
      // The member's own writes are untouched by the backlog.
      for index in 0..<4 { _ = try await h.post("Post \(index)", token: token) }
    }
  }

  @Test("without dev mode /_dev is 404 and faults are off")
  func devEndpointsNeedDevMode() async throws {
    let rule = FaultRule(errorRate: 1, errorStatus: 503)
    try await withServer(.testing(faults: [rule])) { h in
      try await h.expectError(.notFound, "not_found", .get, "/_dev/faults")
      try await h.expectError(.notFound, "not_found", .delete, "/_dev/faults")
      _ = try await h.member("Unbothered")
    }
  }

  @Test("dev mode: faults by operation and path, set and cleared at runtime")
  func faults() async throws {
    try await withServer(.testing(devMode: true)) { h in
      let token = try await h.member("Chaos")
      let settings =
        #"{"rules":[{"operation":"BoardAPI.posts","error_rate":1,"error_status":503}]}"#
      let set = try await h.send(
        .put, "/_dev/faults", raw: Data(settings.utf8), contentType: "application/json")
      #expect(set.status == .ok)
      try await h.expectError(.serviceUnavailable, "internal", .get, "/posts", token: token)
      // Other operations are untouched.
      _ = try await h.post("Still works", token: token)

      let prefix =
        #"{"rules":[{"path_prefix":"/notifications","error_rate":1,"error_status":429}]}"#
      _ = try await h.send(
        .put, "/_dev/faults", raw: Data(prefix.utf8), contentType: "application/json")
      let limited = try await h.expectError(
        .tooManyRequests, "rate_limited", .get, "/notifications/unread-count", token: token)
      #expect(limited.headers[.retryAfter] != nil)
      _ = try await h.expect(.ok, PageDTO<PostDTO>.self, .get, "/posts", token: token)

      let current = try await h.send(.get, "/_dev/faults")
      let rules = try #require(current.object?["rules"] as? [[String: Any]])
      #expect(rules.first?["path_prefix"] as? String == "/notifications")
      #expect(rules.first?["operation"] is NSNull)

      try await h.expectError(
        .badRequest, "validation_failed", field: "rules[0].error_rate", .put, "/_dev/faults",
        raw: Data(#"{"rules":[{"error_rate":2}]}"#.utf8), contentType: "application/json")
      // Added latency is shown back in milliseconds and the request still succeeds.
      let slow = #"{"rules":[{"operation":"MeAPI.me","latency_ms":5}]}"#
      let shown = try await h.send(
        .put, "/_dev/faults", raw: Data(slow.utf8), contentType: "application/json")
      let shownRules = try #require(shown.object?["rules"] as? [[String: Any]])
      #expect(shownRules.first?["latency_ms"] as? Int == 5)
      _ = try await h.expect(.ok, UserDTO.self, .get, "/me", token: token)
      #expect(try await h.send(.delete, "/_dev/faults").status == .noContent)
      _ = try await h.expect(
        .ok, UnreadCountDTO.self, .get, "/notifications/unread-count", token: token)
    }
  }

  @Test("dev mode: a dropped connection gets no answer at all")
  func droppedConnection() async throws {
    let rule = FaultRule(target: .operation("MeAPI.me"), dropRate: 1)
    try await withServer(.testing(devMode: true, faults: [rule])) { h in
      let token = try await h.member("Dropped")
      let client = h.newClient()
      await #expect(throws: (any Error).self) {
        _ = try await h.send(.get, "/me", token: token, using: client)
      }
      try? await client.shutdown()
      _ = try await h.expect(.ok, PageDTO<PostDTO>.self, .get, "/posts", token: token)
    }
  }

  @Test("dev mode: an operation's faults hit only the requests the router sends to it")
  func faultsFollowTheRouter() async throws {
    // `/posts/search` is its own route (GET only): a DELETE there is 405, not BoardAPI.delete.
    let rule = FaultRule(target: .operation("BoardAPI.delete"), errorRate: 1, errorStatus: 503)
    try await withServer(.testing(devMode: true, faults: [rule])) { h in
      let token = try await h.member("Router")
      let wrongMethod = try await h.send(.delete, "/posts/search", token: token)
      #expect(wrongMethod.status == .methodNotAllowed)
      let deletion = try await h.send(.delete, "/posts/p_1", token: token)
      #expect(deletion.status == .serviceUnavailable)
    }
  }

  @Test("the same fault seed gives the same sequence of failures")
  func seededFaults() async throws {
    func run() async throws -> [Bool] {
      let rule = FaultRule(target: .pathPrefix("/posts"), errorRate: 0.5, errorStatus: 500)
      return try await withServer(.testing(devMode: true, faults: [rule])) { h in
        let token = try await h.member("Dice")
        var failures: [Bool] = []
        for _ in 0..<16 {
          failures.append(
            try await h.send(.get, "/posts", token: token).status == .internalServerError)
        }
        return failures
      }
    }
    let first = try await run()
    let second = try await run()
    #expect(first == second)
    #expect(first.contains(true))
    #expect(first.contains(false))
  }

  @Test("fault rules parse from the command-line form and refuse bad numbers")
  func faultRuleParsing() throws {
    let rule = try FaultRule(parsing: "path=/posts, latency=250ms, error-rate=0.25, status=502")
    #expect(rule.target == .pathPrefix("/posts"))
    #expect(rule.latency == .milliseconds(250))
    #expect(rule.errorRate == 0.25)
    #expect(rule.errorStatus == 502)
    #expect(
      try FaultRule(parsing: "op=BoardAPI.like,drop-rate=1").target == .operation("BoardAPI.like"))
    #expect(throws: FaultRule.Invalid.self) { try FaultRule(parsing: "error-rate=1.5") }
    #expect(throws: FaultRule.Invalid.self) { try FaultRule(parsing: "status=200") }
    #expect(throws: FaultRule.Invalid.self) { try FaultRule(parsing: "colour=blue") }
    let fast = #expect(throws: FaultRule.Invalid.self) { try FaultRule(parsing: "latency=fast") }
    #expect(fast?.field == "latency")
    #expect(fast?.description == #"latency takes milliseconds, got "fast"."#)
  }

  @Test("data survives a restart on a file database; the demo seed loads once")
  func persistenceAndSeed() async throws {
    let directory = try TemporaryDirectory("qapple")
    defer { directory.remove() }
    let path = directory.path("qapple.sqlite")
    let configuration = ServerConfiguration.testing(seed: .demo, database: .file(path: path))

    let (postID, counts) = try await withServer(configuration) { h in
      let signIn = try await h.expect(
        .ok, SignInResponseDTO.self, .post, "/auth/sign-in",
        json: SignInRequest(provider: "dev", token: DemoSeed.adminToken))
      let admin = try #require(signIn.session)
      #expect(admin.user.role == .admin)
      let stats = try await h.expect(
        .ok, AdminStatsDTO.self, .get, "/admin/stats", token: admin.accessToken)
      #expect(stats.users == 11)
      #expect(stats.posts == 40)
      #expect(stats.questions == 25)
      #expect(stats.groups == 4)
      #expect(stats.openReports >= 2)
      #expect(stats.messages > 0)
      let post = try await h.post("Written before the restart", token: admin.accessToken)
      return (post.id, stats)
    }

    // Stopping folded the write-ahead log into the database file.
    let wal = try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int
    #expect((wal ?? 0) == 0)

    try await withServer(configuration) { h in
      let signIn = try await h.expect(
        .ok, SignInResponseDTO.self, .post, "/auth/sign-in",
        json: SignInRequest(provider: "dev", token: "demo-1"))
      let token = try #require(signIn.session?.accessToken)
      let post = try await h.expect(.ok, PostDTO.self, .get, "/posts/\(postID)", token: token)
      #expect(post.content == "Written before the restart")
      let adminSignIn = try await h.expect(
        .ok, SignInResponseDTO.self, .post, "/auth/sign-in",
        json: SignInRequest(provider: "dev", token: DemoSeed.adminToken))
      let admin = try #require(adminSignIn.session?.accessToken)
      let stats = try await h.expect(.ok, AdminStatsDTO.self, .get, "/admin/stats", token: admin)
      // Seeded once: the restart added nothing but the post written above.
      #expect(stats.users == counts.users)
      #expect(stats.posts == counts.posts + 1)
      #expect(stats.questions == counts.questions)

      // demo-1 has not answered today's question yet; the others have.
      let today = try await h.expect(.ok, QuestionDTO.self, .get, "/questions/today", token: token)
      #expect(today.myAnswer == nil)
      #expect(today.answerCount == 9)
      try await h.expectError(
        .forbidden, "answer_required", .get, "/questions/\(today.id)/answers", token: token)
      // One post is a single report away from being hidden.
      let inbox = try await h.expect(
        .ok, PageDTO<ReportCaseDTO>.self, .get, "/admin/reports?status=open", token: admin)
      #expect(
        inbox.items.contains {
          $0.reportCount == ModerationPolicy.autoHideThreshold - 1 && !$0.isHidden
        })
    }
  }

  @Test("stop waits, closes the listener and the database; start reports the bound port")
  func gracefulStop() async throws {
    let server = try QappleServer(configuration: .testing())
    let url = try await server.start()
    #expect(url.host == "127.0.0.1")
    #expect((url.port ?? 0) > 0)
    #expect(server.baseURL == url)
    let port = try #require(url.port)
    try await TestClient.withClient(host: "127.0.0.1", port: port) { client in
      let response = try await client.get("/nicknames/availability?nickname=Someone")
      #expect(response.status == .ok)
    }
    await server.stop()
    #expect(server.baseURL == nil)
    await #expect(throws: (any Error).self) {
      try await TestClient.withClient(host: "127.0.0.1", port: port) { client in
        _ = try await client.get("/nicknames/availability?nickname=Someone")
      }
    }
    // Stopping twice is harmless.
    await server.stop()
  }

  @Test("stop closes a connection that never sent a byte (it used to keep the server running)")
  func silentConnection() async throws {
    let server = try QappleServer(configuration: .testing())
    let port = try #require(try await server.start().port)
    let silent = try rawConnection(port: port, timeout: 10)
    defer { close(silent) }
    // A later connection's request is answered, so the silent one was accepted before it.
    try await TestClient.withClient(host: "127.0.0.1", port: port) { client in
      let response = try await client.get("/nicknames/availability?nickname=Quiet")
      #expect(response.status == .ok)
    }
    await server.stop()
    #expect(try await serverClosed(silent))
  }

  @Test(
    "a connection that closes before its first byte, by the client or by the stop, ends as closed input, not as an error"
  )
  func silentConnectionsLogNoError() async throws {
    let capture = LogCapture()
    var configuration = ServerConfiguration.testing()
    configuration.logLevel = .trace
    let server = try QappleServer(configuration: configuration, logger: capture.logger)
    let port = try #require(try await server.start().port)
    let leaving = try rawConnection(port: port)
    let staying = try rawConnection(port: port, timeout: 10)
    defer { close(staying) }
    // A later connection's request is answered, so both were accepted before it.
    try await TestClient.withClient(host: "127.0.0.1", port: port) { client in
      let response = try await client.get("/nicknames/availability?nickname=Quiet")
      #expect(response.status == .ok)
    }
    func ended(_ count: Int) -> Bool {
      capture.entries.filter {
        $0.message == "Upgrade failed as input was closed"
          || $0.message == "Error handling upgrade result"
      }.count >= count
    }
    close(leaving)
    try await waitUntil("the server saw the client close") { ended(1) }
    await server.stop()
    #expect(try await serverClosed(staying))
    try await waitUntil("the stop closed the silent connection") { ended(2) }
    #expect(capture.entries.filter { $0.level >= .error }.map(\.text) == [])
  }

  @Test("a request whose body never finishes arriving does not hold the stop")
  func stopDoesNotWaitForAStalledBody() async throws {
    let server = try QappleServer(configuration: .testing())
    let port = try #require(try await server.start().port)
    let stalled = try rawConnection(port: port, timeout: 30)
    defer { close(stalled) }
    let head = Array(
      "POST /auth/sign-in HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{"
        .utf8)
    #expect(head.withUnsafeBytes { send(stalled, $0.baseAddress, $0.count, 0) } == head.count)
    // A later request is answered, so the stalled one was read (its head at least) before it.
    try await TestClient.withClient(host: "127.0.0.1", port: port) { client in
      let response = try await client.get("/nicknames/availability?nickname=Waiting")
      #expect(response.status == .ok)
    }
    // Whichever comes first: the stop returning (true) or 20 s passing (false).
    let (outcomes, outcome) = AsyncStream.makeStream(of: Bool.self)
    Task {
      await server.stop()
      outcome.yield(true)
    }
    let timer = Task {
      try await Task.sleep(for: .seconds(20))
      outcome.yield(false)
    }
    defer { timer.cancel() }
    var first = outcomes.makeAsyncIterator()
    #expect(await first.next() == true, "the stop did not return within 20 s")
  }

  @Test("run() serves until stop() and then returns normally")
  func runUntilStopped() async throws {
    let server = try QappleServer(configuration: .testing())
    let (urls, continuation) = AsyncStream.makeStream(of: URL.self)
    let running = Task {
      // A server that fails to start ends the stream too: the wait below cannot hang.
      defer { continuation.finish() }
      try await server.run { url in continuation.yield(url) }
    }
    var iterator = urls.makeAsyncIterator()
    let url = try #require(await iterator.next())
    #expect(server.baseURL == url)
    let port = try #require(url.port)
    try await TestClient.withClient(host: "127.0.0.1", port: port) { client in
      let response = try await client.get("/nicknames/availability?nickname=Runner")
      #expect(response.status == .ok)
    }
    await server.stop()
    try await running.value
    #expect(server.baseURL == nil)
  }

  @Test("a port that is taken makes start() throw instead of hanging")
  func portTaken() async throws {
    try await withServer { h in
      var configuration = ServerConfiguration.testing()
      configuration.port = h.port
      let second = try QappleServer(configuration: configuration)
      await #expect(throws: (any Error).self) { _ = try await second.start() }
      await #expect(throws: (any Error).self) { _ = try await second.start() }
    }
  }
}
