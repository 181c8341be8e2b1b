import Domain
import Foundation
import Testing

@Suite("CalendarDay")
struct CalendarDayTests {
  @Test(
    "Parses YYYY-MM-DD",
    arguments: [
      ("2026-11-21", 2026, 11, 21), ("2024-02-29", 2024, 2, 29), ("2000-02-29", 2000, 2, 29),
      ("0001-01-01", 1, 1, 1), ("9999-12-31", 9999, 12, 31), ("2026-04-30", 2026, 4, 30),
    ])
  func parses(text: String, year: Int, month: Int, day: Int) throws {
    let parsed = try CalendarDay(iso8601: text)
    #expect(parsed == (try CalendarDay(year: year, month: month, day: day)))
    #expect((parsed.year, parsed.month, parsed.day) == (year, month, day))
    #expect(parsed.iso8601 == text)
  }

  @Test(
    "Refuses malformed or non-existent dates",
    arguments: [
      "2023-02-29", "1900-02-29", "2026-02-30", "2026-04-31", "2026-13-01", "2026-00-10",
      "2026-01-00", "2026-01-32", "0000-01-01", "2026-1-01", "26-01-01", "2026/01/01",
      "2026-01-01T00:00:00Z", "", "2026-+1-01", "+026-01-01", "2026-01--1", "２０２６-01-01",
      "2026-01-1a", "2026--01-01", " 2026-01-01", "20261101",
    ])
  func refuses(text: String) {
    let error = validationError { try CalendarDay(iso8601: text) }
    #expect(error?.caseName == "invalidFormat")
    #expect(error?.field == "publish_date")
  }

  @Test("Parse errors name the given field")
  func parseErrorNamesField() {
    #expect(validationError { try CalendarDay(iso8601: "x", field: "date") }?.field == "date")
  }

  @Test(
    "The initializer says which part is out of range",
    arguments: [
      (2026, 2, 29, ValidationError.outOfRange(field: "day", range: 1...28, actual: 29)),
      (2024, 2, 30, .outOfRange(field: "day", range: 1...29, actual: 30)),
      (2026, 4, 31, .outOfRange(field: "day", range: 1...30, actual: 31)),
      (2026, 1, 0, .outOfRange(field: "day", range: 1...31, actual: 0)),
      (2026, 13, 1, .outOfRange(field: "month", range: 1...12, actual: 13)),
      (2026, 0, 1, .outOfRange(field: "month", range: 1...12, actual: 0)),
      (0, 1, 1, .outOfRange(field: "year", range: 1...9999, actual: 0)),
      (10000, 1, 1, .outOfRange(field: "year", range: 1...9999, actual: 10000)),
    ])
  func outOfRange(year: Int, month: Int, day: Int, expected: ValidationError) {
    #expect(throws: expected) { try CalendarDay(year: year, month: month, day: day) }
  }

  @Test(
    "February 29 exists only in leap years",
    arguments: [
      (1900, false), (2000, true), (2023, false), (2024, true), (2025, false), (2100, false),
      (2400, true), (4, true), (1500, false),
    ])
  func leapYears(year: Int, isLeap: Bool) {
    let error = validationError { try CalendarDay(year: year, month: 2, day: 29) }
    #expect((error == nil) == isLeap)
  }

  @Test(
    "Formats zero-padded",
    arguments: [
      (2026, 1, 5, "2026-01-05"), (2026, 12, 31, "2026-12-31"), (5, 3, 7, "0005-03-07"),
      (999, 10, 10, "0999-10-10"), (1, 1, 1, "0001-01-01"),
    ])
  func formats(year: Int, month: Int, day: Int, expected: String) throws {
    let value = try CalendarDay(year: year, month: month, day: day)
    #expect(value.iso8601 == expected)
    #expect(value.description == expected)
    #expect(try CalendarDay(iso8601: expected) == value)
  }

