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
      return domainError(
        status: failure.status, serverError: failure.serverError, body: failure.body,
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

  /// The Domain error for a status and the server's error envelope (if the body had one).
  static func domainError(
    status: Int, serverError: ServerError?, body: Data, retryAfter: Duration?, prefix: String
  ) -> DomainError {
    if let serverError {
      switch ErrorCodeDTO(rawValue: serverError.code) {
      case .validationFailed, .malformedRequest:
        return .validation(
          ValidationError(serverField: serverError.field, message: serverError.message))
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
  /// The validation error the server described with `field` and `message`.
  ///
  /// The local server words its messages with Domain's own ``ValidationError/description``, so
  /// a message in that wording becomes the same case again (`tooLong(content, 250, 300)`);
  /// any other wording becomes `.invalidFormat(field:expected:)` carrying the message.
  public init(serverField field: String?, message: String) {
    let field = field.flatMap { $0.isEmpty ? nil : $0 } ?? "request"
    self =
      Self.parse(field: field, message: message)
      ?? .invalidFormat(
        field: field, expected: Self.expectation(from: message, field: field))
  }

  /// Reads Domain's wording back; `nil` when the message is worded differently.
  private static func parse(field: String, message: String) -> ValidationError? {
    guard message.hasPrefix(field + " ") else { return nil }
    let rest = String(message.dropFirst(field.count + 1))
    if rest == "must not be empty." { return .empty(field: field) }
    if let numbers = match(rest, "needs at least ", " characters (it has ", ").") {
      guard let minimum = Int(numbers.0), let actual = Int(numbers.1) else { return nil }
      return .tooShort(field: field, minimum: minimum, actual: actual)
    }
    if let numbers = match(rest, "allows at most ", " characters (it has ", ").") {
      guard let maximum = Int(numbers.0), let actual = Int(numbers.1) else { return nil }
      return .tooLong(field: field, maximum: maximum, actual: actual)
    }
    let notAllowed = "contains characters that are not allowed: "
    if rest.hasPrefix(notAllowed) {
      return .invalidCharacters(field: field, characters: String(rest.dropFirst(notAllowed.count)))
    }
    if rest.hasPrefix("\""), rest.hasSuffix("\" is reserved; choose another.") {
      let value = rest.dropFirst().dropLast("\" is reserved; choose another.".count)
      return .reserved(field: field, value: String(value))
    }
    if let parts = match(rest, "must be between ", " (got ", ").") {
      let bounds = parts.0.components(separatedBy: " and ")
      if bounds.count == 2, let lower = Int(bounds[0]), let upper = Int(bounds[1]),
        lower <= upper, let actual = Int(parts.1)
      {
        return .outOfRange(field: field, range: lower...upper, actual: actual)
      }
      return nil
    }
    if rest.hasPrefix("must be "), rest.hasSuffix(".") {
      return .invalidFormat(field: field, expected: String(rest.dropFirst(8).dropLast()))
    }
    return nil
  }

  /// `a…b…c` split at the literal parts; the two values between them.
  private static func match(
    _ text: String, _ head: String, _ middle: String, _ tail: String
  ) -> (String, String)? {
    guard text.hasPrefix(head), text.hasSuffix(tail) else { return nil }
    let inner = text.dropFirst(head.count).dropLast(tail.count)
    guard let split = inner.range(of: middle) else { return nil }
    return (String(inner[..<split.lowerBound]), String(inner[split.upperBound...]))
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
      body: Data(), retryAfter: nil, prefix: "realtime: ")
  }
}
