import DTO
import Foundation
import TestSupport
import Yams

/// The message payload schemas of `Docs/asyncapi.yaml`, for comparing encoded frames with them.
///
/// The comparison is stricter than JSON Schema: the samples set every field, so an object's keys
/// must be exactly its documented `properties` (a key the document lacks, or a documented key the
/// frame never writes, is a problem); beside that it checks `type`, `const`, `required`,
/// `minimum`, `minLength`, `maxLength` and the `uuid` and `date-time` formats, following `$ref`.
struct PayloadSchemas {
  /// The whole document, which `$ref`s resolve against.
  let root: [String: Any]

  /// Reads `Docs/asyncapi.yaml` of this repository.
  static func load() throws -> PayloadSchemas {
    let text = try String(contentsOf: repositoryFile("Docs/asyncapi.yaml"), encoding: .utf8)
    guard let root = try Yams.load(yaml: text) as? [String: Any]
    else { throw Failure(description: "asyncapi.yaml is not a mapping") }
    return PayloadSchemas(root: root)
  }

  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  /// Where the frame `text` departs from the payload of the document message `message` (a key
  /// of `components/messages`, e.g. `typingOut`), by wire path; empty when it matches.
  func problems(of text: String, as message: String) throws -> [String] {
    let value = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
    let payload = try node(at: ["components", "messages", message, "payload"])
    return try problems(value, payload, at: "")
  }

  private func node(at path: [String]) throws -> [String: Any] {
    var current: Any = root
    for part in path {
      guard let next = (current as? [String: Any])?[part] else {
        throw Failure(description: "asyncapi.yaml has no \(path.joined(separator: "/"))")
      }
      current = next
    }
    guard let node = current as? [String: Any] else {
      throw Failure(description: "\(path.joined(separator: "/")) is not a schema")
    }
    return node
  }

  private func problems(
    _ value: JSONValue, _ schema: [String: Any], at path: String
  ) throws
    -> [String]
  {
    if let reference = schema["$ref"] as? String {
      let parts = reference.split(separator: "/").dropFirst().map(String.init)
      return try problems(value, try node(at: parts), at: path)
    }
    let here = path.isEmpty ? "(root)" : path
    if let types = (schema["type"] as? [String]) ?? (schema["type"] as? String).map({ [$0] }),
      !types.contains(where: value.matches(type:))
    {
      return ["\(here): \(value) is not \(types.joined(separator: " or "))"]
    }
    var found: [String] = []
    if let constant = schema["const"], value != JSONValue(yaml: constant) {
      found.append("\(here): \(value) is not the const \(constant)")
    }
    switch value {
    case .object(let object):
      let properties = schema["properties"] as? [String: Any] ?? [:]
      for key in schema["required"] as? [String] ?? [] where object[key] == nil {
        found.append("\(here): \(key) is required")
      }
      for key in object.keys.sorted() {
        let child = path.isEmpty ? key : "\(path).\(key)"
        if let property = properties[key] as? [String: Any], let member = object[key] {
          found += try problems(member, property, at: child)
        } else {
          found.append("\(here): \(key) is encoded but not documented")
        }
      }
      for key in properties.keys.sorted() where object[key] == nil {
        found.append("\(here): \(key) is documented but not encoded")
      }
    case .integer(let number):
      if let minimum = schema["minimum"] as? Int, number < minimum {
        found.append("\(here): \(number) is below the minimum \(minimum)")
      }
    case .string(let string):
      let length = string.unicodeScalars.count
      if let minimum = schema["minLength"] as? Int, length < minimum {
        found.append("\(here): shorter than \(minimum)")
      }
      if let maximum = schema["maxLength"] as? Int, length > maximum {
        found.append("\(here): longer than \(maximum)")
      }
      switch schema["format"] as? String {
      case "uuid" where UUID(uuidString: string) == nil,
        "date-time" where QappleCoding.date(from: string) == nil:
        found.append("\(here): \"\(string)\" is not a \(schema["format"] ?? "")")
      default: break
      }
    default:
      break
    }
    return found
  }
}

/// A JSON value as the frames' encoder wrote it (integers kept apart from other numbers).
enum JSONValue: Decodable, Equatable, CustomStringConvertible {
  case null
  case bool(Bool)
  case integer(Int)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([String: JSONValue])

  init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let bool = try? container.decode(Bool.self) {
      self = .bool(bool)
    } else if let integer = try? container.decode(Int.self) {
      self = .integer(integer)
    } else if let number = try? container.decode(Double.self) {
      self = .number(number)
    } else if let string = try? container.decode(String.self) {
      self = .string(string)
    } else if let array = try? container.decode([JSONValue].self) {
      self = .array(array)
    } else {
      self = .object(try container.decode([String: JSONValue].self))
    }
  }

  /// A scalar of the YAML document (`const`), or `nil` for anything else.
  init?(yaml: Any) {
    switch yaml {
    case let string as String: self = .string(string)
    case let bool as Bool: self = .bool(bool)
    case let integer as Int: self = .integer(integer)
    default: return nil
    }
  }

  /// Whether the value is of the JSON Schema `type`.
  func matches(type: String) -> Bool {
    switch (type, self) {
    case ("null", .null), ("boolean", .bool), ("integer", .integer), ("number", .integer),
      ("number", .number), ("string", .string), ("array", .array), ("object", .object):
      true
    default:
      false
    }
  }

  var description: String {
    switch self {
    case .null: "null"
    case .bool(let bool): "\(bool)"
    case .integer(let integer): "\(integer)"
    case .number(let number): "\(number)"
    case .string(let string): "\"\(string)\""
    case .array: "an array"
    case .object: "an object"
    }
  }
}

/// The paths of the `nil` optionals in `value` (its stored properties and associated values,
/// nested): a sample frame must set every field, else its key is missing from the encoded frame
/// and escapes the comparison with the document.
func unsetFields(_ value: Any, path: String = "") -> [String] {
  let mirror = Mirror(reflecting: value)
  if mirror.displayStyle == .optional {
    guard let wrapped = mirror.children.first else { return [path.isEmpty ? "(root)" : path] }
    return unsetFields(wrapped.value, path: path)
  }
  return mirror.children.enumerated().flatMap { index, child in
    let name = child.label ?? "\(index)"
    return unsetFields(child.value, path: path.isEmpty ? name : "\(path).\(name)")
  }
}
