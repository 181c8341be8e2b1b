import Foundation

/// A question-import CSV file (`publish_date,content` header row) read and checked line by line,
/// before anything is written.
///
/// The one reading of an import file: the service engine imports the ``lines`` it yields and
/// the admin tool's preview shows them, so both refuse the same lines with the same words. Only
/// what needs the stored questions (a day that is already taken) is left to the import itself.
public struct QuestionImportFile: Hashable, Sendable {
  /// One data line of the file: a checked draft, or why it is refused.
  public struct Line: Hashable, Sendable {
    /// The 1-based line number the record starts on in the file.
    public var number: Int
    /// The draft (text checked and trimmed), or the reason the line is refused.
    public var draft: Result<QuestionDraft, ValidationError>

    /// Creates a line.
    public init(number: Int, draft: Result<QuestionDraft, ValidationError>) {
      self.number = number
      self.draft = draft
    }

    /// The refusal as an import result reports it, or `nil` for a good line.
    public var error: QuestionImportResult.LineError? {
      guard case .failure(let error) = draft else { return nil }
      return QuestionImportResult.LineError(line: number, message: error.description)
    }
  }

  /// The data lines, in file order (blank lines are skipped).
  public var lines: [Line]

  /// Reads `data`. A file that cannot be read at all (not UTF-8, empty, an unclosed quote, a
  /// header other than `publish_date,content`) is refused whole, with the field `request`;
  /// otherwise each data line becomes a ``Line``, good or refused.
  public init(parsing data: Data) throws(ValidationError) {
    func refuse(_ expected: String) -> ValidationError {
      .invalidFormat(field: "request", expected: expected)
    }
    guard let text = String(validating: data, as: UTF8.self) else {
      throw refuse("UTF-8 text")
    }
    let records: [CSV.Record]
    do {
      records = try CSV.records(text)
    } catch {
      throw refuse("CSV whose quotes close (the quote on line \(error.line) never does)")
    }
    guard let header = records.first else {
      throw refuse("a header row publish_date,content (the file is empty)")
    }
    let names = header.fields.map {
      $0.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }
    guard names == ["publish_date", "content"] else {
      throw refuse(
        "a first row publish_date,content (got \(header.fields.joined(separator: ",")))")
    }
    lines = records.dropFirst().map { record in
      Line(
        number: record.line, draft: Result { () throws(ValidationError) in try Self.draft(record) })
    }
  }

  /// The good lines' drafts, in file order.
  public var drafts: [QuestionDraft] {
    lines.compactMap { try? $0.draft.get() }
  }

  /// The refused lines, as an import result would list them.
  public var errors: [QuestionImportResult.LineError] {
    lines.compactMap(\.error)
  }

  /// The good lines an import will still refuse because their day already has a question:
  /// one of `taken` (the days of the stored questions) or an earlier good line of the file,
  /// each with the service's refusal (``QuestionDraft/dayTaken(_:)``).
  public func dayConflicts(taken: Set<CalendarDay>) -> [QuestionImportResult.LineError] {
    var used = taken
    return lines.compactMap { line in
      guard case .success(let draft) = line.draft, !used.insert(draft.publishDate).inserted else {
        return nil
      }
      return .init(
        line: line.number, message: QuestionDraft.dayTaken(draft.publishDate).description)
    }
  }

  private static func draft(_ record: CSV.Record) throws(ValidationError) -> QuestionDraft {
    guard record.fields.count == 2 else {
      throw .invalidFormat(
        field: "line", expected: "2 fields, publish_date,content (found \(record.fields.count))")
    }
    let dayText = record.fields[0].trimmingCharacters(in: .whitespacesAndNewlines)
    return try QuestionDraft(content: record.fields[1], publishDate: CalendarDay(iso8601: dayText))
      .validated()
  }
}
