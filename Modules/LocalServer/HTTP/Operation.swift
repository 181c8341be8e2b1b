import DTO
import Domain
import Hummingbird
import ServiceEngine

/// One route the server answers: an operation of the contract (declared once, in
/// `APIOperation`) or a server-only route (dev endpoints, avatar files), with the rules the
/// pipeline applies before the handler runs.
struct Operation: Sendable {
  /// `<router enum>.<case>` as in openapi.yaml's `operationId` (or `Dev.*`, `Avatars.*`).
  let id: String
  let method: HTTPRequest.Method
  /// The path with its parameters, e.g. `/posts/{post_id}/like`.
  let path: RouterPath
  let access: APIOperation.Access
  /// Honors the `Idempotency-Key` header: a repeat returns the stored first answer.
  let idempotent: Bool
  /// The write limit it counts against when it is a write; `nil` for none (dev endpoints).
  let rateBucket: RateLimiter.Bucket?
  /// Whether a request repeats a write the caller already made (an operation that is its own
  /// idempotency, like a chat send by its client message id): a repeat is not counted as a
  /// write. `nil` when only the `Idempotency-Key` replay says so.
  var isRepeat: RepeatCheck? = nil

  /// Whether `request` of the caller (`nil` when anyone may call) repeats an earlier write, as
  /// `engine` knows it.
  typealias RepeatCheck =
    @Sendable (_ request: Request, _ caller: Viewer?, _ engine: ServiceEngine) -> Bool

  /// Every non-GET operation is a write.
  var isWrite: Bool { method != .get && method != .head }

  /// Whether `path` (a request path) matches this operation's path; a parameter matches any
  /// one segment.
  func matches(path requestPath: String) -> Bool {
    let parts = requestPath.split(separator: "/")
    return parts.count == path.count && zip(path, parts).allSatisfy { $0 ~= $1 }
  }

  /// How many segments of the path are literal text (not parameters).
  var literalSegments: Int {
    // An element equals its own text only when it is literal.
    path.filter { $0 == $0.description }.count
  }
}

typealias Handler = @Sendable (Call) async throws -> Reply

/// The server's operations with their handlers, in registration order.
struct RouteTable: Sendable {
  private(set) var entries: [(operation: Operation, handler: Handler)] = []

  /// Registers an operation of the contract: method, path and access come from `APIOperation`.
  mutating func add(
    _ declared: APIOperation, idempotent: Bool = false,
    rateBucket: RateLimiter.Bucket = .writes, isRepeat: Operation.RepeatCheck? = nil,
    handler: @escaping Handler
  ) {
    let operation = Operation(
      id: declared.id, method: HTTPRequest.Method(rawValue: declared.method.rawValue) ?? .get,
      path: RouterPath(declared.pathTemplate), access: declared.access,
      idempotent: idempotent, rateBucket: rateBucket, isRepeat: isRepeat)
    entries.append((operation, handler))
  }

  /// Registers a list operation of the contract: `read` gets the page asked for (`cursor`,
  /// `limit`) and the caller, and each item goes out as `item` makes it.
  mutating func addPage<Item, Wire: Codable & Sendable>(
    _ declared: APIOperation, _ item: @escaping @Sendable (Item) -> Wire,
    _ read: @escaping @Sendable (Call, PageRequest, Viewer) throws -> Page<Item>
  ) {
    add(declared) { call in
      try .json(PageDTO(try read(call, try call.pageRequest(), try call.me), item))
    }
  }

  /// Registers a contract operation that answers 204 No Content once `body` has run.
  mutating func addNoContent(
    _ declared: APIOperation, _ body: @escaping @Sendable (Call) async throws -> Void
  ) {
    add(declared) { call in
      try await body(call)
      return .noContent
    }
  }

  /// Registers a route that is not part of the contract (dev endpoints, avatar files).
  mutating func add(
    serverOnly id: String, _ method: HTTPRequest.Method, _ path: RouterPath,
    handler: @escaping Handler
  ) {
    let operation = Operation(
      id: id, method: method, path: path, access: .anyone, idempotent: false, rateBucket: nil)
    entries.append((operation, handler))
  }

  var operations: [Operation] { entries.map(\.operation) }

  /// The operations of the route a request `path` resolves to, one per method. Like the
  /// router, the path with the most literal segments wins (`/posts/search` over
  /// `/posts/{post_id}`).
  func resolve(path: String) -> [Operation] {
    let matching = operations.filter { $0.matches(path: path) }
    guard let best = matching.max(by: { $0.literalSegments < $1.literalSegments }) else {
      return []
    }
    return matching.filter { $0.path == best.path }
  }

  /// The methods of the route `path` resolves to (for 405 answers).
  func allowedMethods(for path: String) -> [String] {
    resolve(path: path).map(\.method.rawValue)
  }
}
