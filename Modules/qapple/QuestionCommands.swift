import ArgumentParser
import Domain
import Foundation
import ToolSupport

/// `qapple today`
struct Today: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Show today's question and your answer.")

  @OptionGroup var server: ServerOptions
  @OptionGroup var output: OutputOptions

  func run() async throws {
    try await server.withConnection(tool: .member) { connection in
      let question = try await Today.fetch(connection)
      try ToolOutput(output).emit(QuestionOutput(question)) { Today.text(question) }
    }
  }
}

extension Today {
  /// A question, the count of its answers and the user's answer (or how to answer it).
  static func text(_ question: Question, title: String = "Today's question") -> String {
    var lines = [
      "\(title) (\(question.publishDate), id \(question.id)):",
      "  \(question.content)",
      "",
      "\(question.answerCount) answer\(question.answerCount == 1 ? "" : "s") so far.",
    ]
    if let answer = question.myAnswer {
      lines.append("Your answer (id \(answer.id)): \(answer.content)")
      lines.append("Read the others with `qapple answers \(question.id)`.")
    } else {
      lines.append("Answer it with `qapple answer \"...\"` to see what others wrote.")
    }
    return lines.joined(separator: "\n")
  }

  /// Today's question; "not found" says that no question is out today.
  static func fetch(_ connection: ToolConnection) async throws -> Question {
    do {
      return try await connection.repositories.questions.fetchToday()
    } catch DomainError.notFound {
      throw ToolError(
        "not found: there is no question for today yet (admins schedule them with "
          + "`qapple-admin questions add`)",
        exitCode: .notFound)
    }
  }
}

/// `qapple answer TEXT`
struct AnswerCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "answer",
    abstract: "Answer today's question (\(TextRule.answer.lengthText), once).")

  @Argument(help: "Your answer.")
  var text: String

  @Option(help: "Answer this question instead of today's.")
  var question: String?

  @OptionGroup var server: ServerOptions
  @OptionGroup var output: OutputOptions

  func run() async throws {
    let content: String
    do {
      content = try Answer.validate(content: text)
    } catch {
      throw ToolError("invalid answer: \(error.description)", exitCode: .usage)
    }
    try await server.withConnection(tool: .member) { connection in
      let questions = connection.repositories.questions
      let questionID =
        if let question { Question.ID(question) } else { try await Today.fetch(connection).id }
      let answer = try await questions.submitAnswer(questionID, content)
      try ToolOutput(output).emit(AnswerOutput(answer)) {
        "Answered (answer \(answer.id)). See the others with `qapple answers`."
      }
    }
  }
}

/// `qapple answers [QUESTION] [--mine]`
struct Answers: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "List the answers of a question (today's by default) once you answered it.")

  @Argument(help: "The question id; today's question when left out.")
  var question: String?

  @Flag(help: "List your own answers to every question instead.")
  var mine = false

  @OptionGroup var page: PageOptions
  @OptionGroup var server: ServerOptions
  @OptionGroup var output: OutputOptions

  func validate() throws {
    if mine, question != nil {
      throw ArgumentParser.ValidationError(
        "--mine lists your answers to every question; leave out QUESTION.")
    }
  }

  func run() async throws {
    try await server.withConnection(tool: .member) { connection in
      let repositories = connection.repositories
      let answers: Page<Answer>
      if mine {
        answers = try await repositories.profile.fetchMyAnswers(page.request)
      } else {
        let id =
          if let question {
            Question.ID(question)
          } else {
            try await Today.fetch(connection).id
          }
        answers = try await repositories.questions.fetchAnswers(id, page.request)
      }
      try ToolOutput(output).emitList(
        ListOutput(answers, AnswerOutput.init), empty: "No answers yet."
      ) { Answers.table(answers.items) }
    }
  }
}

extension Answers {
  /// The table of a page of answers.
  static func table(_ answers: [Answer]) -> TextTable {
    var table = TextTable([
      .whole("ID"), .init("AUTHOR", maxWidth: 14), .init("MINE", maxWidth: 4),
      .init("WHEN", maxWidth: 16), .init("ANSWER", maxWidth: 60),
    ])
    for answer in answers {
      table.append([
        answer.id.rawValue, answer.authorNickname, TextFormat.mark(answer.isMine),
        TextFormat.dateTime(answer.createdAt), answer.content,
      ])
    }
    return table
  }
}
