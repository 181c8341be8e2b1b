import Domain
import Foundation
import Testing

@testable import ServiceEngine

@Suite("Engine support: CSV, cursors, public ids, rate limit")
struct SupportTests {
  @Test("CSV: quotes, escaped quotes, commas and line breaks inside quotes, CRLF, BOM, blank lines")
  func csv() throws {
    let text = "\u{FEFF}a,b\r\n1,\"x, y\"\r\n\r\n2,\"say \"\"hi\"\"\nthere\"\n3,\n"
    let records = try CSV.records(text)
    #expect(
      records == [
        CSV.Record(line: 1, fields: ["a", "b"]),
        CSV.Record(line: 2, fields: ["1", "x, y"]),
        CSV.Record(line: 4, fields: ["2", "say \"hi\"\nthere"]),
        CSV.Record(line: 6, fields: ["3", ""]),
      ])
    #expect(throws: CSV.UnterminatedQuote.self) { try CSV.records("a,\"open\n") }
    #expect(try CSV.records("").isEmpty)
  }

  @Test("cursors round-trip and reject foreign text; public ids parse strictly")
  func cursorsAndIDs() {
    let cursor = Cursor(key: 1_795_230_000_123, id: 42)
    #expect(Cursor(cursor.text) == cursor)
    #expect(Cursor("djE6MTox") == Cursor(key: 1, id: 1))
    #expect(Cursor("not a cursor") == nil)
    #expect(PublicID.post.key("p_12") == 12)
    #expect(PublicID.post.key("c_12") == nil)
    #expect(PublicID.post.key("p_") == nil)
    #expect(PublicID.post.key("p_+1") == nil)
    #expect(PublicID.room(3) == "room_3")
  }

  @Test("the rate limiter counts per key inside the window")
  func rateLimiter() {
    let limiter = RateLimiter(count: 2, window: 10)
    let start = Date(timeIntervalSince1970: 1000)
    #expect(throws: Never.self) { try limiter.admit("a", at: start) }
    #expect(throws: Never.self) { try limiter.admit("a", at: start.addingTimeInterval(1)) }
    #expect(throws: DomainError.rateLimited(retryAfter: .seconds(8))) {
      try limiter.admit("a", at: start.addingTimeInterval(2))
    }
    #expect(throws: Never.self) { try limiter.admit("b", at: start.addingTimeInterval(2)) }
    #expect(throws: Never.self) { try limiter.admit("a", at: start.addingTimeInterval(10)) }
  }
}
