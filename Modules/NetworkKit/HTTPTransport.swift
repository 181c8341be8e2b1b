import Foundation
import HTTPTypes

/// Moves one HTTP request over the wire and returns the complete response.
///
/// Transports do not look at status codes: a 500 is a successful transfer. They map their own
/// failures to ``NetworkError`` (`.offline`, `.timeout`, `.cancelled`, `.transport`) and stop the
/// transfer when the calling task is cancelled.
public protocol HTTPTransport: Sendable {
  /// Sends `request` with `body` and waits at most `timeout` for the response.
  func send(
    _ request: HTTPRequest, body: Data?, timeout: Duration
  ) async throws(NetworkError) -> (
    HTTPResponse, Data
  )
}

/// The transports that ship with NetworkKit.
public enum HTTPTransports {
  /// The best transport for the platform: AsyncHTTPClient on Linux, URLSession elsewhere.
  public static var platformDefault: any HTTPTransport {
    #if canImport(AsyncHTTPClient)
    AsyncHTTPClientTransport.shared
    #else
    URLSessionTransport.shared
    #endif
  }

  /// A URLSession-based transport shared by everyone who does not need their own session.
  public static var urlSession: any HTTPTransport { URLSessionTransport.shared }
}

extension HTTPRequest {
  /// The absolute URL the request points at, e.g. for URLSession or logs.
  public var absoluteURL: URL? {
    guard let scheme, let authority else { return nil }
    return URL(string: "\(scheme)://\(authority)\(path ?? "/")")
  }
}

extension Duration {
  /// The duration in seconds as a floating-point number.
  var timeInterval: TimeInterval {
    let (seconds, attoseconds) = components
    return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
  }

  /// `seconds` as a duration, to the nanosecond: zero for a negative or non-finite number, and
  /// at most 9·10⁹ s (about 285 years), so no value (a server's `Retry-After` in the year 9999)
  /// can trap the conversion.
  static func clamped(seconds: TimeInterval) -> Duration {
    guard seconds.isFinite, seconds > 0 else { return .zero }
    return .nanoseconds(Int64((min(seconds, 9e9) * 1e9).rounded()))
  }
}

/// The total deadline of a transfer passed before the response was complete.
struct TransportDeadlineExceeded: Error {}

/// Runs `operation`, cancelling it and throwing `TransportDeadlineExceeded` when `timeout` passes
/// first. Transports use it so their timeout covers the whole exchange, body included.
func withTransportDeadline<Value: Sendable>(
  _ timeout: Duration, operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
  try await withThrowingTaskGroup(of: Value.self) { group in
    group.addTask(operation: operation)
    group.addTask {
      try await Task.sleep(for: timeout)
      throw TransportDeadlineExceeded()
    }
    defer { group.cancelAll() }
    guard let value = try await group.next() else { throw TransportDeadlineExceeded() }
    return value
  }
}

/// Whether a SwiftNIO error means no connection could be made at all (DNS failure, refused
/// connection, no route), for the Linux transports. NIO's errors are recognised by type name and
/// description so this module need not import NIO; `NIOConnectionError` is NIO's "could not
/// connect to any address".
func isUnreachableError(_ error: any Error) -> Bool {
  let typeName = String(reflecting: type(of: error))
  let description = String(describing: error).lowercased()
  let unreachable = [
    "connection refused", "network is unreachable", "no route to host", "host is down",
  ]
  return typeName.hasSuffix("NIOConnectionError")
    || unreachable.contains(where: description.contains)
}
