import Foundation
import HTTPTypes
import NetworkKit
import NetworkKitTesting
import Testing

@Suite("Retry policy")
struct RetryPolicyTests {
  @Test func backoffIsFullJitterUnderAnExponentialCeiling() {
    let recorder = RangeRecorder()
    let policy = RetryPolicy(
      baseDelay: .milliseconds(500), maxDelay: .seconds(30),
      random: { range in
        recorder.record(range)
        return range.upperBound
      })
    let delays = (0..<8).map { policy.backoff(retry: $0) }
    #expect(
      delays == [
        .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16),
        .seconds(30), .seconds(30),
      ])
    let ranges = recorder.ranges
    #expect(ranges.allSatisfy { $0.lowerBound == 0 })
    #expect(ranges.map(\.upperBound) == [0.5, 1, 2, 4, 8, 16, 30, 30])
  }

  @Test func httpRetriesAndReconnectsStartFromTheSameBackoff() {
    #expect(Backoff.defaultBaseDelay == .milliseconds(500))
    #expect(Backoff.defaultMaxDelay == .seconds(30))
    let policy = RetryPolicy.default
    let backoff = Backoff()
    #expect(policy.baseDelay == backoff.baseDelay)
    #expect(policy.maxDelay == backoff.maxDelay)
    let socket = WebSocketConnection.Configuration(url: URL(string: "ws://x")!, heartbeat: nil)
    #expect(socket.backoff.baseDelay == Backoff.defaultBaseDelay)
    #expect(socket.backoff.maxDelay == Backoff.defaultMaxDelay)
  }

  @Test func aRetriedDeleteThatFindsItsResourceGoneHasCompleted() {
    let policy = RetryPolicy.default
    let delete = HTTPRequest(method: .delete, scheme: "https", authority: "x", path: "/posts/1")
    let get = HTTPRequest(method: .get, scheme: "https", authority: "x", path: "/posts/1")
    #expect(policy.deletedStatusCodes == [404, 410])
    // What may have reached the server: timeouts, broken connections, 5xx; not offline or 4xx.
    #expect(policy.mayHaveBeenDelivered(.timeout))
    #expect(policy.mayHaveBeenDelivered(.transport("reset")))
    #expect(policy.mayHaveBeenDelivered(.status(code: 503)))
    #expect(!policy.mayHaveBeenDelivered(.offline))
    #expect(!policy.mayHaveBeenDelivered(.status(code: 429)))
    #expect(policy.isCompletedDelete(delete, status: 404, afterPossibleDelivery: true))
    #expect(policy.isCompletedDelete(delete, status: 410, afterPossibleDelivery: true))
    #expect(!policy.isCompletedDelete(delete, status: 404, afterPossibleDelivery: false))
    #expect(!policy.isCompletedDelete(delete, status: 403, afterPossibleDelivery: true))
    #expect(!policy.isCompletedDelete(get, status: 404, afterPossibleDelivery: true))
  }

  @Test func randomValuesOutsideTheRangeAreClamped() {
    let policy = RetryPolicy(baseDelay: .seconds(1), random: { _ in 99 })
    #expect(policy.backoff(retry: 0) == .seconds(1))
  }

  @Test func onlyRepeatableRequestsAreRetried() {
    let policy = RetryPolicy()
    func request(_ method: HTTPRequest.Method, _ fields: HTTPFields = [:]) -> HTTPRequest {
      HTTPRequest(method: method, scheme: "https", authority: "a", path: "/", headerFields: fields)
    }
    for method in [HTTPRequest.Method.get, .head, .put, .delete, .options] {
      #expect(policy.isRepeatable(request(method)))
    }
    #expect(!policy.isRepeatable(request(.post)))
    #expect(!policy.isRepeatable(request(.patch)))
    #expect(policy.isRepeatable(request(.post, [RetryPolicy.idempotencyKey: "k-1"])))
    #expect(policy.isRepeatable(request(.patch, [RetryPolicy.idempotencyKey: "k-2"])))
  }

  @Test func retryableFailures() {
    let policy = RetryPolicy()
    for code in [408, 429, 500, 502, 503, 504] {
      #expect(policy.isRetryable(.status(code: code, error: nil, body: Data())))
    }
    for code in [400, 401, 403, 404, 409, 501] {
      #expect(!policy.isRetryable(.status(code: code, error: nil, body: Data())))
    }
    #expect(policy.isRetryable(.offline))
    #expect(policy.isRetryable(.timeout))
    #expect(policy.isRetryable(.transport("reset")))
    #expect(!policy.isRetryable(.cancelled))
    #expect(!policy.isRetryable(.decoding(type: "T", codingPath: "", description: "")))
    #expect(!policy.isRetryable(.invalidRequest("bad")))
  }

  @Test func parsesRetryAfterSecondsAndDates() throws {
    let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
    #expect(RetryPolicy.parseRetryAfter("120", now: now) == .seconds(120))
    #expect(RetryPolicy.parseRetryAfter(" 0 ", now: now) == .zero)
    #expect(RetryPolicy.parseRetryAfter("-3", now: now) == nil)
    #expect(RetryPolicy.parseRetryAfter("soon", now: now) == nil)
    #expect(RetryPolicy.parseRetryAfter("Sun, 06 Nov 1994 08:50:07 GMT", now: now) == .seconds(30))
    #expect(RetryPolicy.parseRetryAfter("Sunday, 06-Nov-94 08:50:07 GMT", now: now) == .seconds(30))
    #expect(RetryPolicy.parseRetryAfter("Sun Nov  6 08:50:07 1994", now: now) == .seconds(30))
    #expect(RetryPolicy.parseRetryAfter("Sun, 06 Nov 1994 08:00:00 GMT", now: now) == .zero)
  }

  @Test("a Retry-After far in the future (the year 9999) is a very long wait, never a trap")
  func farFutureRetryAfterIsAVeryLongWait() throws {
    let now = Date(timeIntervalSince1970: 784_111_777)
    let centuries = Duration.seconds(200 * 365 * 86_400)
    for never in ["Fri, 31 Dec 9999 23:59:59 GMT", "Fri Dec 31 23:59:59 9999"] {
      let wait = try #require(RetryPolicy.parseRetryAfter(never, now: now), "\(never)")
      #expect(wait > centuries, "\(never)")
    }
    // Longer than the policy waits: no retry, the failure reaches the caller with it.
    let failure = HTTPFailure(
      status: 503, headers: [.retryAfter: "Fri, 31 Dec 9999 23:59:59 GMT"], serverError: nil)
    let get = HTTPRequest(method: .get, scheme: "https", authority: "a", path: "/")
    #expect(
      RetryPolicy().delay(afterAttempt: 1, of: get, failedWith: .status(failure), now: now) == nil)
    #expect(try #require(failure.retryAfter(now: now)) > centuries)
    // A backoff bound beyond any clock is cut, not trapped on.
    let backoff = Backoff(
      baseDelay: .seconds(Int64.max / 2), maxDelay: .seconds(Int64.max / 2),
      random: { $0.upperBound })
    #expect(backoff.delay(beforeRetry: 62) > centuries)
  }

  @Test func stopsAfterMaxAttempts() {
    let policy = RetryPolicy(maxAttempts: 2, random: { $0.upperBound })
    let get = HTTPRequest(method: .get, scheme: "https", authority: "a", path: "/")
    #expect(
      policy.delay(afterAttempt: 1, of: get, failedWith: .timeout, now: Date())
        == .milliseconds(500))
    #expect(
      policy.delay(afterAttempt: 2, of: get, failedWith: .timeout, now: Date())
        == nil)
    #expect(RetryPolicy.never.maxAttempts == 1)
  }
}

