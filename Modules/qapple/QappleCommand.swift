import ArgumentParser
import ToolSupport

/// The root command of `qapple`.
struct QappleCommand: AsyncParsableCommand {
  /// The version of the terms a member signing up with this tool agrees to (`signup`, `open`,
  /// the demo).
  static let termsVersion = "2026-01"

  static let configuration = CommandConfiguration(
    commandName: "qapple",
    abstract: "The Qapple member client: today's question, the board, reports, groups, chat.",
    discussion: """
      Without --server (or QAPPLE_SERVER) every command starts the local server in-process with \
      a shared database in the data directory ($QAPPLE_HOME, else $XDG_DATA_HOME/qapple or \
      ~/.local/share/qapple), seeded with a demo community on first use: sign in with \
      `qapple signin --token demo-1` (members demo-1 ... demo-10).

      Start with `qapple demo` for a narrated tour on a throwaway server.

      Exit codes: 0 ok, 1 failure, 2 usage or refused input, 3 not signed in / forbidden / \
      banned, 4 not found, 5 conflict, 6 server unreachable, 7 rate limited.
      """,
    subcommands: [
      Demo.self,
      SignIn.self, SignUp.self, Status.self, Profile.self, SignOut.self, Withdraw.self,
      Today.self, AnswerCommand.self, Answers.self,
      Board.self, ReportCommand.self, Notifications.self, Groups.self, Chat.self,
      DirectMessage.self, Open.self,
    ])
}
