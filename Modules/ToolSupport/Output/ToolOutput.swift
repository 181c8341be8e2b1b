import Domain
import Foundation

/// Prints a command's result: JSON with `--json`, text otherwise. Both go to stdout; notes for
/// people (hints, "more with --cursor") go to stderr, so they never mix into piped output.
public struct ToolOutput: Sendable {
  /// Whether `--json` was given.
  public let json: Bool

  /// Creates an output for the given options.
  public init(_ options: OutputOptions) {
    json = options.json
  }

  /// Creates an output.
  public init(json: Bool) {
    self.json = json
  }

  /// Prints `value` as JSON, or `text()` as it is.
  public func emit<Value: Encodable>(_ value: Value, text: () -> String) throws(ToolError) {
    if json {
      StandardStreams.write(try ToolJSON.string(value))
    } else {
      StandardStreams.write(text())
    }
  }

  /// Prints a listing: JSON, or the table (or `empty` when there are no rows), then a hint on
  /// stderr when more pages follow.
  public func emitList<Item: Codable & Sendable>(
    _ list: ListOutput<Item>, empty: String, table: () -> TextTable
  ) throws(ToolError) {
    if json {
      StandardStreams.write(try ToolJSON.string(list))
      return
    }
    StandardStreams.write(list.items.isEmpty ? empty : table().render())
    if let cursor = list.nextCursor {
      StandardStreams.writeError("(more: add --cursor \(cursor))")
    }
  }

  /// A note for people; nothing with `--json`.
  public func note(_ line: String) {
    if !json { StandardStreams.writeError(line) }
  }
}

/// Formatting shared by the text output of both tools.
public enum TextFormat {
  /// `2026-03-01 09:30` in the viewer's time zone.
  public static func dateTime(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.dateFormat = "yyyy-MM-dd HH:mm"
    return formatter.string(from: date)
  }

  /// `yes` or empty, for flag columns.
  public static func mark(_ flag: Bool, _ text: String = "yes") -> String {
    flag ? text : ""
  }
}
