import Domain
import Foundation
import RepositoriesLive

/// Where the tools keep their files: the embedded server's database, the saved sessions and
/// pending sign-ups.
///
/// - `QAPPLE_HOME`, when set, is used as it is (tests point it at a temporary directory).
/// - Linux: `$XDG_DATA_HOME/qapple`, else `~/.local/share/qapple`.
/// - Apple platforms: `~/Library/Application Support/qapple`.
///
/// Layout:
/// ```
/// <data>/local.sqlite                              the embedded server's database
/// <data>/chat/<server>/<user id>.sqlite            each user's local store (chat, analytics)
/// <data>/sessions/<tool>/<server>.session.json     saved sign-in (0600)
/// <data>/sessions/<tool>/<server>.signup.json      a sign-up waiting for its e-mail code (0600)
/// ```
public struct DataDirectory: Hashable, Sendable {
  /// The environment variable that overrides the location.
  public static let environmentKey = "QAPPLE_HOME"

  /// The directory.
  public let url: URL

  /// Uses `url` as the data directory.
  public init(url: URL) {
    self.url = url
  }

  /// The data directory for `environment` (the process environment by default).
  public static func resolve(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> DataDirectory {
    if let home = environment[environmentKey], !home.isEmpty {
      return DataDirectory(url: URL(fileURLWithPath: home, isDirectory: true))
    }
    let base = PlatformDirectories.data(environment: environment)
    return DataDirectory(url: base.appendingPathComponent("qapple", isDirectory: true))
  }

  /// The embedded server's SQLite database.
  public var localDatabase: URL { url.appendingPathComponent("local.sqlite") }

  /// The saved session of `tool` with `server`.
  public func sessionFile(tool: ToolIdentity, server: ServerSelection) -> URL {
    sessionsDirectory(tool: tool).appendingPathComponent("\(server.identity).session.json")
  }

  /// The folder of the users' local stores (`Persistence.ChatStore`: chat cache, outbox,
  /// analytics queue) on `server`, one `<user id>.sqlite` each (`ChatStorage.directory`).
  public func storesDirectory(server: ServerSelection) -> URL {
    url.appendingPathComponent("chat", isDirectory: true)
      .appendingPathComponent(server.identity, isDirectory: true)
  }

  /// The local store of `user` on `server`, in ``storesDirectory(server:)``.
  public func chatCacheFile(server: ServerSelection, user: User.ID) -> URL {
    storesDirectory(server: server).appendingPathComponent("\(user.rawValue).sqlite")
  }

  /// The sign-up of `tool` with `server` that waits for its e-mail code.
  public func pendingSignUpFile(tool: ToolIdentity, server: ServerSelection) -> URL {
    sessionsDirectory(tool: tool).appendingPathComponent("\(server.identity).signup.json")
  }

  private func sessionsDirectory(tool: ToolIdentity) -> URL {
    url.appendingPathComponent("sessions", isDirectory: true)
      .appendingPathComponent(tool.name, isDirectory: true)
  }

  /// Creates the directory (owner-only, `0700`) if it is missing.
  public func create() throws(ToolError) {
    try Self.createPrivateDirectory(url)
  }

  /// Creates `directory` and missing parents; new directories get `0700`.
  static func createPrivateDirectory(_ directory: URL) throws(ToolError) {
    do {
      try PrivateFile.makeFolder(at: directory)
    } catch {
      throw ToolError(
        "cannot create the data directory \(directory.path): \(error) "
          + "(set \(environmentKey) to a writable directory)",
        exitCode: .failure)
    }
  }
}

/// Which tool is running; it names its session files and its hints (`qapple signin ...`).
public struct ToolIdentity: Hashable, Sendable {
  /// The command name, e.g. `qapple`.
  public let name: String

  /// Creates an identity from the command name.
  public init(name: String) {
    self.name = name
  }

  /// The member client.
  public static let member = ToolIdentity(name: "qapple")
  /// The moderation tool.
  public static let admin = ToolIdentity(name: "qapple-admin")
}
