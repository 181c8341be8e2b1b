/// An RFC 4180 CSV reader that keeps the 1-based line number each record starts on, so import
/// errors can point at the line in the file (``QuestionImportFile`` reads with it).
enum CSV {
  struct Record: Sendable, Equatable {
    var line: Int
    var fields: [String]
  }

  /// A record with a quote that never closes.
  struct UnterminatedQuote: Error, Sendable {
    var line: Int
  }

  /// Parses `text` (CRLF or LF line ends, `"` quoting with `""` escapes, commas and line breaks
  /// inside quotes). A leading byte-order mark is ignored. Blank lines yield no record.
  static func records(_ text: String) throws(UnterminatedQuote) -> [Record] {
    var scalars = Substring(text).unicodeScalars[...]
    if scalars.first == "\u{FEFF}" { scalars = scalars.dropFirst() }

    var records: [Record] = []
    var fields: [String] = []
    var field = String.UnicodeScalarView()
    var line = 1
    var recordLine = 1
    var inQuotes = false
    var fieldWasQuoted = false
    var recordHasContent = false
    var index = scalars.startIndex

    func endField() {
      fields.append(String(field))
      field = String.UnicodeScalarView()
      fieldWasQuoted = false
    }
    func endRecord() {
      endField()
      if recordHasContent || fields.count > 1 {
        records.append(Record(line: recordLine, fields: fields))
      }
      fields = []
      recordHasContent = false
    }

    while index < scalars.endIndex {
      let scalar = scalars[index]
      let next = scalars.index(after: index)
      if inQuotes {
        if scalar == "\"" {
          if next < scalars.endIndex, scalars[next] == "\"" {
            field.append("\"")
            index = scalars.index(after: next)
            continue
          }
          inQuotes = false
        } else {
          if scalar == "\n" { line += 1 }
          field.append(scalar)
        }
        index = next
        continue
      }
      switch scalar {
      case "\"" where field.isEmpty && !fieldWasQuoted:
        inQuotes = true
        fieldWasQuoted = true
        recordHasContent = true
      case ",":
        endField()
        recordHasContent = true
      case "\r" where next < scalars.endIndex && scalars[next] == "\n":
        break  // the "\n" ends the record
      case "\n", "\r":
        endRecord()
        line += 1
        recordLine = line
      default:
        if !scalar.properties.isWhitespace { recordHasContent = true }
        field.append(scalar)
      }
      index = next
    }
    if inQuotes { throw UnterminatedQuote(line: recordLine) }
    endRecord()
    return records
  }
}
