import Domain
import Foundation
import ServiceEngine

/// Data to load into a ``FakeBackend`` in one go: the engine's seed format (the demo data set
/// is one too). See `ServiceEngine.Seed`.
public typealias Seed = ServiceEngine.Seed
/// What seeding created, to find it again in tests.
public typealias SeededData = ServiceEngine.SeededData
/// A seed that refers to people or content it does not create.
public typealias SeedError = ServiceEngine.SeedError

extension FakeBackend {
  /// Loads `seed` through the engine's own operations (validating and notifying like the
  /// server), at past times relative to now; returns the new ids. A seed that fails loads
  /// nothing.
  @discardableResult
  public func seed(_ seed: Seed) throws -> SeededData {
    try engine.load(seed)
  }

  /// A new client signed in as the seeded or created user with `nickname`.
  public func client(forNickname nickname: String) throws -> FakeClient {
    guard let user = user(named: nickname) else { throw DomainError.notFound }
    return try client(signedInAs: user.id)
  }
}
