import Foundation

/// A calendar date without a time ("2026-11-21"): the day a question is published.
public struct CalendarDay: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// The year, e.g. 2026.
  public let year: Int
  /// The month, 1-12.
  public let month: Int
  /// The day of the month, 1-31 (checked against the month and leap years).
  public let day: Int

  /// Creates a day, refusing dates that do not exist (e.g. February 30).
  public init(year: Int, month: Int, day: Int) throws(ValidationError) {
    guard (1...9999).contains(year) else {
      throw .outOfRange(field: "year", range: 1...9999, actual: year)
    }
    guard (1...12).contains(month) else {
      throw .outOfRange(field: "month", range: 1...12, actual: month)
    }
    let days = Self.daysInMonth(year: year, month: month)
    guard (1...days).contains(day) else {
      throw .outOfRange(field: "day", range: 1...days, actual: day)
    }
    self.year = year
    self.month = month
    self.day = day
  }

  /// Parses `YYYY-MM-DD`.
  public init(iso8601 text: String, field: String = "publish_date") throws(ValidationError) {
    let parts = text.split(separator: "-", omittingEmptySubsequences: false)
    // Only ASCII digits: `Int("+1")` would otherwise accept "2026-+1-01".
    guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
      parts.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isWholeNumber } }),
      let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2])
    else {
      throw .invalidFormat(field: field, expected: "a date as YYYY-MM-DD")
    }
    do {
      try self.init(year: year, month: month, day: day)
    } catch {
      throw .invalidFormat(field: field, expected: "an existing date as YYYY-MM-DD")
    }
  }

  /// The day that contains `date` in `timeZone` (the service publishes by Korean time).
  /// Instants outside the years 1-9999 give the first or last representable day.
  public init(containing date: Date, in timeZone: TimeZone = .seoul) {
    let local = date.timeIntervalSince1970 + Double(timeZone.secondsFromGMT(for: date))
    let days = (local / 86_400).rounded(.down)
    let clamped = min(max(days, Double(Self.firstDayNumber)), Double(Self.lastDayNumber))
    self.init(dayNumber: Int(clamped))
  }

  /// The first instant of the day in `timeZone` (the service's days begin at midnight in
  /// Seoul): `CalendarDay(containing: day.start(in: zone), in: zone) == day`, and the instant
  /// before it belongs to the day before. Where a daylight-saving change skips midnight, the day
  /// starts at the change; where one repeats midnight, the day starts at the first.
  public func start(in timeZone: TimeZone = .seoul) -> Date {
    let local = Double(dayNumber) * 86_400
    func offset(at instant: Double) -> Double {
      Double(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: instant)))
    }
    // Read the offset where midnight would be, then once more at the instant it gives.
    let guess = local - offset(at: local)
    var start = Date(timeIntervalSince1970: local - offset(at: guess))
    // Where clocks fall back across midnight from a later hour (Amman: 01:00 back to 00:00),
    // midnight comes twice; the first one, read with the offset in force before, is the start.
    let earlier = local - offset(at: start.timeIntervalSince1970 - 1)
    if earlier < start.timeIntervalSince1970 {
      let candidate = Date(timeIntervalSince1970: earlier)
      if CalendarDay(containing: candidate, in: timeZone) == self { start = candidate }
    }
    if CalendarDay(containing: start, in: timeZone) < self,
      let change = timeZone.nextDaylightSavingTimeTransition(after: start)
    {
      return change
    }
    return start
  }

  /// `YYYY-MM-DD`.
  public var iso8601: String {
    let y = String(year)
    let m = month < 10 ? "0\(month)" : "\(month)"
    let d = day < 10 ? "0\(day)" : "\(day)"
    return String(repeating: "0", count: max(0, 4 - y.count)) + y + "-" + m + "-" + d
  }

  /// `YYYY-MM-DD`.
  public var description: String { iso8601 }

  /// The following day.
  public var next: CalendarDay { adding(days: 1) }

  /// The day `days` later (or earlier when negative), in the proleptic Gregorian calendar
  /// (the same leap-year rule the initializer checks); stops at 0001-01-01 and 9999-12-31.
  public func adding(days: Int) -> CalendarDay {
    let (moved, overflow) = dayNumber.addingReportingOverflow(days)
    let target = overflow ? (days < 0 ? Self.firstDayNumber : Self.lastDayNumber) : moved
    return CalendarDay(dayNumber: min(max(target, Self.firstDayNumber), Self.lastDayNumber))
  }

  /// Orders days chronologically.
  public static func < (lhs: Self, rhs: Self) -> Bool {
    (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
  }

  // Pure arithmetic instead of `Calendar`: Foundation's Gregorian calendar switches to the
  // Julian one before October 1582, which would make days this type refuses (e.g. 1500-02-29).
  // The wire's dates (DTO) count days with the same three functions.

  /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's `days_from_civil`).
  @inlinable
  public static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  /// The proleptic Gregorian date `days` days after 1970-01-01 (H. Hinnant's
  /// `civil_from_days`).
  @inlinable
  public static func civilDate(daysSinceEpoch days: Int) -> (year: Int, month: Int, day: Int) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra =
      (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let shiftedMonth = (5 * dayOfYear + 2) / 153
    let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
    return (
      yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month,
      dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
    )
  }

  /// Days since 1970-01-01.
  private var dayNumber: Int { Self.daysSinceEpoch(year: year, month: month, day: day) }

  /// The day `dayNumber` days after 1970-01-01.
  private init(dayNumber: Int) {
    (year, month, day) = Self.civilDate(daysSinceEpoch: dayNumber)
  }

  /// The day number of 0001-01-01.
  private static let firstDayNumber = -719_162
  /// The day number of 9999-12-31.
  private static let lastDayNumber = 2_932_896

  /// The days of `month` (1-12) in the proleptic Gregorian `year`.
  @inlinable
  public static func daysInMonth(year: Int, month: Int) -> Int {
    switch month {
    case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }
}

extension TimeZone {
  /// Asia/Seoul, where the academy is and where "today" is decided.
  public static let seoul = TimeZone(identifier: "Asia/Seoul")!
}
