import Foundation

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
  /// The server answered with a status the target does not accept.
  ///
  /// `error` is the decoded `{ "error": { "code", "message", "field" } }` envelope when the body
  /// has that shape; `body` always holds the raw bytes (e.g. a proxy's HTML error page).
  case status(code: Int, error: ServerError?, body: Data)
  /// The response body did not decode as the expected type.
  case decoding(type: String, codingPath: String, description: String)
  /// The server still answered 401 after the access token was refreshed.
  case unauthorized
  /// A target needs a bearer token but nobody is signed in.
  case notSignedIn
  /// The refresh token was rejected (revoked or expired); the credentials were cleared.
  case sessionRevoked
  /// More token refreshes were requested than the authenticator allows in its time window.
  case refreshRateLimited
  /// Reading or writing the ``CredentialStore`` failed.
  case credentialStorage(String)
  /// The request could not be built (e.g. its JSON body failed to encode).
  case invalidRequest(String)
  /// A ``StubTransport`` received a request that no test registered a stub for.
  case notStubbed(method: String, path: String)
}

extension NetworkError {
  /// The HTTP status code for `.status` errors, `nil` otherwise.
  public var statusCode: Int? {
    if case .status(let code, _, _) = self { return code }
    return nil
  }

  /// The decoded server error for `.status` errors whose body has the error envelope shape.
  public var serverError: ServerError? {
    if case .status(_, let error, _) = self { return error }
    return nil
  }

  /// Builds a `.status` error from a response body, decoding the error envelope when present.
  public static func status(code: Int, body: Data) -> NetworkError {
    .status(code: code, error: ServerError.decodeEnvelope(from: body), body: body)
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
    case .status(let code, let error?, _):
      let field = error.field.map { " (field: \($0))" } ?? ""
      return "The server refused the request with status \(code): \(error.code): "
        + "\(error.message)\(field)."
    case .status(let code, nil, let body):
      return "The server answered with status \(code) and a body that is not an error envelope "
        + "(\(body.count) bytes). Inspect the body or the server logs."
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

/// The server's error body: `{ "error": { "code": "...", "message": "...", "field": "..." } }`.
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

  private struct Envelope: Decodable {
    var error: ServerError
  }

  /// Decodes the `{ "error": { ... } }` envelope, or returns `nil` when `body` has another shape.
  public static func decodeEnvelope(from body: Data) -> ServerError? {
    guard !body.isEmpty else { return nil }
    return try? JSONDecoder().decode(Envelope.self, from: body).error
  }
}
