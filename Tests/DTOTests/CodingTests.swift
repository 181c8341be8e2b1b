import DTO
import Foundation
import Testing

@Suite("QappleCoding dates")
struct CodingTests {
  @Test(
    "parses RFC 3339 with and without fractional seconds",
    arguments: [
      ("2026-11-21T05:10:00.123Z", utc(2026, 11, 21, 5, 10, 0, milliseconds: 123)),
      ("2026-11-21T05:10:00Z", utc(2026, 11, 21, 5, 10, 0)),
      ("2026-11-21T05:10:00.5Z", utc(2026, 11, 21, 5, 10, 0, milliseconds: 500)),
      (
        "2026-11-21t05:10:00.123456789z",
        utc(2026, 11, 21, 5, 10, 0).addingTimeInterval(0.123_456_789)
      ),
      ("2026-11-21T14:10:00.123+09:00", utc(2026, 11, 21, 5, 10, 0, milliseconds: 123)),
      ("2026-11-20T23:40:00-05:30", utc(2026, 11, 21, 5, 10, 0)),
      ("2026-11-21T14:10:00+0900", utc(2026, 11, 21, 5, 10, 0)),
      ("2024-02-29T23:59:59.999Z", utc(2024, 2, 29, 23, 59, 59, milliseconds: 999)),
      ("1970-01-01T00:00:00Z", Date(timeIntervalSince1970: 0)),
      ("1969-12-31T23:59:59.250Z", Date(timeIntervalSince1970: -0.75)),
    ])
  func parsesValidDates(text: String, expected: Date) throws {
    let date = try #require(QappleCoding.date(from: text))
    expectSameInstant(date, expected)
  }

  @Test(
    "refuses what is not an RFC 3339 date-time",
    arguments: [
      "", "2026-11-21", "2026/11/21 05:10:00", "2026-11-21T05:10:00", "2026-11-21 05:10:00Z",
      "2026-13-01T00:00:00Z", "2026-02-30T00:00:00Z", "2025-02-29T00:00:00Z",
      "2026-11-21T24:00:00Z", "2026-11-21T05:60:00Z", "2026-11-21T05:10:61Z",
      "2026-11-21T05:10:00.Z", "2026-11-21T05:10:00.123", "2026-11-21T05:10:00+9",
      "２０２６-11-21T05:10:00Z",
      "2026-11-21T05:10:00ZZ", "20261121T051000Z", "2026-11-21T05:10:00.12a3Z",
    ])
  func refusesInvalidDates(text: String) {
    #expect(QappleCoding.date(from: text) == nil)
  }

  @Test("agrees with Foundation's ISO 8601 parser on a spread of instants")
  func agreesWithFoundation() throws {
    let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    // Whole milliseconds in steps of ~1.7 days over 1990...2060: leap years and month ends.
    var milliseconds: Int64 = 631_152_000_000
    while milliseconds < 2_840_000_000_000 {
      let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
      let text = QappleCoding.string(from: date)
      let ours = try #require(QappleCoding.date(from: text))
      expectSameInstant(ours, try style.parse(text))
      expectSameInstant(ours, date)
      // Foundation truncates instead of rounding, so compare what both say to the second.
      #expect(text.prefix(19) == style.format(date).prefix(19), "formatting \(milliseconds)")
      milliseconds += 147_661_237
    }
  }

  @Test("formats in UTC with milliseconds")
  func formats() {
    #expect(
      QappleCoding.string(from: utc(2026, 11, 21, 5, 10, 0, milliseconds: 123))
        == "2026-11-21T05:10:00.123Z")
    #expect(QappleCoding.string(from: utc(2026, 1, 2, 3, 4, 5)) == "2026-01-02T03:04:05.000Z")
    #expect(
      QappleCoding.string(from: Date(timeIntervalSince1970: -0.75)) == "1969-12-31T23:59:59.250Z")
    // Rounds to the nearest millisecond instead of truncating 0.1229999... to .122.
    #expect(
      QappleCoding.string(from: Date(timeIntervalSince1970: 1_795_237_800.123))
        == "2026-11-21T05:10:00.123Z")
  }

  @Test("the decoder and encoder round-trip dates through JSON")
  func roundTripsThroughJSON() throws {
    struct Box: Codable, Equatable { var at: Date }
    let box = Box(at: utc(2026, 11, 21, 5, 10, 0, milliseconds: 123))
    let data = try JSONEncoder.qapple().encode(box)
    #expect(String(decoding: data, as: UTF8.self) == #"{"at":"2026-11-21T05:10:00.123Z"}"#)
    let decoded = try JSONDecoder.qapple().decode(Box.self, from: data)
    expectSameInstant(decoded.at, box.at)
  }
}
