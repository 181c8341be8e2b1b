import Foundation
import HTTPTypes
import Primitives

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An ``HTTPTransport`` on `URLSession`, available on every platform.
///
/// On Linux `URLSession` runs on libcurl; ``AsyncHTTPClientTransport`` is faster there. Note that
/// URLSession's timeout is an idle timeout: it fires when no bytes arrive for `timeout`.
public final class URLSessionTransport: HTTPTransport {
  /// A transport on an ephemeral session without cookies or caching.
  public static let shared = URLSessionTransport()

  private let session: URLSession

  /// Creates a transport on `session`.
  public init(session: URLSession) {
    self.session = session
  }

  /// Creates a transport on an ephemeral session that stores no cookies and caches nothing, so
  /// authentication stays under the provider's control.
  public convenience init() {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpCookieStorage = nil
    configuration.httpShouldSetCookies = false
    configuration.urlCache = nil
    configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
    self.init(session: URLSession(configuration: configuration))
  }

  /// Sends the request on the session; cancelling the task cancels the data task.
  public func send(
    _ request: HTTPRequest, body: Data?, timeout: Duration
  ) async throws(NetworkError)
    -> (HTTPResponse, Data)
  {
    let urlRequest = try Self.urlRequest(for: request, body: body, timeout: timeout)
    let session = self.session
    do {
      // URLSession's own timeout is an idle timeout (and libcurl rounds it to whole seconds), so
      // the transfer also runs against a total deadline.
      let (data, response) = try await withTransportDeadline(timeout) {
        try await Self.data(for: urlRequest, in: session)
      }
      guard let httpResponse = response as? HTTPURLResponse else {
        throw NetworkError.transport("The server's answer is not an HTTP response.")
      }
      return (Self.response(from: httpResponse), data)
    } catch let error as NetworkError {
      throw error
    } catch is TransportDeadlineExceeded {
      throw .timeout
    } catch {
      if Task.isCancelled { throw .cancelled }
      throw Self.networkError(from: error)
    }
  }

  /// Runs a data task; cancelling the calling task cancels the data task.
  private static func data(
    for request: URLRequest, in session: URLSession
  ) async throws -> (
    Data, URLResponse
  ) {
    let handle = DataTaskHandle()
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { continuation in
        let task = session.dataTask(with: request) { data, response, error in
          if let error {
            continuation.resume(throwing: error)
          } else if let response {
            continuation.resume(returning: (data ?? Data(), response))
          } else {
            continuation.resume(throwing: URLError(.badServerResponse))
          }
        }
        handle.start(task)
      }
    } onCancel: {
      handle.cancel()
    }
  }

  static func urlRequest(
    for request: HTTPRequest, body: Data?, timeout: Duration
  )
    throws(NetworkError) -> URLRequest
  {
    guard let url = request.absoluteURL else {
      throw .invalidRequest("the request has no valid absolute URL")
    }
    var urlRequest = URLRequest(url: url, timeoutInterval: timeout.timeInterval)
    urlRequest.httpMethod = request.method.rawValue
    for field in request.headerFields {
      urlRequest.addValue(field.value, forHTTPHeaderField: field.name.rawName)
    }
    urlRequest.httpBody = body
    return urlRequest
  }

  static func response(from response: HTTPURLResponse) -> HTTPResponse {
    var fields = HTTPFields()
    for (key, value) in response.allHeaderFields {
      guard let name = (key as? String).flatMap({ HTTPField.Name($0) }) else { continue }
      fields.append(HTTPField(name: name, value: "\(value)"))
    }
    return HTTPResponse(status: .init(code: response.statusCode), headerFields: fields)
  }

  /// Maps URLSession's errors to the provider's vocabulary.
  static func networkError(from error: any Error) -> NetworkError {
    guard let urlError = error as? URLError else {
      return .transport(String(describing: error))
    }
    switch urlError.code {
    case .cancelled:
      return .cancelled
    case .timedOut:
      return .timeout
    case .notConnectedToInternet, .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed,
      .internationalRoamingOff, .dataNotAllowed, .callIsActive:
      return .offline
    default:
      return .transport(urlError.localizedDescription)
    }
  }
}

/// Holds the data task so the cancellation handler, which may run first, can cancel it.
private final class DataTaskHandle: Sendable {
  // The cancellation handler and the start call race.
  private let state = Locked<(task: URLSessionDataTask?, isCancelled: Bool)>((nil, false))

  func start(_ task: URLSessionDataTask) {
    let cancelled = state.withLock {
      $0.task = task
      return $0.isCancelled
    }
    task.resume()
    if cancelled { task.cancel() }
  }

  func cancel() {
    let task = state.withLock {
      $0.isCancelled = true
      return $0.task
    }
    task?.cancel()
  }
}
