import Domain
import Foundation
import GRDB

/// The client's local store for chat and queued analytics: rooms, messages (unique per room by
/// `seq` and by client message id), the per-room sync cursor (the highest `seq` up to which
/// every message is stored) and read cursor, the outbox of unsent messages, and analytics events
/// waiting for upload. One store per signed-in account (`owner`).
///
/// Reads are synchronous; ``observeMessages(in:limit:)``, ``observeRooms()`` and
/// ``observeOutbox()`` deliver fresh values in order as the store changes (GRDB
/// `ValueObservation`). Batch writes run in one transaction with prepared statements.
public final class ChatStore: Sendable {
  /// The kind of a room known only from its messages (or its outbox) until the server's room
  /// list names it: the stored list leaves such rooms out.
  static let unknownRoomKind = "unknown"
  /// Stores the room `?` as an ``unknownRoomKind`` placeholder unless it is stored already.
  static let placeholderRoom =
    "INSERT OR IGNORE INTO room (id, kind, title) VALUES (?, '\(unknownRoomKind)', '')"

  /// Where the store lives.
  public enum Location: Sendable, Hashable {
    /// A throwaway store (tests, previews).
    case inMemory
    /// A file, created with its folder when missing and migrated in place.
    case file(path: String)
  }

  /// The account the store belongs to: its own messages are never unread.
  public let owner: User.ID
  /// Where it lives.
  public let location: Location
  let writer: any DatabaseWriter
  private let damage = Locked<PersistenceError?>(nil)
  private let closed = Locked(false)
  private let salvage = Locked<Salvage?>(nil)

  /// The ``PersistenceError/corrupt(path:reason:)`` a read or write met, if any: SQLite found
  /// the file damaged after it opened, so the store will keep failing. Start over with
  /// ``startOver(at:owner:)`` (the server still has every sent message; unsent messages and
  /// queued analytics events are carried over as far as SQLite can still read them).
  public var damaged: PersistenceError? { damage.withLock { $0 } }

  /// What a store that replaced a damaged file took over from it: the data only this device
  /// had, as far as SQLite could still read it.
  public struct Salvage: Sendable, Hashable {
    /// Unsent messages (pending, sending or failed) now in the outbox again.
    public var messages: Int
    /// Analytics events queued again (a batch keeps its key).
    public var events: Int

    /// Creates a count of what was carried over.
    public init(messages: Int, events: Int) {
      self.messages = messages
      self.events = events
    }
  }

  /// What ``startOver(at:owner:)`` carried over from the file it moved aside; `nil` for a store
  /// that replaced nothing.
  public var salvaged: Salvage? { salvage.withLock { $0 } }

  /// Opens (or creates) the store and migrates it.
  ///
  /// - Throws: ``PersistenceError/corrupt(path:reason:)`` for a file that is not a database,
  ///   ``PersistenceError/unreadable(path:reason:)`` when it cannot be opened,
  ///   ``PersistenceError/newerSchema(path:migration:)`` for a file of a newer app version.
  public init(at location: Location, owner: User.ID) throws(PersistenceError) {
    self.owner = owner
    self.location = location
    var configuration = Configuration()
    configuration.foreignKeysEnabled = true
    configuration.busyMode = .timeout(5)
    let path: String
    do {
      switch location {
      case .inMemory:
        path = ":memory:"
        writer = try DatabaseQueue(configuration: configuration)
      case .file(let file):
        path = file
        // A user's messages: the owner's alone (0600, in folders made 0700).
        try PrivateFile.prepare(at: file)
        writer = try DatabasePool(path: file, configuration: configuration)
      }
    } catch {
      throw Self.openingError(error, path: location.path)
    }
    do {
      let applied = try writer.read { db in try StoreSchema.migrator.appliedIdentifiers(db) }
      if let unknown = applied.first(where: { !StoreSchema.migrations.contains($0) }) {
        throw PersistenceError.newerSchema(path: path, migration: unknown)
      }
      try StoreSchema.migrator.migrate(writer)
    } catch let error as PersistenceError {
      throw error
    } catch {
      throw Self.openingError(error, path: path)
    }
  }