  @Test("Orders chronologically, across months and years")
  func ordering() throws {
    let texts = [
      "2026-02-01", "2025-12-31", "2026-01-31", "2026-01-01", "2024-02-29", "0999-12-31",
    ]
    let days = try texts.map { try CalendarDay(iso8601: $0) }
    #expect(
      days.sorted().map(\.iso8601) == [
        "0999-12-31", "2024-02-29", "2025-12-31", "2026-01-01", "2026-01-31", "2026-02-01",
      ])
    let day = try CalendarDay(iso8601: "2026-11-21")
    #expect(!(day < day))
    #expect(try CalendarDay(iso8601: "2026-11-20") < day)
    #expect(try day < CalendarDay(iso8601: "2026-11-22"))
  }

  @Test(
    "Adds days across month and year ends",
    arguments: [
      ("2026-01-31", 1, "2026-02-01"), ("2026-02-28", 1, "2026-03-01"),
      ("2024-02-28", 1, "2024-02-29"), ("2024-02-29", 1, "2024-03-01"),
      ("2025-12-31", 1, "2026-01-01"), ("2026-01-01", -1, "2025-12-31"),
      ("2024-03-01", -1, "2024-02-29"), ("2026-01-01", 365, "2027-01-01"),
      ("2024-01-01", 366, "2025-01-01"), ("2026-11-21", 0, "2026-11-21"),
      ("2000-02-28", 1, "2000-02-29"), ("1900-02-28", 1, "1900-03-01"),
      ("2026-11-21", 40, "2026-12-31"), ("2026-11-21", -365, "2025-11-21"),
      ("1970-01-01", -1, "1969-12-31"), ("2026-03-31", 30, "2026-04-30"),
      // Foundation's calendar turns Julian before October 1582; these must stay Gregorian.
      ("1500-02-28", 1, "1500-03-01"), ("1582-10-04", 1, "1582-10-05"),
      ("0001-01-01", 146_097, "0401-01-01"),
    ])
  func addingDays(start: String, days: Int, expected: String) throws {
    let day = try CalendarDay(iso8601: start)
    #expect(day.adding(days: days).iso8601 == expected)
    #expect(try CalendarDay(iso8601: expected).adding(days: -days) == day)
  }

  @Test("next is the following day")
  func next() throws {
    #expect(try CalendarDay(iso8601: "2026-12-31").next.iso8601 == "2027-01-01")
  }

  @Test(
    "Walking day by day yields every valid day once, in order",
    arguments: [("1499-12-01", 500), ("2023-01-01", 3_000)])
  func walking(start: String, count: Int) throws {
    var day = try CalendarDay(iso8601: start)
    for _ in 0..<count {
      let next = day.next
      #expect(next > day)
      // Each step must be a day the validating initializer accepts.
      #expect(try CalendarDay(year: next.year, month: next.month, day: next.day) == next)
      let isFollowing =
        (next.year == day.year && next.month == day.month && next.day == day.day + 1)
        || (next.day == 1 && (next.month == day.month + 1 || (day.month == 12 && next.month == 1)))
      #expect(isFollowing, "\(day) -> \(next)")
      day = next
    }
    #expect(try day == CalendarDay(iso8601: start).adding(days: count))
  }

  @Test("Stays within the years 1-9999")
  func staysInRange() throws {
    let first = try CalendarDay(iso8601: "0001-01-01")
    let last = try CalendarDay(iso8601: "9999-12-31")
    #expect(last.next == last)
    #expect(first.adding(days: -1) == first)
    #expect(first.adding(days: .max) == last)
    #expect(last.adding(days: .min) == first)
    #expect(CalendarDay(containing: .distantPast, in: .gmt) == first)
  }

  @Test(
    "The day containing an instant follows Seoul time near midnight UTC",
    arguments: [
      ("2026-11-20T14:59:59Z", "2026-11-20"), ("2026-11-20T15:00:00Z", "2026-11-21"),
      ("2026-11-21T14:59:59Z", "2026-11-21"), ("2026-12-31T15:00:00Z", "2027-01-01"),
      ("2026-11-20T23:59:59Z", "2026-11-21"), ("2026-11-21T00:00:00Z", "2026-11-21"),
      // Korea kept summer time (UTC+10) in 1988.
      ("1988-07-01T14:30:00Z", "1988-07-02"), ("1988-12-01T14:30:00Z", "1988-12-01"),
    ])
  func containingInSeoul(instant: String, expected: String) throws {
    let date = try Date(instant, strategy: .iso8601)
    #expect(CalendarDay(containing: date, in: .seoul).iso8601 == expected)
    #expect(CalendarDay(containing: date) == CalendarDay(containing: date, in: .seoul))
  }

  @Test(
    "A day starts at its midnight, the inverse of the day containing an instant",
    arguments: [
      ("2026-11-21", "Asia/Seoul", "2026-11-20T15:00:00Z"),
      ("2027-01-01", "Asia/Seoul", "2026-12-31T15:00:00Z"),
      // Korean summer time: midnight was UTC+10.
      ("1988-07-02", "Asia/Seoul", "1988-07-01T14:00:00Z"),
      ("2026-11-21", "UTC", "2026-11-21T00:00:00Z"),
      ("2026-03-08", "America/Los_Angeles", "2026-03-08T08:00:00Z"),
      ("2026-03-09", "America/Los_Angeles", "2026-03-09T07:00:00Z"),
      // Brazil's summer time began at midnight: 2018-11-04 00:00 did not exist, 01:00 came.
      ("2018-11-04", "America/Sao_Paulo", "2018-11-04T03:00:00Z"),
      ("2018-11-05", "America/Sao_Paulo", "2018-11-05T02:00:00Z"),
      // Jordan's summer time ended at 01:00, back to 00:00: midnight came twice (UTC+3, then +2).
      ("2021-10-29", "Asia/Amman", "2021-10-28T21:00:00Z"),
      ("2021-10-30", "Asia/Amman", "2021-10-29T22:00:00Z"),
      // Chile's ended at 24:00, back to 23:00: the clock never showed the first midnight.
      ("2022-04-03", "America/Santiago", "2022-04-03T04:00:00Z"),
    ])
  func start(day text: String, zone: String, expected: String) throws {
    let day = try CalendarDay(iso8601: text)
    let timeZone = try #require(TimeZone(identifier: zone))
    let start = day.start(in: timeZone)
    #expect(start == (try Date(expected, strategy: .iso8601)))
    #expect(CalendarDay(containing: start, in: timeZone) == day)
    #expect(
      CalendarDay(containing: start.addingTimeInterval(-1), in: timeZone) == day.adding(days: -1))
    if zone == "Asia/Seoul" { #expect(day.start() == start) }
  }

  @Test(
    "The day containing an instant in other time zones",
    arguments: [
      ("2026-11-20T15:00:00Z", "UTC", "2026-11-20"),
      ("2026-11-21T00:00:00Z", "UTC", "2026-11-21"),
      ("1969-12-31T23:59:59Z", "UTC", "1969-12-31"),
      ("2026-11-21T07:59:59Z", "America/Los_Angeles", "2026-11-20"),
      ("2026-11-21T08:00:00Z", "America/Los_Angeles", "2026-11-21"),
    ])
  func containingElsewhere(instant: String, zone: String, expected: String) throws {
    let date = try Date(instant, strategy: .iso8601)
    let timeZone = try #require(TimeZone(identifier: zone))
    #expect(CalendarDay(containing: date, in: timeZone).iso8601 == expected)
  }

  @Test("Seoul is Asia/Seoul")
  func seoul() {
    #expect(TimeZone.seoul.identifier == "Asia/Seoul")
  }
}

