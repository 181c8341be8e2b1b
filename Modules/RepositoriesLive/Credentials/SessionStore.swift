import DTO
import Domain
import Foundation
import NetworkKit

/// What survives a relaunch: the tokens and a snapshot of the signed-in user, so the app can
/// show `SessionState.signedIn(user)` at once, without a network round trip.
public struct StoredSession: Hashable, Sendable {
  /// The access and refresh tokens.
  public var credentials: Credentials
  /// The signed-in user as last seen (refreshed from `GET /me` after launch); `nil` when only
  /// tokens were saved, e.g. by an ``NetworkKit/Authenticator`` used on its own.
  public var user: User?

  /// Creates a stored session.
  public init(credentials: Credentials, user: User?) {
    self.credentials = credentials
    self.user = user
  }
}

extension StoredSession: Codable {
  /// The format version written to disk; bump it when the layout changes.
  static let formatVersion = 1

  /// Reads the stored layout `{version, credentials, user}`; the user uses the wire format.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let version = try container.decode(Int.self, forKey: .version)
    guard version == Self.formatVersion else {
      throw DecodingError.dataCorruptedError(
        forKey: .version, in: container,
        debugDescription: "Stored session format \(version) is not \(Self.formatVersion).")
    }
    credentials = try container.decode(Credentials.self, forKey: .credentials)
    let wireUser = try container.decodeIfPresent(UserDTO.self, forKey: .user)
    do {
      user = try wireUser?.toDomain()
    } catch {
      throw DecodingError.dataCorruptedError(
        forKey: .user, in: container, debugDescription: error.description)
    }
  }

  /// Writes `{version, credentials, user}`.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(Self.formatVersion, forKey: .version)
    try container.encode(credentials, forKey: .credentials)
    try container.encode(user.map(UserDTO.init), forKey: .user)
  }

  enum CodingKeys: String, CodingKey {
    case version
    case credentials
    case user
  }

  /// The bytes a store writes: sorted keys, RFC 3339 dates.
  func encoded() throws(CredentialStoreError) -> Data {
    do {
      return try QappleCoding.makeEncoder().encode(self)
    } catch {
      throw .encodingFailed(String(describing: error))
    }
  }

  /// Reads bytes a store wrote; `location` names the file or item in the error.
  static func decoded(
    from data: Data, location: String
  ) throws(CredentialStoreError)
    -> StoredSession
  {
    do {
      return try DTODecoding.decode(StoredSession.self, from: data)
    } catch {
      throw .corrupted(location: location, reason: error.description)
    }
  }
}

/// A ``NetworkKit/CredentialStore`` that also keeps the signed-in user's snapshot.
///
/// The ``NetworkKit/Authenticator`` only knows credentials: it calls `save(_ credentials:)` after
/// every token refresh, and a session store must then replace the tokens and keep the user (or
/// store the tokens alone when no session is stored yet). `clear()` removes both. Sign-in
/// writes both at once with ``saveSession(_:)``.
public protocol SessionStore: CredentialStore {
  /// The stored session, or `nil` when nobody is signed in.
  func storedSession() async throws -> StoredSession?
  /// Replaces the tokens and the user snapshot together.
  func saveSession(_ session: StoredSession) async throws
  /// Replaces the user snapshot of the stored session only while it holds the tokens whose
  /// refresh token is `refreshToken`, in one step no other writer comes between (a snapshot
  /// on another session's tokens would pass that session for this user's); returns whether
  /// it did.
  func saveUser(_ user: User, onto refreshToken: String) async throws -> Bool
}

/// Why a credential store could not read or write.
public enum CredentialStoreError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The stored data is not a session this SDK can read. The data is left where it is (for
  /// support to inspect); signing in again replaces it.
  case corrupted(location: String, reason: String)
  /// The session could not be encoded.
  case encodingFailed(String)
  /// A file operation failed with `errno`.
  case fileSystem(operation: String, path: String, errno: Int32)
  /// The path exists but is not a regular file (a directory or a symbolic link).
  case notARegularFile(path: String)
  /// A Keychain call failed with this `OSStatus`.
  case keychain(operation: String, status: Int32)

  /// What went wrong and what to do.
  public var description: String {
    switch self {
    case .corrupted(let location, let reason):
      return "The saved session at \(location) is unreadable (\(reason)). It was left in place; "
        + "sign in again to replace it, or delete it."
    case .encodingFailed(let reason):
      return "The session could not be encoded for storage: \(reason)."
    case .fileSystem(let operation, let path, let code):
      return "Could not \(operation) \(path): \(String(cString: strerror(code))) (errno \(code)). "
        + "Check that the directory exists and is writable by this user."
    case .notARegularFile(let path):
      return "\(path) is not a regular file (a directory or a symbolic link?); the session is "
        + "never read through links. Remove it or choose another location."
    case .keychain(let operation, let status):
      return "The Keychain refused to \(operation) (OSStatus \(status)). If the device is "
        + "locked, try again after unlocking it."
    }
  }
}
