import Domain
import Foundation
import Repositories

/// Sign-in, sign-out and status, the same in both tools (each keeps its own session).
public enum AccountActions {
  /// Signs in with a provider token and prints who is signed in.
  ///
  /// An unknown account is an error (exit 3) that names the `signup` command; a session the
  /// tool could not save (the next command would not find it) is an error (exit 1).
  public static func signIn(
    provider: AuthProvider, token: String, connection: ToolConnection, output: ToolOutput
  ) async throws -> User {
    let trimmed = token.trimmingCharacters(in: .whitespacesAndNewlines)
    guard !trimmed.isEmpty else {
      throw ToolError("--token must not be empty", exitCode: .usage)
    }
    // The saved session is read first (an unreadable one is a problem of its own, which the
    // sign-in repairs): only a problem the sign-in's own save meets counts.
    _ = await connection.repositories.auth.currentState()
    let problemBefore = await connection.backend.session.lastStorageProblem
    switch try await connection.repositories.auth.signIn(provider, trimmed) {
    case .signedIn(let session):
      let user = session.user
      try await requireSaved(since: problemBefore, connection: connection)
      try output.emit(UserOutput(user)) {
        "Signed in as \(user.nickname)\(user.role.isAdmin ? " (admin)" : "") on \(connection.server)."
      }
      return user
    case .needsSignUp:
      throw ToolError(
        "no account for this \(provider.rawValue) token on \(connection.server) yet; sign up with "
          + "`qapple signup --token \(trimmed) --email EMAIL\(connection.server.flagForHints)`",
        exitCode: .unauthorized)
    }
  }

  /// A session the sign-in could not save (the store refused it since `problemBefore`) as an
  /// error: each command is a process of its own, and the next one would find nobody signed in.
  public static func requireSaved(
    since problemBefore: String?, connection: ToolConnection
  ) async throws {
    let problem = await connection.backend.session.lastStorageProblem
    guard let problem, problem != problemBefore else { return }
    throw ToolError(
      "signed in, but the session could not be saved under \(connection.dataDirectory.url.path) "
        + "(\(problem)); the next command will not find it", exitCode: .failure)
  }

  /// Signs out (the server revokes the refresh token) and forgets the saved session, also one
  /// that is saved but not signed in (a file that cannot be read, tokens without their user).
  /// The session is forgotten on this machine even when the server cannot be told; the error
  /// then says so, with the exit code of why.
  public static func signOut(connection: ToolConnection) async throws {
    guard case .signedIn(let user) = await connection.repositories.auth.currentState() else {
      let file = connection.dataDirectory.sessionFile(
        tool: connection.tool, server: connection.server)
      guard FileManager.default.fileExists(atPath: file.path) else {
        StandardStreams.write("Not signed in on \(connection.server); nothing to do.")
        return
      }
      do {
        try await connection.repositories.auth.signOut()
      } catch let error as DomainError {
        throw ToolError(
          "removed the saved session for \(connection.server), which was not signed in (it "
            + "could not be read, or lacked its user); the server was not told, so the session "
            + "stays valid there until it expires",
          exitCode: ToolError(error, tool: connection.tool, server: connection.server).exitCode)
      }
      StandardStreams.write("Removed the saved session for \(connection.server).")
      return
    }
    do {
      try await connection.repositories.auth.signOut()
    } catch let error as DomainError {
      var refused = ToolError(error, tool: connection.tool, server: connection.server)
      refused.message =
        "signed out \(user.nickname) on this machine, but the server was not told: "
        + "\(refused.message); its session stays valid until it expires"
      throw refused
    }
    StandardStreams.write("Signed out \(user.nickname) from \(connection.server).")
  }

  /// Prints who is signed in on the selected server.
  public static func status(connection: ToolConnection, output: ToolOutput) async throws {
    let serverName: String
    switch connection.server {
    case .embedded: serverName = "local"
    case .remote(let url): serverName = url.absoluteString
    }
    let state = await connection.repositories.auth.currentState()
    switch state {
    case .signedIn(let user):
      try output.emit(
        SessionOutput(server: serverName, state: "signed_in", user: UserOutput(user))
      ) {
        "Signed in as \(user.nickname)\(user.role.isAdmin ? " (admin)" : "") on \(connection.server)."
      }
    case .signedOut, .needsSignUp:
      try output.emit(SessionOutput(server: serverName, state: "signed_out", user: nil)) {
        "Not signed in on \(connection.server). Sign in with "
          + "`\(connection.tool.name) signin --token TOKEN\(connection.server.flagForHints)`."
      }
    }
  }
}
