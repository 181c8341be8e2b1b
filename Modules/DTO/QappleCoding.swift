import Domain
import Foundation

/// The JSON coders every Qapple client and server uses: explicit `CodingKeys` carry the
/// snake_case names, so only the date format is configured here.
public enum QappleCoding {
  /// A decoder that reads RFC 3339 dates with or without fractional seconds.
  public static func makeDecoder() -> JSONDecoder {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .custom { decoder in
      let container = try decoder.singleValueContainer()
      let text = try container.decode(String.self)
      guard let date = RFC3339.date(from: text) else {
        throw DecodingError.dataCorruptedError(
          in: container,
          debugDescription:
            "Expected an RFC 3339 date such as 2026-11-21T05:10:00.123Z, got \"\(text)\".")
      }
      return date
    }
    return decoder
  }

  /// An encoder that writes dates in UTC with milliseconds ("2026-11-21T05:10:00.123Z") and
  /// sorts keys, so equal values always produce equal bytes.
  public static func makeEncoder() -> JSONEncoder {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    encoder.dateEncodingStrategy = .custom { date, encoder in
      var container = encoder.singleValueContainer()
      try container.encode(RFC3339.string(from: date))
    }
    return encoder
  }

  /// Parses an RFC 3339 date, with or without fractional seconds; `nil` if it is not one.
  public static func date(from text: String) -> Date? { RFC3339.date(from: text) }

  /// Formats a date the way the API writes it: UTC with milliseconds.
  public static func string(from date: Date) -> String { RFC3339.string(from: date) }
}

extension JSONDecoder {
  /// The Qapple API decoder (see ``QappleCoding/makeDecoder()``).
  public static func qapple() -> JSONDecoder { QappleCoding.makeDecoder() }
}

extension JSONEncoder {
  /// The Qapple API encoder (see ``QappleCoding/makeEncoder()``).
  public static func qapple() -> JSONEncoder { QappleCoding.makeEncoder() }
}

/// A hand-written RFC 3339 parser and formatter: date decoding runs once per timestamp of
/// every list item, and Foundation's formatters are several times slower.
enum RFC3339 {
  /// Seconds between 1970-01-01 and 2001-01-01, Foundation's reference date.
  private static let referenceOffset: Int64 = 978_307_200

  /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`; `t`, `z` and `±HHMM` are also accepted.
  static func date(from text: String) -> Date? {
    var text = text
    return text.withUTF8 { parse($0) }
  }

  private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Date? {
    // The shortest valid form is "YYYY-MM-DDTHH:MM:SSZ" (20 bytes).
    guard bytes.count >= 20, bytes.count <= 64 else { return nil }
    guard let year = digits(bytes, 0, 4), bytes[4] == UInt8(ascii: "-"),
      let month = digits(bytes, 5, 2), bytes[7] == UInt8(ascii: "-"),
      let day = digits(bytes, 8, 2),
      bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: "t"),
      let hour = digits(bytes, 11, 2), bytes[13] == UInt8(ascii: ":"),
      let minute = digits(bytes, 14, 2), bytes[16] == UInt8(ascii: ":"),
      let second = digits(bytes, 17, 2)
    else { return nil }
    guard (1...12).contains(month), day >= 1,
      day <= CalendarDay.daysInMonth(year: year, month: month),
      hour <= 23, minute <= 59, second <= 59
    else { return nil }

    var index = 19
    var nanoseconds: Int64 = 0
    if bytes[index] == UInt8(ascii: ".") {
      index += 1
      let start = index
      var scale: Int64 = 100_000_000
      while index < bytes.count, let digit = digitValue(bytes[index]) {
        // Digits beyond nanoseconds are allowed but cannot change a `Date` noticeably.
        nanoseconds += Int64(digit) * scale
        scale /= 10
        index += 1
      }
      guard index > start else { return nil }
    }

    guard index < bytes.count else { return nil }
    var offsetSeconds: Int64 = 0
    switch bytes[index] {
    case UInt8(ascii: "Z"), UInt8(ascii: "z"):
      index += 1
    case UInt8(ascii: "+"), UInt8(ascii: "-"):
      let sign: Int64 = bytes[index] == UInt8(ascii: "-") ? -1 : 1
      index += 1
      guard let offsetHours = digits(bytes, index, 2), offsetHours <= 23 else { return nil }
      index += 2
      var offsetMinutes = 0
      if index < bytes.count {
        if bytes[index] == UInt8(ascii: ":") { index += 1 }
        guard let minutes = digits(bytes, index, 2), minutes <= 59 else { return nil }
        offsetMinutes = minutes
        index += 2
      }
      offsetSeconds = sign * Int64(offsetHours * 3600 + offsetMinutes * 60)
    default:
      return nil
    }
    guard index == bytes.count else { return nil }

    let days = Int64(CalendarDay.daysSinceEpoch(year: year, month: month, day: day))
    let seconds =
      days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - offsetSeconds - referenceOffset
    return Date(timeIntervalSinceReferenceDate: Double(seconds) + Double(nanoseconds) / 1e9)
  }

  /// Formats `date` in UTC with exactly three fractional digits.
  static func string(from date: Date) -> String {
    let totalMilliseconds = (date.timeIntervalSince1970 * 1000).rounded()
    // Outside years 0001-9999 the fixed-width form does not apply; let Foundation write it.
    guard totalMilliseconds >= -62_135_596_800_000, totalMilliseconds < 253_402_300_800_000
    else {
      return date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true))
    }
    let milliseconds = Int64(totalMilliseconds)
    let (seconds, millisecond) = floorDivide(milliseconds, 1000)
    let (days, secondOfDay) = floorDivide(seconds, 86_400)
    let (year, month, day) = CalendarDay.civilDate(daysSinceEpoch: Int(days))
    let hour = secondOfDay / 3600
    let minute = secondOfDay % 3600 / 60
    let second = secondOfDay % 60

    return String(unsafeUninitializedCapacity: 24) { buffer in
      func put(_ value: Int64, at offset: Int, width: Int) {
        var value = value
        for position in stride(from: offset + width - 1, through: offset, by: -1) {
          buffer[position] = UInt8(ascii: "0") + UInt8(value % 10)
          value /= 10
        }
      }
      put(Int64(year), at: 0, width: 4)
      buffer[4] = UInt8(ascii: "-")
      put(Int64(month), at: 5, width: 2)
      buffer[7] = UInt8(ascii: "-")
      put(Int64(day), at: 8, width: 2)
      buffer[10] = UInt8(ascii: "T")
      put(hour, at: 11, width: 2)
      buffer[13] = UInt8(ascii: ":")
      put(minute, at: 14, width: 2)
      buffer[16] = UInt8(ascii: ":")
      put(second, at: 17, width: 2)
      buffer[19] = UInt8(ascii: ".")
      put(millisecond, at: 20, width: 3)
      buffer[23] = UInt8(ascii: "Z")
      return 24
    }
  }

  // MARK: Helpers

  private static func digitValue(_ byte: UInt8) -> Int? {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? Int(byte - UInt8(ascii: "0")) : nil
  }

  private static func digits(
    _ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int
  )
    -> Int?
  {
    guard start + count <= bytes.count else { return nil }
    var value = 0
    for index in start..<start + count {
      guard let digit = digitValue(bytes[index]) else { return nil }
      value = value * 10 + digit
    }
    return value
  }

  private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
    let quotient = value >= 0 ? value / divisor : (value - divisor + 1) / divisor
    return (quotient, value - quotient * divisor)
  }
}