/// Retries against the real server, with a recording clock and a fixed random source.
@Suite("Retries against the server", .timeLimit(.minutes(1)))
struct RetryIntegrationTests {
  /// `random` returns half the range, so each delay is exactly half its ceiling.
  private func provider(
    clock: TestClock, maxAttempts: Int = 4, baseDelay: Duration = .seconds(1),
    maxDelay: Duration = .seconds(3)
  ) -> NetworkProvider {
    NetworkProvider(
      errorBody: .testEnvelope,
      retryPolicy: RetryPolicy(
        maxAttempts: maxAttempts, baseDelay: baseDelay, maxDelay: maxDelay,
        random: { $0.lowerBound + ($0.upperBound - $0.lowerBound) / 2 }),
      clock: clock, now: clock.dateProvider)
  }

  private func flaky(
    _ id: String, on server: TestServer, method: HTTPRequest.Method = .get, failures: Int,
    status: Int = 503, retryAfter: String? = nil, headers: HTTPFields = [:]
  ) -> TestTarget {
    var query = [
      URLQueryItem(name: "failures", value: "\(failures)"),
      URLQueryItem(name: "status", value: "\(status)"),
    ]
    if let retryAfter { query.append(URLQueryItem(name: "retry_after", value: retryAfter)) }
    return TestTarget(
      method, "/flaky/\(id)", on: server.baseURL, task: .query(query), headers: headers)
  }

