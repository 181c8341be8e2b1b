import Foundation
import Logging

/// The tools' logging: everything goes to stderr, so stdout carries only the command's output
/// (and stays parseable with `--json`).
///
/// By default only errors are logged, and failed HTTP exchanges are left out: the command's
/// one-line `error:` already says what failed. `QAPPLE_LOG_LEVEL` (`trace` ... `critical`) sets
/// the level and then shows the exchanges too (secrets redacted by the SDK).
public enum ToolLogging {
  /// The environment variable that sets the log level.
  public static let environmentKey = "QAPPLE_LOG_LEVEL"

  /// The level from the environment, `error` by default.
  public static func level(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> Logger.Level {
    explicitLevel(environment: environment) ?? .error
  }

  /// The level `QAPPLE_LOG_LEVEL` names, if it is set to a valid level.
  static func explicitLevel(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> Logger.Level? {
    environment[environmentKey].flatMap { Logger.Level(rawValue: $0.lowercased()) }
  }

  /// A logger that writes to stderr at ``level(environment:)``.
  public static func logger(label: String) -> Logger {
    let showsExchanges = explicitLevel() != nil
    var logger = Logger(label: label) { label in
      StandardErrorLogHandler(label: label, showsExchanges: showsExchanges)
    }
    logger.logLevel = level()
    return logger
  }

  /// Sends every logger the process creates without a handler of its own to stderr.
  static func bootstrap() {
    let showsExchanges = explicitLevel() != nil
    LoggingSystem.bootstrap { label in
      var handler = StandardErrorLogHandler(label: label, showsExchanges: showsExchanges)
      handler.logLevel = level()
      return handler
    }
  }
}

/// Writes `level label: message metadata` lines to stderr.
struct StandardErrorLogHandler: LogHandler {
  let label: String
  /// Whether entries about HTTP exchanges (`http.method` metadata) are written.
  let showsExchanges: Bool
  var logLevel: Logger.Level = .error
  var metadata: Logger.Metadata = [:]

  init(label: String, showsExchanges: Bool) {
    self.label = label
    self.showsExchanges = showsExchanges
  }

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  func log(event: LogEvent) {
    let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
    if !showsExchanges, merged["http.method"] != nil { return }
    let details =
      merged.isEmpty
      ? ""
      : " "
        + merged.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    StandardStreams.writeError("\(event.level) \(label): \(event.message)\(details)")
  }
}

/// Writing whole lines to stdout and stderr.
public enum StandardStreams {
  /// Writes `line` and a newline to stdout.
  public static func write(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
  }

  /// Writes `line` and a newline to stderr.
  public static func writeError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
  }
}
