import Foundation

/// The JSON the tools print with `--json`: snake_case keys written out in each output type's
/// `CodingKeys`, sorted keys, ISO 8601 dates in UTC (`2026-03-01T09:30:00Z`), absent values as
/// `null` (never a missing key).
public enum ToolJSON {
  /// The encoder for `--json` output.
  public static func makeEncoder() -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .iso8601
    return encoder
  }

  /// The decoder that reads `--json` output back (for scripts written in Swift and the tests).
  public static func makeDecoder() -> JSONDecoder {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return decoder
  }

  /// `value` as JSON text.
  public static func string<Value: Encodable>(_ value: Value) throws(ToolError) -> String {
    do {
      return String(decoding: try makeEncoder().encode(value), as: UTF8.self)
    } catch {
      throw ToolError(
        "cannot encode the output as JSON: \(ToolError.oneLine(String(describing: error)))",
        exitCode: .failure)
    }
  }
}
