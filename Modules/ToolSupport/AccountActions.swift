import Domain
import Foundation
import Repositories

/// Sign-in, sign-out and status, the same in both tools (each keeps its own session).
public enum AccountActions {
  /// Signs in with a provider token and prints who is signed in.
  ///
  /// An unknown account is an error (exit 3) that names the `signup` command.
  public static func signIn(
    provider: AuthProvider, token: String, connection: ToolConnection, output: ToolOutput
  ) async throws -> User {
    let trimmed = token.trimmingCharacters(in: .whitespacesAndNewlines)
    guard !trimmed.isEmpty else {
      throw ToolError("--token must not be empty", exitCode: .usage)
    }
    switch try await connection.repositories.auth.signIn(provider, trimmed) {
    case .signedIn(let session):
      let user = session.user
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

  /// Signs out (the server revokes the refresh token) and forgets the saved session.
  public static func signOut(connection: ToolConnection) async throws {
    guard case .signedIn(let user) = await connection.repositories.auth.currentState() else {
      StandardStreams.write("Not signed in on \(connection.server); nothing to do.")
      return
    }
    try await connection.repositories.auth.signOut()
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
