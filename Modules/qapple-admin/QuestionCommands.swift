import AdminFeature
import ArgumentParser
import Domain
import Foundation
import ToolSupport

/// `qapple-admin questions ...`
struct Questions: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Daily questions: list, add, edit, delete, import from CSV.",
    subcommands: [List.self, Add.self, Edit.self, Delete.self, Import.self],
    defaultSubcommand: List.self)

  /// `--status` of `questions list`.
  enum StatusFilter: String, ExpressibleByArgument, CaseIterable {
    case all, scheduled, published

    var status: QuestionStatus? {
      switch self {
      case .all: nil
      case .scheduled: .scheduled
      case .published: .published
      }
    }
  }

  /// `qapple-admin questions list [--status all|scheduled|published]`
  struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "List scheduled and published questions.")

    @Option(help: "all, scheduled or published.")
    var status: StatusFilter = .all

    @OptionGroup var page: PageOptions
    @OptionGroup var server: ServerOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
      try await server.withConnection(tool: .admin) { connection in
        let questions = try await connection.repositories.admin.fetchQuestions(
          status.status, page.request)
        try ToolOutput(output).emitList(
          ListOutput(questions, ScheduledQuestionOutput.init), empty: "No questions."
        ) {
          var table = TextTable([
            .whole("ID"), .init("DATE", maxWidth: 10), .whole("STATUS"),
            .init("ANSWERS", maxWidth: 7), .init("QUESTION", maxWidth: 70),
          ])
          for question in questions.items {
            table.append([
              question.id.rawValue, question.publishDate.iso8601, question.status.rawValue,
              "\(question.answerCount)", question.content,
            ])
          }
          return table
        }
      }
    }
  }

  /// `qapple-admin questions add TEXT --date YYYY-MM-DD`
  struct Add: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Schedule a question (\(TextRule.question.lengthText), one per day).")

    @Argument(help: "The question.")
    var text: String

    @Option(help: "The day to publish it: YYYY-MM-DD, today or tomorrow (Seoul time).")
    var date: String

    @OptionGroup var server: ServerOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
      let draft = try Questions.draft(text: text, date: date)
      try await server.withConnection(tool: .admin) { connection in
        let question = try await connection.repositories.admin.createQuestion(draft)
        try ToolOutput(output).emit(ScheduledQuestionOutput(question)) {
          "Added question \(question.id) for \(question.publishDate) (\(question.status.rawValue))."
        }
      }
    }
  }

  /// `qapple-admin questions edit ID [--text T] [--date D]`
  struct Edit: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Change a question's text or day (not once it has answers).")

    @Argument(help: "The question id.")
    var id: String

    @Option(help: "The new text.")
    var text: String?

    @Option(help: "The new day: YYYY-MM-DD, today or tomorrow.")
    var date: String?

    @OptionGroup var server: ServerOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
      if text == nil, date == nil {
        throw ArgumentParser.ValidationError("give --text, --date or both.")
      }
    }

    func run() async throws {
      try await server.withConnection(tool: .admin) { connection in
        let admin = connection.repositories.admin
        let questionID = Question.ID(id)
        // The API replaces both fields: the one not given keeps its current value.
        let current = try await Questions.find(questionID, in: connection)
        let draft = try Questions.draft(
          text: text ?? current.content, date: date ?? current.publishDate.iso8601)
        let question = try await admin.updateQuestion(questionID, draft)
        try ToolOutput(output).emit(ScheduledQuestionOutput(question)) {
          "Updated question \(question.id): \(question.publishDate) \"\(question.content)\"."
        }
      }
    }
  }

  /// `qapple-admin questions delete ID`
  struct Delete: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Delete a question (not once it has answers).")

    @Argument(help: "The question id.")
    var id: String

    @OptionGroup var server: ServerOptions

    func run() async throws {
      try await server.withConnection(tool: .admin) { connection in
        try await connection.repositories.admin.deleteQuestion(Question.ID(id))
        StandardStreams.write("Deleted question \(id).")
      }
    }
  }

  /// `qapple-admin questions import FILE.csv`
  struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Import questions from a CSV file with the header publish_date,content.",
      discussion: """
        RFC 4180 quoting (quotes, commas and newlines inside quotes), UTF-8 with or without a \
        BOM. Good rows are imported; each refused row is listed with its line number, and the \
        command then exits with status 1. A file that cannot be read as a whole is not sent \
        (status 2); an account that is not an admin is refused first (status 3), whatever the \
        file holds (when the server cannot be reached to ask, the status is 2).
        """)

    @Argument(help: "The CSV file.", completion: .file(extensions: ["csv"]))
    var file: String

    @OptionGroup var server: ServerOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
      let csv: Data
      do {
        csv = try Data(contentsOf: URL(fileURLWithPath: file))
      } catch {
        throw ToolError("cannot read \(file): \(error.localizedDescription)", exitCode: .usage)
      }
      let name = URL(fileURLWithPath: file).lastPathComponent
      let result = try await server.withConnection(tool: .admin) { connection in
        try await Questions.importFile(csv, named: name, connection)
      }
      try ToolOutput(output).emit(ImportOutput(result)) {
        var lines = ["Imported \(result.imported) question\(result.imported == 1 ? "" : "s")."]
        if !result.errors.isEmpty {
          var table = TextTable([.init("LINE", maxWidth: 6), .init("REFUSED", maxWidth: 90)])
          for error in result.errors { table.append(["\(error.line)", error.message]) }
          lines.append(table.render())
        }
        return lines.joined(separator: "\n")
      }
      if !result.errors.isEmpty {
        throw ToolError(
          "\(result.errors.count) row\(result.errors.count == 1 ? " was" : "s were") refused "
            + "(line\(result.errors.count == 1 ? "" : "s") "
            + "\(result.errors.map { "\($0.line)" }.joined(separator: ", ")))",
          exitCode: .failure)
      }
    }
  }

  /// Imports `csv` through the import screen's model: the preview first (a file it refuses
  /// whole is an error and the file is not sent), then the import.
  @MainActor
  static func importFile(
    _ csv: Data, named name: String, _ connection: ToolConnection
  ) async throws -> QuestionImportResult {
    let importer = AdminScreens.model(connection) { QuestionImportModel() }
    await importer.task()
    await importer.fileChosen(csv, named: name)
    if case .refused(_, let error) = importer.step {
      // The permission comes before the file, as on the server: a member (or no session) is
      // refused whatever the file holds. The service decides, through its lightest admin read;
      // when it cannot say (offline, a server failure), the file's own refusal stands.
      do {
        _ = try await connection.repositories.admin.fetchQuestions(nil, PageRequest(limit: 1))
      } catch let refusal as DomainError where refusal == .forbidden || refusal == .signedOut {
        throw refusal
      } catch {}
      throw DomainError.validation(error)
    }
    await importer.importButtonTapped()
    if let failure = importer.failure { throw failure }
    switch importer.step {
    case .imported(_, let result): return result
    case .forbidden: throw DomainError.forbidden
    case .chooseFile, .refused, .preview:
      throw ToolError("the import did not run (\(importer.step))", exitCode: .failure)
    }
  }

  /// A checked draft from the command line.
  static func draft(text: String, date: String) throws(ToolError) -> QuestionDraft {
    let day = try ArgumentParsing.day(date)
    do {
      return try QuestionDraft(content: text, publishDate: day).validated()
    } catch {
      throw ToolError("invalid question: \(error.description)", exitCode: .usage)
    }
  }

  /// The question with `id`, looked up page by page (the API has no single-question route).
  static func find(
    _ id: Question.ID, in connection: ToolConnection
  ) async throws
    -> ScheduledQuestion
  {
    let admin = connection.repositories.admin
    if let found = try await Page.first(
      in: { try await admin.fetchQuestions(nil, $0) }, where: { $0.id == id })
    {
      return found
    }
    throw ToolError("not found: no question has the id \(id)", exitCode: .notFound)
  }
}
