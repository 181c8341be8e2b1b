import Domain
import Foundation
import GRDB

/// The Qapple service, written once: schema, migrations and every rule (sessions, sign-up,
/// moderation, auto-hide, bans, notifications, question days, CSV import, groups, chat,
/// analytics, idempotency), on a file or an in-memory SQLite database.
///
/// The local server is its HTTP face and `RepositoriesTesting`'s fakes call it directly, so a
/// rule changes in one place. Every operation takes the acting user (a ``Viewer``) explicitly,
/// speaks Domain types and throws `DomainError`.
///
/// ```swift
/// let engine = try ServiceEngine(now: { fixedDate })
/// let mina = try engine.createUser(nickname: "Mina")
/// let post = try engine.createPost(PostDraft(content: "스터디 하실 분?"), as: mina)
/// ```
public final class ServiceEngine: Sendable {
  /// Where the database lives and the service's time-dependent settings.
  public struct Configuration: Sendable {
    /// A file (opened as a WAL `DatabasePool`) or memory (a `DatabaseQueue`).
    public enum Storage: Sendable, Hashable {
      /// A throwaway database that lives as long as the engine.
      case inMemory
      /// A database file, created (with its folder) when missing and migrated in place.
      case file(path: String)
    }

    /// Where the database lives.
    public var storage: Storage
    /// The time zone that decides which calendar day is "today" (Seoul, like the academy).
    public var timeZone: TimeZone
    /// How long an access token lasts.
    public var accessTokenLifetime: TimeInterval
    /// How long a refresh token lasts.
    public var refreshTokenLifetime: TimeInterval
    /// How long after a refresh its spent token may ask again and get the same pair, as long
    /// as neither token of that pair has been used (the first answer was lost on the way): a
    /// minute, enough for the client's own retries, and short, since until then a stolen copy
    /// of the spent token gets the pair too.
    public var refreshRetryWindow: TimeInterval
    /// The address clients reach the service at. The database keeps only an uploaded
    /// picture's path (`/avatars/<user id>?v=<time>`); every `User` the engine returns carries
    /// it behind this address, so changing it moves every avatar URL. `nil`: the path alone,
    /// a URL relative to the service.
    public var publicURL: URL?

    /// Creates a configuration; the defaults are the service's.
    public init(
      storage: Storage = .inMemory, timeZone: TimeZone = .seoul,
      accessTokenLifetime: TimeInterval = 15 * 60, refreshTokenLifetime: TimeInterval = 30 * 86_400,
      refreshRetryWindow: TimeInterval = TimeInterval(
        AuthSession.refreshRetryWindow.components.seconds),
      publicURL: URL? = nil
    ) {
      self.storage = storage
      self.timeZone = timeZone
      self.accessTokenLifetime = accessTokenLifetime
      self.refreshTokenLifetime = refreshTokenLifetime
      self.refreshRetryWindow = refreshRetryWindow
      self.publicURL = publicURL
    }
  }

  let writer: any DatabaseWriter
  private let clock: @Sendable () -> Date
  let secrets: SecretSource
  private let settings: Locked<Configuration>
  /// Set while ``inOneTransaction(_:)`` runs: the time every operation sees.
  private let batch = Locked<Date?>(nil)
  /// Committed chat events, fanned out to listeners (`ChatEvents.swift`).
  let chatEvents = ChatEventHub()
  /// Every database call passes it; ``close()`` shuts it.
  private let gate = CallGate()
  /// Database calls under way (``CallGate/callsUnderWay``).
  var callsUnderWay: Int { gate.callsUnderWay }

  /// Opens (or creates) the database and migrates it; GRDB's error when the file cannot be
  /// opened.
  ///
  /// - Parameters:
  ///   - configuration: storage, time zone and token lifetimes.
  ///   - now: the engine's clock; inject a fixed or movable one for exact tests.
  ///   - secrets: where tokens and e-mail codes come from; ``SecretSource/seeded(_:)`` makes
  ///     them repeatable.
  public init(
    configuration: Configuration = Configuration(),
    now: @escaping @Sendable () -> Date = { Date() },
    secrets: SecretSource = .random
  ) throws {
    writer = try DatabaseFactory.open(configuration.storage)
    clock = now
    self.secrets = secrets
    settings = Locked(configuration)
  }

  /// The engine's "now" (while seeding, the time the seed set).
  public var now: Date { batch.withLock { $0 } ?? clock() }

  /// The configuration in force; token lifetimes and the time zone may change at run time.
  public var configuration: Configuration {
    get { settings.withLock { $0 } }
    set { settings.withLock { $0 = newValue } }
  }

  /// The calendar day of `date` in the service's time zone.
  public func day(of date: Date) -> CalendarDay {
    CalendarDay(containing: date, in: configuration.timeZone)
  }

  /// Today in the service's time zone.
  public var today: CalendarDay { day(of: now) }

