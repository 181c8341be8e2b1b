import DTO
import Foundation
import Hummingbird

/// What a handler answers: status, headers and an already encoded body. Kept as plain bytes so
/// idempotent replays can store and return exactly the first answer.
struct Reply: Sendable {
  var status: HTTPResponse.Status
  var headers: HTTPFields = [:]
  var body: Data = Data()

  /// A JSON body encoded with the API's encoder (RFC 3339 dates with milliseconds).
  static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Reply {
    let data = try QappleCoding.makeEncoder().encode(value)
    return Reply(
      status: status, headers: [.contentType: "application/json; charset=utf-8"], body: data)
  }

  /// 204 without a body.
  static let noContent = Reply(status: .noContent)

  /// The error envelope of `error`.
  static func envelope(_ error: APIError) -> Reply {
    let envelope = ErrorEnvelopeDTO(
      error: ErrorBodyDTO(
        code: error.code.rawValue, message: error.message, field: error.field,
        validation: error.validation))
    do {
      var reply = try json(envelope, status: error.status)
      reply.headers.append(contentsOf: error.headers)
      return reply
    } catch {
      // Encoding three strings cannot fail; answer something valid anyway.
      return Reply(
        status: .internalServerError, headers: [.contentType: "application/json"],
        body: Data(#"{"error":{"code":"internal","message":"Encoding failed.","field":null}}"#.utf8)
      )
    }
  }

  /// The Hummingbird response.
  var response: Response {
    Response(
      status: status, headers: headers,
      body: body.isEmpty ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
  }
}

/// Header names of the API that HTTPTypes does not predefine.
enum HeaderName {
  /// `Idempotency-Key`: makes a write safe to retry (chat sends use the client message id).
  static let idempotencyKey = HTTPFields.Element.Name("Idempotency-Key")!
  /// `Idempotent-Replayed: true` marks an answer replayed from an earlier request.
  static let idempotentReplayed = HTTPFields.Element.Name("Idempotent-Replayed")!
}
