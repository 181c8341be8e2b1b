import Foundation
import HTTPTypes

/// Everything that can go wrong when a ``NetworkProvider`` performs a request.
///
/// Each case says what happened and, through `errorDescription`, what the caller can do about it.
public enum NetworkError: Error, Sendable, Hashable {
  /// The device is offline or the server cannot be reached (DNS failure, connection refused).
  case offline
  /// The transfer failed for another transport reason (connection reset, TLS failure, ...).
  case transport(String)
  /// No complete response arrived within the timeout.
  case timeout
  /// The Swift task that made the request was cancelled.
  case cancelled
  /// The server answered with a status the target does not accept: the status, the headers,
  /// the raw body (e.g. a proxy's HTML error page) and the server's error when the provider's
  /// ``ErrorBodyDecoder`` understood the body.
  case status(HTTPFailure)
  /// The response body did not decode as the expected type.
  case decoding(type: String, codingPath: String, description: String)
  /// The server still answered 401 after the access token was refreshed.
  case unauthorized
  /// A target needs a bearer token but nobody is signed in.
  case notSignedIn
  /// The refresh token was rejected (revoked or expired); the credentials were cleared.
  case sessionRevoked
  /// The session a request was sent in ended (signed out, or someone else signed in) before
  /// the request finished; it was not sent again with the new session's token.
  case sessionEnded
  /// More token refreshes were requested than the authenticator allows in its time window.
  case refreshRateLimited
  /// Reading or writing the ``CredentialStore`` failed.
  case credentialStorage(String)
  /// The request could not be built (e.g. its JSON body failed to encode).
  case invalidRequest(String)
  /// A stub transport (NetworkKitTesting's `StubTransport`) received a request that no test
  /// registered a stub for.
  case notStubbed(method: String, path: String)
}

extension NetworkError {
  /// The HTTP status code for `.status` errors, `nil` otherwise.
  public var statusCode: Int? {
    if case .status(let failure) = self { return failure.status }
    return nil
  }

  /// The decoded server error for `.status` errors whose body the provider's
  /// ``ErrorBodyDecoder`` understood.
  public var serverError: ServerError? {
    if case .status(let failure) = self { return failure.serverError }
    return nil
  }

  /// A `.status` error (tests and transports that build one by hand).
  public static func status(
    code: Int, error: ServerError? = nil, body: Data = Data(), headers: HTTPFields = [:]
  ) -> NetworkError {
    .status(HTTPFailure(status: code, headers: headers, body: body, serverError: error))
  }
}

extension NetworkError: LocalizedError {
  /// A sentence that says what went wrong and what to do next.
  public var errorDescription: String? { description }
}

extension NetworkError: CustomStringConvertible {
  /// A sentence that says what went wrong and what to do next.
  public var description: String {
    switch self {
    case .offline:
      return "The server could not be reached. Check the network connection and try again."
    case .transport(let message):
      return
        "The connection failed (\(message)). Try again; if it keeps failing, check the network."
    case .timeout:
      return "The server did not answer in time. Try again later or raise the provider's timeout."
    case .cancelled:
      return "The request was cancelled before it finished."
    case .status(let failure):
      if let error = failure.serverError {
        let field = error.field.map { " (field: \($0))" } ?? ""
        return "The server refused the request with status \(failure.status): \(error.code): "
          + "\(error.message)\(field)."
      }
      return "The server answered with status \(failure.status) and a body that is not an error "
        + "envelope (\(failure.body.count) bytes). Inspect the body or the server logs."
    case .decoding(let type, let codingPath, let description):
      let path = codingPath.isEmpty ? "the top level" : "'\(codingPath)'"
      return "The response could not be decoded as \(type) at \(path): \(description). "
        + "The client and server disagree about the schema; update the model or the server."
    case .unauthorized:
      return "The server rejected the access token even after refreshing it. Sign in again."
    case .notSignedIn:
      return "This request needs a signed-in user. Sign in first."
    case .sessionRevoked:
      return "The session was revoked or has expired and the user was signed out. Sign in again."
    case .sessionEnded:
      return "The session that sent this request ended (sign-out or another sign-in) before it "
        + "finished, so it was not sent again for the new session. Send it again if still wanted."
    case .refreshRateLimited:
      return "The access token was refreshed too many times in a short period, so no refresh was "
        + "attempted. Wait a moment and try again; check the server's clock and token lifetime."
    case .credentialStorage(let message):
      return "The saved credentials could not be read or written (\(message)). Check the "
        + "credential store (e.g. Keychain access); signing in again may be needed."
    case .invalidRequest(let reason):
      return "The request could not be built: \(reason). Fix the target's parameters."
    case .notStubbed(let method, let path):
      return "No stub is registered for \(method) \(path). Register one on the StubTransport."
    }
  }
}

/// An error the server described in its body: a code, a message and the field at fault. How
/// such a body looks is the API's business: an ``ErrorBodyDecoder`` given to the provider reads it.
public struct ServerError: Sendable, Hashable, Codable {
  /// A stable machine-readable code such as `nickname_taken`.
  public var code: String
  /// A human-readable explanation.
  public var message: String
  /// The request field the error refers to, if any.
  public var field: String?

  /// Creates a server error.
  public init(code: String, message: String, field: String? = nil) {
    self.code = code
    self.message = message
    self.field = field
  }
}

/// A response with a status the target does not accept: everything the server said.
public struct HTTPFailure: Sendable, Hashable {
  /// The status code.
  public var status: Int
  /// The response's header fields (`Retry-After`, `WWW-Authenticate`, ...).
  public var headers: HTTPFields
  /// The response body.
  public var body: Data
  /// The server's error, when the provider's ``ErrorBodyDecoder`` understood the body.
  public var serverError: ServerError?

  /// Creates a failure.
  public init(
    status: Int, headers: HTTPFields = [:], body: Data = Data(), serverError: ServerError?
  ) {
    self.status = status
    self.headers = headers
    self.body = body
    self.serverError = serverError
  }

  /// The wait `Retry-After` asks for (seconds or an HTTP date, relative to `now`), if any.
  public func retryAfter(now: Date) -> Duration? {
    headers[.retryAfter].flatMap { RetryPolicy.parseRetryAfter($0, now: now) }
  }
}

/// Reads the server's error out of a failed response's body. NetworkKit knows no error shape of
/// its own: the SDK that defines the API configures this on the provider.
public struct ErrorBodyDecoder: Sendable {
  private let decode: @Sendable (Data) -> ServerError?

  /// A decoder from a closure; it returns `nil` for bodies of another shape.
  public init(_ decode: @escaping @Sendable (Data) -> ServerError?) {
    self.decode = decode
  }

  /// Understands no body: failures keep only status, headers and bytes.
  public static let none = ErrorBodyDecoder { _ in nil }

  /// The server error in `body`, or `nil`.
  public func serverError(in body: Data) -> ServerError? {
    body.isEmpty ? nil : decode(body)
  }
}
