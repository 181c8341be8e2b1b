import GRDB

/// Makes every insert into `table` of the SQLite file at `path` fail from now on, as a full
/// disk would, or only those whose new row matches `condition` (SQL on `NEW`, such as
/// `NEW.text = 'first'`); ``allowInserts(into:ofDatabaseAt:)`` lifts it. The file may be open
/// elsewhere (a running server): SQLite makes its connections see the change.
public func failInserts(
  into table: String, when condition: String? = nil, ofDatabaseAt path: String
) throws {
  try failInserts(into: table, when: condition, in: connection(to: path))
}

/// Lets inserts into `table` of the SQLite file at `path` succeed again after
/// ``failInserts(into:when:ofDatabaseAt:)``.
public func allowInserts(into table: String, ofDatabaseAt path: String) throws {
  try allowInserts(into: table, in: connection(to: path))
}

/// ``failInserts(into:when:ofDatabaseAt:)`` through a connection the test has (an in-memory
/// database).
public func failInserts(
  into table: String, when condition: String? = nil, in database: any DatabaseWriter
) throws {
  try database.write { db in
    try db.execute(
      sql: """
        CREATE TRIGGER \(triggerName(table)) BEFORE INSERT ON \(table)
        \(condition.map { "WHEN \($0)" } ?? "")
        BEGIN SELECT RAISE(ABORT, 'disk full'); END
        """)
  }
}

/// ``allowInserts(into:ofDatabaseAt:)`` through a connection the test has.
public func allowInserts(into table: String, in database: any DatabaseWriter) throws {
  try database.write { db in try db.execute(sql: "DROP TRIGGER \(triggerName(table))") }
}

/// A connection to the file at `path` that waits (up to 5 s) while another one writes (a
/// running server), instead of failing at once.
private func connection(to path: String) throws -> DatabaseQueue {
  var configuration = Configuration()
  configuration.busyMode = .timeout(5)
  return try DatabaseQueue(path: path, configuration: configuration)
}

private func triggerName(_ table: String) -> String { "test_fail_inserts_into_\(table)" }
