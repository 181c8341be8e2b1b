import ArgumentParser
import Foundation
import LocalServer
import Logging
import ServiceEngine

/// `qapple-server`: runs the Qapple reference server until SIGINT or SIGTERM.
@main
struct QappleServerCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "qapple-server",
    abstract: "Runs the Qapple reference server (REST contract on SQLite).",
    discussion: """
      Examples:
        qapple-server --port 8080 --db ./qapple.sqlite --seed demo
        qapple-server --dev --fault "path=/posts,latency=300,error-rate=0.2,status=503"

      Sign in with provider "dev" and any token; with --seed demo the token "admin" signs in \
      as the admin and demo-1 ... demo-10 as members. E-mail codes are printed to the log at \
      notice level (not with --log-level warning or above).
      """)

  @Option(help: "The interface to bind.")
  var host = "127.0.0.1"

  @Option(help: "The port to bind (0 picks a free one).")
  var port = 8080

  @Option(
    help: """
      The address clients reach the server at, which avatar URLs start with (default: \
      http://HOST:PORT as bound); set it when phones on the LAN or a proxy use another name.
      """)
  var publicURL: String?

  @Option(
    name: .customLong("db"),
    help: "The SQLite file (created when missing); in memory when left out.")
  var databasePath: String?

  @Option(help: "Data for an empty database: none or demo.")
  var seed: ServerConfiguration.Seed = .none

  @Flag(help: "Enable fault injection and the /_dev endpoints.")
  var dev = false

  /// The server's own defaults, which the options start from.
  private static let defaults = ServerConfiguration()

  @Option(help: "Access-token lifetime in seconds.")
  var accessTokenLifetime = Int(Self.defaults.accessTokenLifetime.components.seconds)

  @Option(help: "Write rate limit as COUNT/SECONDS (e.g. 30/10), or \"off\".")
  var rateLimit = Self.text(of: Self.defaults.rateLimit)

  @Option(help: "The largest request body in bytes.")
  var maxBodySize = Self.defaults.maxBodySize

  @Option(
    name: .customLong("fault"),
    help:
      "A fault rule (dev mode), e.g. \"op=BoardAPI.like,error-rate=0.5,status=503\"; repeatable."
  )
  var faults: [String] = []

  @Option(
    name: .customLong("socket-fault"),
    help:
      "WebSocket faults (dev mode), e.g. \"drop-rate=0.01,duplicate-rate=0.05,reorder-rate=0.05\"; keys: drop-after, drop-rate, duplicate-rate, reorder-rate, delay (ms)."
  )
  var socketFault: String?

  @Option(
    help: "Frames one WebSocket may send per window as COUNT/SECONDS (e.g. 200/10), or \"off\".")
  var realtimeFrameLimit = Self.text(of: Self.defaults.realtimeFrameLimit)

  @Option(
    help: "Close a WebSocket whose client sent nothing for this many seconds, or \"off\".")
  var realtimeIdleTimeout =
    Self.defaults.realtimeIdleTimeout.map { String($0.components.seconds) } ?? "off"

  @Option(help: "The seed of the fault dice, so runs repeat.")
  var faultSeed = Self.defaults.faultSeed

  @Option(help: "trace, debug, info, notice, warning, error or critical.")
  var logLevel = Self.defaults.logLevel.rawValue

  func validate() throws {
    guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0...65535.") }
    guard accessTokenLifetime > 0 else {
      throw ValidationError("--access-token-lifetime must be positive.")
    }
    guard maxBodySize > 0 else { throw ValidationError("--max-body-size must be positive.") }
    _ = try parsedPublicURL()
    guard Logger.Level(rawValue: logLevel) != nil else {
      throw ValidationError(
        "--log-level must be one of trace, debug, info, notice, warning, error, critical.")
    }
    if !faults.isEmpty || socketFault != nil, !dev {
      throw ValidationError(
        "--fault and --socket-fault need --dev: faults are injected in dev mode only.")
    }
    _ = try parsedRateLimit()
    _ = try parsedRateLimit(realtimeFrameLimit, option: "--realtime-frame-limit")
    _ = try parsedIdleTimeout()
    _ = try parsedSocketFaults()
    _ = try parsedFaults()
  }

  func run() async throws {
    let level = Logger.Level(rawValue: logLevel) ?? .info
    LoggingSystem.bootstrap { label in
      var handler = StreamLogHandler.standardError(label: label)
      handler.logLevel = level
      return handler
    }
    let configuration = ServerConfiguration(
      host: host, port: port, database: databasePath.map { .file(path: $0) } ?? .inMemory,
      seed: seed,
      devMode: dev, accessTokenLifetime: .seconds(accessTokenLifetime),
      rateLimit: try parsedRateLimit(), maxBodySize: maxBodySize, logLevel: level,
      faults: try parsedFaults(), faultSeed: faultSeed,
      realtimeFrameLimit: try parsedRateLimit(realtimeFrameLimit, option: "--realtime-frame-limit"),
      socketFaults: try parsedSocketFaults(), publicURL: try parsedPublicURL(),
      realtimeIdleTimeout: try parsedIdleTimeout())
    let server = try QappleServer(configuration: configuration)
    let seeded = seed == .demo
    let dev = self.dev
    let storage = databasePath ?? "memory (gone when the server stops)"
    try await server.run { url in
      var lines = [
        "Qapple server running at \(url.absoluteString)",
        "Database: \(storage)",
      ]
      if seeded {
        lines.append(
          "Admin sign-in token: \(DemoSeed.adminToken)  (POST /auth/sign-in "
            + #"{"provider":"dev","token":"\#(DemoSeed.adminToken)"})"#)
        lines.append("Member sign-in tokens: demo-1 ... demo-10")
      } else {
        lines.append(#"Sign in with {"provider":"dev","token":"<any text>"}"#)
      }
      if dev {
        lines.append("Dev mode: faults at \(url.absoluteString)/_dev/faults")
      }
      lines.append("Realtime chat: ws://\(url.host ?? "127.0.0.1"):\(url.port ?? 0)/realtime")
      lines.append("Press Ctrl-C to stop.")
      FileHandle.standardOutput.write(Data((lines.joined(separator: "\n") + "\n").utf8))
    }
    FileHandle.standardOutput.write(Data("Stopped; database closed.\n".utf8))
  }

  /// `--public-url` as a URL: http or https with a host, no query or fragment.
  private func parsedPublicURL() throws -> URL? {
    guard let publicURL else { return nil }
    guard let url = URL(string: publicURL), ["http", "https"].contains(url.scheme?.lowercased()),
      url.host?.isEmpty == false, url.query == nil, url.fragment == nil
    else {
      throw ValidationError(
        "--public-url must be an http or https URL with a host and no query, e.g. http://192.168.0.10:8080."
      )
    }
    return url
  }

  private func parsedRateLimit() throws -> ServerConfiguration.RateLimit? {
    try parsedRateLimit(rateLimit, option: "--rate-limit")
  }

  /// A limit as its option takes it: `COUNT/SECONDS`, or `off` for none.
  private static func text(of limit: ServerConfiguration.RateLimit?) -> String {
    limit.map { "\($0.count)/\($0.window.components.seconds)" } ?? "off"
  }

  /// `COUNT/SECONDS` or `off`.
  private func parsedRateLimit(
    _ text: String, option: String
  ) throws -> ServerConfiguration.RateLimit? {
    if text.lowercased() == "off" { return nil }
    let parts = text.split(separator: "/")
    guard parts.count == 2, let count = Int(parts[0]), let seconds = Int(parts[1]), count > 0,
      seconds > 0
    else { throw ValidationError("\(option) must be COUNT/SECONDS (e.g. 30/10) or off.") }
    return ServerConfiguration.RateLimit(count: count, window: .seconds(seconds))
  }

  /// `--realtime-idle-timeout`: whole seconds above zero, or `off` for none.
  private func parsedIdleTimeout() throws -> Duration? {
    if realtimeIdleTimeout.lowercased() == "off" { return nil }
    guard let seconds = Int(realtimeIdleTimeout), seconds > 0 else {
      throw ValidationError("--realtime-idle-timeout must be whole seconds (e.g. 60) or off.")
    }
    return .seconds(seconds)
  }

  private func parsedSocketFaults() throws -> SocketFaults {
    guard let socketFault else { return SocketFaults() }
    do throws(FaultRule.Invalid) {
      return try SocketFaults(parsing: socketFault)
    } catch {
      throw ValidationError("--socket-fault \"\(socketFault)\": \(error.description)")
    }
  }

  private func parsedFaults() throws -> [FaultRule] {
    try faults.map { spec in
      do throws(FaultRule.Invalid) {
        return try FaultRule(parsing: spec)
      } catch {
        throw ValidationError("--fault \"\(spec)\": \(error.description)")
      }
    }
  }
}

extension ServerConfiguration.Seed: ExpressibleByArgument {}
