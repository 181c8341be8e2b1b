import DTO
import Domain
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import ServiceEngine

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
  private let inFlight = InProgress<Void>()
  private let lifecycle = Locked<Lifecycle>(.idle)
  /// Closes the listening socket: no new connections, and the accept loop ends cleanly.
  private let closeListener = Locked<(@Sendable () async -> Void)?>(nil)
  /// Holds one entry until a ``stop()`` has finished (``stopKey``).
  private let unfinishedStop = InProgress<Void>()
  private let stopKey: Int

  private enum Lifecycle {
    case idle
    /// Started (by `start()` or `run(onStarted:)`); the URL is the core's once listening.
    case running(Task<Void, any Error>)
    /// A ``stop()`` is under way; later calls wait for it.
    case stopping
    case stopped
  }

  /// Opens (or creates) the database, migrates it and seeds an empty one when asked; throws
  /// `FaultRule.Invalid` for a fault rule or socket fault out of range and GRDB's errors for
  /// the database.
  public init(
    configuration: ServerConfiguration = ServerConfiguration(), logger: Logger? = nil
  )
    throws
  {
    var logger = logger ?? Logger(label: "qapple.server")
    logger.logLevel = configuration.logLevel
    self.configuration = configuration
    stopKey = unfinishedStop.add(())
    for rule in configuration.faults {
      _ = try rule.validated()
    }
    _ = try configuration.socketFaults.validated()
    let clock = configuration.clock
    let engine = try ServiceEngine(
      configuration: .init(
        storage: configuration.database,
        accessTokenLifetime: configuration.accessTokenLifetime.timeInterval,
        refreshTokenLifetime: configuration.refreshTokenLifetime.timeInterval,
        // A fixed port is known now; a random one once bound (below), before any client
        // can learn it.
        publicURL: configuration.publicURL
          ?? (configuration.port == 0
            ? nil : Self.url(host: configuration.host, port: configuration.port))),
      now: { clock.now })
    core = ServerCore(configuration: configuration, engine: engine, logger: logger)
    routes = Routes.table(devMode: configuration.devMode)
    if configuration.seed == .demo, try DemoSeed.loadIfEmpty(engine) {
      logger.notice(
        "Loaded the demo data set",
        metadata: [
          "admin": "provider dev, token \(DemoSeed.adminToken)",
          "members": "provider dev, tokens demo-1 ... demo-10",
        ])
    }
  }

  /// The clock every time-dependent rule reads; tests move it instead of sleeping.
  public var clock: ServerClock { configuration.clock }

  /// The base URL while the server is running (`http://127.0.0.1:<port>`), else `nil`.
  public var baseURL: URL? {
    lifecycle.withLock {
      if case .running = $0 { core.listeningURL.withLock { $0 } } else { nil }
    }
  }

  // MARK: Running

  /// Starts listening and returns the base URL with the bound port; the server runs in the
  /// background until ``stop()``.
  public func start() async throws -> URL {
    // The stream yields the URL once listening, or ends with the error that stopped the server
    // (e.g. the port is taken).
    let (stream, continuation) = AsyncThrowingStream.makeStream(of: URL.self)
    let application = makeApplication { url in continuation.yield(url) }
    try launch {
      do {
        try await application.run()
        continuation.finish()
      } catch {
        continuation.finish(throwing: error)
        throw error
      }
    }
    var iterator = stream.makeAsyncIterator()
    do {
      guard let url = try await iterator.next() else {
        throw ServerError.notStarted("The server stopped before it was listening.")
      }
      core.logger.info("Qapple server listening", metadata: ["url": .string(url.absoluteString)])
      return url
    } catch {
      await stop()
      throw error
    }
  }

  /// Runs in the foreground until SIGINT or SIGTERM, ``stop()`` or cancellation, then shuts
  /// down gracefully and closes the database. `onStarted` gets the base URL once listening.
  ///
  /// A signal goes through ``stop()``, so the chat sockets are closed with 1001 (going away)
  /// before the listener's own shutdown could close them with 1000.
  public func run(onStarted: @escaping @Sendable (URL) async -> Void = { _ in }) async throws {
    let application = makeApplication { url in await onStarted(url) }
    let task = try launch { try await application.runService(gracefulShutdownSignals: []) }
    let signals = Self.onTerminationSignals { [self] in Task { await self.stop() } }
    defer { for source in signals { source.cancel() } }
    do {
      try await withTaskCancellationHandler {
        // A signal's stop ends the run once it finished, even while Hummingbird still waits
        // for a connection to close (see ``stop()``).
        await Self.first(of: [
          { _ = await task.result }, { [unfinishedStop] in await unfinishedStop.waitUntilEmpty() },
        ])
        if !unfinishedStop.isEmpty { try await task.value }
      } onCancel: {
        task.cancel()
      }
    } catch {
      // Ending by ``stop()`` is a normal end, whatever the service group reports about it.
      let stopped = lifecycle.withLock {
        switch $0 {
        case .stopping, .stopped: true
        case .idle, .running: false
        }
      }
      if !stopped {
        await stop()
        throw error
      }
    }
    await stop()
  }

  /// Calls `handler` on SIGINT and SIGTERM (instead of their default: ending the process)
  /// until the returned sources are cancelled.
  private static func onTerminationSignals(
    _ handler: @escaping @Sendable () -> Void
  ) -> [any DispatchSourceSignal] {
    [SIGINT, SIGTERM].map { number in
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler(handler: handler)
      source.setCancelHandler { signal(number, SIG_DFL) }
      source.resume()
      return source
    }
  }

  /// Stops gracefully: no new connections, the chat sockets closed with 1001, requests in
  /// flight finish (waited for five seconds at most: a body that never finishes arriving does
  /// not hold the stop), Hummingbird ends (waited for two seconds at most), then the database
  /// closes. Safe to call more than once and from several tasks at once: every call returns
  /// once the first one has finished.
  public func stop() async {
    let (isFirst, task) = lifecycle.withLock { state -> (Bool, Task<Void, any Error>?) in
      switch state {
      case .running(let task):
        state = .stopping
        return (true, task)
      case .idle:
        state = .stopped
        return (true, nil)
      case .stopping, .stopped:
        return (false, nil)
      }
    }
    guard isFirst else { return await unfinishedStop.waitUntilEmpty() }
    if let task {
      await closeListener.withLock { $0 }?()
      // A socket still finishing its handshake is closed as soon as it is counted.
      core.sockets.end { close in close(.goingAway, "server shutting down") }
      await core.sockets.waitUntilEmpty(timeout: .seconds(2))
      // Bounded: a request whose body never finishes arriving (a half-open connection) is in
      // flight for as long as its client likes, and Ctrl-C must still stop the server.
      await inFlight.waitUntilEmpty(timeout: Self.inFlightBound)
      // No request will come to end a connection that never sent one: close those.
      core.silentConnections.end { close in close() }
      task.cancel()
      // Hummingbird ends once every connection is closed. The requests in flight are done
      // (counted above) or given up on, so the stop waits two seconds at most; whatever still
      // reaches the engine afterwards gets a server error, as its database is closed.
      await Self.first(of: [
        { _ = await task.result }, { try? await Task.sleep(for: .seconds(2)) },
      ])
    }
    do {
      try core.engine.close()
      core.logger.info("Database closed")
    } catch {
      core.logger.error("Closing the database failed: \(error)")
    }
    lifecycle.withLock { $0 = .stopped }
    unfinishedStop.remove(stopKey)
  }

  /// Returns as soon as one of `events` has returned; the others go on by themselves.
  private static func first(of events: [@Sendable () async -> Void]) async {
    await withCheckedContinuation { continuation in
      let once = ResumeOnce(continuation)
      for event in events {
        Task {
          await event()
          once.resume()
        }
      }
    }
  }

  /// Runs `body` as the server's task; a server starts only once.
  @discardableResult
  private func launch(
    _ body: @escaping @Sendable () async throws -> Void
  ) throws -> Task<
    Void, any Error
  > {
    try lifecycle.withLock { state in
      guard case .idle = state else {
        throw ServerError.notStarted("This server was already started; create a new one.")
      }
      let task = Task { try await body() }
      state = .running(task)
      return task
    }
  }

  /// The Hummingbird application: router, middleware and bind address.
  func makeApplication(
    onListening: @escaping @Sendable (URL) async -> Void
  ) -> some ApplicationProtocol {
    let router = Routes.router(routes, core: core, inFlight: inFlight)
    let core = core
    let host = configuration.host
    return Application(
      router: router,
      server: .http1WebSocketUpgrade(
        configuration: Self.webSocketConfiguration, silent: core.silentConnections
      ) { head, channel, _ in
        await Self.realtimeUpgrade(
          head, core: core,
          whenClosed: { forget in channel.closeFuture.whenComplete { _ in forget() } },
          refuse: { reply in
            do {
              try await channel.eventLoop.submit {
                try channel.pipeline.syncOperations.addHandler(HandshakeRefusal(reply))
              }.get()
            } catch {
              core.logger.debug("Answering a refused handshake: \(error)")
            }
          }
        ) {
          do {
            try await channel.close()
          } catch {
            core.logger.debug("Dropping a socket: \(error)")
          }
        }
      },
      configuration: .init(
        address: .hostname(host, port: configuration.port), serverName: "qapple-server"),
      onServerRunning: { channel in
        let logger = self.core.logger
        self.closeListener.withLock {
          $0 = {
            do {
              try await channel.close().get()
            } catch {
              // Already closed (e.g. the bind failed): nothing left to stop.
              logger.debug("Closing the listener: \(error)")
            }
          }
        }
        guard let url = Self.url(host: host, port: channel.localAddress?.port ?? 0) else { return }
        core.listeningURL.withLock { $0 = url }
        if self.configuration.publicURL == nil {
          core.engine.configuration.publicURL = url
          if ["0.0.0.0", "::"].contains(host) {
            core.logger.warning(
              "Avatar URLs start with \(url.absoluteString), which no client can reach; set the address clients use with --public-url (ServerConfiguration.publicURL)."
            )
          }
        }
        await onListening(url)
      },
      logger: core.logger)
  }

  /// How long a stop waits for the requests in flight before it closes their connections.
  static let inFlightBound: Duration = .seconds(5)

  /// `http://<host>:<port>` (an IPv6 host in brackets).
  private static func url(host: String, port: Int) -> URL? {
    URL(string: "http://\(host.contains(":") ? "[\(host)]" : host):\(port)")
  }

  // MARK: Test and seeding hooks

  /// The engine behind the server, for tests and tools that seed or inspect it directly.
  public var engine: ServiceEngine { core.engine }

  /// Errors of the server's own API (not HTTP errors).
  public enum ServerError: Error, Sendable, CustomStringConvertible {
    /// The server could not start listening; says why.
    case notStarted(String)

    /// What went wrong and what to do.
    public var description: String {
      switch self {
      case .notStarted(let reason): "The server did not start: \(reason)"
      }
    }
  }
}
