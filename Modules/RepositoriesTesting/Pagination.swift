import Domain
import Foundation

/// A position in a sorted list: the sort value, then the insertion order as a tie-breaker.
struct SortKey: Comparable, Sendable {
  var value: Double
  var order: Int

  static func < (lhs: SortKey, rhs: SortKey) -> Bool {
    (lhs.value, lhs.order) < (rhs.value, rhs.order)
  }

  /// A key ordered by time.
  static func date(_ date: Date, _ order: Int) -> SortKey {
    SortKey(value: date.timeIntervalSince1970, order: order)
  }

  /// A key ordered by calendar day.
  static func day(_ day: CalendarDay, _ order: Int) -> SortKey {
    SortKey(value: Double(day.year * 10_000 + day.month * 100 + day.day), order: order)
  }

  /// The opaque cursor text: base64 of the key, like the server's.
  var cursor: PageCursor {
    let text = "v1:\(value.bitPattern):\(order)"
    return PageCursor(rawValue: Data(text.utf8).base64EncodedString())
  }

  /// Reads a cursor handed out by `cursor`.
  init(cursor: PageCursor) throws(DomainError) {
    let invalid = DomainError.validation(
      .invalidFormat(field: "cursor", expected: "a cursor returned with the previous page"))
    guard let data = Data(base64Encoded: cursor.rawValue),
      let text = String(data: data, encoding: .utf8)
    else { throw invalid }
    let parts = text.split(separator: ":")
    guard parts.count == 3, parts[0] == "v1", let bits = UInt64(parts[1]),
      let order = Int(parts[2])
    else { throw invalid }
    self.init(value: Double(bitPattern: bits), order: order)
  }

  init(value: Double, order: Int) {
    self.value = value
    self.order = order
  }
}

/// Which way a list runs.
enum ListOrder {
  /// Oldest first (comments, group members).
  case ascending
  /// Newest first (almost everything).
  case descending
}

/// Keyset pagination: items strictly after the cursor's key, `limit` of them, and a cursor for
/// the next page when more remain. Stable under inserts because it never counts offsets.
func paginate<Item>(
  _ items: some Sequence<Item>, by key: (Item) -> SortKey, _ order: ListOrder,
  _ request: PageRequest
) throws(DomainError) -> Page<Item> {
  let keyed = items.map { (key: key($0), item: $0) }
  var sorted = keyed.sorted { order == .ascending ? $0.key < $1.key : $1.key < $0.key }
  if let cursor = request.cursor {
    let after = try SortKey(cursor: cursor)
    sorted.removeAll { order == .ascending ? $0.key <= after : $0.key >= after }
  }
  let limit = min(max(request.limit, 1), PageRequest.maximumLimit)
  let page = sorted.prefix(limit)
  let next = sorted.count > limit ? page.last?.key.cursor : nil
  return Page(items: page.map(\.item), nextCursor: next)
}