  /// Closes the database (folding a file's WAL into it first) once the calls under way have
  /// returned; later calls throw `DomainError.server`. A second close returns once the first
  /// has ended. Not for use inside ``inOneTransaction(startingAt:_:)``, whose end it would
  /// wait for.
  public func close() throws {
    try gate.shut {
      // GRDB closes the writer before the readers, so SQLite's own checkpoint-on-close does
      // not run and the -wal file would stay behind. The database closes even when the
      // checkpoint fails (its error is thrown then).
      var checkpointFailure: (any Error)?
      if let pool = writer as? DatabasePool {
        do {
          try pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        } catch {
          checkpointFailure = error
        }
      }
      try writer.close()
      if let checkpointFailure { throw checkpointFailure }
    }
  }

  // MARK: Running rules

  /// What a rule sees of the moment it runs: the time, the service's today and the address
  /// clients reach it at.
  struct Moment: Sendable {
    var now: Date
    var today: CalendarDay
    var publicURL: URL?
    var millis: Int64 { Millis.from(now) }
  }

  var moment: Moment {
    let date = now
    return Moment(now: date, today: day(of: date), publicURL: configuration.publicURL)
  }

  /// Runs `body` in one write transaction (rolled back when it throws); inside
  /// ``inOneTransaction(_:)``, in a savepoint of that transaction. The moment is read once the
  /// writer is held, so rows written later never carry an earlier time (keyset pages rely on
  /// time and id growing together).
  @discardableResult
  func write<T>(_ body: (Database, Moment) throws -> T) throws(DomainError) -> T {
    guard batch.withLock({ $0 }) != nil else {
      return try mapped { try writer.write { db in try body(db, moment) } }
    }
    return try mapped {
      try writer.unsafeReentrantWrite { db in
        var result: T?
        try db.inSavepoint {
          result = try body(db, moment)
          return .commit
        }
        guard let result else { throw DomainError.server("A savepoint ended without a result.") }
        return result
      }
    }
  }

  /// Runs `body` on a consistent snapshot (inside ``inOneTransaction(_:)``, on its state).
  func read<T>(_ body: (Database, Moment) throws -> T) throws(DomainError) -> T {
    let moment = self.moment
    guard batch.withLock({ $0 }) != nil else {
      return try mapped { try writer.read { db in try body(db, moment) } }
    }
    return try mapped { try writer.unsafeReentrantWrite { db in try body(db, moment) } }
  }

  /// Runs many operations as one transaction, each at the time `travel` last set (seeding past
  /// activity quickly and atomically: if `body` throws, nothing of it stays). Not for
  /// concurrent use: nothing else may call the engine meanwhile.
  ///
  /// Errors of `body` come out as they are; database failures as `DomainError.server`.
  public func inOneTransaction(
    startingAt date: Date, _ body: (_ travel: (Date) -> Void) throws -> Void
  ) throws {
    try gate.enter()
    defer { gate.leave() }
    batch.withLock { $0 = date }
    defer { batch.withLock { $0 = nil } }
    do {
      try writer.writeWithoutTransaction { db in
        try db.inTransaction {
          try body { date in self.batch.withLock { $0 = date } }
          return .commit
        }
      }
    } catch let error as DatabaseError {
      throw DomainError.server("The service's database failed: \(error)")
    }
  }

  /// Runs a database call through the gate. Domain errors pass; anything else (SQLite)
  /// becomes `.server`.
  private func mapped<T>(_ body: () throws -> T) throws(DomainError) -> T {
    try gate.enter()
    defer { gate.leave() }
    do {
      return try body()
    } catch let error as DomainError {
      throw error
    } catch let error as ValidationError {
      throw .validation(error)
    } catch is RecordError {
      // `find(_:key:)` of a row that is not there.
      throw .notFound
    } catch {
      throw .server("The service's database failed: \(error)")
    }
  }
}

/// Where the engine's random secrets come from: session tokens and e-mail codes.
public struct SecretSource: Sendable {
  private let generator: Locked<any RandomNumberGenerator & Sendable>

  private init(_ generator: any RandomNumberGenerator & Sendable) {
    self.generator = Locked(generator)
  }

  /// The system's cryptographic generator.
  public static var random: SecretSource { SecretSource(SystemRandomNumberGenerator()) }

  /// A repeatable sequence for tests: the same seed gives the same tokens and codes.
  public static func seeded(_ seed: UInt64) -> SecretSource {
    SecretSource(SeededRandom(seed: seed))
  }

  private static let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")

  /// `prefix` and 32 random letters and digits.
  func token(prefix: String) -> String {
    generator.withLock { random in
      prefix
        + String((0..<32).map { _ in Self.alphabet[Int.random(in: 0..<36, using: &random)] })
    }
  }

  /// Six random digits, leading zeros kept.
  func sixDigits() -> String {
    let value = generator.withLock { random in Int.random(in: 0..<1_000_000, using: &random) }
    let text = String(value)
    return String(repeating: "0", count: 6 - text.count) + text
  }
}
