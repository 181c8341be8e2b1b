import Hummingbird
import TestSupport
import Testing

@testable import LocalServer

/// Holds the server's answers to `Docs/openapi.yaml`: every request a server test sends
/// through ``Harness/send(_:_:token:json:raw:contentType:headers:using:)`` is checked.
enum ContractDocument {
  /// The operations of the document (read once; a document that cannot be read is reported
  /// by ``checkListed(_:_:_:sourceLocation:)`` on first use).
  static let document = Result { try OpenAPIDocument.load() }

  /// The server's routes, to tell which operation a request path is.
  private static let routes = Routes.table(devMode: true)

  /// Records an issue when `status` answers a contract operation that does not list it: an
  /// app built from the document would not expect it.
  static func checkListed(
    _ status: HTTPResponse.Status, _ method: HTTPRequest.Method, _ requestPath: String,
    sourceLocation: SourceLocation = #_sourceLocation
  ) {
    let path = String(requestPath.prefix { $0 != "?" })
    guard let served = routes.resolve(path: path).first(where: { $0.method == method }) else {
      return
    }
    let operations: [OpenAPIDocument.Operation]
    do {
      operations = try document.get().operations
    } catch {
      Issue.record("openapi.yaml could not be read: \(error)", sourceLocation: sourceLocation)
      return
    }
    guard let operation = operations.first(where: { $0.operationID == served.id }) else { return }
    #expect(
      operation.statuses.contains(status.code),
      "\(operation.operationID) answered \(status.code), which openapi.yaml does not list for it",
      sourceLocation: sourceLocation)
  }
}