  @Test func retriesWithExponentialBackoffAndFullJitter() async throws {
    let server = try await TestServer.shared()
    let clock = TestClock()
    let id = uniqueID()
    let response = try await provider(clock: clock).response(
      flaky(id, on: server, failures: 3))
    #expect(response.status == .ok)
    #expect(await server.state.count("flaky:\(id)") == 4)
    // Ceilings 1 s, 2 s, then min(3 s, 4 s); the random source picks the middle.
    #expect(clock.sleeps == [.milliseconds(500), .seconds(1), .milliseconds(1500)])
  }

  @Test(arguments: [408, 429, 500, 502, 504])
  func retriesEveryRetryableStatus(status: Int) async throws {
    let server = try await TestServer.shared()
    let clock = TestClock()
    let id = uniqueID()
    try await provider(clock: clock).send(flaky(id, on: server, failures: 1, status: status))
    #expect(await server.state.count("flaky:\(id)") == 2)
    #expect(clock.sleeps == [.milliseconds(500)])
  }

  @Test func givesUpAfterMaxAttemptsWithTheLastError() async throws {
    let server = try await TestServer.shared()
    let clock = TestClock()
    let id = uniqueID()
    let error = await #expect(throws: NetworkError.self) {
      try await provider(clock: clock, maxAttempts: 3).send(flaky(id, on: server, failures: 10))
    }
    #expect(error?.statusCode == 503)
    #expect(error?.serverError?.code == "unavailable")
    #expect(await server.state.count("flaky:\(id)") == 3)
    #expect(clock.sleeps.count == 2)
  }

  @Test func doesNotRetryClientErrors() async throws {
    let server = try await TestServer.shared()
    let clock = TestClock()
    let id = uniqueID()
    await #expect(throws: NetworkError.self) {
      try await provider(clock: clock).send(flaky(id, on: server, failures: 1, status: 400))
    }
    #expect(await server.state.count("flaky:\(id)") == 1)
    #expect(clock.sleeps.isEmpty)
  }

  @Test func honoursRetryAfterSeconds() async throws {
    let server = try await TestServer.shared()
    let clock = TestClock()
    let id = uniqueID()
    try await provider(clock: clock, maxDelay: .seconds(60)).send(
      flaky(id, on: server, failures: 1, status: 429, retryAfter: "7"))
    #expect(clock.sleeps == [.seconds(7)])
  }

  @Test func honoursRetryAfterDates() async throws {
    let server = try await TestServer.shared()
    let clock = TestClock()
    clock.advance(by: .seconds(100))
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "GMT")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
    let retryAt = formatter.string(from: clock.date.addingTimeInterval(42))
    let id = uniqueID()
    try await provider(clock: clock, maxDelay: .seconds(60)).send(
      flaky(id, on: server, failures: 1, status: 503, retryAfter: retryAt))
    #expect(clock.sleeps == [.seconds(42)])
  }

  @Test("a Retry-After above the maximum delay is neither waited out nor cut short")
  func aRetryAfterAboveTheMaximumIsNoRetry() async throws {
    let server = try await TestServer.shared()
    let clock = TestClock()
    let id = uniqueID()
    let error = await #expect(throws: NetworkError.self) {
      try await provider(clock: clock, maxDelay: .seconds(10)).send(
        flaky(id, on: server, failures: 1, status: 503, retryAfter: "3600"))
    }
    // The caller gets the failure at once, with the server's wait.
    guard case .status(let failure) = error else {
      Issue.record("expected the 503, got \(String(describing: error))")
      return
    }
    #expect(failure.status == 503)
    #expect(failure.retryAfter(now: Date()) == .seconds(3600))
    #expect(await server.state.count("flaky:\(id)") == 1)
    #expect(clock.sleeps.isEmpty)
    // One within the maximum is waited out exactly.
    let within = uniqueID()
    try await provider(clock: clock, maxDelay: .seconds(10)).send(
      flaky(within, on: server, failures: 1, status: 503, retryAfter: "10"))
    #expect(clock.sleeps == [.seconds(10)])
  }

  @Test func doesNotRetryPostWithoutIdempotencyKey() async throws {
    let server = try await TestServer.shared()
    let clock = TestClock()
    let id = uniqueID()
    let error = await #expect(throws: NetworkError.self) {
      try await provider(clock: clock).send(flaky(id, on: server, method: .post, failures: 1))
    }
    #expect(error?.statusCode == 503)
    #expect(await server.state.count("flaky:\(id)") == 1)
    #expect(clock.sleeps.isEmpty)
  }

  @Test(arguments: [HTTPRequest.Method.post, .patch])
  func retriesNonIdempotentRequestsThatCarryAnIdempotencyKey(
    method: HTTPRequest.Method
  )
    async throws
  {
    let server = try await TestServer.shared()
    let clock = TestClock()
    let id = uniqueID()
    try await provider(clock: clock).send(
      flaky(
        id, on: server, method: method, failures: 2,
        headers: [RetryPolicy.idempotencyKey: UUID().uuidString]))
    #expect(await server.state.count("flaky:\(id)") == 3)
    #expect(clock.sleeps == [.milliseconds(500), .seconds(1)])
  }

  @Test func retriesTransportFailures() async throws {
    let stubs = StubTransport()
    let calls = Counter()
    stubs.stub(.get, "/feed") { _, _ throws(NetworkError) in
      switch calls.next() {
      case 1: return .failure(.offline)
      case 2: return .failure(.timeout)
      default: return .response(status: .ok, body: Data("[]".utf8))
      }
    }
    let clock = TestClock()
    let provider = NetworkProvider(
      transport: stubs,
      retryPolicy: RetryPolicy(maxAttempts: 3, baseDelay: .seconds(2), random: { $0.upperBound }),
      clock: clock)
    let items = try await provider.request(TestTarget(.get, "/feed"), as: [String].self)
    #expect(items.isEmpty)
    #expect(clock.sleeps == [.seconds(2), .seconds(4)])
    #expect(stubs.unstubbedRequests.isEmpty)
  }

  @Test func cancellingDuringTheRetryWaitStopsAtOnce() async throws {
    let stubs = StubTransport()
    stubs.stub(.get, "/feed", with: .response(status: .serviceUnavailable, body: Data()))
    let clock = SuspendingTestClock()
    let provider = NetworkProvider(
      transport: stubs, retryPolicy: RetryPolicy(maxAttempts: 5), clock: clock)
    let call = Task { try await provider.send(TestTarget(.get, "/feed")) }
    await clock.waitUntilSleeping()
    call.cancel()
    await #expect(throws: NetworkError.cancelled) { try await call.value }
    #expect(stubs.receivedRequests.count == 1)
  }
}

