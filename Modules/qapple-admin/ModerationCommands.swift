import AdminFeature
import ArgumentParser
import Domain
import Foundation
import ToolSupport

/// `qapple-admin reports ...`
struct Reports: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "The report inbox: one case per reported target.",
    subcommands: [List.self, Show.self, Resolve.self],
    defaultSubcommand: List.self)

  /// `--status` of `reports list`.
  enum StatusFilter: String, ExpressibleByArgument, CaseIterable {
    case open, resolved, all

    var status: ReportStatus? {
      switch self {
      case .open: .open
      case .resolved: .resolved
      case .all: nil
      }
    }
  }

  /// `--action` of `reports resolve`.
  enum Action: String, ExpressibleByArgument, CaseIterable {
    case dismiss, hide, ban

    var resolution: ReportResolution {
      switch self {
      case .dismiss: .dismiss
      case .hide: .hideContent
      case .ban: .banAuthor
      }
    }
  }

  /// One row per case.
  static func table(_ cases: [ReportCase]) -> TextTable {
    var table = TextTable([
      .whole("ID"), .whole("TARGET"), .init("REPORTS", maxWidth: 7),
      .init("REASONS", maxWidth: 24), .whole("STATUS"),
      .init("HIDDEN", maxWidth: 6), .init("AUTHOR", maxWidth: 14), .init("EXCERPT", maxWidth: 40),
    ])
    for reportCase in cases {
      table.append([
        reportCase.id.rawValue, reportCase.target.description, "\(reportCase.reportCount)",
        reasons(reportCase.reasonCounts),
        reportCase.resolution.map { "\($0.rawValue)" } ?? reportCase.status.rawValue,
        TextFormat.mark(reportCase.isHidden), reportCase.author?.nickname ?? "",
        reportCase.excerpt ?? "",
      ])
    }
    return table
  }

  /// `spam 3, abuse 1`, most frequent first.
  static func reasons(_ counts: [ReportReason.Code: Int]) -> String {
    counts.sorted { ($0.value, $1.key.rawValue) > ($1.value, $0.key.rawValue) }
      .map { "\($0.key.rawValue) \($0.value)" }.joined(separator: ", ")
  }

  /// `qapple-admin reports list [--status open|resolved|all]`
  struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List report cases.")

    @Option(help: "open, resolved or all.")
    var status: StatusFilter = .open

    @OptionGroup var page: PageOptions
    @OptionGroup var server: ServerOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
      let (filter, request, options) = (self.status, page.request, self.output)
      try await server.withConnection(tool: .admin) { connection in
        try await List.printInbox(status: filter, request, options, connection)
      }
    }

    /// Prints the inbox screen's model, loaded once: its cases are the page printed.
    @MainActor
    static func printInbox(
      status: StatusFilter, _ request: PageRequest, _ output: OutputOptions,
      _ connection: ToolConnection
    ) async throws {
      let inbox = AdminScreens.model(connection) {
        ReportInboxModel(status: status.status, firstPage: request)
      }
      await inbox.task()
      try AdminScreens.requireLoaded(inbox.state)
      try ToolOutput(output).emitList(
        ListOutput(
          items: inbox.cases.map(ReportCaseOutput.init), nextCursor: inbox.nextCursor?.rawValue),
        empty: status == .open ? "No open reports." : "No reports."
      ) { Reports.table(inbox.cases) }
    }
  }

  /// `qapple-admin reports show ID`
  struct Show: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show a case and its reports.")

    @Argument(help: "The case id.")
    var id: String

    @OptionGroup var server: ServerOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
      try await server.withConnection(tool: .admin) { connection in
        let detail = try await connection.repositories.admin.fetchReportCase(ReportCase.ID(id))
        try ToolOutput(output).emit(ReportCaseDetailOutput(detail)) {
          let reportCase = detail.reportCase
          var lines = [
            "Case \(reportCase.id): \(reportCase.target)",
            "Status:   \(reportCase.status.rawValue)"
              + (reportCase.resolution.map { " (\($0.rawValue))" } ?? ""),
            "Hidden:   \(reportCase.isHidden ? "yes" : "no")",
            "Author:   \(reportCase.author.map { "\($0.nickname) (\($0.id))" } ?? "-")",
            "Excerpt:  \(reportCase.excerpt ?? "-")",
            "Reports:  \(reportCase.reportCount) (\(Reports.reasons(reportCase.reasonCounts)))",
            "",
          ]
          var table = TextTable([
            .init("REPORT", maxWidth: 12), .init("REASON", maxWidth: 14),
            .init("WHEN", maxWidth: 16), .init("DETAIL", maxWidth: 60),
          ])
          for report in detail.reports {
            table.append([
              report.id.rawValue, report.reason.code.rawValue,
              TextFormat.dateTime(report.createdAt), report.reason.detail ?? "",
            ])
          }
          lines.append(table.render())
          return lines.joined(separator: "\n")
        }
      }
    }
  }

  /// `qapple-admin reports resolve ID --action dismiss|hide|ban [--note N]`
  struct Resolve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Decide a case: dismiss (content stays), hide the content, or ban its author.")

    @Argument(help: "The case id.")
    var id: String

    @Option(help: "dismiss, hide or ban.")
    var action: Action

    @Option(help: "A note for the record (the ban reason with --action ban).")
    var note: String?

    @OptionGroup var server: ServerOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
      try await server.withConnection(tool: .admin) { connection in
        let resolved = try await connection.repositories.admin.resolveReportCase(
          ReportCase.ID(id), action.resolution, note)
        try ToolOutput(output).emit(ReportCaseOutput(resolved)) {
          "Resolved case \(resolved.id) (\(resolved.target)): "
            + "\(resolved.resolution?.rawValue ?? action.rawValue); "
            + "content \(resolved.isHidden ? "hidden" : "visible")."
        }
      }
    }
  }
}

