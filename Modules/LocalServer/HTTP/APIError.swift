import DTO
import Domain
import Foundation
import Hummingbird
import ServiceEngine

/// A failure the API reports: an HTTP status plus the error envelope
/// `{ "error": { "code", "message", "field", "validation" } }`. Every error response of the
/// server is one of these: `ErrorEnvelopeMiddleware` answers it with `Reply.envelope(_:)` and
/// turns anything else into one.
struct APIError: Error, Sendable, CustomStringConvertible {
  /// The HTTP status.
  var status: HTTPResponse.Status
  /// The machine-readable code of the contract (`validation_failed`, `not_found`, ...).
  var code: ErrorCodeDTO
  /// A sentence for people: what is wrong and what to do.
  var message: String
  /// The snake_case field at fault, for `validation_failed` and `nickname_taken`.
  var field: String?
  /// What a validation rule found wrong with ``field`` (`ValidationDetailDTO`).
  var validation: ValidationDetailDTO?
  /// Extra response headers (`Retry-After`, `Allow`).
  var headers: HTTPFields = [:]

  var description: String { "\(status.code) \(code): \(message)" }

  // MARK: 400

  /// A value was refused by a Domain rule; names the field (`field`, when given, names it
  /// where the request holds it) and carries the rule's detail.
  static func validation(_ error: ValidationError, field: String? = nil) -> APIError {
    var refusal = validation(field: field ?? error.field, error.description)
    refusal.validation = ValidationDetailDTO(error)
    return refusal
  }

  /// A value was refused; names the field.
  static func validation(field: String, _ message: String) -> APIError {
    APIError(status: .badRequest, code: .validationFailed, message: message, field: field)
  }

  /// The body or a parameter could not be read at all.
  static func malformed(_ message: String) -> APIError {
    APIError(status: .badRequest, code: .malformedRequest, message: message)
  }

  // MARK: 401

  /// No token, an unknown token or a revoked one.
  static func unauthorized(
    _ message: String = "Sign in first: send a valid access token as Authorization: Bearer."
  ) -> APIError {
    APIError(status: .unauthorized, code: .unauthorized, message: message)
  }

  /// The access token is past its expiry.
  static let tokenExpired = APIError(
    status: .unauthorized, code: .tokenExpired,
    message: "The access token has expired; refresh the session and retry.")

  // MARK: 403

  /// Not the owner, not an admin, not a member of the room.
  static func forbidden(_ message: String) -> APIError {
    APIError(status: .forbidden, code: .forbidden, message: message)
  }

  /// The account is banned from writing: `DomainError.banned`'s sentence, and the ban's end
  /// when it has one.
  static func banned(until: Date?) -> APIError {
    let end = until.map { " The ban ends at \(QappleCoding.string(from: $0))." } ?? ""
    return APIError(
      status: .forbidden, code: .banned, message: DomainError.banned.description + end)
  }

  // MARK: 404, 405

  /// Nothing there, or hidden from the caller.
  static func notFound(_ message: String) -> APIError {
    APIError(status: .notFound, code: .notFound, message: message)
  }

  /// The path exists but not with this method.
  static func methodNotAllowed(_ method: String, path: String, allowed: [String]) -> APIError {
    var error = APIError(
      status: .methodNotAllowed, code: .malformedRequest,
      message: "\(method) is not supported on \(path); use \(allowed.joined(separator: ", ")).")
    error.headers[.allow] = allowed.joined(separator: ", ")
    return error
  }

  // MARK: 409

  /// The write collides with the current state.
  static func conflict(_ message: String) -> APIError {
    APIError(status: .conflict, code: .conflict, message: message)
  }

  // MARK: 413, 429, 5xx

  /// The body is larger than the server accepts.
  static func payloadTooLarge(limit: Int) -> APIError {
    APIError(
      status: .contentTooLarge, code: .payloadTooLarge,
      message: "The request body is larger than \(limit) bytes.")
  }

  /// Too many writes (`DomainError.rateLimited`'s sentence); `Retry-After` says when to try
  /// again.
  static func rateLimited(retryAfter seconds: Int) -> APIError {
    var error = APIError(
      status: .tooManyRequests, code: .rateLimited,
      message: DomainError.rateLimited(retryAfter: .seconds(seconds)).description)
    error.headers[.retryAfter] = String(seconds)
    return error
  }

  /// A plain request to a WebSocket-only path (`/realtime`).
  static func upgradeRequired(_ path: String) -> APIError {
    var error = APIError(
      status: .upgradeRequired, code: .upgradeRequired,
      message: "\(path) speaks WebSocket only: send a WebSocket handshake (Upgrade: websocket).")
    error.headers[.upgrade] = "websocket"
    error.headers[.connection] = "Upgrade"
    return error
  }

  /// The server failed.
  /// The answer to a failure of the server's own (its database, a bug): one sentence for the
  /// HTTP routes and the socket's handshake alike.
  static var serverFailed: APIError { .internalError("The server failed; try again later.") }

  static func internalError(_ message: String) -> APIError {
    APIError(status: .internalServerError, code: .internal, message: message)
  }

  /// An injected fault (dev mode) with the configured status.
  static func injected(status: Int) -> APIError {
    let codes: [Int: ErrorCodeDTO] = [
      400: .malformedRequest, 401: .unauthorized, 403: .forbidden, 404: .notFound,
      409: .conflict, 413: .payloadTooLarge, 429: .rateLimited,
    ]
    var error = APIError(
      status: HTTPResponse.Status(code: status), code: codes[status] ?? .internal,
      message: "Injected fault (dev mode): this request failed on purpose.")
    if status == 429 { error.headers[.retryAfter] = "1" }
    return error
  }
}

extension APIError {
  /// The envelope of an error the server's own code throws: an `APIError` as it is, an engine
  /// refusal (``init(_:viewer:)``); `nil` for anything else (a failure to log and answer 500).
  static func of(_ error: any Error) -> APIError? {
    switch error {
    case let error as APIError: error
    case let error as DomainError: APIError(error)
    default: nil
    }
  }

  /// The envelope of an engine refusal. `viewer` words a ban with its end.
  init(_ error: DomainError, viewer: Viewer? = nil) {
    switch error {
    case .validation(let validation) where validation.field == "request":
      // The request as a whole is unreadable, not one field of it.
      self = .malformed(validation.description)
    case .validation(let validation):
      self = .validation(validation)
    case .nicknameTaken:
      self = APIError(
        status: .conflict, code: .nicknameTaken, message: error.description, field: "nickname")
    case .alreadyReported:
      self = APIError(
        status: .conflict, code: .alreadyReported, message: error.description)
    case .banned:
      self = .banned(until: viewer?.bannedUntil)
    case .notFound:
      self = .notFound(error.description)
    case .forbidden:
      self = .forbidden(error.description)
    case .answerRequired:
      self = APIError(status: .forbidden, code: .answerRequired, message: error.description)
    case .conflict(let message):
      self = .conflict(message)
    case .signedOut:
      self = .unauthorized(error.description)
    case .rateLimited(let retryAfter):
      self = .rateLimited(retryAfter: Int((retryAfter ?? .seconds(1)).wholeSecondsRoundedUp))
    case .offline, .timeout, .server:
      self = .serverFailed
    }
  }
}

/// Runs a Domain check on a request value and turns its `ValidationError` into a 400 envelope.
func validate<T>(_ body: () throws(ValidationError) -> T) throws(APIError) -> T {
  do {
    return try body()
  } catch {
    throw APIError.validation(error)
  }
}
