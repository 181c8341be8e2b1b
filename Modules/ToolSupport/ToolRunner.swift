import ArgumentParser
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The tools' `main`: parses the arguments, runs the command, and turns every failure into one
/// line `error: <message>` on stderr and a ``ToolExitCode`` (never a stack trace).
///
/// ```swift
/// @main enum Main {
///   static func main() async { await ToolRunner.main(QappleCommand.self, tool: .member) }
/// }
/// ```
public enum ToolRunner {
  /// Runs `root` with the process arguments and exits.
  public static func main(_ root: any ParsableCommand.Type, tool: ToolIdentity) async -> Never {
    ToolLogging.bootstrap()
    let arguments = Array(CommandLine.arguments.dropFirst())
    let code = await run(root, tool: tool, arguments: arguments)
    exit(code.rawValue)
  }

  /// Runs `root` with `arguments` and returns the exit code (output already printed).
  public static func run(
    _ root: any ParsableCommand.Type, tool: ToolIdentity, arguments: [String]
  ) async -> ToolExitCode {
    var command: any ParsableCommand
    do {
      command = try root.parseAsRoot(arguments)
    } catch {
      return reportParseError(error, root: root, tool: tool, arguments: arguments)
    }
    do {
      if var asyncCommand = command as? any AsyncParsableCommand {
        try await asyncCommand.run()
      } else {
        try command.run()
      }
      return .success
    } catch {
      if root.exitCode(for: error) == .success, !(error is ToolError) {
        // `CleanExit` (e.g. help printed from inside a command group's run).
        StandardStreams.write(root.fullMessage(for: error))
        return .success
      }
      if !(error is ToolError), root.exitCode(for: error) == .validationFailure {
        // ArgumentParser's `ValidationError` thrown while running.
        StandardStreams.writeError("error: \(ToolError.oneLine(root.message(for: error)))")
        return .usage
      }
      let failure = ToolError.from(error, tool: tool, server: nil)
      StandardStreams.writeError("error: \(failure.message)")
      return failure.exitCode
    }
  }

  /// Help and version print their text and succeed; anything else is a usage error.
  private static func reportParseError(
    _ error: any Error, root: any ParsableCommand.Type, tool: ToolIdentity, arguments: [String]
  ) -> ToolExitCode {
    if root.exitCode(for: error) == .success {
      StandardStreams.write(root.fullMessage(for: error))
      return .success
    }
    let message = ToolError.oneLine(root.message(for: error))
    let path = ([tool.name] + subcommandPath(root, arguments: arguments)).joined(separator: " ")
    StandardStreams.writeError("error: \(message) (see `\(path) --help`)")
    return .usage
  }

  /// The subcommand names at the start of `arguments` (`["board", "show"]`), for the help hint.
  static func subcommandPath(_ root: any ParsableCommand.Type, arguments: [String]) -> [String] {
    var path: [String] = []
    var current = root
    for argument in arguments {
      let next = current.configuration.subcommands.first { candidate in
        let configuration = candidate.configuration
        let name = configuration.commandName ?? String(describing: candidate).lowercased()
        return name == argument || configuration.aliases.contains(argument)
      }
      guard let next else { break }
      path.append(argument)
      current = next
    }
    return path
  }
}
