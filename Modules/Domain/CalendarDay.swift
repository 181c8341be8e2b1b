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
    guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
      let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),
      parts.allSatisfy({ $0.allSatisfy(\.isASCII) })
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
  public init(containing date: Date, in timeZone: TimeZone = .seoul) {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    let parts = calendar.dateComponents([.year, .month, .day], from: date)
    year = parts.year!
    month = parts.month!
    day = parts.day!
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

  /// The day `days` later (or earlier when negative).
  public func adding(days: Int) -> CalendarDay {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    let start = calendar.date(from: DateComponents(year: year, month: month, day: day))!
    let moved = calendar.date(byAdding: .day, value: days, to: start)!
    return CalendarDay(containing: moved, in: calendar.timeZone)
  }

  /// Orders days chronologically.
  public static func < (lhs: Self, rhs: Self) -> Bool {
    (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
  }

  private static func daysInMonth(year: Int, month: Int) -> Int {
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
