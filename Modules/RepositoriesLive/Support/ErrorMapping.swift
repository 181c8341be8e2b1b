import DTO
import Domain
import Foundation
import NetworkKit

/// Turns what NetworkKit and DTO throw into the ``Domain/DomainError`` every repository throws.
///
/// The server's error code decides first (it is more precise than the status); the status
/// decides when the body is not an error envelope (a proxy's HTML page, an empty 502).
public enum LiveErrorMapping {
  /// The Domain error for a failed request.
  ///
  /// - Parameters:
  ///   - error: What the provider threw; a refused status carries its `Retry-After` header.
  ///   - now: The wall-clock time, for a `Retry-After` given as a date.
  ///   - operation: The operation id (`BoardAPI.like`), quoted in `.server` messages for logs.
  public static func domainError(
    for error: NetworkError, now: Date = Date(), operation: String = ""
  ) -> DomainError {
    let prefix = operation.isEmpty ? "" : "\(operation): "
    switch error {
    case .offline, .transport:
      return .offline
    case .timeout:
      return .timeout
    case .cancelled:
      // Repositories throw `CancellationError` for cancelled calls and never get here; this
      // answer exists for callers of this function that have no better choice.
      return .server("\(prefix)the request was cancelled before it finished")
    case .status(let failure):
      // NetworkKit's generic `ServerError` has no room for the API's validation detail.
      let envelope = try? JSONDecoder().decode(ErrorEnvelopeDTO.self, from: failure.body)
      return domainError(
        status: failure.status, serverError: failure.serverError,
        validation: envelope?.error.validation, body: failure.body,
        retryAfter: failure.retryAfter(now: now), prefix: prefix)
    case .decoding(let type, let codingPath, let description):
      let path = codingPath.isEmpty ? "the top level" : codingPath
      return .server("\(prefix)the response did not decode as \(type) at \(path): \(description)")
    case .unauthorized, .notSignedIn, .sessionRevoked, .sessionEnded:
      return .signedOut
    case .refreshRateLimited:
      return .rateLimited(retryAfter: nil)
    case .credentialStorage(let message):
      return .server("\(prefix)the saved credentials could not be read or written: \(message)")
    case .invalidRequest(let reason):
      return .server("\(prefix)the request could not be built: \(reason)")
    case .notStubbed(let method, let path):
      return .server("\(prefix)no stub answers \(method) \(path)")
    }
  }

  /// The Domain error for a status and the server's error envelope (if the body had one),
  /// with its validation detail.
  static func domainError(
    status: Int, serverError: ServerError?, validation: ValidationDetailDTO?, body: Data,
    retryAfter: Duration?, prefix: String
  ) -> DomainError {
    if let serverError {
      switch ErrorCodeDTO(rawValue: serverError.code) {
      case .validationFailed, .malformedRequest:
        return .validation(
          ValidationError(
            serverField: serverError.field, message: serverError.message, detail: validation))
      case .payloadTooLarge:
        return .validation(
          .invalidFormat(
            field: serverError.field ?? "body",
            expected: "smaller: the server refused it as too large (\(serverError.message))"))
      case .unauthorized, .tokenExpired: return .signedOut
      case .forbidden: return .forbidden
      case .banned: return .banned
      case .answerRequired: return .answerRequired
      case .notFound: return .notFound
      case .nicknameTaken: return .nicknameTaken
      case .alreadyReported: return .alreadyReported
      case .conflict: return .conflict(serverError.message)
      case .rateLimited: return .rateLimited(retryAfter: retryAfter)
      case .internal:
        return .server("\(prefix)HTTP \(status) internal: \(serverError.message)")
      case .upgradeRequired:
        // Only a plain request to the WebSocket path gets it: a bug of the caller, not the user.
        return .server("\(prefix)HTTP \(status) upgrade_required: \(serverError.message)")
      case .unknown(let code):
        // A code this SDK version does not know: the status still says what kind of failure.
        return domainError(
          status: status, body: body, retryAfter: retryAfter, prefix: prefix,
          detail: "\(code): \(serverError.message)")
      }
    }
    return domainError(
      status: status, body: body, retryAfter: retryAfter, prefix: prefix, detail: nil)
  }

