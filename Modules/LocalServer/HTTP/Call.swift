import DTO
import Domain
import Foundation
import Hummingbird
import ServiceEngine

/// One request as a handler sees it: the operation, the caller, the collected body and helpers
/// that turn parameters and bodies into values or 400 envelopes.
struct Call: Sendable {
  let request: Request
  let context: QappleRequestContext
  let core: ServerCore
  /// The collected body (empty for GET).
  var body: ByteBuffer { context.body }

  /// The caller of an authenticated operation.
  var me: Viewer {
    get throws(APIError) {
      guard let viewer = context.viewer else { throw APIError.unauthorized() }
      return viewer
    }
  }

  /// The service engine every rule runs in.
  var engine: ServiceEngine { core.engine }

  /// A path parameter as a typed identifier, percent-decoded as clients escape each segment
  /// (always present: the router matched it; the engine answers 404 for one that names
  /// nothing). A segment that is not valid escaping is taken as written.
  func id<Owner>(_ name: String) -> Identifier<Owner> {
    let segment = context.parameters.get(name) ?? ""
    return Identifier(rawValue: segment.removingPercentEncoding ?? segment)
  }

  /// A query parameter, percent-decoded.
  func query(_ name: String) -> String? {
    request.uri.queryParameters.get(name)
  }

  /// A query parameter that must be one of `type`'s cases, or 400 naming it.
  func query<Value: CaseIterable & RawRepresentable<String>>(
    _ name: String, as type: Value.Type
  ) throws(APIError) -> Value? {
    guard let text = query(name) else { return nil }
    return try value(text, field: name, as: type)
  }

  /// `text` as one of `type`'s cases, or 400 on `field` listing them.
  func value<Value: CaseIterable & RawRepresentable<String>>(
    _ text: String, field: String, as type: Value.Type
  ) throws(APIError) -> Value {
    guard let value = Value(rawValue: text) else {
      let cases = Value.allCases.map(\.rawValue).joined(separator: ", ")
      throw APIError.validation(field: field, "\(field) must be one of \(cases).")
    }
    return value
  }

  /// A non-negative integer query parameter, or 400 naming it.
  func integerQuery(_ name: String) throws(APIError) -> Int64? {
    guard let text = query(name) else { return nil }
    guard let value = Int64(text), value >= 0 else {
      throw APIError.validation(field: name, "\(name) must be a non-negative integer.")
    }
    return value
  }

  /// `cursor` and `limit` of a list operation (limit 1...``PageRequest/maximumLimit``, by
  /// default ``PageRequest/defaultLimit``); the engine checks that the cursor is one it issued.
  func pageRequest() throws(APIError) -> PageRequest {
    var limit = PageRequest.defaultLimit
    if let text = query("limit") {
      let range = 1...PageRequest.maximumLimit
      guard let value = Int(text) else {
        throw APIError.validation(
          field: "limit", "limit must be an integer between 1 and \(range.upperBound).")
      }
      guard range.contains(value) else {
        throw APIError.validation(.outOfRange(field: "limit", range: range, actual: value))
      }
      limit = value
    }
    let cursor = query("cursor").flatMap { $0.isEmpty ? nil : PageCursor(rawValue: $0) }
    return PageRequest(cursor: cursor, limit: limit)
  }

  /// The body decoded as JSON, or a 400 envelope that says what is wrong and where.
  func decode<T: Decodable>(_ type: T.Type) throws(APIError) -> T {
    if body.readableBytes > 0, let contentType = request.headers[.contentType]?.lowercased(),
      !contentType.contains("json")
    {
      throw APIError.malformed(
        "Send the body as application/json (the request said \(contentType)).")
    }
    do {
      return try DTODecoding.decode(T.self, from: Data(buffer: body))
    } catch {
      throw Self.apiError(for: error)
    }
  }

  /// Refuses an explicit `null` for fields that may be left out but not nulled (PATCH bodies:
  /// leaving a field out keeps it, `null` is not a value it can take).
  func rejectNulls(_ fields: [String]) throws(APIError) {
    // `decode` already proved the body is a JSON object; anything else has no field to check.
    guard
      let object = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any]
    else { return }
    for field in fields where object[field] is NSNull {
      throw APIError.validation(
        field: field, "\(field) cannot be null; leave it out to keep the current value.")
    }
  }

  /// Maps a body DTO's decoding failure to `malformed_request` (empty, not JSON, not an
  /// object) or `validation_failed` with the wire path of the field at fault.
  static func apiError(for error: DTODecodingError) -> APIError {
    switch error {
    case .emptyBody: .malformed("The request body is empty; send a JSON object.")
    case .notJSON: .malformed("The request body is not valid JSON.")
    case .missingField(let field): .validation(field: field, "\(field) is required.")
    case .nullValue(let field) where !field.isEmpty:
      .validation(field: field, "\(field) must not be null.")
    case .wrongType(let field, let expected) where !field.isEmpty:
      .validation(field: field, "\(field) has the wrong type (expected \(expected)).")
    case .corrupted(let field, let description) where !field.isEmpty:
      .validation(field: field, "\(field) is not valid: \(description)")
    case .nullValue, .wrongType, .corrupted: .malformed("The body must be a JSON object.")
    }
  }
}
