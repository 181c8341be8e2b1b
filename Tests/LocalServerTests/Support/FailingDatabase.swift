import GRDB
import ServiceEngine
import TestSupport

/// A migrated database file in a new temporary folder, on which every insert into `table`
/// that matches `condition` (SQL on the `NEW` row; every insert when `nil`) fails, as a full
/// disk would make it. The caller removes the folder.
func databaseFailingInserts(
  into table: String, when condition: String? = nil
) async throws -> (path: String, folder: TemporaryDirectory) {
  let folder = try TemporaryDirectory("qapple-failing")
  let path = folder.path("qapple.sqlite")
  try ServiceEngine(configuration: .init(storage: .file(path: path))).close()
  let side = try DatabaseQueue(path: path)
  try await side.write { db in
    try db.execute(
      sql: """
        CREATE TRIGGER fail_inserts BEFORE INSERT ON \(table)
        \(condition.map { "WHEN \($0)" } ?? "")
        BEGIN SELECT RAISE(ABORT, 'disk full'); END
        """)
  }
  try side.close()
  return (path, folder)
}