/// Thread-safe call counter for stub handlers.
final class Counter: @unchecked Sendable {
  private let lock = NSLock()
  private var count = 0

  var value: Int { lock.withLock { count } }

  func next() -> Int {
    lock.withLock {
      count += 1
      return count
    }
  }
}

/// Records the ranges passed to a random source.
final class RangeRecorder: @unchecked Sendable {
  private let lock = NSLock()
  private var stored: [ClosedRange<Double>] = []

  var ranges: [ClosedRange<Double>] { lock.withLock { stored } }

  func record(_ range: ClosedRange<Double>) {
    lock.withLock { stored.append(range) }
  }
}

/// A clock whose sleeps never end on their own: they finish only when the task is cancelled.
final class SuspendingTestClock: Clock, @unchecked Sendable {
  typealias Instant = TestClock.Instant

  private let (sleeping, sleepingContinuation) = AsyncStream<Void>.makeStream()

  var now: Instant { Instant(offset: .zero) }
  var minimumResolution: Duration { .zero }

  func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    let (stream, continuation) = AsyncStream<Void>.makeStream()
    try await withTaskCancellationHandler {
      sleepingContinuation.yield()
      for await _ in stream {}
      throw CancellationError()
    } onCancel: {
      continuation.finish()
    }
  }

  /// Returns once some task is inside `sleep`.
  func waitUntilSleeping() async {
    var iterator = sleeping.makeAsyncIterator()
    _ = await iterator.next()
  }
}
