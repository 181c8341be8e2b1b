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

/// Overwrites the middle child page of the root of `table` in the SQLite file at `path`
/// (closed), a table large enough for its root to be an interior page: the rows before and
/// after that page still read, those on it do not.
func overwriteMiddleChildPage(of table: String, in path: String) throws {
  let (root, pageSize) = try DatabaseQueue(path: path).read { db in
    (
      try Int.fetchOne(
        db, sql: "SELECT rootpage FROM sqlite_master WHERE name = ?", arguments: [table]) ?? 0,
      try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
    )
  }
  let file = try FileHandle(forUpdating: URL(fileURLWithPath: path))
  defer { try? file.close() }
  try file.seek(toOffset: UInt64((root - 1) * pageSize))
  let page = [UInt8](try file.read(upToCount: pageSize) ?? Data())
  // An interior table b-tree page (type 5): cell count at 3-4, then, after the 12-byte header,
  // 2-byte offsets of cells that each start with their child's 4-byte page number.
  struct NotInterior: Error {}
  guard page.count == pageSize, page[0] == 5 else { throw NotInterior() }
  let cells = Int(page[3]) << 8 | Int(page[4])
  let pointer = 12 + 2 * (cells / 2)
  let cell = Int(page[pointer]) << 8 | Int(page[pointer + 1])
  let child = page[cell..<cell + 4].reduce(0) { $0 << 8 | Int($1) }
  try file.seek(toOffset: UInt64((child - 1) * pageSize))
  try file.write(contentsOf: Data(repeating: 0x42, count: pageSize))
}

/// Runs `sql` on the SQLite file at `path` (closed), outside any store.
func execute(_ sql: String, in path: String) throws {
  try DatabaseQueue(path: path).write { db in try db.execute(sql: sql) }
}
