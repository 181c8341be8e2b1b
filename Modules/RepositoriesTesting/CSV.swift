/// A small RFC 4180 reader: quoted fields may hold commas, doubled quotes and line breaks;
/// records end with CRLF or LF. Each record remembers the line it starts on, and a malformed
/// record is reported with that line instead of stopping the whole file.
enum CSV {
  /// One record of the file.
  struct Record: Equatable {
    /// The 1-based line number where the record starts.
    var line: Int
    /// The fields, unquoted.
    var fields: [String]
    /// Why the record could not be read, if it could not.
    var error: String?
  }

  /// Splits `text` into records; blank lines are skipped.
  static func records(in text: String) -> [Record] {
    let scalars = Array(text.unicodeScalars)
    var records: [Record] = []
    var fields: [String] = []
    var field = String.UnicodeScalarView()
    var inQuotes = false
    var closedQuote = false
    var error: String?
    var line = 1
    var recordLine = 1
    var index = 0

    func endRecord() {
      fields.append(String(field))
      let isBlank = fields.count == 1 && fields[0].isEmpty && !closedQuote && error == nil
      if !isBlank { records.append(Record(line: recordLine, fields: fields, error: error)) }
      fields = []
      field = String.UnicodeScalarView()
      closedQuote = false
      error = nil
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
            closedQuote = true
          }
        } else {
          if scalar == "\n" { line += 1 }
          field.append(scalar)
        }
        continue
      }
      switch scalar {
      case "\"":
        if field.isEmpty && !closedQuote {
          inQuotes = true
        } else if error == nil {
          error = "a quote inside an unquoted field; put the field in quotes and double its quotes"
        }
      case ",":
        fields.append(String(field))
        field = String.UnicodeScalarView()
        closedQuote = false
      case "\r" where index < scalars.count && scalars[index] == "\n":
        break  // The "\n" that follows ends the record.
      case "\n", "\r":
        endRecord()
        line += 1
        recordLine = line
      default:
        if closedQuote, error == nil {
          error = "text after a closing quote; quote the whole field"
        } else if !closedQuote {
          field.append(scalar)
        }
      }
    }
    if inQuotes {
      error = "a quoted field is not closed before the end of the file"
      endRecord()
    } else if !field.isEmpty || !fields.isEmpty || closedQuote || error != nil {
      endRecord()
    }
    return records
  }
}
