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

/// Overwrites child pages of the root of `table` in the SQLite file at `path` (closed), a table
/// large enough for its root to be an interior page over leaf pages: `chosen` picks them by
/// their index among the root's `count` cell children. The rows on the others still read.
/// Returns how many rows the overwritten pages held.
@discardableResult
func overwriteChildPages(
  of table: String, in path: String, chosen: (_ index: Int, _ count: Int) -> Bool
) throws -> Int {
  let (root, pageSize) = try DatabaseQueue(path: path).read { db in
    (
      try Int.fetchOne(
        db, sql: "SELECT rootpage FROM sqlite_master WHERE name = ?", arguments: [table]) ?? 0,
      try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096
    )
  }
  let file = try FileHandle(forUpdating: URL(fileURLWithPath: path))
  defer { try? file.close() }
  func page(_ number: Int) throws -> [UInt8] {
    try file.seek(toOffset: UInt64((number - 1) * pageSize))
    return [UInt8](try file.read(upToCount: pageSize) ?? Data())
  }
  func cellCount(_ page: [UInt8]) -> Int { Int(page[3]) << 8 | Int(page[4]) }
  // An interior table b-tree page (type 5): cell count at 3-4, then, after the 12-byte header,
  // 2-byte offsets of cells that each start with their child's 4-byte page number. A leaf
  // (type 13) holds its cell count at the same place.
  struct NotInterior: Error {}
  let rootPage = try page(root)
  guard rootPage.count == pageSize, rootPage[0] == 5 else { throw NotInterior() }
  let cells = cellCount(rootPage)
  var destroyed = 0
  for index in 0..<cells where chosen(index, cells) {
    let pointer = 12 + 2 * index
    let cell = Int(rootPage[pointer]) << 8 | Int(rootPage[pointer + 1])
    let child = rootPage[cell..<cell + 4].reduce(0) { $0 << 8 | Int($1) }
    let leaf = try page(child)
    guard leaf[0] == 13 else { throw NotInterior() }
    destroyed += cellCount(leaf)
    try file.seek(toOffset: UInt64((child - 1) * pageSize))
    try file.write(contentsOf: Data(repeating: 0x42, count: pageSize))
  }
  return destroyed
}

/// Runs `sql` on the SQLite file at `path` (closed), outside any store.
func execute(_ sql: String, in path: String) throws {
  try DatabaseQueue(path: path).write { db in try db.execute(sql: sql) }
}
