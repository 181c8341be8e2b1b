/// `ErrorEnvelope`: the body of every error response, `{ "error": { ... } }`.
public struct ErrorEnvelopeDTO: Codable, Hashable, Sendable {
  /// The error.
  public var error: ErrorBodyDTO

  /// Creates the envelope.
  public init(error: ErrorBodyDTO) { self.error = error }

  enum CodingKeys: String, CodingKey {
    case error
  }
}

/// `ErrorBody`: a machine-readable code, a message for logs, and the field at fault.
public struct ErrorBodyDTO: Codable, Hashable, Sendable {
  /// The error code, e.g. `nickname_taken`; switch on ``knownCode``.
  public var code: String
  /// A developer-facing explanation.
  public var message: String
  /// The request field at fault, for `validation_failed`.
  public var field: String?

  /// Creates the body.
  public init(code: String, message: String, field: String? = nil) {
    self.code = code
    self.message = message
    self.field = field
  }

  /// The code as an enum; codes this version does not know are `.unknown`.
  public var knownCode: ErrorCodeDTO { ErrorCodeDTO(rawValue: code) }

  /// Writes every key; `field` is `null` when no field is at fault.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(code, forKey: .code)
    try container.encode(message, forKey: .message)
    try container.encode(field, forKey: .field)
  }

  enum CodingKeys: String, CodingKey {
    case code
    case message
    case field
  }
}

/// `ErrorCode`: the error codes of the contract.
public enum ErrorCodeDTO: OpenStringEnum {
  case validationFailed, malformedRequest, unauthorized, tokenExpired, forbidden, banned
  case answerRequired, notFound, nicknameTaken, alreadyReported, conflict, payloadTooLarge
  case rateLimited, upgradeRequired, `internal`, unknown(String)
  /// The wire strings of the known cases.
  public static let wireValues: [(value: Self, wire: String)] = [
    (.validationFailed, "validation_failed"), (.malformedRequest, "malformed_request"),
    (.unauthorized, "unauthorized"), (.tokenExpired, "token_expired"),
    (.forbidden, "forbidden"), (.banned, "banned"), (.answerRequired, "answer_required"),
    (.notFound, "not_found"), (.nicknameTaken, "nickname_taken"),
    (.alreadyReported, "already_reported"), (.conflict, "conflict"),
    (.payloadTooLarge, "payload_too_large"), (.rateLimited, "rate_limited"),
    (.upgradeRequired, "upgrade_required"), (.internal, "internal"),
  ]
  /// The kept text of `.unknown`.
  public var unknownRawValue: String? { if case .unknown(let text) = self { text } else { nil } }
}
