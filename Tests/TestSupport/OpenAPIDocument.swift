import Foundation
import Yams

/// The parts of `Docs/openapi.yaml` the contract tests compare the routers and the server with.
public struct OpenAPIDocument: Sendable {
  /// One documented operation.
  public struct Operation: Sendable, CustomStringConvertible {
    /// The `operationId`, e.g. `BoardAPI.like`.
    public var operationID: String
    /// Upper-case method, e.g. `PUT`.
    public var method: String
    /// The path template, e.g. `/posts/{post_id}/like`.
    public var pathTemplate: String
    /// Whether `security: []` makes it public.
    public var isPublic: Bool
    /// Query parameter names and whether each is required.
    public var queryParameters: [String: Bool]
    /// Header parameter names (as written) and whether each is required.
    public var headerParameters: [String: Bool]
    /// Path parameter names.
    public var pathParameters: Set<String>
    /// The request body's media types; empty when the operation takes no body.
    public var requestMediaTypes: Set<String>
    /// Success (2xx) status codes and the schema each one answers (`nil`: no body).
    public var successResponses: [Int: String?]
    /// Every status code the operation lists, errors included.
    public var statuses: Set<Int>

    /// `METHOD /path (operationId)`.
    public var description: String { "\(method) \(pathTemplate) (\(operationID))" }

    /// The schema of the success responses' bodies, e.g. `PostPage`; `nil` when none has one.
    public var successSchema: String? { successResponses.values.compactMap { $0 }.first }
  }

  /// Every operation, in no particular order.
  public var operations: [Operation]

  /// Reads `Docs/openapi.yaml` of this repository.
  public static func load() throws -> OpenAPIDocument {
    let text = try String(contentsOf: repositoryFile("Docs/openapi.yaml"), encoding: .utf8)
    guard let root = try Yams.compose(yaml: text) else { throw Failure("openapi.yaml is empty") }
    return try OpenAPIDocument(root: root)
  }

  struct Failure: Error, CustomStringConvertible {
    /// What is wrong with the document.
    public var description: String
    init(_ description: String) { self.description = description }
  }

  private static let methods = ["get", "put", "post", "delete", "patch", "head", "options"]

  init(root: Node) throws {
    guard let paths = root["paths"]?.mapping else { throw Failure("openapi.yaml has no paths") }
    let globalSecurity = root["security"]?.sequence.map { !$0.isEmpty } ?? false

    func resolve(_ node: Node) throws -> Node {
      guard let reference = node["$ref"]?.string else { return node }
      let parts = reference.split(separator: "/").dropFirst().map(String.init)
      var current: Node? = root
      for part in parts { current = current?[part] }
      guard let resolved = current else { throw Failure("unresolved $ref \(reference)") }
      return try resolve(resolved)
    }

    var operations: [Operation] = []
    for (pathKey, item) in paths {
      guard let template = pathKey.string else { continue }
      let shared = item["parameters"]?.array() ?? []
      for method in Self.methods {
        guard let operation = item[method] else { continue }
        guard let operationID = operation["operationId"]?.string else {
          throw Failure("\(method.uppercased()) \(template) has no operationId")
        }
        var query: [String: Bool] = [:]
        var header: [String: Bool] = [:]
        var pathNames: Set<String> = []
        for parameterNode in shared + (operation["parameters"]?.array() ?? []) {
          let parameter = try resolve(parameterNode)
          guard let name = parameter["name"]?.string, let location = parameter["in"]?.string
          else { throw Failure("a parameter of \(operationID) has no name or location") }
          let required = parameter["required"]?.bool ?? false
          switch location {
          case "query": query[name] = required
          case "header": header[name] = required
          case "path": pathNames.insert(name)
          default: break
          }
        }
        var mediaTypes: Set<String> = []
        if let bodyNode = operation["requestBody"] {
          let body = try resolve(bodyNode)
          for (type, _) in body["content"]?.mapping ?? [:] {
            if let type = type.string { mediaTypes.insert(type) }
          }
        }
        var successes: [Int: String?] = [:]
        var statuses: Set<Int> = []
        for (statusNode, responseNode) in operation["responses"]?.mapping ?? [:] {
          if let status = statusNode.string.flatMap(Int.init) { statuses.insert(status) }
          // 101 is the success of the WebSocket operation (`/realtime`).
          guard let status = statusNode.string.flatMap(Int.init),
            status == 101 || (200...299).contains(status)
          else { continue }
          let response = try resolve(responseNode)
          let schemaReference = response["content"]?["application/json"]?["schema"]?["$ref"]?
            .string
          successes[status] = .some(schemaReference.map { String($0.split(separator: "/").last!) })
        }
        let security = operation["security"]?.sequence.map { !$0.isEmpty } ?? globalSecurity
        operations.append(
          Operation(
            operationID: operationID, method: method.uppercased(), pathTemplate: template,
            isPublic: !security, queryParameters: query, headerParameters: header,
            pathParameters: pathNames, requestMediaTypes: mediaTypes,
            successResponses: successes, statuses: statuses))
      }
    }
    self.operations = operations
  }
}

/// A file of this repository, e.g. `Docs/openapi.yaml`.
public func repositoryFile(_ path: String) -> URL {
  URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // TestSupport
    .deletingLastPathComponent()  // Tests
    .deletingLastPathComponent()  // repository root
    .appendingPathComponent(path)
}
