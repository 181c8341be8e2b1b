import Domain
import Foundation
import LocalServer
import Persistence
import Repositories
import RepositoriesLive

/// One command's link to a server: the live repositories, signed in with the session saved for
/// this tool and server, and the embedded server when no `--server` was given.
///
/// ```swift
/// try await ToolConnection.with(tool: .member, server: options.selection()) { connection in
///   let question = try await connection.repositories.questions.fetchToday()
/// }
/// ```
public struct ToolConnection: Sendable {
  /// The running tool.
  public let tool: ToolIdentity
  /// The server it talks to.
  public let server: ServerSelection
  /// The data directory.
  public let dataDirectory: DataDirectory
  /// The live client of the server (its repositories, tokens and base URL).
  public let backend: LiveBackend
  /// The live repositories of the server.
  public var repositories: RepositorySet { backend.repositories }
  /// The embedded server, when one was started for this command.
  public let embeddedServer: EmbeddedServer?

  /// The local store of `user` on this server (created when missing; a damaged file is
  /// replaced by an empty store, which the next sync fills again, with an error logged on
  /// stderr). It is the store the backend's chat engine and analytics queue use.
  public func chatStore(for user: User.ID) throws(ToolError) -> ChatStore {
    do {
      return try backend.configuration.chat.storage.open(
        for: user, logger: ToolLogging.logger(label: "qapple.store"))
    } catch {
      let file = dataDirectory.chatCacheFile(server: server, user: user)
      throw ToolError(
        "the local store \(file.path) cannot be opened: \(error.description)", exitCode: .failure)
    }
  }

  /// Where the pending sign-up of this tool and server is kept.
  public var pendingSignUps: PendingSignUpStore {
    PendingSignUpStore(fileURL: dataDirectory.pendingSignUpFile(tool: tool, server: server))
  }

  /// Connects, runs `body`, and stops the embedded server (if any) before returning or
  /// rethrowing. Errors come out as ``ToolError``s that name the server.
  public static func with<Result: Sendable>(
    tool: ToolIdentity,
    server: ServerSelection,
    dataDirectory: DataDirectory = .resolve(),
    _ body: (ToolConnection) async throws -> Result
  ) async throws(ToolError) -> Result {
    try dataDirectory.create()
    let embedded: EmbeddedServer?
    let baseURL: URL
    switch server {
    case .embedded:
      let started = try await EmbeddedServer.start(
        database: .file(path: dataDirectory.localDatabase.path))
      embedded = started
      baseURL = started.baseURL
    case .remote(let url):
      embedded = nil
      baseURL = url
    }
    let store = FileCredentialStore(
      fileURL: dataDirectory.sessionFile(tool: tool, server: server),
      logger: ToolLogging.logger(label: "qapple.credentials"))
    let configuration = LiveConfiguration(
      baseURL: baseURL, credentialStore: store, timeout: .seconds(20),
      logger: ToolLogging.logger(label: "qapple.client"),
      // A command runs for a moment: the saved profile is enough, no background refresh.
      refreshesProfileOnRestore: false,
      chat: ChatOptions(storage: .directory(dataDirectory.storesDirectory(server: server))))
    let connection = ToolConnection(
      tool: tool, server: server, dataDirectory: dataDirectory,
      backend: LiveBackend(configuration: configuration), embeddedServer: embedded)
    let result: Swift.Result<Result, ToolError>
    do {
      result = .success(try await body(connection))
    } catch {
      result = .failure(ToolError.from(error, tool: tool, server: server))
    }
    await embedded?.stop()
    return try result.get()
  }

  /// The signed-in user, or a "not signed in" error with the command that fixes it.
  public func requireSignedIn() async throws(ToolError) -> User {
    switch await repositories.auth.currentState() {
    case .signedIn(let user):
      return user
    case .signedOut, .needsSignUp:
      throw ToolError(.signedOut, tool: tool, server: server)
    }
  }
}

extension ServerOptions {
  /// Connects `tool` to the selected server for the duration of `body`
  /// (see ``ToolConnection/with(tool:server:dataDirectory:_:)``).
  public func withConnection<Result: Sendable>(
    tool: ToolIdentity, _ body: (ToolConnection) async throws -> Result
  ) async throws(ToolError) -> Result {
    try await ToolConnection.with(tool: tool, server: try selection(), body)
  }
}
