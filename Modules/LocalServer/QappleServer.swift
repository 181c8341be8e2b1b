import DTO
import Domain
import Foundation
import GRDB
import Hummingbird
import Logging

/// The Qapple reference server: the whole REST contract on SQLite, for development, demos and
/// integration tests.
///
/// ```swift
/// let server = try QappleServer(configuration: .init(seed: .demo))
/// let baseURL = try await server.start()   // http://127.0.0.1:<random port>
/// // ... talk to it ...
/// await server.stop()
/// ```
///
/// A server runs once: after ``stop()`` (or when ``run(onStarted:)`` returns) its database is
/// closed; start a new `QappleServer` on the same file to continue where it left off.
public final class QappleServer: Sendable {
  /// The configuration the server was created with.
  public let configuration: ServerConfiguration
  let core: ServerCore
  private let routes: RouteTable
  private let inFlight = InFlight()
  private let lifecycle = Locked<Lifecycle>(.idle)
  /// Closes the listening socket: no new connections, and the accept loop ends cleanly.
  private let closeListener = Locked<(@Sendable () async -> Void)?>(nil)

  private enum Lifecycle {
    case idle
    /// Running; the task is set when started in the background by `start()`.
    case running(task: Task<Void, any Error>?, url: URL)
    case stopped
  }

  /// Opens (or creates) the database, migrates it and seeds an empty one when asked.
  public init(
    configuration: ServerConfiguration = ServerConfiguration(), logger: Logger? = nil
  )
    throws
  {
    var logger = logger ?? Logger(label: "qapple.server")
    logger.logLevel = configuration.logLevel
    self.configuration = configuration
    let database = try DatabaseFactory.open(configuration.database)
    core = ServerCore(configuration: configuration, database: database, logger: logger)
    routes = Routes.table(devMode: configuration.devMode)
    if configuration.seed == .demo {
      try DemoSeed.loadIfEmpty(core)
    }
  }

  /// The clock every time-dependent rule reads; tests move it instead of sleeping.
  public var clock: ServerClock { configuration.clock }

  /// The base URL while the server is running (`http://127.0.0.1:<port>`), else `nil`.
  public var baseURL: URL? {
    lifecycle.withLock {
      if case .running(_, let url) = $0 { url } else { nil }
    }
  }

  /// The ids of every operation the server implements (`BoardAPI.like`, ...), dev endpoints
  /// included when in dev mode.
  public var operationIDs: [String] { routes.operations.map(\.id) }

  // MARK: Running

  /// Starts listening and returns the base URL with the bound port; the server runs in the
  /// background until ``stop()``.
  public func start() async throws -> URL {
    // The stream yields the URL once listening, or ends with the error that stopped the server
    // (e.g. the port is taken).
    let (stream, continuation) = AsyncThrowingStream.makeStream(of: URL.self)
    let application = makeApplication { url in continuation.yield(url) }
    let task = Task {
      do {
        try await application.run()
        continuation.finish()
      } catch {
        continuation.finish(throwing: error)
        throw error
      }
    }
    var iterator = stream.makeAsyncIterator()
    guard let url = try await iterator.next() else {
      throw ServerError.notStarted("The server stopped before it was listening.")
    }
    try lifecycle.withLock { state in
      guard case .idle = state else {
        task.cancel()
        throw ServerError.notStarted("This server was already started; create a new one.")
      }
      state = .running(task: task, url: url)
    }
    core.logger.info("Qapple server listening", metadata: ["url": .string(url.absoluteString)])
    return url
  }

  /// Stops gracefully: requests in flight finish, then the listener and the database close.
  public func stop() async {
    let task: Task<Void, any Error>? = lifecycle.withLock { state in
      defer { state = .stopped }
      if case .running(let task, _) = state { return task }
      return nil
    }
    if let task {
      // Stop accepting first, let answers in flight finish, then end the idle connections.
      await closeListener.withLock { $0 }?()
      await inFlight.waitUntilIdle()
      task.cancel()
      _ = await task.result
    }
    closeDatabase()
  }

  /// Runs in the foreground until SIGINT or SIGTERM (or cancellation), then shuts down
  /// gracefully and closes the database. `onStarted` gets the base URL once listening.
  public func run(onStarted: @escaping @Sendable (URL) async -> Void = { _ in }) async throws {
    let application = makeApplication { url in
      self.lifecycle.withLock { state in
        if case .idle = state {
          state = .running(task: nil, url: url)
        }
      }
      await onStarted(url)
    }
    defer {
      lifecycle.withLock { $0 = .stopped }
      closeDatabase()
    }
    try await application.runService()
  }

  private func closeDatabase() {
    do {
      if let pool = core.database as? DatabasePool {
        try pool.close()
      } else if let queue = core.database as? DatabaseQueue {
        try queue.close()
      }
    } catch {
      core.logger.error("Closing the database failed: \(error)")
    }
  }

  /// The Hummingbird application: router, middleware and bind address.
  func makeApplication(
    onListening: @escaping @Sendable (URL) async -> Void
  ) -> some ApplicationProtocol {
    let router = Routes.router(routes, core: core, inFlight: inFlight)
    let host = configuration.host
    return Application(
      router: router,
      configuration: .init(
        address: .hostname(host, port: configuration.port), serverName: "qapple-server"),
      onServerRunning: { channel in
        self.closeListener.withLock { $0 = { try? await channel.close().get() } }
        let port = channel.localAddress?.port ?? 0
        let hostPart = host.contains(":") ? "[\(host)]" : host
        guard let url = URL(string: "http://\(hostPart):\(port)") else { return }
        await onListening(url)
      },
      logger: core.logger)
  }

  // MARK: Test and seeding hooks

  /// The latest e-mail code sent to `email` that is still waiting to be verified (the dev
  /// server "sends" codes by logging them).
  public func lastEmailCode(for email: String) async throws -> String? {
    let address = (try? EmailAddress(validating: email))?.rawValue ?? email.lowercased()
    return try await core.read { db in
      try String.fetchOne(
        db,
        sql: """
          SELECT code FROM sign_up WHERE email = ? AND code IS NOT NULL
          ORDER BY code_expires_at DESC LIMIT 1
          """,
        arguments: [address])
    }
  }

  /// Makes the account with `nickname` an admin (tests and seeding; there is no API for it).
  public func promoteToAdmin(nickname: String) async throws {
    let key = UserRecord.key(forNickname: nickname)
    let changed = try await core.write { db in
      try db.execute(
        sql: #"UPDATE "user" SET role = 'admin' WHERE nickname_key = ?"#, arguments: [key])
      return db.changesCount
    }
    guard changed > 0 else { throw ServerError.unknownUser(nickname) }
  }

  /// Errors of the server's own API (not HTTP errors).
  public enum ServerError: Error, Sendable, CustomStringConvertible {
    /// The server could not start listening; says why.
    case notStarted(String)
    /// No account has this nickname.
    case unknownUser(String)

    /// What went wrong and what to do.
    public var description: String {
      switch self {
      case .notStarted(let reason): "The server did not start: \(reason)"
      case .unknownUser(let nickname):
        "No account has the nickname \"\(nickname)\"; sign up first."
      }
    }
  }
}