  /// Opens the store at `path`; a damaged or foreign file is moved aside (`<path>.broken`) and
  /// a new store takes its place, with what ``startOver(at:owner:)`` could carry over. A file
  /// an earlier start-over moved aside but could not carry over yet (it failed, or the app
  /// ended first, even between moving the database and its `-wal`) is carried over now
  /// (``salvaged``). Returns the store and the error that was recovered from.
  public static func openOrStartOver(
    at path: String, owner: User.ID
  ) throws(PersistenceError) -> (store: ChatStore, discarded: PersistenceError?) {
    do {
      try finishMovingAside(path)
      let store = try ChatStore(at: .file(path: path), owner: owner)
      store.takeOverFilesAside(of: path)
      return (store, nil)
    } catch {
      switch error {
      case .corrupt, .newerSchema:
        return (try startOver(at: path, owner: owner), error)
      case .unreadable, .database:
        throw error
      }
    }
  }

  /// Moves the file at `path` aside and opens a new store there: for a file found ``damaged``
  /// after it opened (close that store first). What only this device had, the unsent messages
  /// and queued analytics events, is read from the old file as far as SQLite still can and
  /// carried over (``salvaged``); rooms and sent messages come back with the next sync.
  ///
  /// The file waits aside as `<path>.broken-<UUID>` until what it gave is committed in the new
  /// store, then becomes `<path>.broken` (replacing an older one, kept for inspection). One
  /// whose carry-over did not happen (the new store failed to open, the file could not be
  /// opened or read for now, or the app ended first) stays, and the next start-over or
  /// ``openOrStartOver(at:owner:)`` carries it over, once: a damaged file's unsent messages
  /// are never deleted before they are in the new store.
  public static func startOver(
    at path: String, owner: User.ID
  ) throws(PersistenceError)
    -> ChatStore
  {
    let manager = FileManager.default
    let aside = "\(path).broken-\(UUID().uuidString)"
    try finishMovingAside(path)
    if manager.fileExists(atPath: path) {
      var moved: [(from: String, to: String)] = []
      for (file, aside) in zip(files(at: path), files(at: aside))
      where manager.fileExists(atPath: file) {
        do {
          try manager.moveItem(atPath: file, toPath: aside)
          moved.append((file, aside))
        } catch {
          // What moved comes back: a database is never opened apart from its `-wal`.
          for step in moved.reversed() { try? manager.moveItem(atPath: step.to, toPath: step.from) }
          throw .unreadable(path: path, reason: "the store could not be moved aside: \(error)")
        }
      }
    }
    let store = try ChatStore(at: .file(path: path), owner: owner)
    store.takeOverFilesAside(of: path)
    return store
  }

