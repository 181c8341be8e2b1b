import NetworkKit

/// A `CredentialStore` that keeps credentials in memory only, for tests and previews;
/// credentials are gone when the process ends.
public actor InMemoryCredentialStore: CredentialStore {
  private var stored: Credentials?

  /// Creates a store, optionally already holding credentials.
  public init(_ credentials: Credentials? = nil) {
    self.stored = credentials
  }

  /// The stored credentials.
  public func credentials() -> Credentials? { stored }

  /// Replaces the stored credentials.
  public func save(_ credentials: Credentials) {
    stored = credentials
  }

  /// Removes the stored credentials.
  public func clear() {
    stored = nil
  }

  /// Replaces (or, given `nil`, removes) the credentials while `isExpected` holds for them, in
  /// one step on this actor; returns whether it did.
  public func swapCredentials(
    _ credentials: Credentials?, ifStored isExpected: @Sendable (Credentials?) -> Bool
  ) -> Bool {
    guard isExpected(stored) else { return false }
    stored = credentials
    return true
  }
}
