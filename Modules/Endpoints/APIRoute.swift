import Foundation
import HTTPTypes
import NetworkKit

/// One operation of the Qapple API, without the server's address.
///
/// Each router enum (``BoardAPI``, ``ChatAPI``, ...) conforms: its cases declare method, path,
/// query, body, authorization and sample data together. ``endpoint(baseURL:)`` pairs a route with
/// a server to get a NetworkKit `TargetType`.
public protocol APIRoute: Sendable {
  /// The OpenAPI operation id, `<Router>.<case>`, e.g. `BoardAPI.like`.
  var operationID: String { get }
  /// The path as documented, with `{snake_case}` parameters, e.g. `/posts/{post_id}/like`.
  var pathTemplate: String { get }
  /// The path below the base URL, each segment percent-encoded (built with `Path.make`).
  var path: String { get }
  /// The HTTP method.
  var method: HTTPRequest.Method { get }
  /// What the request carries: query items, a body, or nothing.
  var task: HTTPTask { get }
  /// Extra header fields for this operation (e.g. `Idempotency-Key`).
  var headers: HTTPFields { get }
  /// Whether the access token must be attached.
  var authorization: AuthorizationRequirement { get }
  /// A believable response body for stubs, previews and tests; empty for `204` operations.
  var sampleData: Data { get }
  /// The status codes that count as success.
  var acceptedStatusCodes: ClosedRange<Int> { get }
}

extension APIRoute {
  /// No extra headers by default.
  public var headers: HTTPFields { [:] }
  /// Operations need a token unless they say otherwise.
  public var authorization: AuthorizationRequirement { .bearer }
  /// An empty body by default.
  public var sampleData: Data { Data() }
  /// Any 2xx answer is a success by default.
  public var acceptedStatusCodes: ClosedRange<Int> { 200...299 }

  /// This route sent to the server at `baseURL`.
  public func endpoint(baseURL: URL) -> Endpoint {
    Endpoint(baseURL: baseURL, route: self)
  }
}

/// A route paired with the server that serves it: the `TargetType` NetworkKit's provider sends.
public struct Endpoint: TargetType, CustomStringConvertible {
  /// The server's base URL; the route's path is appended to it.
  public let baseURL: URL
  /// The operation.
  public let route: any APIRoute

  /// Pairs `route` with the server at `baseURL`.
  public init(baseURL: URL, route: any APIRoute) {
    self.baseURL = baseURL
    self.route = route
  }

  /// The route's operation id, e.g. `BoardAPI.like`.
  public var operationID: String { route.operationID }
  /// The route's documented path template, e.g. `/posts/{post_id}/like`.
  public var pathTemplate: String { route.pathTemplate }
  /// The route's percent-encoded path.
  public var path: String { route.path }
  /// The route's HTTP method.
  public var method: HTTPRequest.Method { route.method }
  /// The route's query items or body.
  public var task: HTTPTask { route.task }
  /// The route's extra header fields.
  public var headers: HTTPFields { route.headers }
  /// Whether the route needs the access token.
  public var authorization: AuthorizationRequirement { route.authorization }
  /// The route's sample response body.
  public var sampleData: Data { route.sampleData }
  /// The route's success status codes.
  public var acceptedStatusCodes: ClosedRange<Int> { route.acceptedStatusCodes }

  /// `METHOD /template (Operation.id)` for logs; IDs stay out of it.
  public var description: String { "\(method.rawValue) \(pathTemplate) (\(operationID))" }
}
