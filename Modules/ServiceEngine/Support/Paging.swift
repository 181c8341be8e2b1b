import Domain
import Foundation
import GRDB

/// A keyset position: the sort key of the last item seen and its row key as tie-breaker, so a
/// page never repeats or skips items when rows are inserted meanwhile. Opaque to clients.
struct Cursor: Sendable, Equatable {
  var key: Int64
  var id: Int64
}

extension Cursor {
  /// Reads an opaque cursor text; `nil` when it is not one of ours.
  init?(_ text: String) {
    var base64 = text.replacingOccurrences(of: "-", with: "+")
      .replacingOccurrences(of: "_", with: "/")
    while base64.count % 4 != 0 { base64 += "=" }
    guard let data = Data(base64Encoded: base64), let plain = String(data: data, encoding: .utf8)
    else { return nil }
    let parts = plain.split(separator: ":")
    guard parts.count == 3, parts[0] == "v1", let key = Int64(parts[1]), let id = Int64(parts[2])
    else { return nil }
    self.init(key: key, id: id)
  }

  /// The opaque text (base64url, no padding).
  var text: String {
    Data("v1:\(key):\(id)".utf8).base64EncodedString()
      .replacingOccurrences(of: "+", with: "-")
      .replacingOccurrences(of: "/", with: "_")
      .replacingOccurrences(of: "=", with: "")
  }
}

/// A validated page request: the limit and the decoded cursor.
struct Paging: Sendable {
  var limit: Int
  var cursor: Cursor?

  /// Reads a Domain page request; a cursor this service did not issue is a validation error.
  init(_ request: PageRequest) throws(DomainError) {
    limit = request.limit
    if let text = request.cursor?.rawValue, !text.isEmpty {
      guard let cursor = Cursor(text) else {
        throw .validation(
          .invalidFormat(
            field: "cursor", expected: "a cursor this server issued; start again without it"))
      }
      self.cursor = cursor
    }
  }

  /// Runs the list query `sql` (`SELECT ...` with its conditions; no order or limit) as this
  /// page: adds the keyset condition and order on `(column, id)`, newest (largest) first or
  /// oldest first, fetches one row more than the page, reads each kept row with `item`, and
  /// makes the next cursor from the last kept row's `(column, id)`, when there are more. The
  /// cursor is read from the columns the query sorts by, so it cannot disagree with the order.
  func fetch<Item: Sendable>(
    _ db: Database, sql: String, _ arguments: StatementArguments,
    column: String = "created_at", id: String = "id", table: String? = nil,
    descending: Bool = true, item: (Row) throws -> Item
  ) throws -> Page<Item> {
    let prefix = table.map { "\($0)." } ?? ""
    let (key, row) = ("\(prefix)\(column)", "\(prefix)\(id)")
    precondition(sql.hasPrefix("SELECT "), "A list query starts with SELECT: \(sql)")
    var sql = "SELECT \(key) AS page_key, \(row) AS page_id, " + sql.dropFirst("SELECT ".count)
    var arguments = arguments
    let (comparison, order) = descending ? ("<", "DESC") : (">", "ASC")
    if let cursor {
      sql += " AND (\(key) \(comparison) ? OR (\(key) = ? AND \(row) \(comparison) ?))"
      arguments += [cursor.key, cursor.key, cursor.id]
    }
    sql += " ORDER BY \(key) \(order), \(row) \(order) LIMIT ?"
    arguments += [limit + 1]
    let rows = try Row.fetchAll(db, sql: sql, arguments: arguments)
    let kept = rows.prefix(limit)
    let next =
      rows.count > limit
      ? kept.last.map { PageCursor(rawValue: Cursor(key: $0["page_key"], id: $0["page_id"]).text) }
      : nil
    return Page(items: try kept.map(item), nextCursor: next)
  }
}
