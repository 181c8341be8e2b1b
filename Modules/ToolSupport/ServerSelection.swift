import ArgumentParser
import Domain
import Foundation
import RepositoriesLive

/// Which server a command talks to.
public enum ServerSelection: Hashable, Sendable, CustomStringConvertible {
  /// The local server, started in this process on a random loopback port with the shared
  /// database of the data directory.
  case embedded
  /// A running server at this base URL.
  case remote(URL)

  /// The environment variable that selects a server when `--server` is not given.
  public static let environmentKey = "QAPPLE_SERVER"

  /// Reads `--server` (or `QAPPLE_SERVER`): an `http`/`https` URL with a host.
  public init(
    argument: String?, environment: [String: String] = ProcessInfo.processInfo.environment
  )
    throws(ToolError)
  {
    let text = (argument ?? environment[Self.environmentKey])?.trimmingCharacters(
      in: .whitespaces)
    guard let text, !text.isEmpty else {
      self = .embedded
      return
    }
    guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
      scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty
    else {
      throw ToolError(
        "--server must be an http or https URL such as http://127.0.0.1:8080 (got \"\(text)\")",
        exitCode: .usage)
    }
    self = .remote(url)
  }

  /// A stable name for files of this server: `local` for the embedded server (its port changes
  /// on every start, its database does not), else scheme, host and port.
  public var identity: String {
    switch self {
    case .embedded:
      return "local"
    case .remote(let url):
      return PlatformDirectories.serverName(url)
    }
  }

  /// How messages name the server.
  public var description: String {
    switch self {
    case .embedded: "the local server"
    case .remote(let url): url.absoluteString
    }
  }

  /// The `--server` flag to repeat in hints, or nothing for the embedded server.
  public var flagForHints: String {
    switch self {
    case .embedded: ""
    case .remote(let url): " --server \(url.absoluteString)"
    }
  }
}

/// `--server URL`, shared by every command that talks to a server.
public struct ServerOptions: ParsableArguments, Sendable {
  /// The raw option.
  @Option(
    name: .long,
    help: ArgumentHelp(
      "The server's base URL (or set QAPPLE_SERVER). Without it the local server runs "
        + "in-process with the shared database of the data directory.",
      valueName: "url"))
  public var server: String?

  /// Creates empty options (ArgumentParser fills them in).
  public init() {}

  /// The selected server.
  public func selection() throws(ToolError) -> ServerSelection {
    try ServerSelection(argument: server)
  }
}

/// `--json`, shared by every command that prints data.
public struct OutputOptions: ParsableArguments, Sendable {
  /// Whether to print JSON instead of text.
  @Flag(help: "Print JSON (snake_case, stable fields) instead of text.")
  public var json = false

  /// Creates empty options (ArgumentParser fills them in).
  public init() {}
}

/// `--limit` and `--cursor`, shared by every listing.
public struct PageOptions: ParsableArguments, Sendable {
  /// How many items to fetch.
  @Option(help: "How many items to show (1-\(PageRequest.maximumLimit)).")
  public var limit = PageRequest.defaultLimit

  /// Where to continue.
  @Option(help: "Continue after this cursor (printed as next_cursor by the previous page).")
  public var cursor: String?

  /// Creates empty options (ArgumentParser fills them in).
  public init() {}

  /// The page to ask the server for.
  public var request: PageRequest {
    PageRequest(cursor: cursor.map { PageCursor(rawValue: $0) }, limit: limit)
  }

  /// Refuses a limit the server would refuse.
  public func validate() throws {
    guard (1...100).contains(limit) else {
      throw ValidationError("--limit must be between 1 and 100 (got \(limit)).")
    }
  }
}
