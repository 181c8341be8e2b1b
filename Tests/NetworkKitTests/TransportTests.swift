import Foundation
import HTTPTypes
import NetworkKit
import Testing

/// Timeouts, cancellation and unreachable servers, once per transport.
@Suite("Transports", .timeLimit(.minutes(1)))
struct TransportTests {
  @Test func aWaitForASignalThatNeverFiresEndsWithItsTask() async {
    let state = ServerState()
    let waiting = Task { await state.wait(for: "never") }
    waiting.cancel()
    // Before the fix this never returned (and no time limit could end it).
    await waiting.value
    await state.fire("later")
    await state.wait(for: "later")
  }

  @Test(arguments: NamedTransport.all)
  func aSlowAnswerTimesOut(transport: NamedTransport) async throws {
    let server = try await TestServer.shared()
    let provider = NetworkProvider(
      transport: transport.transport, retryPolicy: .never, timeout: .seconds(60))
    // The target's timeout overrides the provider's. The route never answers, so the deadline
    // only needs to outlast connection set-up on a loaded machine; no fixed guess did (300 ms
    // not on two cores, 1.5 s not with the whole suite on one core, 5 s once not in a CI run
    // of the whole suite), so a deadline that passed before the request reached the server is
    // tried once more, longer. Every try must end in `.timeout`.
    for seconds in [5, 20] {
      let id = uniqueID()
      let target = TestTarget(
        .get, "/slow/\(id)", on: server.baseURL, timeout: .seconds(seconds))
      let error = await #expect(throws: NetworkError.self) {
        try await provider.response(target)
      }
      #expect(error == .timeout)
      // The transport gave up on the connection, so the server sees the client go away (only a
      // request that arrived can go away: waiting otherwise would outlast the time limit).
      guard await server.state.hasFired("slow-started:\(id)") else { continue }
      await server.state.wait(for: "slow-closed:\(id)")
      return
    }
    Issue.record("the deadline passed before the request reached the server, twice")
  }

  @Test(arguments: NamedTransport.all)
  func cancellingTheTaskCancelsTheTransfer(transport: NamedTransport) async throws {
    let server = try await TestServer.shared()
    let id = uniqueID()
    let provider = NetworkProvider(
      transport: transport.transport, retryPolicy: .default, timeout: .seconds(30))
    let call = Task {
      try await provider.response(TestTarget(.get, "/slow/\(id)", on: server.baseURL))
    }
    // Cancel only once the server is inside the handler, so the transfer is really in flight.
    await server.state.wait(for: "slow-started:\(id)")
    call.cancel()
    let result = await call.result
    #expect(throws: NetworkError.cancelled) { try result.get() }
    // The handler observes the connection going away; the 30 s timeout never came into play.
    await server.state.wait(for: "slow-closed:\(id)")
  }

  @Test(arguments: NamedTransport.all)
  func anAlreadyCancelledTaskSendsNothing(transport: NamedTransport) async throws {
    let server = try await TestServer.shared()
    let id = uniqueID()
    let provider = NetworkProvider(transport: transport.transport)
    let call = Task {
      withUnsafeCurrentTask { $0?.cancel() }
      return try await provider.response(TestTarget(.get, "/flaky/\(id)", on: server.baseURL))
    }
    await #expect(throws: NetworkError.cancelled) { try await call.value }
    #expect(await server.state.count("flaky:\(id)") == 0)
  }

  @Test(arguments: NamedTransport.all)
  func aRefusedConnectionIsOffline(transport: NamedTransport) async throws {
    // Port 9 (discard) has no listener on the test machine, so the connection is refused.
    let provider = NetworkProvider(
      transport: transport.transport, retryPolicy: .never, timeout: .seconds(10))
    let error = await #expect(throws: NetworkError.self) {
      try await provider.response(TestTarget(.get, "/", on: URL(string: "http://127.0.0.1:9")!))
    }
    #expect(error == .offline)
  }

  @Test(arguments: NamedTransport.all)
  func responseHeadersAndBodiesArriveComplete(transport: NamedTransport) async throws {
    let server = try await TestServer.shared()
    let big = String(repeating: "0123456789", count: 50_000)
    let (head, body) = try await transport.transport.send(
      HTTPRequest(
        method: .post, scheme: "http", authority: "127.0.0.1:\(server.port)", path: "/json",
        headerFields: [.contentType: "application/json"]),
      body: Data("\"\(big)\"".utf8), timeout: .seconds(60))
    #expect(head.status == .ok)
    #expect(head.headerFields[.contentType] == "application/json")
    #expect(body == Data("\"\(big)\"".utf8))
  }

  @Test func platformDefaultIsAsyncHTTPClientOnLinux() {
    #if os(Linux)
    #expect(HTTPTransports.platformDefault is AsyncHTTPClientTransport)
    #else
    #expect(HTTPTransports.platformDefault is URLSessionTransport)
    #endif
    #expect(HTTPTransports.urlSession is URLSessionTransport)
  }
}
