import Domain
import Foundation
import Testing

@Suite("Identifier")
struct IdentifierTests {
  private struct Envelope: Codable, Equatable {
    var id: BoardPost.ID
    var comments: [Domain.Comment.ID]  // Testing has a `Comment` too.
  }

  @Test("Literal, rawValue and unlabeled initializers agree")
  func initializers() {
    let literal: BoardPost.ID = "p_1"
    #expect(literal == BoardPost.ID(rawValue: "p_1"))
    #expect(literal == BoardPost.ID("p_1"))
    #expect(literal.rawValue == "p_1")
    #expect(literal.description == "p_1")
    #expect(literal != "p_2")
  }

  @Test("An empty identifier is refused, naming the field; any other text passes")
  func requireNonEmpty() throws {
    #expect(throws: DomainError.validation(.empty(field: "post_id"))) {
      try BoardPost.ID("").requireNonEmpty(field: "post_id")
    }
    try BoardPost.ID(" ").requireNonEmpty(field: "post_id")
    try BoardPost.ID("p_1").requireNonEmpty(field: "post_id")
  }

  @Test("A negative message sequence number is refused, naming the field; none, 0 and more pass")
  func requireSeq() throws {
    #expect(
      throws: DomainError.validation(
        .outOfRange(field: "after_seq", range: 0...Int.max, actual: -1))
    ) {
      try ChatMessage.requireSeq(-1, field: "after_seq")
    }
    for seq in [nil, 0, 1, Int64.max] { try ChatMessage.requireSeq(seq, field: "seq") }
  }

  @Test("Orders by text and hashes by value")
  func orderingAndHashing() {
    let ids: [User.ID] = ["u_2", "u_10", "u_1", "u_2"]
    #expect(ids.sorted() == ["u_1", "u_10", "u_2", "u_2"])
    #expect(Set(ids).count == 3)
  }

  @Test("Encodes as a bare JSON string", arguments: ["p_1", "게시글/1", "", "a\"b"])
  func encodesAsString(raw: String) throws {
    let id = BoardPost.ID(raw)
    let data = try JSONEncoder().encode(id)
    #expect(data == (try JSONEncoder().encode(raw)))
    #expect(try JSONDecoder().decode(BoardPost.ID.self, from: data) == id)
  }

  @Test("Round-trips inside other values")
  func nestedRoundTrip() throws {
    let envelope = Envelope(id: "p_1", comments: ["c_1", "c_2"])
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let data = try encoder.encode(envelope)
    #expect(String(decoding: data, as: UTF8.self) == #"{"comments":["c_1","c_2"],"id":"p_1"}"#)
    #expect(try JSONDecoder().decode(Envelope.self, from: data) == envelope)
  }

  @Test("Refuses non-string JSON", arguments: ["42", "null", "{\"id\":\"p_1\"}", "[\"p_1\"]"])
  func refusesNonStrings(json: String) {
    #expect(throws: DecodingError.self) {
      try JSONDecoder().decode(BoardPost.ID.self, from: Data(json.utf8))
    }
  }
}

@Suite("Pages")
struct PageTests {
  @Test("hasMore follows the next cursor")
  func hasMore() {
    #expect(Page(items: [1, 2], nextCursor: "next").hasMore)
    #expect(!Page(items: [1, 2]).hasMore)
    #expect(!Page<Int>(items: [], nextCursor: nil).hasMore)
  }

  @Test("map transforms items in order and keeps the cursor")
  func map() {
    let page = Page(items: [1, 2, 3], nextCursor: "c_9")
    let mapped = page.map { "#\($0)" }
    #expect(mapped == Page(items: ["#1", "#2", "#3"], nextCursor: "c_9"))
    #expect(Page<Int>(items: []).map { $0 * 2 } == Page(items: []))
  }

  private struct Refused: Error, Equatable {}

  @Test("map rethrows the transform's error")
  func mapRethrows() {
    #expect(throws: Refused()) {
      try Page(items: [1, 2]).map { value -> Int in
        if value == 2 { throw Refused() }
        return value
      }
    }
  }

  @Test(
    "PageRequest clamps its limit to 1-100",
    arguments: [
      (-10, 1), (0, 1), (1, 1), (20, 20), (99, 99), (100, 100), (101, 100), (Int.max, 100),
      (Int.min, 1),
    ])
  func clamping(limit: Int, expected: Int) {
    #expect(PageRequest(limit: limit).limit == expected)
    // Setting the limit later clamps it too (the engine pages with `prefix(limit)`, which traps
    // on a negative count).
    var request = PageRequest()
    request.limit = limit
    #expect(request.limit == expected)
  }

  @Test("PageRequest defaults to the first page of 20")
  func defaults() {
    let request = PageRequest()
    #expect(request.limit == PageRequest.defaultLimit)
    #expect(request.limit == 20)
    #expect(request.cursor == nil)
    #expect(PageRequest.first == request)
    #expect(PageRequest(cursor: "abc", limit: 500) == PageRequest(cursor: "abc", limit: 100))
    #expect(PageRequest(cursor: "abc").cursor == PageCursor(rawValue: "abc"))
  }

  @Test("Page.first reads pages of the largest size until it finds the item; Page.all reads all")
  func walking() async throws {
    let items = Array(0..<250)
    var requests: [PageRequest] = []
    func fetch(_ request: PageRequest) -> Page<Int> {
      requests.append(request)
      let start = request.cursor.flatMap { Int($0.rawValue) } ?? 0
      let end = min(items.count, start + request.limit)
      return Page(
        items: Array(items[start..<end]),
        nextCursor: end < items.count ? PageCursor(rawValue: "\(end)") : nil)
    }
    #expect(try await Page.first(in: fetch, where: { $0 == 120 }) == 120)
    #expect(requests == [PageRequest(limit: 100), PageRequest(cursor: "100", limit: 100)])
    requests = []
    #expect(try await Page.first(in: fetch, where: { $0 > 1_000 }) == nil)
    #expect(requests.count == 3)
    #expect(try await Page.all(in: fetch) == items)
  }
}

@Suite("UUID.lowercasedText")
struct UUIDTextTests {
  @Test("one id is one text, whichever way it was spelt")
  func lowerCase() throws {
    let upper = try #require(UUID(uuidString: "6F1C2B6A-7A0E-4D58-9A8E-5C1D2B3A4F50"))
    let lower = try #require(UUID(uuidString: "6f1c2b6a-7a0e-4d58-9a8e-5c1d2b3a4f50"))
    #expect(upper.lowercasedText == "6f1c2b6a-7a0e-4d58-9a8e-5c1d2b3a4f50")
    #expect(lower.lowercasedText == upper.lowercasedText)
  }
}
