/// A small RFC 4180 reader, lenient like the server's: quoted fields may hold commas, doubled
/// quotes and line breaks; records end with CRLF or LF; a quote inside an unquoted field is kept
/// as text. Each record remembers the line it starts on; a leading byte-order mark is ignored and
/// blank lines yield no record.
enum CSV {
  /// One record of the file.
  struct Record: Equatable {
    /// The 1-based line number where the record starts.
    var line: Int
    /// The fields, unquoted.
    var fields: [String]
  }

  /// A quoted field that never closes: the rest of the file cannot be read.
  struct UnterminatedQuote: Error, Equatable {
    /// The line of the record with the open quote.
    var line: Int
  }

  /// Splits `text` into records.
  static func records(in text: String) throws(UnterminatedQuote) -> [Record] {
    var scalars = Array(text.unicodeScalars)
    if scalars.first == "\u{FEFF}" { scalars.removeFirst() }
    var records: [Record] = []
    var fields: [String] = []
    var field = String.UnicodeScalarView()
    var inQuotes = false
    var fieldWasQuoted = false
    var hasContent = false
    var line = 1
    var recordLine = 1
    var index = 0

    func endField() {
      fields.append(String(field))
      field = String.UnicodeScalarView()
      fieldWasQuoted = false
    }
    func endRecord() {
      endField()
      if hasContent || fields.count > 1 { records.append(Record(line: recordLine, fields: fields)) }
      fields = []
      hasContent = false
    }

    while index < scalars.count {
      let scalar = scalars[index]
      index += 1
      if inQuotes {
        if scalar == "\"" {
          if index < scalars.count, scalars[index] == "\"" {
            field.append("\"")
            index += 1
          } else {
            inQuotes = false
          }
        } else {
          if scalar == "\n" { line += 1 }
          field.append(scalar)
        }
        continue
      }
      switch scalar {
      case "\"" where field.isEmpty && !fieldWasQuoted:
        inQuotes = true
        fieldWasQuoted = true
        hasContent = true
      case ",":
        endField()
        hasContent = true
      case "\r" where index < scalars.count && scalars[index] == "\n":
        break  // The "\n" that follows ends the record.
      case "\n", "\r":
        endRecord()
        line += 1
        recordLine = line
      default:
        if !scalar.properties.isWhitespace { hasContent = true }
        field.append(scalar)
      }
    }
    if inQuotes { throw UnterminatedQuote(line: recordLine) }
    endRecord()
    return records
  }
}
