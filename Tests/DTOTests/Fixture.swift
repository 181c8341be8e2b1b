import DTO
import Foundation
import Testing

/// Loads the JSON files of `Fixtures/` from the test bundle.
enum Fixture {
  struct Missing: Error, CustomStringConvertible {
    let name: String
    var description: String { "Fixture \(name) is not in the test bundle's Fixtures folder." }
  }

  /// The bytes of `Fixtures/<name>.<ext>`.
  static func data(_ name: String, ext: String = "json") throws -> Data {
    guard
      let url = Bundle.module.url(forResource: name, withExtension: ext, subdirectory: "Fixtures")
    else { throw Missing(name: "\(name).\(ext)") }
    return try Data(contentsOf: url)
  }

  /// Decodes `Fixtures/<name>.json` with the Qapple decoder.
  static func decode<T: Decodable>(_ type: T.Type, _ name: String) throws -> T {
    try DTODecoding.decode(type, from: data(name))
  }
}

/// Builds UTC dates for expectations.
func utc(
  _ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0,
  milliseconds: Int = 0
) -> Date {
  var calendar = Calendar(identifier: .gregorian)
  calendar.timeZone = TimeZone(identifier: "UTC")!
  let date = calendar.date(
    from: DateComponents(
      year: year, month: month, day: day, hour: hour, minute: minute, second: second))!
  return date.addingTimeInterval(Double(milliseconds) / 1000)
}

/// Asserts that two dates are equal to within a microsecond (the parser adds fractions with
/// floating point).
func expectSameInstant(
  _ actual: Date, _ expected: Date, sourceLocation: SourceLocation = #_sourceLocation
) {
  #expect(
    abs(actual.timeIntervalSince(expected)) < 0.000_001,
    "\(actual.timeIntervalSince1970) != \(expected.timeIntervalSince1970)",
    sourceLocation: sourceLocation)
}

/// The JSON object an encodable value produces, for key-level assertions.
func jsonObject<T: Encodable>(_ value: T) throws -> [String: Any] {
  let data = try QappleCoding.makeEncoder().encode(value)
  return try #require(JSONSerialization.jsonObject(with: data) as? [String: Any])
}

/// The JSON text an encodable value produces.
func jsonText<T: Encodable>(_ value: T) throws -> String {
  String(decoding: try QappleCoding.makeEncoder().encode(value), as: UTF8.self)
}
