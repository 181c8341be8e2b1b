import DTO
import Domain
import Endpoints
import Foundation
import HTTPTypes
import Logging
import NetworkKit

/// Performs Qapple routes through the shared provider and hands back Domain values or a
/// ``Domain/DomainError``: the one place where requests, decoding, mapping and error
/// translation meet, so every repository endpoint behaves the same.
struct APIClient: Sendable {
  let provider: NetworkProvider
  let logger: Logger
  let now: @Sendable () -> Date
  /// Told about failures that end the session (revoked refresh token, 401 after refresh) and
  /// the session the call started in, so the session state follows before the caller sees the
  /// error.
  var onSessionEnded: (@Sendable (NetworkError, SessionGeneration?) async -> Void)?
  /// The session every call of this client runs in (``bound(to:)``); `nil`: each call's own.
  private(set) var binding: SessionBinding?

  private let decoder = DecoderBox()

  init(
    provider: NetworkProvider, logger: Logger,
    now: @escaping @Sendable () -> Date,
    onSessionEnded: (@Sendable (NetworkError, SessionGeneration?) async -> Void)? = nil
  ) {
    self.provider = provider
    self.logger = logger
    self.now = now
    self.onSessionEnded = onSessionEnded
  }

  /// This client with every call bound to `binding`'s session (a chat engine's calls).
  func bound(to binding: SessionBinding) -> APIClient {
    var client = self
    client.binding = binding
    return client
  }

  /// Performs `route`, decodes `Wire` and maps it to its Domain value.
  ///
  /// - Parameter session: The session the call must run in (``NetworkError/sessionEnded``
  ///   otherwise), or `nil` for the current one.
  func fetch<Wire: Decodable & DomainConvertible>(
    _ route: some APITarget, as wire: Wire.Type, in session: SessionGeneration? = nil
  ) async throws -> Wire.DomainValue {
    try await fetch(route, as: wire, in: session) { value throws(MappingError) in
      try value.toDomain()
    }
  }

  /// Performs `route`, decodes `Wire` and maps it with `transform`.
  func fetch<Wire: Decodable, Value>(
    _ route: some APITarget, as wire: Wire.Type, in session: SessionGeneration? = nil,
    _ transform: (Wire) throws(MappingError) -> Value
  ) async throws -> Value {
    let response = try await perform(route, in: session)
    // Only a DELETE the retry policy counted as done gets here with another status (404/410
    // after an attempt that may have been delivered): for a route that answers a value, such
    // as an unlike, that says the target is gone, and its error body holds no value.
    guard route.acceptedStatusCodes.contains(response.response.status.code) else {
      throw DomainError.notFound
    }
    let decoded: Wire
    do {
      decoded = try DTODecoding.decode(Wire.self, from: response.body, using: decoder.decoder)
    } catch {
      logger.error(
        "undecodable response",
        metadata: ["operation": "\(route.operation.id)", "error": "\(error)"]
      )
      throw LiveErrorMapping.domainError(for: error, operation: route.operation.id)
    }
    do {
      return try transform(decoded)
    } catch {
      logger.error(
        "unmappable response",
        metadata: ["operation": "\(route.operation.id)", "error": "\(error)"])
      throw LiveErrorMapping.domainError(for: error, operation: route.operation.id)
    }
  }

  /// Performs a list `route` and maps every item. An item that names an enumeration value
  /// this SDK does not know (a kind or status a newer server added: the contract lets
  /// enumerations grow) is left out and logged, so one new value does not cost the user the
  /// whole list; any other broken item fails the page, naming `items[i]`, because a silently
  /// shorter page would hide a server bug.
  func fetchPage<Item: Codable & DomainConvertible>(
    _ route: some APITarget, of item: Item.Type
  ) async throws -> Page<Item.DomainValue> {
    let logger = logger
    return try await fetch(route, as: PageDTO<Item>.self) { page throws(MappingError) in
      let lenient = try page.compactToDomain()
      for error in lenient.dropped {
        guard case .unknownValue = error.problem else { throw error }
      }
      for error in lenient.dropped {
        logger.warning(
          "left out a list item this SDK version cannot show",
          metadata: ["operation": "\(route.operation.id)", "error": "\(error)"])
      }
      return lenient.page
    }
  }

  /// Performs `route` whose answer has no body worth reading (`204`).
  func send(_ route: some APITarget) async throws {
    _ = try await perform(route)
  }

  /// Performs `route` (within `boundSession` when given); failures become `DomainError` (or
  /// `CancellationError`).
  func perform(
    _ route: some APITarget, in boundSession: SessionGeneration? = nil
  ) async throws -> NetworkResponse {
    // The session the call runs in (the current one unless bound): a failure may end only
    // this session, never a later one.
    var session = boundSession
    let result: Result<NetworkResponse, NetworkError>
    do throws(NetworkError) {
      if session == nil, let binding { session = try await binding.session() }
      if session == nil { session = await provider.authenticator?.currentSession }
      if let session {
        result = .success(try await provider.response(route, in: session))
      } else {
        result = .success(try await provider.response(route))
      }
    } catch {
      result = .failure(error)
    }
    switch result {
    case .success(let response):
      return response
    case .failure(.cancelled):
      throw CancellationError()
    case .failure(let error):
      switch error {
      case .sessionRevoked, .unauthorized, .notSignedIn:
        await onSessionEnded?(error, session)
      default:
        break
      }
      let mapped = LiveErrorMapping.domainError(
        for: error, now: now(), operation: route.operation.id)
      logger.debug(
        "request failed",
        metadata: [
          "operation": "\(route.operation.id)", "error": "\(error)", "mapped": "\(mapped)",
        ])
      throw mapped
    }
  }
}

/// JSON decoders are safe to share once configured, but not every SDK marks them `Sendable`.
private final class DecoderBox: @unchecked Sendable {
  let decoder = QappleCoding.makeDecoder()
}

/// Runs a Domain rule, turning its `ValidationError` into `DomainError.validation`.
func validate<T>(_ rule: () throws(ValidationError) -> T) throws(DomainError) -> T {
  do {
    return try rule()
  } catch {
    throw .validation(error)
  }
}
