import Foundation
import HTTPTypes
import NetworkKit
import Primitives

/// An ``HTTPTransport`` that answers from registered stubs, for tests of code that talks HTTP.
///
/// Stubs match the method and the path (without the query, unless the registered path has
/// one); the latest registration wins. A request nobody stubbed fails with
/// ``NetworkError/notStubbed(method:path:)`` and is kept in ``unstubbedRequests`` so a test can
/// assert that list is empty.
public final class StubTransport: HTTPTransport, Sendable {
  /// Builds the answer to a matched request.
  public typealias Handler =
    @Sendable (_ request: HTTPRequest, _ body: Data?) async throws(NetworkError) -> StubResponse

  /// A request the transport received.
  public struct Received: Sendable, Hashable {
    /// The request head.
    public var request: HTTPRequest
    /// The request body.
    public var body: Data?
  }

  private struct Stub {
    var method: HTTPRequest.Method
    var path: String
    var handler: Handler
  }

  private struct State {
    var stubs: [Stub] = []
    var received: [Received] = []
    var unstubbed: [HTTPRequest] = []
  }
  // A lock, not an actor: registration is synchronous so tests set stubs up without `await`.
  private let state = Locked(State())

  /// Creates a transport without stubs.
  public init() {}

  /// Answers `method path` with `response`.
  public func stub(_ method: HTTPRequest.Method, _ path: String, with response: StubResponse) {
    stub(method, path) { _, _ in response }
  }

  /// Answers `method path` with JSON encoded from `value` and the given status.
  public func stub(
    _ method: HTTPRequest.Method, _ path: String, status: HTTPResponse.Status = .ok,
    json value: some Encodable, encoder: JSONEncoder = JSONEncoder()
  ) throws(NetworkError) {
    let body: Data
    do {
      body = try encoder.encode(value)
    } catch {
      throw .invalidRequest(
        "the stub body for \(method.rawValue) \(path) failed to encode: \(error)")
    }
    stub(
      method, path,
      with: .response(
        status: status, headerFields: [.contentType: "application/json"], body: body))
  }

  /// Answers `method path` with whatever `handler` returns for the request.
  public func stub(_ method: HTTPRequest.Method, _ path: String, handler: @escaping Handler) {
    state.withLock { $0.stubs.append(Stub(method: method, path: path, handler: handler)) }
  }

  /// Every request received, in order.
  public var receivedRequests: [Received] { state.withLock { $0.received } }

  /// The requests that matched no stub, in order.
  public var unstubbedRequests: [HTTPRequest] { state.withLock { $0.unstubbed } }

  /// Answers from the latest matching stub, or fails with `.notStubbed`.
  public func send(
    _ request: HTTPRequest, body: Data?, timeout: Duration
  ) async throws(NetworkError)
    -> (HTTPResponse, Data)
  {
    let fullPath = request.path ?? "/"
    let pathOnly = String(fullPath.prefix { $0 != "?" })
    let handler = state.withLock { state -> Handler? in
      state.received.append(Received(request: request, body: body))
      let match = state.stubs.last { stub in
        stub.method == request.method
          && (stub.path.contains("?") ? stub.path == fullPath : stub.path == pathOnly)
      }
      if match == nil { state.unstubbed.append(request) }
      return match?.handler
    }
    guard let handler else {
      throw .notStubbed(method: request.method.rawValue, path: fullPath)
    }
    switch try await handler(request, body) {
    case .response(let status, let headerFields, let body):
      return (HTTPResponse(status: status, headerFields: headerFields), body)
    case .failure(let error):
      throw error
    }
  }
}
