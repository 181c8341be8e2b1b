import Foundation
import GRDB

/// Overwrites the pages of `tables` (and of their indexes) in the SQLite file at `path` with
/// junk: the schema and every other table stay whole, so the file opens, and reading one of
/// those tables finds it damaged. The tables must fit in one page each (a test's few rows).
public func damageTables(_ tables: [String], ofDatabaseAt path: String) throws {
  let (pageSize, pages) = try DatabaseQueue(path: path).read { db in
    let list = tables.map { "'\($0)'" }.joined(separator: ", ")
    return (
      try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096,
      try Int.fetchAll(
        db, sql: "SELECT rootpage FROM sqlite_master WHERE tbl_name IN (\(list)) AND rootpage > 0")
    )
  }
  let file = try FileHandle(forUpdating: URL(fileURLWithPath: path))
  defer { try? file.close() }
  for page in pages {
    try file.seek(toOffset: UInt64((page - 1) * pageSize))
    try file.write(contentsOf: Data(repeating: 0x42, count: pageSize))
  }
}