/// `qapple-admin users ...`
struct Users: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Users: list, ban, unban.",
    subcommands: [List.self, Ban.self, Unban.self],
    defaultSubcommand: List.self)

  /// One row per user.
  static func table(_ users: [AdminUser]) -> TextTable {
    var table = TextTable([
      .whole("ID"), .init("NICKNAME", maxWidth: 14), .init("ROLE", maxWidth: 7),
      .init("COHORT", maxWidth: 14), .init("ANSWERS", maxWidth: 7), .init("REPORTS", maxWidth: 7),
      .init("BANNED", maxWidth: 30),
    ])
    for entry in users {
      let user = entry.user
      var banned = ""
      if user.isBanned {
        banned = entry.bannedUntil.map { "until \(TextFormat.dateTime($0))" } ?? "indefinitely"
        if let reason = entry.banReason { banned += ": \(reason)" }
      }
      table.append([
        user.id.rawValue, user.nickname.rawValue, user.role.isAdmin ? "admin" : "member",
        user.cohort ?? "", "\(user.answerCount)", "\(entry.reportCount)", banned,
      ])
    }
    return table
  }

  /// `qapple-admin users list [--search Q]`
  struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List users.")

    @Option(help: "Only users whose nickname contains this text.")
    var search: String?

    @OptionGroup var page: PageOptions
    @OptionGroup var server: ServerOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
      try await server.withConnection(tool: .admin) { connection in
        let users = try await connection.repositories.admin.fetchUsers(search, page.request)
        try ToolOutput(output).emitList(ListOutput(users, AdminUserOutput.init), empty: "No users.")
        { Users.table(users.items) }
      }
    }
  }

  /// `qapple-admin users ban ID --reason R [--until DATE | --days N]`
  struct Ban: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Ban a user from writing, indefinitely or until a day.")

    @Argument(help: "The user id.")
    var id: String

    @Option(help: "Why, \(TextRule.banReason.lengthText) (the user sees it).")
    var reason: String

    @Option(help: "The ban ends at the start of this day (YYYY-MM-DD, Seoul time).")
    var until: String?

    @Option(help: "The ban ends after this many days.")
    var days: Int?

    @OptionGroup var server: ServerOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
      if until != nil, days != nil {
        throw ArgumentParser.ValidationError("give --until or --days, not both.")
      }
      if let days, days < 1 {
        throw ArgumentParser.ValidationError("--days must be at least 1.")
      }
    }

    func run() async throws {
      let text: String
      do {
        text = try TextRule.banReason.validate(reason)
      } catch {
        throw ToolError("invalid ban: \(error.description)", exitCode: .usage)
      }
      let end: Date?
      if let until {
        end = try ArgumentParsing.day(until).start(in: .seoul)
      } else if let days {
        end = Date().addingTimeInterval(Double(days) * 86_400)
      } else {
        end = nil
      }
      try await server.withConnection(tool: .admin) { connection in
        let user = try await connection.repositories.admin.banUser(User.ID(id), text, end)
        try ToolOutput(output).emit(AdminUserOutput(user)) {
          "Banned \(user.user.nickname) (\(user.id)) "
            + (user.bannedUntil.map { "until \(TextFormat.dateTime($0))" } ?? "indefinitely")
            + ": \(user.banReason ?? text)"
        }
      }
    }
  }

  /// `qapple-admin users unban ID`
  struct Unban: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Lift a ban.")

    @Argument(help: "The user id.")
    var id: String

    @OptionGroup var server: ServerOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
      try await server.withConnection(tool: .admin) { connection in
        let user = try await connection.repositories.admin.unbanUser(User.ID(id))
        try ToolOutput(output).emit(AdminUserOutput(user)) {
          "Unbanned \(user.user.nickname) (\(user.id))."
        }
      }
    }
  }

}
