import Domain
import Foundation
import HTTPTypes
import NetworkKit

/// Everything one router case declares, gathered in one value so a case reads as one block.
struct RouteDeclaration: Sendable {
  /// The case name as the contract spells it, e.g. `like`.
  var name: String
  var method: HTTPRequest.Method
  /// The documented template, e.g. `/posts/{post_id}/like`.
  var template: String
  /// The concrete path, always built with `Path.make` so identifiers are percent-encoded.
  var path: String
  var task: HTTPTask = .plain
  var headers: HTTPFields = [:]
  var authorization: AuthorizationRequirement = .bearer
  /// The sample response body; empty for `204` operations.
  var sample: String = ""

  init(
    _ name: String, _ method: HTTPRequest.Method, _ template: String, path: String,
    task: HTTPTask = .plain, headers: HTTPFields = [:],
    authorization: AuthorizationRequirement = .bearer, sample: String = ""
  ) {
    self.name = name
    self.method = method
    self.template = template
    self.path = path
    self.task = task
    self.headers = headers
    self.authorization = authorization
    self.sample = sample
  }
}

/// A router whose cases describe themselves with a ``RouteDeclaration``; the `APIRoute`
/// members are read from it, so each router only writes its `declaration` switch.
protocol DeclaredRoute: APIRoute {
  /// The router's name in operation ids, e.g. `BoardAPI`.
  static var area: String { get }
  /// This case's declaration.
  var declaration: RouteDeclaration { get }
}

// The members are `public` so they can witness the public `APIRoute` requirements of the public
// routers, while `DeclaredRoute` and `RouteDeclaration` stay internal.
extension DeclaredRoute {
  /// `<Router>.<case>`, e.g. `BoardAPI.like`.
  public var operationID: String { "\(Self.area).\(declaration.name)" }
  /// The documented path template.
  public var pathTemplate: String { declaration.template }
  /// The percent-encoded path.
  public var path: String { declaration.path }
  /// The HTTP method.
  public var method: HTTPRequest.Method { declaration.method }
  /// Query items or body.
  public var task: HTTPTask { declaration.task }
  /// Extra header fields.
  public var headers: HTTPFields { declaration.headers }
  /// Whether the access token is attached.
  public var authorization: AuthorizationRequirement { declaration.authorization }
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
  /// `Idempotency-Key`: the server answers a repeated write with the first result instead of
  /// doing it twice.
  static let idempotencyKeyName = HTTPField.Name("Idempotency-Key")!

  /// `Idempotency-Key: key`, or no field when `key` is `nil`.
  static func idempotencyKey(_ key: String?) -> HTTPFields {
    guard let key else { return [:] }
    return [idempotencyKeyName: key]
  }
}

/// Builds query items.
enum Query {
  /// `name=value`, or no item at all when `value` is `nil`.
  static func optional(_ name: String, _ value: String?) -> [URLQueryItem] {
    value.map { [URLQueryItem(name: name, value: $0)] } ?? []
  }
}
