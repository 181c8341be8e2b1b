import DTO
import Foundation
import HTTPTypes
import NetworkKit

/// `GET /posts?limit=20` on the loopback server: a public route, so no authenticator is involved.
struct PostsTarget: TargetType {
  let baseURL: URL?
  var path: String { Path.make("posts") }
  var method: HTTPRequest.Method { .get }
  var task: HTTPTask { .query([URLQueryItem(name: "limit", value: "20")]) }
  var authorization: AuthorizationRequirement { .none }
}

/// The page type both sides of every round-trip pair decode.
typealias PostPage = PageDTO<PostDTO>

/// Everything one round-trip pair shares: one transport instance, one decoder instance, and the
/// same request, built once from the target for the bare side.
struct RoundTrip: @unchecked Sendable {
  // `@unchecked`: JSONDecoder is thread-safe once configured but not `Sendable` on every SDK.
  /// The transport both sides use.
  let transport: any HTTPTransport
  /// A provider on `transport`: no authenticator, no plugins, the default retry policy.
  let provider: NetworkProvider
  /// The target the provider performs.
  let target: PostsTarget
  /// The same request, prepared once for the bare transport.
  let request: HTTPRequest
  /// The decoder both sides use (the DTO module's configured decoder).
  let decoder: JSONDecoder

  /// A pair on `transport` against `baseURL`, checked once so a broken setup fails loudly
  /// instead of measuring errors.
  static func make(transport: any HTTPTransport, baseURL: URL) async throws -> RoundTrip {
    let target = PostsTarget(baseURL: baseURL)
    let decoder = QappleCoding.makeDecoder()
    let provider = NetworkProvider(transport: transport, decoder: decoder)
    let roundTrip = RoundTrip(
      transport: transport, provider: provider, target: target,
      request: try target.encodedRequest(baseURL: baseURL).request, decoder: decoder)
    let viaTransport = try await roundTrip.bare()
    let viaProvider = try await roundTrip.viaProvider()
    guard viaTransport == viaProvider, viaTransport.items.count == LoopbackServer.postsPerPage
    else { throw SetupMismatch() }
    return roundTrip
  }

  /// Benchmark A: the transport sends the request, the status is checked and the body decoded.
  func bare() async throws -> PostPage {
    let (head, body) = try await transport.send(request, body: nil, timeout: provider.timeout)
    // Any caller of a bare transport has to look at the status; the provider does the same.
    guard (200...299).contains(head.status.code) else {
      throw NetworkError.status(code: head.status.code, body: body, headers: head.headerFields)
    }
    return try decoder.decode(PostPage.self, from: body)
  }

  /// Benchmark B: the provider performs the target and decodes the body.
  func viaProvider() async throws -> PostPage {
    try await provider.request(target, as: PostPage.self)
  }

  /// The two sides of a pair returned different pages.
  struct SetupMismatch: Error, CustomStringConvertible {
    var description: String {
      "The bare transport and the provider decoded different pages; the pair is not comparable."
    }
  }
}

/// A transport that answers at once from memory, to measure what the provider itself costs
/// without the noise of a network round trip.
struct InMemoryTransport: HTTPTransport {
  /// The head of every answer.
  let head: HTTPResponse
  /// The body of every answer.
  let body: Data

  /// Answers with `body` and a 200 head.
  init(body: Data) {
    self.head = HTTPResponse(status: .ok, headerFields: [.contentType: "application/json"])
    self.body = body
  }

  /// Returns the stored answer without looking at the request.
  func send(
    _ request: HTTPRequest, body: Data?, timeout: Duration
  ) async throws(NetworkError) -> (HTTPResponse, Data) {
    (head, self.body)
  }
}
