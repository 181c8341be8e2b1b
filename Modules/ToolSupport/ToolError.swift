import Domain
import Foundation
import LocalServer
import ServiceEngine

/// The exit status of the tools; scripts can branch on it.
///
/// | code | meaning |
/// |---|---|
/// | 0 | success |
/// | 1 | any other failure (server error, storage problem, partial import) |
/// | 2 | usage: bad arguments or input the tool or the server refused |
/// | 3 | not signed in, forbidden (403), banned, or an answer is required first |
/// | 4 | not found (or hidden) |
/// | 5 | conflict: already done, already reported, nickname taken, date taken |
/// | 6 | the server cannot be reached (offline) or did not answer in time |
/// | 7 | rate limited: too many writes, try again later |
public enum ToolExitCode: Int32, Sendable, CaseIterable {
  /// Everything worked.
  case success = 0
  /// Any other failure.
  case failure = 1
  /// Bad arguments or refused input.
  case usage = 2
  /// Not signed in, forbidden, banned, or an answer is required first.
  case unauthorized = 3
  /// Not found or hidden.
  case notFound = 4
  /// Conflicts with the current state.
  case conflict = 5
  /// The server cannot be reached or did not answer in time.
  case unreachable = 6
  /// Too many writes.
  case rateLimited = 7
}

/// A failure the tools report as one line, `error: <message>`, with an exit code.
public struct ToolError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The line after `error: `.
  public var message: String
  /// The process exit status.
  public var exitCode: ToolExitCode

  /// Creates an error; a message of several lines (a server's text) is joined into one.
  public init(_ message: String, exitCode: ToolExitCode) {
    self.message = Self.oneLine(message)
    self.exitCode = exitCode
  }

  /// The message.
  public var description: String { message }

  /// The tool's error for what a repository threw while talking to `server`.
  public init(_ error: DomainError, tool: ToolIdentity, server: ServerSelection) {
    switch error {
    case .validation(let validation):
      self.init(validation.description, exitCode: .usage)
    case .signedOut:
      switch server {
      case .embedded:
        // The local server is seeded with the demo community: name a token that works.
        let token = tool == .admin ? DemoSeed.adminToken : DemoSeed.memberTokens[0]
        self.init(
          "not signed in to the local server (or the session ended); run "
            + "`\(tool.name) signin --token \(token)` (a seeded \(tool == .admin ? "admin" : "member"))",
          exitCode: .unauthorized)
      case .remote:
        self.init(
          "not signed in to \(server) (or the session ended); run "
            + "`\(tool.name) signin --token TOKEN\(server.flagForHints)`",
          exitCode: .unauthorized)
      }
    case .forbidden:
      let hint =
        tool == .admin
        ? " Admin commands need an admin account: `qapple-admin signin --token TOKEN`." : ""
      self.init("forbidden: \(error.description)\(hint)", exitCode: .unauthorized)
    case .banned, .answerRequired:
      self.init(error.description, exitCode: .unauthorized)
    case .notFound:
      self.init("not found: \(error.description)", exitCode: .notFound)
    case .conflict(let message):
      self.init("conflict: \(message)", exitCode: .conflict)
    case .alreadyReported, .nicknameTaken:
      self.init(error.description, exitCode: .conflict)
    case .offline:
      self.init("cannot reach \(Self.address(of: server)) (offline)", exitCode: .unreachable)
    case .timeout:
      self.init(
        "\(Self.address(of: server)) did not answer in time", exitCode: .unreachable)
    case .rateLimited:
      self.init(error.description, exitCode: .rateLimited)
    case .server:
      self.init(error.description, exitCode: .failure)
    }
  }

  /// A local validation failure (checked before anything is sent).
  public init(_ error: ValidationError) {
    self.init(error.description, exitCode: .usage)
  }

  /// Any error as a tool error: tool errors stay, Domain errors are mapped, the rest say what
  /// they are in one line.
  public static func from(
    _ error: any Error, tool: ToolIdentity, server: ServerSelection?
  ) -> ToolError {
    switch error {
    case let error as ToolError:
      return error
    case let error as DomainError:
      return ToolError(error, tool: tool, server: server ?? .embedded)
    case let error as ValidationError:
      return ToolError(error)
    case is CancellationError:
      return ToolError("cancelled", exitCode: .failure)
    default:
      return ToolError(oneLine(String(describing: error)), exitCode: .failure)
    }
  }

  /// `text` with its lines joined, so a message never spans lines.
  static func oneLine(_ text: String) -> String {
    text.split(whereSeparator: \.isNewline)
      .map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { !$0.isEmpty }
      .joined(separator: " ")
  }

  private static func address(of server: ServerSelection) -> String {
    switch server {
    case .embedded: "the local server"
    case .remote(let url): "the server at \(url.absoluteString)"
    }
  }
}
