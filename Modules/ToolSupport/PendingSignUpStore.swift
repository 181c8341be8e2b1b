import Domain
import Foundation

/// A sign-up that waits for its e-mail code between two runs of `qapple signup`.
///
/// The server ties the code to the sign-up token of the first run, and every sign-in hands out a
/// new token, so the second run (`--code`) must reuse the first run's token.
public struct PendingSignUp: Codable, Hashable, Sendable {
  /// The dev provider token the sign-up is for.
  public var providerToken: String
  /// The address the code went to.
  public var email: String
  /// The server's sign-up token.
  public var signUpToken: String
  /// When the code expires.
  public var codeExpiresAt: Date
  /// The proof of the verified e-mail, kept once the code was accepted so a retry with another
  /// nickname does not need a new code.
  public var verificationToken: String?

  /// Creates a pending sign-up.
  public init(
    providerToken: String, email: String, signUpToken: String, codeExpiresAt: Date,
    verificationToken: String? = nil
  ) {
    self.providerToken = providerToken
    self.email = email
    self.signUpToken = signUpToken
    self.codeExpiresAt = codeExpiresAt
    self.verificationToken = verificationToken
  }

  enum CodingKeys: String, CodingKey {
    case providerToken = "provider_token"
    case email
    case signUpToken = "sign_up_token"
    case codeExpiresAt = "code_expires_at"
    case verificationToken = "verification_token"
  }
}

/// Keeps one ``PendingSignUp`` in a file readable by the owner only (`0600`).
public struct PendingSignUpStore: Sendable {
  /// The file.
  public let fileURL: URL

  /// Creates a store for `fileURL`.
  public init(fileURL: URL) {
    self.fileURL = fileURL
  }

  /// The pending sign-up, or `nil` when there is none.
  public func load() throws(ToolError) -> PendingSignUp? {
    guard FileManager.default.fileExists(atPath: fileURL.path) else { return nil }
    do {
      let data = try Data(contentsOf: fileURL)
      return try ToolJSON.makeDecoder().decode(PendingSignUp.self, from: data)
    } catch {
      throw ToolError(
        "the pending sign-up at \(fileURL.path) is unreadable; delete it and run "
          + "`qapple signup --token TOKEN --email EMAIL` again",
        exitCode: .failure)
    }
  }

  /// Replaces the pending sign-up.
  public func save(_ pending: PendingSignUp) throws(ToolError) {
    do {
      try DataDirectory.createPrivateDirectory(fileURL.deletingLastPathComponent())
      let data = try ToolJSON.makeEncoder().encode(pending)
      // Created empty with 0600 first, so the token is never readable by others.
      do {
        try PrivateFile.prepare(at: fileURL.path)
      } catch {
        throw ToolError(
          "cannot create \(fileURL.path); check that the data directory is writable",
          exitCode: .failure)
      }
      try FileManager.default.setAttributes(
        [.posixPermissions: 0o600], ofItemAtPath: fileURL.path)
      // A FileHandle made this way also closes itself if a write throws.
      let handle = try FileHandle(forWritingTo: fileURL)
      try handle.truncate(atOffset: 0)
      try handle.write(contentsOf: data)
      try handle.close()
    } catch let error as ToolError {
      throw error
    } catch {
      throw ToolError(
        "cannot save the pending sign-up to \(fileURL.path): \(error.localizedDescription)",
        exitCode: .failure)
    }
  }

  /// Forgets the pending sign-up.
  public func clear() throws(ToolError) {
    do {
      if FileManager.default.fileExists(atPath: fileURL.path) {
        try FileManager.default.removeItem(at: fileURL)
      }
    } catch {
      throw ToolError(
        "cannot delete \(fileURL.path): \(error.localizedDescription)", exitCode: .failure)
    }
  }
}
