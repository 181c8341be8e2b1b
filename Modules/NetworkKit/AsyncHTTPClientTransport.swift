#if canImport(AsyncHTTPClient)
import AsyncHTTPClient
import Foundation
import HTTPTypes

/// An ``HTTPTransport`` on AsyncHTTPClient, the default on Linux (about twice as fast as
/// URLSession on loopback).
///
/// The timeout covers the whole exchange, body included. Cancelling the calling task cancels the
/// transfer and closes its connection.
public final class AsyncHTTPClientTransport: HTTPTransport {
  /// A transport on a process-wide client that lives as long as the process.
  public static let shared = AsyncHTTPClientTransport(
    client: HTTPClient(
      eventLoopGroup: HTTPClient.defaultEventLoopGroup,
      configuration: defaultConfiguration
    )
  )

  /// The configuration of ``shared``: redirects followed, decompression on, no connection
  /// retries inside AsyncHTTPClient (a refused connection fails at once as
  /// ``NetworkError/offline`` and the provider's ``RetryPolicy`` decides what happens next), and
  /// no connect timeout shorter than the provider's own.
  public static var defaultConfiguration: HTTPClient.Configuration {
    var configuration = HTTPClient.Configuration(
      redirectConfiguration: .follow(max: 10, allowCycles: false),
      decompression: .enabled(limit: .ratio(25))
    )
    configuration.connectionPool.retryConnectionEstablishment = false
    // The provider's timeout bounds each attempt, connecting included (the request deadline);
    // AsyncHTTPClient's own 10-second connect default would cut a slow connect shorter than
    // the caller asked for (seen on a machine whose cores were busy with the whole test suite).
    configuration.timeout.connect = .seconds(120)
    return configuration
  }

  private let client: HTTPClient
  private let ownsClient: Bool
  private let maximumBodySize: Int

  /// Creates a transport on a client that the caller owns and shuts down.
  public init(client: HTTPClient, maximumBodySize: Int = 64 * 1024 * 1024) {
    self.client = client
    self.ownsClient = false
    self.maximumBodySize = maximumBodySize
  }

  /// Creates a transport that owns a new client; call ``shutdown()`` when done with it.
  public init(
    configuration: HTTPClient.Configuration = defaultConfiguration,
    maximumBodySize: Int = 64 * 1024 * 1024
  ) {
    self.client = HTTPClient(
      eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    self.ownsClient = true
    self.maximumBodySize = maximumBodySize
  }

  /// Shuts down the client if this transport created it; a caller-owned client is left alone.
  public func shutdown() async throws {
    if ownsClient { try await client.shutdown() }
  }

  /// Sends the request; the timeout bounds the head and the body together.
  public func send(
    _ request: HTTPRequest, body: Data?, timeout: Duration
  ) async throws(NetworkError)
    -> (HTTPResponse, Data)
  {
    guard let url = request.absoluteURL else {
      throw .invalidRequest("the request has no valid absolute URL")
    }
    var clientRequest = HTTPClientRequest(url: url.absoluteString)
    clientRequest.method = .init(rawValue: request.method.rawValue)
    for field in request.headerFields {
      clientRequest.headers.add(name: field.name.rawName, value: field.value)
    }
    if let body { clientRequest.body = .bytes(body) }

    let client = self.client
    let preparedRequest = clientRequest
    let maximumBodySize = self.maximumBodySize
    let nanoseconds = Int64(min(timeout.timeInterval * 1e9, Double(Int64.max / 2)))
    do {
      // AsyncHTTPClient's deadline ends when the head arrives, so the body is raced against the
      // same deadline to keep the timeout total.
      return try await withTransportDeadline(timeout) {
        let response = try await client.execute(preparedRequest, timeout: .nanoseconds(nanoseconds))
        let buffer = try await response.body.collect(upTo: maximumBodySize)
        var fields = HTTPFields()
        for (name, value) in response.headers {
          guard let fieldName = HTTPField.Name(name) else { continue }
          fields.append(HTTPField(name: fieldName, value: value))
        }
        let head = HTTPResponse(
          status: .init(code: Int(response.status.code)), headerFields: fields)
        return (head, Data(buffer.readableBytesView))
      }
    } catch {
      if Task.isCancelled { throw .cancelled }
      throw Self.networkError(from: error)
    }
  }

  /// Maps AsyncHTTPClient and SwiftNIO errors to the provider's vocabulary.
  static func networkError(from error: any Error) -> NetworkError {
    switch error {
    case is TransportDeadlineExceeded:
      return .timeout
    case is CancellationError:
      return .cancelled
    case let error as HTTPClientError:
      switch error {
      case .deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout,
        .getConnectionFromPoolTimeout:
        return .timeout
      case .cancelled:
        return .cancelled
      default:
        return .transport(error.description)
      }
    default:
      return isUnreachableError(error) ? .offline : .transport(String(describing: error))
    }
  }
}
#endif
