import Domain
import Foundation
import Testing

@testable import ServiceEngine

@Suite("Engine support: cursors, public ids, rate limit")
struct SupportTests {
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
    #expect(PublicID.post.key("p_012") == nil)
    #expect(PublicID.post.key("p_0") == nil)
    #expect(PublicID.post.key("p_99999999999999999999") == nil)
    #expect(PublicID.room(3) == "room_3")
  }

  @Test("the rate limiter counts per key inside the window")
  func rateLimiter() {
    let limiter = RateLimiter(.init(count: 2, window: .seconds(10)))
    let start = Date(timeIntervalSince1970: 1000)
    #expect(throws: Never.self) { try limiter.admit("a", at: start) }
    #expect(throws: Never.self) { try limiter.admit("a", at: start.addingTimeInterval(1)) }
    #expect(throws: DomainError.rateLimited(retryAfter: .seconds(8))) {
      try limiter.admit("a", at: start.addingTimeInterval(2))
    }
    #expect(throws: Never.self) { try limiter.admit("b", at: start.addingTimeInterval(2)) }
    #expect(throws: Never.self) { try limiter.admit("a", at: start.addingTimeInterval(10)) }
  }

  @Test("a limit allows at least one; the standard is 30 per 10 seconds")
  func limit() throws {
    #expect(RateLimiter.Limit(count: 0, window: .seconds(1)).count == 1)
    #expect(RateLimiter.Limit.standard == .init(count: 30, window: .seconds(10)))
    let limiter = RateLimiter(.init(count: 1, window: .milliseconds(1_500)))
    let start = Date(timeIntervalSince1970: 1000)
    try limiter.admit("a", at: start)
    // 1.5 s left, said as whole seconds rounded up.
    #expect(throws: DomainError.rateLimited(retryAfter: .seconds(2))) {
      try limiter.admit("a", at: start)
    }
  }
}
