import Foundation

/// The tokens of a signed-in user.
public struct Credentials: Sendable, Hashable, Codable {
  /// The short-lived token sent as `Authorization: Bearer <accessToken>`.
  public var accessToken: String
  /// The long-lived token that buys a new access token.
  public var refreshToken: String
  /// When the access token expires, if the server said.
  public var expiresAt: Date?

  /// Creates credentials.
  public init(accessToken: String, refreshToken: String, expiresAt: Date? = nil) {
    self.accessToken = accessToken
    self.refreshToken = refreshToken
    self.expiresAt = expiresAt
  }
}

extension Credentials: CustomStringConvertible {
  /// A description that never shows the tokens, so credentials can be logged safely.
  public var description: String {
    "Credentials(accessToken: <redacted>, refreshToken: <redacted>, expiresAt: "
      + "\(expiresAt.map { "\($0)" } ?? "unknown"))"
  }
}

extension Credentials: CustomDebugStringConvertible {
  /// The same token-free description as `description`.
  public var debugDescription: String { description }
}

/// Where credentials live between launches (Keychain, a file, memory).
///
/// The ``Authenticator`` reads the store once and writes every change through, so it is the only
/// writer while it runs.
public protocol CredentialStore: Sendable {
  /// The stored credentials, or `nil` when nobody is signed in.
  func credentials() async throws -> Credentials?
  /// Replaces the stored credentials.
  func save(_ credentials: Credentials) async throws
  /// Removes the stored credentials.
  func clear() async throws
}
