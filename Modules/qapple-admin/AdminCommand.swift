import ArgumentParser
import Domain
import ToolSupport

/// The root command of `qapple-admin`.
struct AdminCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "qapple-admin",
    abstract: "The Qapple moderation tool: questions, the report inbox, users, stats.",
    discussion: """
      Sign in with an admin account first: on the local server (no --server) that is \
      `qapple-admin signin --token admin`. The session is kept apart from `qapple`'s.

      Without --server (or QAPPLE_SERVER) every command starts the local server in-process with \
      the same shared database `qapple` uses, so both tools see each other's data.

      Exit codes: 0 ok, 1 failure, 2 usage or refused input, 3 not signed in / not an admin, \
      4 not found, 5 conflict, 6 server unreachable, 7 rate limited.
      """,
    subcommands: [
      SignIn.self, Status.self, SignOut.self, Questions.self, Reports.self, Users.self,
      Stats.self,
    ])
}

/// `qapple-admin signin --token T`
struct SignIn: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "signin", abstract: "Sign in (with an admin account) and keep the session.")

  @Option(help: "The provider's token (dev: any text naming the account).")
  var token: String

  @Option(help: "apple, kakao or dev.")
  var provider: AuthProvider = .dev

  @OptionGroup var server: ServerOptions
  @OptionGroup var output: OutputOptions

  func run() async throws {
    try await server.withConnection(tool: .admin) { connection in
      let user = try await AccountActions.signIn(
        provider: provider, token: token, connection: connection, output: ToolOutput(output))
      if !user.role.isAdmin {
        ToolOutput(output).note(
          "note: \(user.nickname) is not an admin; the server will refuse admin commands.")
      }
    }
  }
}

/// `qapple-admin status`
struct Status: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Show who is signed in on the selected server.")

  @OptionGroup var server: ServerOptions
  @OptionGroup var output: OutputOptions

  func run() async throws {
    try await server.withConnection(tool: .admin) { connection in
      try await AccountActions.status(connection: connection, output: ToolOutput(output))
    }
  }
}

/// `qapple-admin signout`
struct SignOut: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "signout", abstract: "Sign out and forget the saved session.")

  @OptionGroup var server: ServerOptions

  func run() async throws {
    try await server.withConnection(tool: .admin) { connection in
      try await AccountActions.signOut(connection: connection)
    }
  }
}

/// `qapple-admin stats`
struct Stats: AsyncParsableCommand {
  static let configuration = CommandConfiguration(abstract: "Show the dashboard counts.")

  @OptionGroup var server: ServerOptions
  @OptionGroup var output: OutputOptions

  func run() async throws {
    try await server.withConnection(tool: .admin) { connection in
      let stats = try await connection.repositories.admin.fetchStats()
      try ToolOutput(output).emit(StatsOutput(stats)) {
        var table = TextTable([.init("COUNT"), .init("VALUE")])
        let rows: [(String, Int)] = [
          ("users", stats.users), ("admins", stats.admins), ("banned users", stats.bannedUsers),
          ("questions", stats.questions), ("answers", stats.answers), ("posts", stats.posts),
          ("comments", stats.comments), ("open reports", stats.openReports),
          ("hidden contents", stats.hiddenContents), ("groups", stats.groups),
          ("messages", stats.messages),
        ]
        for (name, value) in rows { table.append([name, "\(value)"]) }
        return table.render()
      }
    }
  }
}

extension AuthProvider: ExpressibleByArgument {}
