import Domain
import Foundation
import LocalServer
import Logging

/// The local server started inside the tool's process on a random loopback port.
///
/// It uses only LocalServer's public starting API (``LocalServer/ServerConfiguration``,
/// ``LocalServer/QappleServer/start()``, ``LocalServer/QappleServer/stop()``). Its log goes to
/// stderr at warning level; the e-mail codes it "sends" (it logs them instead of mailing them)
/// are printed to stderr when asked, and kept so the demo can type them in.
public final class EmbeddedServer: Sendable {
  /// Where the server listens, `http://127.0.0.1:<port>`.
  public let baseURL: URL
  private let server: QappleServer
  private let sink: ServerLogSink

  private init(baseURL: URL, server: QappleServer, sink: ServerLogSink) {
    self.baseURL = baseURL
    self.server = server
    self.sink = sink
  }

  /// Opens the database (seeding an empty one with the demo community) and starts listening.
  ///
  /// - Parameters:
  ///   - database: A file shared by every run, or memory for a throwaway server.
  ///   - echoesEmailCodes: Whether e-mail codes are printed to stderr as they are sent.
  ///   - setupLockWait: How long to wait for another tool setting up the same database file
  ///     (``setupLockWait`` by default); longer fails with a ``ToolError`` naming the lock file.
  public static func start(
    database: ServerConfiguration.Database, echoesEmailCodes: Bool = true,
    setupLockWait: Duration = setupLockWait
  ) async throws(ToolError) -> EmbeddedServer {
    // Server entries reach stderr from warning up (or at QAPPLE_LOG_LEVEL).
    let level = ToolLogging.explicitLevel() ?? .warning
    let sink = ServerLogSink(echoesEmailCodes: echoesEmailCodes, level: level)
    let logger = Logger(label: "qapple.server") { label in
      ServerLogHandler(label: label, sink: sink)
    }
    let configuration = ServerConfiguration(
      host: "127.0.0.1", port: 0, database: database, seed: .demo,
      // The e-mail code is a notice: the level must let it through to the sink, which decides
      // what reaches stderr.
      logLevel: min(.notice, level))
    do {
      let server = try await openServer(
        configuration: configuration, logger: logger, setupLockWait: setupLockWait)
      let url = try await server.start()
      return EmbeddedServer(baseURL: url, server: server, sink: sink)
    } catch {
      let location: String
      switch database {
      case .inMemory: location = "in memory"
      case .file(let path): location = "with the database \(path)"
      }
      throw ToolError(
        "the local server did not start \(location): "
          + ToolError.oneLine(String(describing: error)),
        exitCode: .failure)
    }
  }

  /// How long a tool waits for another one setting up the shared database file: a first
  /// start migrates and seeds it, which takes a few seconds at most.
  public static let setupLockWait: Duration = .seconds(60)

  /// Creates the server; for a shared file, under an exclusive lock on `<file>.lock`.
  ///
  /// Creating the server migrates and seeds the database. Two tools started at the same
  /// moment on a new file would both try to create the schema, so the second waits for the
  /// first (without blocking a thread), at most `setupLockWait`; once the file is set up the
  /// lock is held only for a moment.
  private static func openServer(
    configuration: ServerConfiguration, logger: Logger, setupLockWait: Duration
  ) async throws -> QappleServer {
    guard case .file(let path) = configuration.database else {
      return try QappleServer(configuration: configuration, logger: logger)
    }
    let lock: FileLock?
    do {
      lock = try await FileLock.acquire(at: path + ".lock", waitingAtMost: setupLockWait)
    } catch {
      throw ToolError(error.description, exitCode: .failure)
    }
    guard let lock else {
      if Task.isCancelled {
        throw ToolError("interrupted while waiting for \(path).lock", exitCode: .failure)
      }
      throw ToolError(
        "another qapple tool has held \(path).lock for \(setupLockWait) (setting the database "
          + "up, or stuck); try again, or end that tool", exitCode: .failure)
    }
    defer { lock.unlock() }
    return try QappleServer(configuration: configuration, logger: logger)
  }

  /// The latest e-mail code the server sent to `email`, if any.
  public func emailCode(for email: EmailAddress) -> String? {
    sink.code(for: email.rawValue)
  }

  /// Waits for requests in flight, stops listening and closes the database.
  public func stop() async {
    sink.isStopping = true
    await server.stop()
  }
}

/// Receives the embedded server's log entries from every handler copy.
final class ServerLogSink: Sendable {
  private let codes = Locked<[String: String]>([:])
  private let stopping = Locked(false)
  let echoesEmailCodes: Bool
  let level: Logger.Level

  init(echoesEmailCodes: Bool, level: Logger.Level) {
    self.echoesEmailCodes = echoesEmailCodes
    self.level = level
  }

  /// Set when `stop()` begins: the cancellation it causes is expected, not worth a line.
  var isStopping: Bool {
    get { stopping.withLock { $0 } }
    set { stopping.withLock { $0 = newValue } }
  }

  func code(for email: String) -> String? {
    codes.withLock { $0[email] }
  }

  func receive(_ event: LogEvent, metadata: Logger.Metadata, label: String) {
    // The dev server "mails" a sign-up code by logging it with `email` and `code` metadata.
    if case .string(let email)? = metadata["email"], case .string(let code)? = metadata["code"] {
      codes.withLock { $0[email] = code }
      if echoesEmailCodes {
        StandardStreams.writeError(
          "qapple: e-mail code for \(email): \(code) (the local server logs codes instead of "
            + "mailing them)")
      }
      return
    }
    guard event.level >= level else { return }
    // Hummingbird reports the task cancellation that `QappleServer.stop()` uses to shut down.
    if isStopping, "\(event.message)".contains("CancellationError") { return }
    let details = metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
    StandardStreams.writeError(
      (["\(event.level) \(label): \(event.message)"] + details).joined(separator: " "))
  }
}

/// The embedded server's log handler: forwards to the shared ``ServerLogSink``.
struct ServerLogHandler: LogHandler {
  let label: String
  let sink: ServerLogSink
  var logLevel: Logger.Level = .notice
  var metadata: Logger.Metadata = [:]

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  func log(event: LogEvent) {
    sink.receive(
      event, metadata: metadata.merging(event.metadata ?? [:]) { _, new in new }, label: label)
  }
}
