import Domain
import Foundation
import GRDB
import Logging

/// Everything a request handler needs, shared by all requests of one running server: the
/// database, the clock, the limits and the log. Handlers get it through `Call`.
final class ServerCore: Sendable {
  let configuration: ServerConfiguration
  let database: any DatabaseWriter
  let logger: Logger
  let faults: FaultInjector
  let rateLimiter: RateLimiter?

  init(configuration: ServerConfiguration, database: any DatabaseWriter, logger: Logger) {
    self.configuration = configuration
    self.database = database
    self.logger = logger
    faults = FaultInjector(rules: configuration.faults, seed: configuration.faultSeed)
    rateLimiter = configuration.rateLimit.map(RateLimiter.init(limit:))
  }

  /// The server's "now".
  var now: Date { configuration.clock.now }

  /// Today in Seoul, where the academy decides which question is today's.
  var today: CalendarDay { CalendarDay(containing: now, in: .seoul) }

  /// Runs `body` in one write transaction (rolled back when it throws).
  func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
    try await database.write(body)
  }

  /// Runs `body` on a consistent snapshot.
  func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
    try await database.read(body)
  }
}
