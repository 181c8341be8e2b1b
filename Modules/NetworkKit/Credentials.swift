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
/// The ``Authenticator`` reads the store once and writes every change through. Other processes
/// may share the store (two command-line tools on one session file): before a refresh it holds
/// them off with ``holdRefreshes()`` and looks at what they stored (``Authenticator/Replacement``).
public protocol CredentialStore: Sendable {
  /// The stored credentials, or `nil` when nobody is signed in.
  func credentials() async throws -> Credentials?
  /// Replaces the stored credentials.
  func save(_ credentials: Credentials) async throws
  /// Removes the stored credentials.
  func clear() async throws
  /// Replaces the stored credentials with `credentials` (`nil`: removes them) only while
  /// `isExpected` holds for what the store holds (`nil` when it is empty), in one step that no
  /// other writer comes between; a store that cannot be read counts as expected (a removal
  /// empties it; a store may refuse to write tokens over it, as a file store keeps a corrupt
  /// file for a sign-in to replace). Returns whether it wrote. The ``Authenticator`` saves a
  /// refreshed pair and clears an ended session this way, so it never replaces what another
  /// process sharing the store signed in with meanwhile.
  ///
  /// The default reads, then writes: enough for a store that one process uses.
  func swapCredentials(
    _ credentials: Credentials?, ifStored isExpected: @Sendable (Credentials?) -> Bool
  ) async throws -> Bool
  /// Waits until no other process sharing the store refreshes its tokens, then keeps the others
  /// waiting until the returned function is called: a refresh reads the stored pair, spends
  /// its refresh token and saves the next pair, and two of those at once spend one token twice.
  /// `nil` when the store has no such lock; the default, for a store one process uses.
  ///
  /// - Throws: when another process held the lock too long; the refresh fails for now
  ///   (``NetworkError/timeout``) rather than spend the token that process may be spending.
  func holdRefreshes() async throws -> (@Sendable () -> Void)?
}

extension CredentialStore {
  /// No lock: a store that one process uses needs none.
  public func holdRefreshes() async throws -> (@Sendable () -> Void)? { nil }

  /// Reads, then writes (another process could write in between: for a store one process uses).
  public func swapCredentials(
    _ credentials: Credentials?, ifStored isExpected: @Sendable (Credentials?) -> Bool
  ) async throws -> Bool {
    do {
      guard isExpected(try await self.credentials()) else { return false }
    } catch {
      // A store that cannot be read is replaced.
    }
    if let credentials { try await save(credentials) } else { try await clear() }
    return true
  }
}
