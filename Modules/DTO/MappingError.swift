import Domain
import Foundation

/// Why a decoded response could not become a Domain value. `path` names the wire field, e.g.
/// `items[3].author_name` or `session.user.nickname`, so a log line points at the bad byte.
///
/// These are server bugs or contract drift, not user errors: report them, do not retry.
public struct MappingError: Error, Hashable, Sendable, CustomStringConvertible {
  /// What is wrong with the field.
  public enum Problem: Hashable, Sendable {
    /// A required string (an identifier, a name, a text) is empty.
    case empty
    /// A count or sequence number is below zero.
    case negative(Int64)
    /// A value that the rest of the object requires is `null` or absent; says why it is needed.
    case missing(requiredBecause: String)
    /// A string does not have the expected shape (a date, a URL, a UUID).
    case invalidFormat(value: String, expected: String)
    /// An enum value this SDK version does not know, where Domain has no `unknown` case.
    case unknownValue(String, expected: [String])
    /// A value Domain refuses, with its explanation.
    case invalid(ValidationError)
  }

  /// The wire path of the field, e.g. `items[3].author_name`.
  public var path: String
  /// What is wrong with it.
  public var problem: Problem

  /// Creates an error for the field at `path`.
  public init(path: String, problem: Problem) {
    self.path = path
    self.problem = problem
  }

  /// The same error, with `parent` put in front of the path (`user` + `nickname` ->
  /// `user.nickname`; `items[3]` + `id` -> `items[3].id`).
  public func nested(in parent: String) -> MappingError {
    MappingError(path: Self.join(parent, path), problem: problem)
  }

  /// Says which field is wrong and how.
  public var description: String {
    let detail: String
    switch problem {
    case .empty: detail = "must not be empty"
    case .negative(let value): detail = "must not be negative (got \(value))"
    case .missing(let reason): detail = "is missing but required because \(reason)"
    case .invalidFormat(let value, let expected):
      detail = "must be \(expected) (got \"\(value)\")"
    case .unknownValue(let value, let expected):
      detail =
        "has the value \"\(value)\", which this SDK version does not know "
        + "(expected one of \(expected.joined(separator: ", "))); update the SDK"
    case .invalid(let error): detail = "is invalid: \(error.description)"
    }
    return "The server sent a response this SDK cannot use: \(path) \(detail)."
  }

  static func join(_ parent: String, _ child: String) -> String {
    if child.isEmpty { return parent }
    if parent.isEmpty { return child }
    return child.hasPrefix("[") ? parent + child : parent + "." + child
  }
}

// Small checks shared by every `toDomain()`. They only look at lengths and signs, so mapping a
// large page costs little next to decoding it; error values are built only on failure.
extension String {
  /// The string itself, or a `MappingError.empty` at `field`.
  @inline(__always)
  func nonEmpty(_ field: @autoclosure () -> String) throws(MappingError) -> String {
    if isEmpty { throw MappingError(path: field(), problem: .empty) }
    return self
  }

  /// The string as a typed identifier; empty identifiers are refused.
  @inline(__always)
  func id<Owner>(_ field: @autoclosure () -> String) throws(MappingError) -> Identifier<Owner> {
    if isEmpty { throw MappingError(path: field(), problem: .empty) }
    return Identifier(rawValue: self)
  }

  /// The `YYYY-MM-DD` day this string names.
  func calendarDay(_ field: String) throws(MappingError) -> CalendarDay {
    do {
      return try CalendarDay(iso8601: self, field: field)
    } catch {
      throw MappingError(
        path: field, problem: .invalidFormat(value: self, expected: "an existing day as YYYY-MM-DD")
      )
    }
  }
}

extension BinaryInteger {
  /// The value itself, or a `MappingError.negative` at `field`.
  @inline(__always)
  func nonNegative(_ field: @autoclosure () -> String) throws(MappingError) -> Self {
    if self < 0 { throw MappingError(path: field(), problem: .negative(Int64(self))) }
    return self
  }
}

extension OpenStringEnum {
  /// The error for a value Domain cannot represent, listing the values this version knows.
  func unknownError(_ field: String) -> MappingError {
    MappingError(
      path: field, problem: .unknownValue(rawValue, expected: Self.wireValues.map(\.wire)))
  }
}
