import Foundation
import HTTPTypes
import NetworkKit
import NetworkKitTesting
import Testing

/// A router like the ones in Endpoints, with sample data per case.
private enum ProfileAPI: TargetType {
  case me
  case rename(String)
  case avatar

  var baseURL: URL? { URL(string: "https://api.example.com/v1")! }
  var path: String {
    switch self {
    case .me, .rename: "/me"
    case .avatar: "/me/avatar"
    }
  }
  var method: HTTPRequest.Method {
    switch self {
    case .me, .avatar: .get
    case .rename: .patch
    }
  }
  var task: HTTPTask {
    switch self {
    case .me, .avatar: .plain
    case .rename(let nickname): .json(["nickname": nickname])
    }
  }
  var sampleData: Data {
    switch self {
    case .me, .rename: Data(#"{"nickname":"sample-kim"}"#.utf8)
    case .avatar: Data()
    }
  }
}

private struct Profile: Decodable, Equatable {
  var nickname: String
}

@Suite("Stubbing")
struct StubbingTests {
  @Test func immediateStubsAnswerWithSampleDataAndSendNothing() async throws {
    let transport = StubTransport()
    let provider = NetworkProvider(transport: transport, stubBehavior: .immediate)
    let profile = try await provider.request(ProfileAPI.me, as: Profile.self)
    #expect(profile == Profile(nickname: "sample-kim"))
    // Bearer targets run without an authenticator while stubbing, e.g. in previews.
    let response = try await provider.response(ProfileAPI.rename("new"))
    #expect(response.status == .ok)
    #expect(response.request.method == .patch)
    #expect(response.request.path == "/v1/me")
    #expect(transport.receivedRequests.isEmpty)
  }

  @Test func delayedStubsWaitOnTheInjectedClock() async throws {
    let clock = TestClock()
    let provider = NetworkProvider.stubbed(.delayed(.seconds(2)), clock: clock)
    _ = try await provider.request(ProfileAPI.me, as: Profile.self)
    _ = try await provider.response(ProfileAPI.avatar)
    #expect(clock.sleeps == [.seconds(2), .seconds(2)])
  }

  @Test func overridesChooseStatusHeadersBodyOrFailurePerTarget() async throws {
    let provider = NetworkProvider.stubbed(errorBody: .testEnvelope) { target in
      switch target as? ProfileAPI {
      case .me?:
        return .response(
          status: .ok, headerFields: [HTTPField.Name("X-Stub")!: "yes"],
          body: Data(#"{"nickname":"override"}"#.utf8))
      case .rename?:
        return .response(
          status: .conflict,
          body: Data(
            #"{"error":{"code":"nickname_taken","message":"taken","field":"nickname"}}"#.utf8))
      case .avatar?, nil:
        return .failure(.offline)
      }
    }
    let me = try await provider.response(ProfileAPI.me)
    #expect(me.headerFields[HTTPField.Name("X-Stub")!] == "yes")
    #expect(try JSONDecoder().decode(Profile.self, from: me.body) == Profile(nickname: "override"))

    let conflict = await #expect(throws: NetworkError.self) {
      try await provider.send(ProfileAPI.rename("taken"))
    }
    #expect(conflict?.serverError?.code == "nickname_taken")
    await #expect(throws: NetworkError.offline) { try await provider.send(ProfileAPI.avatar) }
  }

  @Test func stubbedAnswersGoThroughPluginsAndRetries() async throws {
    let clock = TestClock()
    let recorder = RecordingPlugin()
    let calls = Counter()
    let provider = NetworkProvider(
      plugins: [recorder],
      retryPolicy: RetryPolicy(maxAttempts: 2, random: { $0.upperBound }),
      clock: clock, stubBehavior: .immediate
    ) { target in
      calls.next() == 1
        ? .response(status: .serviceUnavailable, body: Data()) : .sample(target)
    }
    _ = try await provider.request(ProfileAPI.me, as: Profile.self)
    #expect(await recorder.statuses == [503, 200])
    #expect(clock.sleeps == [.milliseconds(500)])
  }

  @Test func theStubTransportAnswersRegisteredRequests() async throws {
    let transport = StubTransport()
    try transport.stub(.get, "/v1/me", json: ["nickname": "from-stub"])
    transport.stub(.patch, "/v1/me") { request, body throws(NetworkError) in
      #expect(request.headerFields[.contentType] == "application/json")
      return .response(status: .ok, body: body ?? Data())
    }
    let provider = NetworkProvider(transport: transport, authenticator: signedIn())
    #expect(
      try await provider.request(ProfileAPI.me, as: Profile.self) == Profile(nickname: "from-stub"))
    #expect(
      try await provider.request(ProfileAPI.rename("echo"), as: Profile.self)
        == Profile(nickname: "echo"))
    #expect(transport.receivedRequests.map(\.request.method) == [.get, .patch])
    #expect(
      transport.receivedRequests.last?.request.headerFields[.authorization] == "Bearer stub-token")
    #expect(transport.unstubbedRequests.isEmpty)
  }

  @Test func laterStubsWinAndQueriesCanBeMatched() async throws {
    let transport = StubTransport()
    transport.stub(.get, "/feed", with: .response(status: .ok, body: Data("1".utf8)))
    transport.stub(.get, "/feed", with: .response(status: .ok, body: Data("2".utf8)))
    transport.stub(.get, "/feed?page=2", with: .response(status: .ok, body: Data("3".utf8)))
    let provider = NetworkProvider(transport: transport)
    #expect(try await provider.response(TestTarget(.get, "/feed")).body == Data("2".utf8))
    let page2 = TestTarget(.get, "/feed", task: .query([URLQueryItem(name: "page", value: "2")]))
    #expect(try await provider.response(page2).body == Data("3".utf8))
  }

  @Test func unstubbedRequestsFailClearlyAndAreRecorded() async throws {
    let transport = StubTransport()
    let provider = NetworkProvider(transport: transport, authenticator: signedIn())
    let error = await #expect(throws: NetworkError.self) {
      try await provider.send(ProfileAPI.avatar)
    }
    #expect(error == .notStubbed(method: "GET", path: "/v1/me/avatar"))
    #expect(error?.description.contains("GET /v1/me/avatar") == true)
    #expect(transport.unstubbedRequests.map(\.path) == ["/v1/me/avatar"])
  }

  private func signedIn() -> Authenticator {
    Authenticator(
      store: InMemoryCredentialStore(Credentials(accessToken: "stub-token", refreshToken: "r"))
    ) { _ in throw NetworkError.offline }
  }
}
