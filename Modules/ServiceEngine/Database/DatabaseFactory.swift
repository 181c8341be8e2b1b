import Domain
import Foundation
import GRDB

/// Opens the service's SQLite database and brings its schema up to date.
enum DatabaseFactory {
  /// A file opens as a `DatabasePool` (WAL: readers never wait for the writer); memory opens as
  /// a `DatabaseQueue`. Both get foreign keys, a busy timeout and the server's SQL functions.
  static func open(_ location: ServiceEngine.Configuration.Storage) throws -> any DatabaseWriter {
    var configuration = Configuration()
    configuration.foreignKeysEnabled = true
    configuration.busyMode = .timeout(5)
    configuration.prepareDatabase { db in
      db.add(function: containsFunction)
    }
    let writer: any DatabaseWriter
    switch location {
    case .inMemory:
      writer = try DatabaseQueue(configuration: configuration)
    case .file(let path):
      // Sessions, e-mail addresses, messages: the owner's alone (0600, in folders made 0700).
      try PrivateFile.prepare(at: path)
      writer = try DatabasePool(path: path, configuration: configuration)
    }
    try Schema.migrator.migrate(writer)
    return writer
  }

  /// `qapple_contains(text, needle)`: case-insensitive substring match for all scripts (SQLite's
  /// LIKE folds ASCII only).
  static let containsFunction = DatabaseFunction(
    "qapple_contains", argumentCount: 2, pure: true
  ) { values in
    guard let text = String.fromDatabaseValue(values[0]),
      let needle = String.fromDatabaseValue(values[1])
    else { return false }
    return text.range(of: needle, options: .caseInsensitive) != nil
  }
}

extension Database {
  /// The integer a `SELECT COUNT(...)` query answers (0 when it answers nothing).
  func count(_ sql: String, _ arguments: StatementArguments = []) throws -> Int {
    try Int.fetchOne(self, sql: sql, arguments: arguments) ?? 0
  }
}
