import Foundation

/// Why a response body could not be decoded, with the wire path of the field at fault
/// (`items[2].created_at`). Every case points at a server or proxy problem, not a user error.
public enum DTODecodingError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The body was empty (or only whitespace) where JSON was expected.
  case emptyBody
  /// The body is not JSON at all, e.g. an HTML error page from a proxy; holds its start.
  case notJSON(snippet: String)
  /// A required key is absent.
  case missingField(path: String)
  /// A value has the wrong JSON type; says what was expected.
  case wrongType(path: String, expected: String)
  /// A required value is `null`.
  case nullValue(path: String)
  /// A value is of the right type but unusable (a malformed date, broken JSON mid-body).
  case corrupted(path: String, description: String)

  /// The wire path of the field at fault, or `nil` when the whole body is at fault.
  public var path: String? {
    switch self {
    case .emptyBody, .notJSON: nil
    case .missingField(let path), .wrongType(let path, _), .nullValue(let path),
      .corrupted(let path, _):
      path
    }
  }

  /// Says what is wrong and where.
  public var description: String {
    switch self {
    case .emptyBody:
      "The server sent an empty body where JSON was expected."
    case .notJSON(let snippet):
      "The server sent something that is not JSON (a proxy or error page?): \(snippet)"
    case .missingField(let path):
      "The server's JSON lacks the required field \(path)."
    case .wrongType(let path, let expected):
      "The server's JSON has the wrong type at \(path): expected \(expected)."
    case .nullValue(let path):
      "The server's JSON has null at \(path), which is required."
    case .corrupted(let path, let description):
      "The server's JSON is unusable at \(path.isEmpty ? "the top level" : path): \(description)"
    }
  }
}

/// Decodes response bodies with the Qapple decoder and turns Foundation's `DecodingError` into
/// a ``DTODecodingError`` with a readable path.
public enum DTODecoding {
  /// How many characters of a non-JSON body an error keeps.
  public static let snippetLength = 120

  /// Decodes `type` from `data` with ``QappleCoding/makeDecoder()``.
  public static func decode<T: Decodable>(
    _ type: T.Type, from data: Data
  )
    throws(DTODecodingError) -> T
  {
    try decode(type, from: data, using: QappleCoding.makeDecoder())
  }

  /// Decodes `type` from `data` with the given decoder (reuse one decoder for many bodies).
  public static func decode<T: Decodable>(
    _ type: T.Type, from data: Data, using decoder: JSONDecoder
  ) throws(DTODecodingError) -> T {
    // A UTF-8 byte order mark may lead; Foundation's decoder skips it.
    let text = data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data[...]
    guard let first = text.first(where: { !Self.isWhitespace($0) }) else { throw .emptyBody }
    // Catch HTML pages and plain-text errors before the JSON parser reports a vague position.
    guard Self.canStartJSON(first) else { throw .notJSON(snippet: Self.snippet(of: text)) }
    do {
      return try decoder.decode(type, from: data)
    } catch let error as DecodingError {
      throw Self.translate(error, data: data)
    } catch {
      throw .corrupted(path: "", description: String(describing: error))
    }
  }

  /// The typed form of a `DecodingError`.
  public static func translate(_ error: DecodingError, data: Data) -> DTODecodingError {
    switch error {
    case .keyNotFound(let key, let context):
      return .missingField(path: render(context.codingPath + [key]))
    case .valueNotFound(_, let context):
      // Foundation reports `null` as "value not found".
      return .nullValue(path: render(context.codingPath))
    case .typeMismatch(let type, let context):
      if context.debugDescription.localizedCaseInsensitiveContains("found null") {
        return .nullValue(path: render(context.codingPath))
      }
      return .wrongType(path: render(context.codingPath), expected: describe(type))
    case .dataCorrupted(let context):
      // Invalid JSON syntax surfaces as a corruption at the root; only then is it worth
      // re-parsing to tell broken JSON from a bad top-level value.
      if context.codingPath.isEmpty,
        (try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)) == nil
      {
        return .notJSON(snippet: snippet(of: data))
      }
      return .corrupted(path: render(context.codingPath), description: context.debugDescription)
    @unknown default:
      return .corrupted(path: "", description: String(describing: error))
    }
  }

  /// Renders a coding path the way the wire spells it: `items[2].created_at`.
  public static func render(_ codingPath: [any CodingKey]) -> String {
    var path = ""
    for key in codingPath {
      if let index = key.intValue {
        path += "[\(index)]"
      } else {
        if !path.isEmpty { path += "." }
        path += key.stringValue
      }
    }
    return path
  }

  /// How an error message names a JSON type a field should have had: "a string", "an integer".
  public static func describe(_ type: Any.Type) -> String {
    switch type {
    case is String.Type: "a string"
    case is Bool.Type: "a boolean"
    case is Int.Type, is Int64.Type, is Int32.Type: "an integer"
    case is Double.Type, is Float.Type: "a number"
    default:
      // Arrays and dictionaries of any element type (`[Int]` is not an `[Any].Type`).
      switch String(describing: type) {
      case let name where name.hasPrefix("Array<"): "an array"
      case let name where name.hasPrefix("Dictionary<"): "an object"
      case let name: name
      }
    }
  }

  private static func isWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
  }

  private static func canStartJSON(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\""), UInt8(ascii: "-"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "t"), UInt8(ascii: "f"),
      UInt8(ascii: "n"):
      true
    default: false
    }
  }

  private static func snippet(of data: some Collection<UInt8>) -> String {
    let text = String(decoding: data.prefix(snippetLength * 4), as: UTF8.self)
    let collapsed = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    return collapsed.count > snippetLength
      ? String(collapsed.prefix(snippetLength)) + "…" : collapsed
  }
}
