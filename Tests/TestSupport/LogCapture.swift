import Foundation
import Logging

/// Collects log entries (message plus metadata, rendered as text) so tests can search them:
/// what NetworkKit logs of a request, what the local server logs of a connection.
public final class LogCapture: @unchecked Sendable {
  /// One logged entry.
  public struct Entry: Sendable {
    /// Its level.
    public var level: Logger.Level
    /// Its message.
    public var message: String
    /// Its metadata, the logger's merged with the entry's own.
    public var metadata: Logger.Metadata

    /// Message and metadata as one searchable string.
    public var text: String {
      let fields = metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
      return ([message] + fields).joined(separator: " | ")
    }
  }

  // Guarded by `lock`.
  private let lock = NSLock()
  private var stored: [Entry] = []

  /// A capture with nothing logged yet.
  public init() {}

  /// Everything logged so far, in order.
  public var entries: [Entry] { lock.withLock { stored } }

  /// Everything logged so far as one string.
  public var text: String { entries.map(\.text).joined(separator: "\n") }

  /// A logger that writes into this capture at every level.
  public var logger: Logger {
    Logger(label: "LogCapture") { _ in Handler(capture: self) }
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
