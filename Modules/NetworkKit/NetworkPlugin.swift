import Foundation
import HTTPTypes

/// Hooks into every exchange a ``NetworkProvider`` makes: logging, metrics, signing, headers.
///
/// The provider calls the hooks once per attempt, in array order: `prepare` (may change the
/// request), `willSend` just before the transport runs, and `didReceive` with the transport's
/// outcome. A response with any status, 500 included, arrives as `.success`; `.failure` means no
/// response came back (offline, timeout, cancelled). Every hook has a default that does nothing.
public protocol NetworkPlugin: Sendable {
  /// Returns the request to send, e.g. with an added header; runs after authentication.
  func prepare(
    _ request: HTTPRequest, body: Data?, target: any TargetType
  ) async throws(NetworkError)
    -> HTTPRequest

  /// Called right before the request goes to the transport.
  func willSend(_ request: HTTPRequest, body: Data?, target: any TargetType) async

  /// Called with the transport's outcome and how long the exchange took.
  func didReceive(
    _ result: Result<NetworkResponse, NetworkError>,
    for request: HTTPRequest,
    target: any TargetType,
    duration: Duration
  ) async
}

extension NetworkPlugin {
  /// Leaves the request unchanged.
  public func prepare(
    _ request: HTTPRequest, body: Data?, target: any TargetType
  )
    async throws(NetworkError) -> HTTPRequest
  {
    request
  }

  /// Does nothing.
  public func willSend(_ request: HTTPRequest, body: Data?, target: any TargetType) async {}

  /// Does nothing.
  public func didReceive(
    _ result: Result<NetworkResponse, NetworkError>,
    for request: HTTPRequest,
    target: any TargetType,
    duration: Duration
  ) async {}
}

/// A plugin that sets header fields on every request, e.g. `User-Agent` or `Accept-Language`.
public struct HeaderPlugin: NetworkPlugin {
  /// The fields to set; they replace fields of the same name.
  public var fields: HTTPFields

  /// Creates a plugin that sets `fields`.
  public init(_ fields: HTTPFields) {
    self.fields = fields
  }

  /// Sets the fields on the request.
  public func prepare(
    _ request: HTTPRequest, body: Data?, target: any TargetType
  )
    async throws(NetworkError) -> HTTPRequest
  {
    var request = request
    for name in Set(fields.map(\.name)) {
      request.headerFields[values: name] = fields[values: name]
    }
    return request
  }
}
