import Domain

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

/// `ErrorBody`: a machine-readable code, a message for logs, the field at fault and, for
/// `validation_failed`, what was wrong with it.
public struct ErrorBodyDTO: Codable, Hashable, Sendable {
  /// The error code, e.g. `nickname_taken`; switch on ``knownCode``.
  public var code: String
  /// A developer-facing explanation.
  public var message: String
  /// The request field at fault, for `validation_failed`.
  public var field: String?
  /// What was wrong with ``field``, for a `validation_failed` that a validation rule refused.
  public var validation: ValidationDetailDTO?

  /// Creates the body.
  public init(
    code: String, message: String, field: String? = nil, validation: ValidationDetailDTO? = nil
  ) {
    self.code = code
    self.message = message
    self.field = field
    self.validation = validation
  }

  /// The code as an enum; codes this version does not know are `.unknown`.
  public var knownCode: ErrorCodeDTO { ErrorCodeDTO(rawValue: code) }

  /// Writes `code`, `message` and `field` always (`field` is `null` when no field is at
  /// fault), and `validation` only when there is one.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(code, forKey: .code)
    try container.encode(message, forKey: .message)
    try container.encode(field, forKey: .field)
    try container.encodeIfPresent(validation, forKey: .validation)
  }

  enum CodingKeys: String, CodingKey {
    case code
    case message
    case field
    case validation
  }
}

/// `ValidationDetail`: why a field was refused, as data, so a client gets back the
/// ``Domain/ValidationError`` the server's rule raised without reading its sentence. Which of
/// the optional values are set depends on ``kind``.
public struct ValidationDetailDTO: Codable, Hashable, Sendable {
  /// The kind of refusal.
  public var kind: ValidationKindDTO
  /// The least allowed length (`too_short`) or value (`out_of_range`).
  public var minimum: Int?
  /// The greatest allowed length (`too_long`) or value (`out_of_range`).
  public var maximum: Int?
  /// The length or value given (`too_short`, `too_long`, `out_of_range`).
  public var actual: Int?
  /// The characters not allowed (`invalid_characters`).
  public var characters: String?
  /// The reserved value (`reserved`).
  public var value: String?
  /// What a valid value looks like (`invalid_format`).
  public var expected: String?

  /// Creates the detail.
  public init(
    kind: ValidationKindDTO, minimum: Int? = nil, maximum: Int? = nil, actual: Int? = nil,
    characters: String? = nil, value: String? = nil, expected: String? = nil
  ) {
    self.kind = kind
    self.minimum = minimum
    self.maximum = maximum
    self.actual = actual
    self.characters = characters
    self.value = value
    self.expected = expected
  }

  /// The detail of `error` (its field travels beside it, in the error body's `field`).
  public init(_ error: ValidationError) {
    switch error {
    case .empty: self.init(kind: .empty)
    case .tooShort(_, let minimum, let actual):
      self.init(kind: .tooShort, minimum: minimum, actual: actual)
    case .tooLong(_, let maximum, let actual):
      self.init(kind: .tooLong, maximum: maximum, actual: actual)
    case .invalidCharacters(_, let characters):
      self.init(kind: .invalidCharacters, characters: characters)
    case .invalidFormat(_, let expected): self.init(kind: .invalidFormat, expected: expected)
    case .reserved(_, let value): self.init(kind: .reserved, value: value)
    case .outOfRange(_, let range, let actual):
      self.init(
        kind: .outOfRange, minimum: range.lowerBound, maximum: range.upperBound, actual: actual)
    }
  }

  /// The Domain error for `field`; `nil` when the kind is one this version does not know or
  /// a value the kind needs is missing (or a range is upside down).
  public func toDomain(field: String) -> ValidationError? {
    switch kind {
    case .empty: return .empty(field: field)
    case .tooShort:
      guard let minimum, let actual else { return nil }
      return .tooShort(field: field, minimum: minimum, actual: actual)
    case .tooLong:
      guard let maximum, let actual else { return nil }
      return .tooLong(field: field, maximum: maximum, actual: actual)
    case .invalidCharacters:
      return characters.map { .invalidCharacters(field: field, characters: $0) }
    case .invalidFormat: return expected.map { .invalidFormat(field: field, expected: $0) }
    case .reserved: return value.map { .reserved(field: field, value: $0) }
    case .outOfRange:
      guard let minimum, let maximum, minimum <= maximum, let actual else { return nil }
      return .outOfRange(field: field, range: minimum...maximum, actual: actual)
    case .unknown: return nil
    }
  }
}

/// `ValidationKind`: the cases of ``Domain/ValidationError`` on the wire.
public enum ValidationKindDTO: OpenStringEnum {
  case empty, tooShort, tooLong, invalidCharacters, invalidFormat, reserved, outOfRange
  case unknown(String)
  /// The wire strings of the known cases.
  public static let wireValues: [(value: Self, wire: String)] = [
    (.empty, "empty"), (.tooShort, "too_short"), (.tooLong, "too_long"),
    (.invalidCharacters, "invalid_characters"), (.invalidFormat, "invalid_format"),
    (.reserved, "reserved"), (.outOfRange, "out_of_range"),
  ]
  /// The kept text of `.unknown`.
  public var unknownRawValue: String? { if case .unknown(let text) = self { text } else { nil } }
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
