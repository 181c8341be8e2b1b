import Foundation
import Testing

@testable import Domain

@Suite("Question import files: CSV reading and the per-line rule")
struct QuestionImportFileTests {
  @Test("CSV: quotes, escaped quotes, commas and line breaks inside quotes, CRLF, BOM, blank lines")
  func csv() throws {
    let text = "\u{FEFF}a,b\r\n1,\"x, y\"\r\n\r\n2,\"say \"\"hi\"\"\nthere\"\n3,\n"
    let records = try CSV.records(text)
    #expect(
      records == [
        CSV.Record(line: 1, fields: ["a", "b"]),
        CSV.Record(line: 2, fields: ["1", "x, y"]),
        CSV.Record(line: 4, fields: ["2", "say \"hi\"\nthere"]),
        CSV.Record(line: 6, fields: ["3", ""]),
      ])
    #expect(throws: CSV.UnterminatedQuote.self) { try CSV.records("a,\"open\n") }
    #expect(try CSV.records("").isEmpty)
  }

  @Test("each data line is a checked draft or a refusal with its line number")
  func lines() throws {
    let text =
      "publish_date,content\n2026-05-01, Fine question \n2026-02-30,No such day\n"
      + "2026-05-03,Hi\n2026-05-04\n\n2026-05-06,\"Two lines,\nstill one\"\n"
    let file = try QuestionImportFile(parsing: Data(text.utf8))
    #expect(file.lines.map(\.number) == [2, 3, 4, 5, 7])
    #expect(
      file.drafts == [
        QuestionDraft(
          content: "Fine question", publishDate: try CalendarDay(iso8601: "2026-05-01")),
        QuestionDraft(
          content: "Two lines,\nstill one", publishDate: try CalendarDay(iso8601: "2026-05-06")),
      ])
    #expect(file.errors.map(\.line) == [3, 4, 5])
    #expect(file.errors[0].message.contains("publish_date"))
    #expect(file.errors[1].message.contains("content"))
    #expect(
      file.errors[2].message
        == ValidationError.invalidFormat(
          field: "line", expected: "2 fields, publish_date,content (found 1)"
        ).description)
  }

  @Test("unreadable files are refused whole with the field request")
  func refusals() throws {
    func field(_ data: Data) -> String? {
      do {
        _ = try QuestionImportFile(parsing: data)
        return nil
      } catch {
        return error.field
      }
    }
    #expect(field(Data()) == "request")
    #expect(field(Data("\u{FEFF}\n \n".utf8)) == "request")
    #expect(field(Data("date,text\n2026-05-01,Question?\n".utf8)) == "request")
    #expect(field(Data("publish_date,content\n2026-05-01,\"unclosed\n".utf8)) == "request")
    #expect(field(Data([0xFF, 0xFE, 0x00])) == "request")
    // The header is matched without case and surrounding spaces; a header alone has no lines.
    #expect(try QuestionImportFile(parsing: Data("Publish_Date , Content\r\n".utf8)).lines.isEmpty)
  }

  @Test("day conflicts: a stored day or an earlier good line of the file, in the service's words")
  func dayConflicts() throws {
    let csv = """
      publish_date,content
      2026-05-01,Already stored?
      2026-05-02,First of the day?
      2026-05-02,Hi
      2026-05-02,Second of the day?
      2026-05-03,Free day question?
      """
    let file = try QuestionImportFile(parsing: Data(csv.utf8))
    let stored: Set<CalendarDay> = [try CalendarDay(iso8601: "2026-05-01")]
    // Line 4 is refused for its text; it takes no day, so line 5 is the day's second.
    #expect(
      file.dayConflicts(taken: stored) == [
        .init(line: 2, message: "2026-05-01 already has a question."),
        .init(line: 5, message: "2026-05-02 already has a question."),
      ])
    #expect(file.dayConflicts(taken: []).map(\.line) == [5])
    #expect(
      QuestionDraft.dayTaken(try CalendarDay(iso8601: "2026-05-03"))
        == .conflict("2026-05-03 already has a question."))
  }
}