  private static func domainError(
    status: Int, body: Data, retryAfter: Duration?, prefix: String, detail: String?
  ) -> DomainError {
    let detail = detail ?? "a body that is not an error envelope: \(snippet(of: body))"
    switch status {
    case 400, 422:
      return .validation(
        .invalidFormat(field: "request", expected: "accepted by the server (\(detail))"))
    case 401: return .signedOut
    case 403: return .forbidden
    case 404, 410: return .notFound
    case 409: return .conflict(detail)
    case 408: return .timeout
    case 413:
      return .validation(
        .invalidFormat(field: "body", expected: "smaller: the server refused it as too large"))
    case 429: return .rateLimited(retryAfter: retryAfter)
    default: return .server("\(prefix)HTTP \(status) with \(detail)")
    }
  }

  /// The start of a body, for messages: HTML error pages and plain text stay readable.
  static func snippet(of body: Data) -> String {
    if body.isEmpty { return "(empty)" }
    let text = String(decoding: body.prefix(480), as: UTF8.self)
    let collapsed = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    return collapsed.count > 160 ? String(collapsed.prefix(160)) + "…" : collapsed
  }

  /// Runs `decode`, rethrowing a body that did not decode (`DTODecodingError`) or could not
  /// become a Domain value (`MappingError`) as NetworkKit's ``NetworkKit/NetworkError/decoding(type:codingPath:description:)``
  /// naming `wire`: code that must throw NetworkKit's errors (the token refresh) then reports
  /// a bad answer as a server problem (`.server`), not as a connection failure (`.offline`).
  static func decodingFailure<Wire, Value>(
    as wire: Wire.Type, _ decode: () throws -> Value
  ) throws -> Value {
    do {
      return try decode()
    } catch let error as DTODecodingError {
      throw NetworkError.decoding(
        type: String(reflecting: wire), codingPath: error.path ?? "",
        description: error.description)
    } catch let error as MappingError {
      throw NetworkError.decoding(
        type: String(reflecting: wire), codingPath: error.path, description: error.description)
    }
  }

  /// The Domain error for a body that decoded but could not become a Domain value.
  public static func domainError(for error: MappingError, operation: String = "") -> DomainError {
    .server((operation.isEmpty ? "" : "\(operation): ") + error.description)
  }

  /// The Domain error for a body that did not decode.
  public static func domainError(
    for error: DTODecodingError, operation: String = ""
  ) -> DomainError {
    .server((operation.isEmpty ? "" : "\(operation): ") + error.description)
  }
}

extension ValidationError {
  /// The validation error the server described with `field`, `message` and `detail`: the
  /// detail read back into the same case (`tooLong(content, 250, 300)`) when it is one this
  /// version knows; otherwise `.invalidFormat(field:expected:)` carrying the message (a
  /// refusal no Domain rule raised, or a kind added later).
  public init(serverField field: String?, message: String, detail: ValidationDetailDTO? = nil) {
    let field = field.flatMap { $0.isEmpty ? nil : $0 } ?? "request"
    self =
      detail?.toDomain(field: field)
      ?? .invalidFormat(
        field: field, expected: Self.expectation(from: message, field: field))
  }

  /// Words a free-form message so `"<field> must be <expected>."` still reads as a sentence.
  private static func expectation(from message: String, field: String) -> String {
    var text = message.trimmingCharacters(in: .whitespacesAndNewlines)
    while text.hasSuffix(".") { text.removeLast() }
    if text.isEmpty { return "a value the server accepts" }
    return "a value the server accepts (\(text))"
  }
}

extension ErrorBodyDecoder {
  /// The Qapple API's error envelope, `{ "error": { "code", "message", "field" } }` (DTO's
  /// `ErrorEnvelopeDTO`), as NetworkKit's generic ``NetworkKit/ServerError``.
  public static let qappleEnvelope = ErrorBodyDecoder { body in
    guard let envelope = try? JSONDecoder().decode(ErrorEnvelopeDTO.self, from: body) else {
      return nil
    }
    return ServerError(
      code: envelope.error.code, message: envelope.error.message, field: envelope.error.field)
  }
}

extension LiveErrorMapping {
  /// The Domain error for a realtime `error` frame: its code means what it means over REST
  /// (`forbidden`, `banned`, `rate_limited`, ...); a socket-only code (`too_many_frames`,
  /// `slow_consumer`) is a server-side condition worth trying again.
  public static func domainError(realtime error: RealtimeErrorDTO) -> DomainError {
    domainError(
      status: 0,
      serverError: ServerError(code: error.code, message: error.message, field: error.field),
      validation: error.validation, body: Data(), retryAfter: nil, prefix: "realtime: ")
  }
}
