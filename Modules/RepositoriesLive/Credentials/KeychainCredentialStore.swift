import Domain
import Foundation
import Logging
import NetworkKit

#if canImport(Security)
import Security

/// A ``SessionStore`` that keeps the session in the Keychain as one generic-password item
/// (`service` + `account`), readable after the first unlock and never synced to other devices.
public actor KeychainCredentialStore: SessionStore {
  /// The item's service (`kSecAttrService`).
  public nonisolated let service: String
  /// The item's account (`kSecAttrAccount`).
  public nonisolated let account: String
  /// The Keychain access group shared with app extensions, if any.
  public nonisolated let accessGroup: String?

  /// Creates a store for the item `service`/`account`.
  public init(service: String = "qapple", account: String = "default", accessGroup: String? = nil) {
    self.service = service
    self.account = account
    self.accessGroup = accessGroup
  }

  // MARK: - SessionStore

  /// The stored session, or `nil` when there is no item.
  public func storedSession() throws(CredentialStoreError) -> StoredSession? {
    guard let data = try readItem() else { return nil }
    return try StoredSession.decoded(from: data, location: "Keychain item \(service)/\(account)")
  }

  /// Replaces the item with `session`.
  public func saveSession(_ session: StoredSession) throws(CredentialStoreError) {
    try writeItem(try session.encoded())
  }

  /// Replaces the user snapshot while the stored tokens are those of `refreshToken`; returns
  /// whether it did.
  public func saveUser(
    _ user: User, onto refreshToken: String
  ) throws(CredentialStoreError)
    -> Bool
  {
    guard var session = try storedSession(), session.credentials.refreshToken == refreshToken
    else { return false }
    session.user = user
    try saveSession(session)
    return true
  }

  // MARK: - CredentialStore

  /// The stored tokens.
  public func credentials() throws(CredentialStoreError) -> Credentials? {
    try storedSession()?.credentials
  }

  /// Replaces the tokens and keeps the user snapshot.
  public func save(_ credentials: Credentials) throws(CredentialStoreError) {
    let user = try storedSession()?.user
    try saveSession(StoredSession(credentials: credentials, user: user))
  }

  /// Replaces the tokens (keeping the user snapshot) or, given `nil`, deletes the item, while
  /// `isExpected` holds for the stored tokens: read and written in one step on this actor
  /// (an item that cannot be read counts as expected). Returns whether it wrote.
  public func swapCredentials(
    _ credentials: Credentials?, ifStored isExpected: @Sendable (Credentials?) -> Bool
  ) throws(CredentialStoreError) -> Bool {
    var user: User?
    do {
      let stored = try storedSession()
      guard isExpected(stored?.credentials) else { return false }
      user = stored?.user
    } catch {
      // Unreadable: replaced.
    }
    if let credentials {
      try saveSession(StoredSession(credentials: credentials, user: user))
    } else {
      try clear()
    }
    return true
  }

  /// Deletes the item.
  public func clear() throws(CredentialStoreError) {
    let status = SecItemDelete(baseQuery() as CFDictionary)
    guard status == errSecSuccess || status == errSecItemNotFound else {
      throw .keychain(operation: "delete the session", status: status)
    }
  }

  // MARK: - Keychain

  private func baseQuery() -> [String: Any] {
    var query: [String: Any] = [
      kSecClass as String: kSecClassGenericPassword,
      kSecAttrService as String: service,
      kSecAttrAccount as String: account,
    ]
    if let accessGroup { query[kSecAttrAccessGroup as String] = accessGroup }
    return query
  }

  private func readItem() throws(CredentialStoreError) -> Data? {
    var query = baseQuery()
    query[kSecReturnData as String] = true
    query[kSecMatchLimit as String] = kSecMatchLimitOne
    var result: CFTypeRef?
    let status = SecItemCopyMatching(query as CFDictionary, &result)
    switch status {
    case errSecSuccess:
      guard let data = result as? Data else {
        throw .corrupted(
          location: "Keychain item \(service)/\(account)", reason: "the item holds no data")
      }
      return data
    case errSecItemNotFound:
      return nil
    default:
      throw .keychain(operation: "read the session", status: status)
    }
  }

  private func writeItem(_ data: Data) throws(CredentialStoreError) {
    let update: [String: Any] = [kSecValueData as String: data]
    let status = SecItemUpdate(baseQuery() as CFDictionary, update as CFDictionary)
    if status == errSecSuccess { return }
    guard status == errSecItemNotFound else {
      throw .keychain(operation: "update the session", status: status)
    }
    var item = baseQuery()
    item[kSecValueData as String] = data
    item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
    let added = SecItemAdd(item as CFDictionary, nil)
    guard added == errSecSuccess else {
      throw .keychain(operation: "save the session", status: added)
    }
  }
}

/// The credential store of this platform: the Keychain.
public typealias PlatformCredentialStore = KeychainCredentialStore

extension CredentialStore where Self == KeychainCredentialStore {
  /// The Keychain item `service`/`account`.
  public static func platformDefault(
    service: String = "qapple", account: String = "default", logger: Logger? = nil
  ) -> KeychainCredentialStore {
    KeychainCredentialStore(service: service, account: account)
  }
}
#else

/// The credential store of this platform: a `0600` file (there is no Keychain).
public typealias PlatformCredentialStore = FileCredentialStore

extension CredentialStore where Self == FileCredentialStore {
  /// The file ``FileCredentialStore/defaultFileURL(service:account:)``.
  public static func platformDefault(
    service: String = "qapple", account: String = "default", logger: Logger? = nil
  ) -> FileCredentialStore {
    FileCredentialStore(service: service, account: account, logger: logger)
  }
}
#endif
