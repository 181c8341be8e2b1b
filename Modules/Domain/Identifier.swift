import Foundation

/// A typed identifier: `Identifier<BoardPost>` and `Identifier<Comment>` cannot be mixed up,
/// although both are opaque strings on the wire.
public struct Identifier<Owner>: RawRepresentable, Hashable, Sendable, Comparable,
  ExpressibleByStringLiteral, CustomStringConvertible
{
  /// The server's opaque identifier text.
  public let rawValue: String

  /// Wraps the server's identifier text.
  public init(rawValue: String) { self.rawValue = rawValue }

  /// Wraps the server's identifier text.
  public init(_ rawValue: String) { self.rawValue = rawValue }

  /// Allows `let id: BoardPost.ID = "p_1"` in tests and previews.
  public init(stringLiteral value: String) { self.rawValue = value }

  /// The raw identifier text.
  public var description: String { rawValue }

  /// Orders identifiers by their text, for stable sorting only.
  public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

  /// Refuses an empty identifier, which names nothing (and in a path would name another
  /// route): ``DomainError/validation(_:)`` with `.empty(field:)`, `field` named as on the wire.
  public func requireNonEmpty(field: String) throws(DomainError) {
    if rawValue.isEmpty { throw .validation(.empty(field: field)) }
  }
}

extension Identifier: Codable {
  /// Decodes the identifier from a single string.
  public init(from decoder: any Decoder) throws {
    rawValue = try decoder.singleValueContainer().decode(String.self)
  }

  /// Encodes the identifier as a single string.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawValue)
  }
}

/// An opaque position in a server list; pass it back to get the next page.
public struct PageCursor: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
  /// The server's cursor text.
  public let rawValue: String
  /// Wraps the server's cursor text.
  public init(rawValue: String) { self.rawValue = rawValue }
  /// Allows cursor literals in tests.
  public init(stringLiteral value: String) { self.rawValue = value }
}

/// One page of a cursor-paginated list.
public struct Page<Element: Sendable>: Sendable {
  /// The items of this page, in the server's order.
  public var items: [Element]
  /// The cursor of the next page, or `nil` on the last page.
  public var nextCursor: PageCursor?

  /// Creates a page.
  public init(items: [Element], nextCursor: PageCursor? = nil) {
    self.items = items
    self.nextCursor = nextCursor
  }

  /// Whether another page follows.
  public var hasMore: Bool { nextCursor != nil }

  /// The same page with each item transformed.
  public func map<T: Sendable>(_ transform: (Element) throws -> T) rethrows -> Page<T> {
    Page<T>(items: try items.map(transform), nextCursor: nextCursor)
  }
}

extension Page {
  /// Reads the pages `fetch` answers, the largest the server hands out, from the first on, and
  /// returns the first item that satisfies `predicate` (`nil` after the last page): stops as
  /// soon as it is found. Runs on the caller's actor, so `fetch` may use its state.
  nonisolated(nonsending) public static func first(
    in fetch: (PageRequest) async throws -> Page<Element>,
    where predicate: (Element) throws -> Bool
  ) async throws -> Element? {
    var request = PageRequest(limit: PageRequest.maximumLimit)
    while true {
      let page = try await fetch(request)
      if let found = try page.items.first(where: predicate) { return found }
      guard let next = page.nextCursor else { return nil }
      request = PageRequest(cursor: next, limit: PageRequest.maximumLimit)
    }
  }

  /// Every item of every page `fetch` answers, in order (pages of the largest size). Runs on
  /// the caller's actor.
  nonisolated(nonsending) public static func all(
    in fetch: (PageRequest) async throws -> Page<Element>
  ) async throws -> [Element] {
    var items: [Element] = []
    _ = try await first(in: fetch) { item in
      items.append(item)
      return false
    }
    return items
  }
}

extension Page: Equatable where Element: Equatable {}
extension Page: Hashable where Element: Hashable {}

/// How many items to ask for, and from where.
public struct PageRequest: Hashable, Sendable {
  /// The largest page the server hands out.
  public static let maximumLimit = 100
  /// The page size used when none is given.
  public static let defaultLimit = 20

  /// Where to continue, or `nil` for the first page.
  public var cursor: PageCursor?
  /// How many items to return, clamped to `1...maximumLimit` (when set, too).
  public var limit: Int {
    didSet { limit = Self.clamped(limit) }
  }

  /// Creates a page request; the limit is clamped to what the server accepts.
  public init(cursor: PageCursor? = nil, limit: Int = PageRequest.defaultLimit) {
    self.cursor = cursor
    self.limit = Self.clamped(limit)
  }

  private static func clamped(_ limit: Int) -> Int { min(max(limit, 1), maximumLimit) }

  /// The first page with the default size.
  public static let first = PageRequest()
}

extension UUID {
  /// The text a UUID is written as wherever it is compared as text (a client message id in
  /// the stores, the service and on the wire; an idempotency key): lower case, so two spellings
  /// of one id never make two rows.
  public var lowercasedText: String { uuidString.lowercased() }
}