@Suite("CalendarDay's day arithmetic")
struct CalendarDayArithmeticTests {
  @Test(
    "days since 1970-01-01 and back, proleptic Gregorian at both ends of years 1-9999",
    arguments: [
      (1970, 1, 1, 0), (1969, 12, 31, -1), (2000, 2, 29, 11_016), (1, 1, 1, -719_162),
      (9999, 12, 31, 2_932_896),
      // A day Foundation's calendar would place in the Julian one (it switches in October 1582).
      (1582, 10, 10, -141_432),
    ])
  func roundTrip(year: Int, month: Int, day: Int, days: Int) {
    #expect(CalendarDay.daysSinceEpoch(year: year, month: month, day: day) == days)
    let date = CalendarDay.civilDate(daysSinceEpoch: days)
    #expect(date.year == year && date.month == month && date.day == day)
  }

  @Test("month lengths, leap years by the Gregorian rule")
  func monthLengths() {
    #expect(CalendarDay.daysInMonth(year: 2024, month: 2) == 29)
    #expect(CalendarDay.daysInMonth(year: 1900, month: 2) == 28)
    #expect(CalendarDay.daysInMonth(year: 2000, month: 2) == 29)
    #expect(CalendarDay.daysInMonth(year: 2026, month: 4) == 30)
    #expect(CalendarDay.daysInMonth(year: 2026, month: 12) == 31)
  }
}
