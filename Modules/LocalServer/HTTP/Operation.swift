import DTO
import Hummingbird

/// One route the server answers: an operation of the contract (declared once, in
/// `APIOperation`) or a server-only route (dev endpoints, avatar files), with the rules the
/// pipeline applies before the handler runs.
struct Operation: Sendable {
  /// `<router enum>.<case>` as in openapi.yaml's `operationId` (or `Dev.*`, `Avatars.*`).
  let id: String
  let method: HTTPRequest.Method
  /// Hummingbird path pattern, e.g. `/posts/:post_id/like`.
  let path: String
  let access: APIOperation.Access
  /// Honors the `Idempotency-Key` header: a repeat returns the stored first answer.
  let idempotent: Bool
  /// Counts against the write rate limit when it is a write (dev endpoints do not).
  let rateLimited: Bool

  /// Every non-GET operation is a write.
  var isWrite: Bool { method != .get && method != .head }

  /// The path split into segments; `:name` segments match any one segment.
  var segments: [Substring] { path.split(separator: "/") }

  /// Whether `path` (a request path) matches this operation's pattern.
  func matches(path requestPath: String) -> Bool {
    let parts = requestPath.split(separator: "/", omittingEmptySubsequences: true)
    let pattern = segments
    guard parts.count == pattern.count else { return false }
    return zip(pattern, parts).allSatisfy { $0.hasPrefix(":") || $0 == $1 }
  }

  /// The Hummingbird pattern of a documented template: `{post_id}` becomes `:post_id`.
  static func pattern(of template: String) -> String {
    template.split(separator: "/", omittingEmptySubsequences: false).map { segment in
      segment.hasPrefix("{") && segment.hasSuffix("}")
        ? ":" + segment.dropFirst().dropLast() : String(segment)
    }.joined(separator: "/")
  }
}

typealias Handler = @Sendable (Call) async throws -> Reply

/// The server's operations with their handlers, in registration order.
struct RouteTable: Sendable {
  private(set) var entries: [(operation: Operation, handler: Handler)] = []

  /// Registers an operation of the contract: method, path and access come from `APIOperation`.
  mutating func add(
    _ declared: APIOperation, idempotent: Bool = false, handler: @escaping Handler
  ) {
    let operation = Operation(
      id: declared.id, method: HTTPRequest.Method(rawValue: declared.method.rawValue) ?? .get,
      path: Operation.pattern(of: declared.pathTemplate), access: declared.access,
      idempotent: idempotent, rateLimited: true)
    entries.append((operation, handler))
  }

  /// Registers a route that is not part of the contract (dev endpoints, avatar files).
  mutating func add(
    serverOnly id: String, _ method: HTTPRequest.Method, _ path: String,
    rateLimited: Bool = false, handler: @escaping Handler
  ) {
    let operation = Operation(
      id: id, method: method, path: path, access: .anyone, idempotent: false,
      rateLimited: rateLimited)
    entries.append((operation, handler))
  }

  var operations: [Operation] { entries.map(\.operation) }

  /// The methods of the route `path` resolves to (for 405 answers). Like the router, the
  /// pattern with the most literal segments wins (`/posts/search` over `/posts/:post_id`).
  func allowedMethods(for path: String) -> [String] {
    let matching = operations.filter { $0.matches(path: path) }
    func literals(_ operation: Operation) -> Int {
      operation.segments.filter { !$0.hasPrefix(":") }.count
    }
    guard let best = matching.max(by: { literals($0) < literals($1) }) else { return [] }
    let methods = matching.filter { $0.path == best.path }.map(\.method.rawValue)
    var seen = Set<String>()
    return methods.filter { seen.insert($0).inserted }
  }
}
