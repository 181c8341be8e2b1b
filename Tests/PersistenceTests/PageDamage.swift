import Foundation
import GRDB

/// Overwrites the root page of `table` in the SQLite file at `path` (closed) with garbage: the
/// file still opens, and reading that table fails with `SQLITE_CORRUPT`.
func overwriteRootPage(of table: String, in path: String) throws {
  let (page, pageSize) = try DatabaseQueue(path: path).read { db in
    (
      try Int.fetchOne(
        db, sql: "SELECT rootpage FROM sqlite_master WHERE name = ?", arguments: [table]) ?? 0,
      try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
    )
  }
  struct NoSuchTable: Error {}
  guard page > 0 else { throw NoSuchTable() }
  let file = try FileHandle(forUpdating: URL(fileURLWithPath: path))
  defer { try? file.close() }
  try file.seek(toOffset: UInt64((page - 1) * pageSize))
  try file.write(contentsOf: Data(repeating: 0x42, count: pageSize))
}