  /// Finishes moving a store aside when a start-over ended between its renames (the app was
  /// killed): the database went aside, its `-wal` (and `-shm`) stayed at `path`. They join the
  /// newest file aside, the damaged store (it was in use after every older one), when it has
  /// none of its own. A new store opened at `path` would make SQLite delete a `-wal` without its
  /// database, and with it the rows committed only there, unsent messages among them.
  ///
  /// - Throws: ``PersistenceError/unreadable(path:reason:)`` when they cannot be moved: no
  ///   store may open at `path` while they are there.
  static func finishMovingAside(_ path: String) throws(PersistenceError) {
    let manager = FileManager.default
    let size = (try? manager.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
    guard size == nil || size == 0, manager.fileExists(atPath: path + "-wal"),
      let aside = filesAside(of: path).last, !manager.fileExists(atPath: aside + "-wal")
    else { return }
    for (file, moved) in zip(files(at: path), files(at: aside)).dropFirst()
    where manager.fileExists(atPath: file) {
      do {
        try? manager.removeItem(atPath: moved)
        try manager.moveItem(atPath: file, toPath: moved)
      } catch {
        throw .unreadable(
          path: path, reason: "the -wal of the store moved aside could not join it: \(error)")
      }
    }
    // An empty database a launch created in its place before it was opened.
    if size == 0 { try? manager.removeItem(atPath: path) }
  }

  /// The files a start-over moved aside from `path` and has not carried over yet, oldest
  /// first.
  static func filesAside(of path: String) -> [String] {
    let url = URL(fileURLWithPath: path)
    let prefix = url.lastPathComponent + ".broken-"
    let folder = url.deletingLastPathComponent()
    let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
    return
      names
      .filter {
        $0.hasPrefix(prefix) && UUID(uuidString: String($0.dropFirst(prefix.count))) != nil
      }
      .map { folder.appendingPathComponent($0).path }
      .map { file in
        let changed = try? FileManager.default.attributesOfItem(atPath: file)[.modificationDate]
        return (file, (changed as? Date) ?? .distantPast)
      }
      .sorted { $0.1 < $1.1 }
      .map(\.0)
  }

  /// Carries over every file aside (``filesAside(of:)``), oldest first, into ``salvaged`` (left
  /// `nil` when there is none); each one whose rows are committed becomes `<path>.broken`.
  ///
  /// The outbox sends in `row` order, and what a file aside holds was queued before anything
  /// this store queued (a file whose carry-over failed is tried again at a later open, when
  /// the store may have queued messages of its own): each file's messages get rows below the
  /// store's, the older file's below the newer's, a stretch of 2³² rows a file.
  ///
  /// A file another file aside records as carried over (the store that took it over was
  /// damaged too before the first file was set aside for good) gives nothing: what it gave
  /// lives on, as that store left it, in the newer file.
  private func takeOverFilesAside(of path: String) {
    let manager = FileManager.default
    let asides = Self.filesAside(of: path)
    guard !asides.isEmpty else { return }
    let lowest = (try? read { db in try Int64.fetchOne(db, sql: "SELECT MIN(row) FROM message") })
    let ceiling = min((lowest ?? nil) ?? 1, 1)
    let carriedElsewhere = Set(asides.flatMap(Self.carriedOverNames(in:)))
    var total = Salvage(messages: 0, events: 0)
    for (index, aside) in asides.enumerated() {
      let firstRow = ceiling - Int64(asides.count - index) << 32
      let name = URL(fileURLWithPath: aside).lastPathComponent
      let taken =
        carriedElsewhere.contains(name)
        ? (try? write { db in
          try db.execute(
            sql: "INSERT OR IGNORE INTO carried_over_file (name) VALUES (?)", arguments: [name])
          return Salvage(messages: 0, events: 0)
        })
        : takeOver(from: aside, firstRow: firstRow)
      guard let counts = taken else { continue }
      total.messages += counts.messages
      total.events += counts.events
      for (file, kept) in zip(Self.files(at: aside), Self.files(at: path + ".broken")) {
        try? manager.removeItem(atPath: kept)
        if manager.fileExists(atPath: file) { try? manager.moveItem(atPath: file, toPath: kept) }
      }
    }
    salvage.withLock { $0 = total }
  }

  /// How a file aside is opened: read-only, never changed by what reads it.
  private static var readOnly: Configuration {
    var configuration = Configuration()
    configuration.readonly = true
    return configuration
  }

  /// The names of the files the store at `path` carried over (none when it cannot be read).
  private static func carriedOverNames(in path: String) -> [String] {
    guard let file = try? DatabaseQueue(path: path, configuration: readOnly) else { return [] }
    defer { try? file.close() }
    return
      (try? file.read { db in try String.fetchAll(db, sql: "SELECT name FROM carried_over_file") })
      ?? []
  }

  /// Copies the unsent messages and queued events SQLite can still read from the file at
  /// `path` (opened read-only) into this store, best effort, the messages in their order from
  /// row `firstRow` on; returns how many came over, `nil` when they could not be read or
  /// written (the file could not be opened, a read failed other than on damage, or the write
  /// failed: the file then stays aside for a later try).
  /// A file this store carried over before gives nothing again (`carried_over_file`). Each
  /// table is read on its own, by its primary key, around damaged pages (see `readable`); a
  /// value of the wrong type skips its row. Each message keeps its state: one
  /// that was being sent may already be with the server, so it stays `sending` (not deletable)
  /// until a try settles it, as after any restart; the server keeps one message per sender and
  /// client message id.
  private func takeOver(from path: String, firstRow: Int64) -> Salvage? {
    /// Whether `error` is damage (read around), not a failure for now.
    func isDamage(_ error: any Error) -> Bool {
      guard let error = error as? DatabaseError else { return false }
      if case .corrupt = Self.storeError(error, path: path) { return true }
      return false
    }
    // A file that is no database at all has nothing to give; one that cannot be opened now
    // (a folder, no permission) is tried again later.
    let old: DatabaseQueue?
    do {
      old = try DatabaseQueue(path: path, configuration: Self.readOnly)
    } catch {
      guard isDamage(error) else { return nil }
      old = nil
    }
    defer { try? old?.close() }
    // Set when a read failed other than on damage (busy, I/O): nothing is carried over now.
    var failed = false
    /// The rows of `table` SQLite can read, oldest first by its integer primary key `key`
    /// (the rowid, so no index is involved). A read that meets damage keeps what it read and
    /// goes on after the damaged stretch: it seeks further and further past the last good row
    /// until a read gets going (each seek walks down from the table's root), then halves its
    /// way back to the first key that reads, so a damaged page costs its own rows (and, where
    /// damaged pages lie close together, a readable page between them may be stepped over).
    func readable(_ table: String, key: String) -> [Row] {
      var rows: [Row] = []
      guard let old else { return rows }
      // From a key on (`>=`): a seek for the first key after a damaged page lands on the
      // next page, and that key is read.
      let sql = "SELECT * FROM \(table) WHERE \(key) >= ? ORDER BY \(key)"
      /// Reads the rows from `start` on into `rows`; `nil` at the table's end, or the key after
      /// the last one read (`start` if none) when damage stopped it.
      func read(from start: Int64) -> Int64? {
        var next = start
        do {
          try old.read { db in
            let cursor = try Row.fetchCursor(db, sql: sql, arguments: [start])
            while let row = try cursor.next() {
              rows.append(row.copy())
              next = (row.typed(key) as Int64?).map { $0 + 1 } ?? next
            }
          }
          return nil
        } catch {
          guard isDamage(error) else {
            failed = true
            return nil
          }
          return next
        }
      }
      /// Whether a read from `start` gets going (its first row, or the end, reads).
      func starts(from start: Int64) -> Bool {
        do {
          try old.read { db in _ = try Row.fetchOne(db, sql: sql + " LIMIT 1", arguments: [start]) }
          return true
        } catch {
          if !isDamage(error) { failed = true }
          return false
        }
      }
      // Over the whole key range: carried-over messages have rows below zero
      // (`takeOverFilesAside`).
      var start = Int64.min
      while let stopped = read(from: start) {
        // A read from `stopped` does not get going; find the first key past it that does
        // (steps double up to 2⁶², at most about 64 seeks to the range's end).
        var failing = stopped
        var step: Int64 = 1
        var passing: Int64?
        while !failed {
          let (probe, past) = failing.addingReportingOverflow(step)
          if past { break }
          if starts(from: probe) {
            passing = probe
            break
          }
          failing = probe
          step = min(step, 1 << 61) * 2
        }
        guard !failed, var passing else { break }
        while passing - failing > 1 {
          let middle = failing + (passing - failing) / 2
          if starts(from: middle) { passing = middle } else { failing = middle }
        }
        start = passing
      }
      return rows
    }
    let messages = readable("message", key: "row").compactMap {
      row -> [(any DatabaseValueConvertible)?]? in
      let state: String? = row.typed("state")
      let seq: Int64? = row.typed("seq")
      guard seq == nil, let state, ["pending", "sending", "failed"].contains(state),
        let room: String = row.typed("room_id"),
        let client: String = row.typed("client_message_id"),
        let sender: String = row.typed("sender_id"), let text: String = row.typed("text"),
        let createdAt: Double = row.typed("created_at")
      else { return nil }
      let nickname: String = row.typed("sender_nickname") ?? ""
      let failure: String? = row.typed("failure")
      let attempts: Int = row.typed("attempts") ?? 0
      return [
        room, client, client, sender, nickname, text, createdAt, state, failure, attempts,
      ]
    }
    let events = readable("analytics_event", key: "id").compactMap {
      row -> [(any DatabaseValueConvertible)?]? in
      guard let name: String = row.typed("name"),
        let properties: String = row.typed("properties"),
        let occurredAt: Double = row.typed("occurred_at")
      else { return nil }
      let session: String? = row.typed("session_id")
      let batch: String? = row.typed("batch_key")
      return [name, properties, occurredAt, session, batch]
    }
    if failed { return nil }
    let name = URL(fileURLWithPath: path).lastPathComponent
    let counts = try? write { db -> Salvage in
      // Carried over before (its rename did not happen): nothing twice.
      guard
        try Bool.fetchOne(
          db, sql: "SELECT 1 FROM carried_over_file WHERE name = ?", arguments: [name]) == nil
      else { return Salvage(messages: 0, events: 0) }
      try db.execute(sql: "INSERT INTO carried_over_file (name) VALUES (?)", arguments: [name])
      let room = try db.makeStatement(
        sql: ChatStore.placeholderRoom)
      let message = try db.makeStatement(
        sql: """
          INSERT OR IGNORE INTO message (room_id, id, seq, client_message_id, sender_id,
            sender_nickname, text, created_at, state, failure, attempts, row)
          VALUES (?, ?, NULL, ?, ?, ?, ?, ?, ?, ?, ?, ?)
          """)
      var saved = 0
      for (offset, values) in messages.enumerated() {
        try room.execute(arguments: StatementArguments([values[0]]))
        try message.execute(arguments: StatementArguments(values + [firstRow + Int64(offset)]))
        saved += db.changesCount
      }
      let event = try db.makeStatement(
        sql: """
          INSERT INTO analytics_event (name, properties, occurred_at, session_id, batch_key)
          VALUES (?, ?, ?, ?, ?)
          """)
      for values in events { try event.execute(arguments: StatementArguments(values)) }
      return Salvage(messages: saved, events: events.count)
    }
    return counts
  }

  /// The files of a store at `path`: the database and SQLite's `-wal` and `-shm` beside it.
  public static func files(at path: String) -> [String] {
    ["", "-wal", "-shm"].map { path + $0 }
  }

  /// Every file of the store at `path` that exists: its ``files(at:)``, the damaged file kept
  /// aside (`<path>.broken`) and any waiting to be carried over (``startOver(at:owner:)``),
  /// each with its `-wal` and `-shm`, also one of those left behind by a rename the app did not
  /// live to finish (every name that begins `<path>.broken`). What deleting a user's store
  /// removes.
  public static func existingFiles(at path: String) -> [String] {
    let url = URL(fileURLWithPath: path)
    let prefix = url.lastPathComponent + ".broken"
    let folder = url.deletingLastPathComponent()
    // Every name that starts like a file aside: also a `-wal` or `-shm` left behind when the app
    // ended between the renames that set a file aside.
    let aside = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
      .filter { $0.hasPrefix(prefix) }.sorted().map { folder.appendingPathComponent($0).path }
    return files(at: path).filter { FileManager.default.fileExists(atPath: $0) } + aside
  }

  private static func openingError(_ error: any Error, path: String) -> PersistenceError {
    if let error = error as? DatabaseError { return storeError(error, path: path) }
    return .unreadable(path: path, reason: "\(error)")
  }

  /// What SQLite's `error` means for the file at `path`.
  private static func storeError(_ error: DatabaseError, path: String) -> PersistenceError {
    switch error.resultCode {
    case .SQLITE_NOTADB, .SQLITE_CORRUPT:
      return .corrupt(path: path, reason: error.message ?? "\(error.resultCode)")
    case .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_READONLY, .SQLITE_FULL, .SQLITE_IOERR:
      return .unreadable(path: path, reason: error.message ?? "\(error.resultCode)")
    default:
      return .database("\(error)")
    }
  }

  /// The error of a failed read or write; a damaged file is remembered in ``damaged``.
  func failure(_ error: any Error) -> PersistenceError {
    if let error = error as? PersistenceError { return error }
    guard let error = error as? DatabaseError else { return .database("\(error)") }
    let failure = Self.storeError(error, path: location.path)
    if case .corrupt = failure { damage.withLock { $0 = $0 ?? failure } }
    return failure
  }

  func write<T>(_ body: (Database) throws -> T) throws(PersistenceError) -> T {
    do {
      return try writer.write(body)
    } catch {
      throw failure(error)
    }
  }

  func read<T>(_ body: (Database) throws -> T) throws(PersistenceError) -> T {
    do {
      // GRDB's `DatabaseQueue.read` guards a read with `PRAGMA query_only`, and every such
      // pragma expires all prepared statements of the connection: on the in-memory store, the
      // cached statements of `save` were parsed again after each read (the sync reads its
      // cursors after every received burst). The queue is serial, so nothing can interleave
      // with a read that skips the guard; the store's reads only read.
      if let queue = writer as? DatabaseQueue { return try queue.unsafeRead(body) }
      return try writer.read(body)
    } catch {
      throw failure(error)
    }
  }

  /// Whether ``close()`` was called.
  public var isClosed: Bool { closed.withLock { $0 } }

  /// Closes the store (folding a file's WAL into it first, when it can); later calls fail.
  /// ``isClosed`` turns true only once the connections are closed.
  public func close() throws(PersistenceError) {
    do {
      if let pool = writer as? DatabasePool {
        // Best effort: a damaged or busy file still closes (its WAL stays beside it).
        try? pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        try pool.close()
      } else if let queue = writer as? DatabaseQueue {
        try queue.close()
      }
    } catch {
      throw .database("\(error)")
    }
    closed.withLock { $0 = true }
  }
}

extension ChatStore.Location {
  var path: String {
    switch self {
    case .inMemory: ":memory:"
    case .file(let path): path
    }
  }
}

extension Row {
  /// The column's value if it has type `T`: `nil` when the column is missing, NULL or holds
  /// another type. Unlike `row[column]`, which traps on a value it cannot convert, a store
  /// file changed outside the app (or damaged) cannot crash the reader.
  func typed<T: DatabaseValueConvertible>(_ column: String) -> T? {
    let value: DatabaseValue? = self[column]
    return value.flatMap { T.fromDatabaseValue($0) }
  }
}
