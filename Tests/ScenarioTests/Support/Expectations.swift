import Domain
import Testing

extension DomainError {
  /// Whether this is `.conflict`, whatever its message (the wording is each side's own).
  var isConflict: Bool {
    if case .conflict = self { return true }
    return false
  }

  /// The field of a `.validation` error, else `nil`.
  var validationField: String? {
    if case .validation(let error) = self { return error.field }
    return nil
  }
}

/// Expects `body` to throw `.conflict` (any message) and returns the error for more checks.
@discardableResult
func expectConflict<T>(
  _ comment: Testing.Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
  _ body: () async throws -> T
) async -> DomainError? {
  let error = await #expect(throws: DomainError.self, comment, sourceLocation: sourceLocation) {
    _ = try await body()
  }
  #expect(error?.isConflict == true, "\(String(describing: error))", sourceLocation: sourceLocation)
  return error
}

/// Expects `body` to throw `.validation` naming `field`.
@discardableResult
func expectValidation<T>(
  field: String, sourceLocation: SourceLocation = #_sourceLocation,
  _ body: () async throws -> T
) async -> DomainError? {
  let error = await #expect(throws: DomainError.self, sourceLocation: sourceLocation) {
    _ = try await body()
  }
  #expect(
    error?.validationField == field, "\(String(describing: error))",
    sourceLocation: sourceLocation)
  return error
}

/// Walks every page of a list with pages of `limit`, following `nextCursor` until it is `nil`.
/// Stops with an issue after `maximumPages`, so a cursor that never ends cannot hang the test.
func collectPages<Item: Sendable>(
  limit: Int, maximumPages: Int = 50, sourceLocation: SourceLocation = #_sourceLocation,
  _ fetch: (PageRequest) async throws -> Page<Item>
) async throws -> [Page<Item>] {
  var pages: [Page<Item>] = []
  var cursor: PageCursor?
  repeat {
    let page = try await fetch(PageRequest(cursor: cursor, limit: limit))
    pages.append(page)
    cursor = page.nextCursor
    if pages.count >= maximumPages, cursor != nil {
      Issue.record("more than \(maximumPages) pages", sourceLocation: sourceLocation)
      break
    }
  } while cursor != nil
  return pages
}
