import DTO
import Domain
import Foundation
import HTTPTypes
import NetworkKit

/// What one router case adds to its operation's declaration in `APIOperation` (method, path
/// template and access are declared there, once): the path parameter values, the query or body,
/// extra headers and sample data.
struct RouteDeclaration: Sendable {
  /// The operation, e.g. `.boardLike`.
  var operation: APIOperation
  /// The path parameter values, in the template's order (percent-encoded when filled in).
  var parameters: [String]
  var task: HTTPTask = .plain
  var headers: HTTPFields = [:]
  /// The sample response body; empty for `204` operations.
  var sample: String = ""

  init(
    _ operation: APIOperation, _ parameters: String..., task: HTTPTask = .plain,
    headers: HTTPFields = [:], sample: String = ""
  ) {
    self.operation = operation
    self.parameters = parameters
    self.task = task
    self.headers = headers
    self.sample = sample
  }
}

/// A target of the Qapple API: a router case that names its `APIOperation`.
public protocol APITarget: TargetType {
  /// The operation of the contract this target performs.
  var operation: APIOperation { get }
}

extension APIOperation {
  /// The concrete path: the template with each `{parameter}` replaced by the next value,
  /// percent-encoded as one segment (`..`, `/` and `?` in an id cannot change the route).
  public func path(_ values: [String]) -> String {
    var values = values.makeIterator()
    let segments = pathTemplate.split(separator: "/").map { segment in
      segment.hasPrefix("{") ? Path.encode(segment: values.next() ?? "") : String(segment)
    }
    return "/" + segments.joined(separator: "/")
  }
}

/// A router whose cases describe themselves with a ``RouteDeclaration``; the `TargetType`
/// members are read from it and from its `APIOperation`.
protocol DeclaredRoute: APITarget {
  /// This case's declaration.
  var declaration: RouteDeclaration { get }
}

// The members are `public` so they can witness the public `TargetType` requirements of the
// public routers, while `DeclaredRoute` and `RouteDeclaration` stay internal.
extension DeclaredRoute {
  /// The operation of the contract.
  public var operation: APIOperation { declaration.operation }
  /// The percent-encoded path.
  public var path: String { declaration.operation.path(declaration.parameters) }
  /// The HTTP method.
  public var method: HTTPRequest.Method {
    HTTPRequest.Method(declaration.operation.method.rawValue) ?? .get
  }
  /// Query items or body.
  public var task: HTTPTask { declaration.task }
  /// Extra header fields.
  public var headers: HTTPFields { declaration.headers }
  /// A token for every operation but the public ones.
  public var authorization: AuthorizationRequirement {
    declaration.operation.access == .anyone ? .none : .bearer
  }
  /// The sample response body, UTF-8.
  public var sampleData: Data { Data(declaration.sample.utf8) }
}

extension PageRequest {
  /// `cursor` (only when continuing) and `limit` (always).
  var queryItems: [URLQueryItem] {
    var items: [URLQueryItem] = []
    if let cursor { items.append(URLQueryItem(name: "cursor", value: cursor.rawValue)) }
    items.append(URLQueryItem(name: "limit", value: String(limit)))
    return items
  }
}

/// Header fields the routers set.
enum Header {
  /// `Idempotency-Key: key`, or no field when `key` is `nil`: the field NetworkKit's retry rule
  /// looks for (`RetryPolicy.idempotencyKey`), and the server answers a repeated write with
  /// the first result instead of doing it twice.
  static func idempotencyKey(_ key: String?) -> HTTPFields {
    guard let key else { return [:] }
    return [RetryPolicy.idempotencyKey: key]
  }
}

/// Builds query items.
enum Query {
  /// `name=value`, or no item at all when `value` is `nil`.
  static func optional(_ name: String, _ value: String?) -> [URLQueryItem] {
    value.map { [URLQueryItem(name: name, value: $0)] } ?? []
  }
}
