import Foundation
import Logging

/// Collects log entries (message plus metadata, rendered as text) so tests can search them.
final class LogCapture: @unchecked Sendable {
  struct Entry: Sendable {
    var level: Logger.Level
    var message: String
    var metadata: Logger.Metadata

    /// Message and metadata as one searchable string.
    var text: String {
      let fields = metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
      return ([message] + fields).joined(separator: " | ")
    }
  }

  // Guarded by `lock`.
  private let lock = NSLock()
  private var stored: [Entry] = []

  var entries: [Entry] { lock.withLock { stored } }

  /// Everything logged so far as one string.
  var text: String { entries.map(\.text).joined(separator: "\n") }

  /// A logger that writes into this capture at every level.
  var logger: Logger {
    Logger(label: "NetworkKitTests") { _ in Handler(capture: self) }
  }

  fileprivate func append(_ entry: Entry) {
    lock.withLock { stored.append(entry) }
  }

  private struct Handler: LogHandler {
    let capture: LogCapture
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
      get { metadata[key] }
      set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
      capture.append(
        Entry(
          level: event.level, message: event.message.description,
          metadata: metadata.merging(event.metadata ?? [:]) { $1 }))
    }
  }
}
