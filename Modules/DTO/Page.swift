import Domain
import Foundation

/// `XPage`: one page of a cursor-paginated list, `{ "items": [...], "next_cursor": ... }`.
///
/// Mapping choice: ``toDomain(_:)`` is strict — one broken item fails the page with a
/// ``MappingError`` naming `items[i]`, because silently shorter pages hide server bugs and
/// break cursor arithmetic in tests. Screens that prefer showing the good items use
/// ``compactToDomain(_:)`` (or ``compactToDomain()``), which drops broken items and returns what it dropped so the
/// caller can log or report them.
public struct PageDTO<Item: Codable & Sendable>: Codable, Sendable {
  /// The items, in the server's order.
  public var items: [Item]
  /// The cursor of the next page, or `nil` on the last page.
  public var nextCursor: String?

  /// Creates a page DTO.
  public init(items: [Item], nextCursor: String? = nil) {
    self.items = items
    self.nextCursor = nextCursor
  }

  /// The Domain page, failing on the first broken item (the error path starts `items[i]`).
  public func toDomain<T: Sendable>(
    _ transform: (Item) throws(MappingError) -> T
  )
    throws(MappingError) -> Page<T>
  {
    Page(items: try mapAll(items, path: "items", transform), nextCursor: try cursor())
  }

  /// The Domain page without the broken items, and the errors of the ones it dropped.
  public func compactToDomain<T: Sendable>(
    _ transform: (Item) throws(MappingError) -> T
  )
    throws(MappingError) -> LenientPage<T>
  {
    var mapped: [T] = []
    mapped.reserveCapacity(items.count)
    var dropped: [MappingError] = []
    for index in items.indices {
      do {
        mapped.append(try transform(items[index]))
      } catch {
        dropped.append(error.nested(in: "items[\(index)]"))
      }
    }
    return LenientPage(page: Page(items: mapped, nextCursor: try cursor()), dropped: dropped)
  }

  /// An empty cursor would make the next request fetch the first page again: refuse it.
  private func cursor() throws(MappingError) -> PageCursor? {
    guard let nextCursor else { return nil }
    return PageCursor(rawValue: try nextCursor.nonEmpty("next_cursor"))
  }

  /// Writes `next_cursor` as `null` on the last page, as the contract requires.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(items, forKey: .items)
    try container.encode(nextCursor, forKey: .nextCursor)
  }

  enum CodingKeys: String, CodingKey {
    case items
    case nextCursor = "next_cursor"
  }
}

extension PageDTO: DomainConvertible where Item: DomainConvertible {
  /// The Domain page, failing on the first broken item (the error path starts `items[i]`).
  public func toDomain() throws(MappingError) -> Page<Item.DomainValue> {
    try toDomain { item throws(MappingError) in try item.toDomain() }
  }

  /// The Domain page without the broken items, and the errors of the ones it dropped.
  public func compactToDomain() throws(MappingError) -> LenientPage<Item.DomainValue> {
    try compactToDomain { item throws(MappingError) in try item.toDomain() }
  }
}

extension PageDTO {
  /// The wire form of a Domain page.
  public init<T>(_ page: Page<T>, _ transform: (T) -> Item) {
    self.init(items: page.items.map(transform), nextCursor: page.nextCursor?.rawValue)
  }
}

extension PageDTO: Equatable where Item: Equatable {}
extension PageDTO: Hashable where Item: Hashable {}

/// A page mapped leniently: the items that mapped, and why the others were dropped.
public struct LenientPage<Element: Sendable>: Sendable {
  /// The page of items that mapped, in the server's order.
  public var page: Page<Element>
  /// One error per dropped item; each path starts with `items[i]`.
  public var dropped: [MappingError]

  /// Creates a lenient result.
  public init(page: Page<Element>, dropped: [MappingError]) {
    self.page = page
    self.dropped = dropped
  }
}

/// Maps every element, naming the index of the first failure (`path[i].field`).
func mapAll<Item: DomainConvertible>(
  _ items: [Item], path: String
) throws(MappingError)
  -> [Item.DomainValue]
{
  try mapAll(items, path: path) { item throws(MappingError) in try item.toDomain() }
}

/// Maps every element with `transform`, naming the index of the first failure.
func mapAll<Item, T>(
  _ items: [Item], path: String, _ transform: (Item) throws(MappingError) -> T
) throws(MappingError) -> [T] {
  var mapped: [T] = []
  mapped.reserveCapacity(items.count)
  for index in items.indices {
    do {
      mapped.append(try transform(items[index]))
    } catch {
      throw error.nested(in: "\(path)[\(index)]")
    }
  }
  return mapped
}
