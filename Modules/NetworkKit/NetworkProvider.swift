import Foundation
import HTTPTypes

/// Performs targets against one server: every router enum of an API is a ``TargetType``, and
/// the provider owns the base URL they are sent to.
///
/// ```swift
/// let api = NetworkProvider(baseURL: server, authenticator: authenticator)
/// let today = try await api.request(QuestionAPI.today, as: QuestionDTO.self)
/// ```
///
/// For each call the provider builds the request from the target, attaches the access token for
/// `.bearer` targets, runs the plugins, sends the request through the transport (or answers from
/// sample data when stubbing), refreshes the token once on 401 (within the session the call
/// started in: once that session ended the call fails with ``NetworkError/sessionEnded`` rather
/// than being sent with another user's token), retries according to the
/// ``RetryPolicy``, and maps every failure to ``NetworkError`` (a refused status keeps its headers,
/// body and the server's error as the ``ErrorBodyDecoder`` reads it). Providers can share one
/// ``Authenticator`` and one transport. Cancelling the calling task cancels the
/// transfer and any retry wait.
public final class NetworkProvider: Sendable {
  /// Produces the stubbed answer for a target; ``StubResponse/sample(_:)`` by default.
  public typealias StubResponseProvider = @Sendable (any TargetType) -> StubResponse

  /// The server every target's path is appended to, unless the target names its own.
  public let baseURL: URL?
  /// Reads the server's error out of refused responses.
  public let errorBody: ErrorBodyDecoder
  /// Moves requests over the wire.
  public let transport: any HTTPTransport
  /// Supplies and refreshes access tokens; `nil` for providers of public routes.
  public let authenticator: Authenticator?
  /// The plugins, called in order.
  public let plugins: [any NetworkPlugin]
  /// When failed requests are sent again.
  public let retryPolicy: RetryPolicy
  /// How long one attempt may take unless the target sets its own timeout.
  public let timeout: Duration
  /// Whether answers come from sample data instead of the transport.
  public let stubBehavior: StubBehavior

  private let stubResponse: StubResponseProvider
  private let coders: Coders
  private let clock: any Clock<Duration>
  private let now: @Sendable () -> Date

  /// Creates a provider.
  ///
  /// - Parameters:
  ///   - baseURL: The server; each target's path is appended to it (a target that names its own
  ///     server goes there).
  ///   - errorBody: Reads the server's error out of refused responses; none by default.
  ///   - transport: The transport; AsyncHTTPClient on Linux and URLSession elsewhere by default.
  ///   - authenticator: Supplies access tokens for `.bearer` targets.
  ///   - plugins: Hooks called for every attempt, in order.
  ///   - retryPolicy: When to retry and how long to wait.
  ///   - timeout: The time one attempt may take; 60 seconds by default.
  ///   - encoder: Encodes `.json` bodies.
  ///   - decoder: Decodes ``request(_:as:)`` results; keys are matched as written unless the
  ///     decoder says otherwise.
  ///   - clock: Waits between retries and for `.delayed` stubs.
  ///   - now: The wall-clock time, for `Retry-After` dates.
  ///   - stubBehavior: `.never` to use the transport, `.immediate` or `.delayed` to stub.
  ///   - stubResponse: The stubbed answer per target when stubbing.
  public init(
    baseURL: URL? = nil,
    errorBody: ErrorBodyDecoder = .none,
    transport: any HTTPTransport = HTTPTransports.platformDefault,
    authenticator: Authenticator? = nil,
    plugins: [any NetworkPlugin] = [],
    retryPolicy: RetryPolicy = .default,
    timeout: Duration = .seconds(60),
    encoder: JSONEncoder = JSONEncoder(),
    decoder: JSONDecoder = JSONDecoder(),
    clock: any Clock<Duration> = ContinuousClock(),
    now: @escaping @Sendable () -> Date = { Date() },
    stubBehavior: StubBehavior = .never,
    stubResponse: @escaping StubResponseProvider = { StubResponse.sample($0) }
  ) {
    self.baseURL = baseURL
    self.errorBody = errorBody
    self.transport = transport
    self.authenticator = authenticator
    self.plugins = plugins
    self.retryPolicy = retryPolicy
    self.timeout = timeout
    self.coders = Coders(encoder: encoder, decoder: decoder)
    self.clock = clock
    self.now = now
    self.stubBehavior = stubBehavior
    self.stubResponse = stubResponse
  }

  // MARK: - Calls

  /// Performs `target` and returns the raw response once its status is accepted.
  public func response(_ target: some TargetType) async throws(NetworkError) -> NetworkResponse {
    try await perform(target, in: nil)
  }

  /// Performs `target` only within `session`: a `.bearer` target fails with
  /// ``NetworkError/sessionEnded`` (and is not sent) once that session is no longer the
  /// authenticator's current one, e.g. to upload data that belongs to one user.
  public func response(
    _ target: some TargetType, in session: SessionGeneration
  ) async throws(NetworkError) -> NetworkResponse {
    try await perform(target, in: session)
  }

  private func perform(
    _ target: some TargetType, in boundSession: SessionGeneration?
  ) async throws(NetworkError) -> NetworkResponse {
    guard let server = target.baseURL ?? baseURL else {
      throw .invalidRequest(
        "\(target.method.rawValue) \(target.path) has no server: give the provider a baseURL")
    }
    let encoded = try target.encodedRequest(baseURL: server, using: coders.encoder)
    let timeout = target.timeout ?? self.timeout
    var attempt = 1
    var refreshedAfterUnauthorized = false
    // The session of the first token: every retry and refresh of this call stays in it.
    var session = boundSession
    // Whether an earlier attempt may have reached the server (a retried DELETE may find its
    // resource already deleted by it).
    var mayHaveBeenDelivered = false
    while true {
      if Task.isCancelled { throw .cancelled }
      var request = encoded.request
      let token = try await accessToken(for: target, in: &session)
      // Cancelled while the token was read or refreshed: nothing goes out.
      if Task.isCancelled { throw .cancelled }
      if let token { request.headerFields[.authorization] = "Bearer \(token)" }
      for plugin in plugins {
        request = try await plugin.prepare(request, body: encoded.body, target: target)
      }
      for plugin in plugins {
        await plugin.willSend(request, body: encoded.body, target: target)
      }
      let started = ContinuousClock.now
      let result = await exchange(request, body: encoded.body, target: target, timeout: timeout)
      let duration = started.duration(to: .now)
      for plugin in plugins {
        await plugin.didReceive(result, for: request, target: target, duration: duration)
      }

      let failure: NetworkError
      switch result {
      case .success(let response):
        let code = response.status.code
        if code == 401, let token, let authenticator, let session {
          // One refresh and one retry per call; a second 401 means the account itself is refused
          // (unless the session that sent it has ended meanwhile: then it says nothing about
          // the account signed in now).
          if refreshedAfterUnauthorized {
            throw await authenticator.currentSession == session ? .unauthorized : .sessionEnded
          }
          refreshedAfterUnauthorized = true
          _ = try await authenticator.accessToken(afterRejecting: token, in: session)
          continue
        }
        if target.acceptedStatusCodes.contains(code)
          || retryPolicy.isCompletedDelete(
            request, status: code, afterPossibleDelivery: mayHaveBeenDelivered)
        {
          return response
        }
        failure = .status(
          HTTPFailure(
            status: code, headers: response.headerFields, body: response.body,
            serverError: errorBody.serverError(in: response.body)))
      case .failure(let error):
        failure = error
      }
      if Task.isCancelled { throw .cancelled }
      if retryPolicy.mayHaveBeenDelivered(failure) { mayHaveBeenDelivered = true }
      guard
        let delay = retryPolicy.delay(
          afterAttempt: attempt, of: request, failedWith: failure, now: now())
      else { throw failure }
      do {
        try await clock.sleep(for: delay)
      } catch {
        throw .cancelled
      }
      attempt += 1
    }
  }

  /// Performs `target` and decodes the response body as `T` with the provider's decoder.
  public func request<T: Decodable>(
    _ target: some TargetType, as type: T.Type = T.self
  )
    async throws(NetworkError) -> T
  {
    let response = try await response(target)
    do {
      return try coders.decoder.decode(T.self, from: response.body)
    } catch let error as DecodingError {
      throw NetworkError(decoding: error, as: T.self)
    } catch {
      throw .decoding(
        type: String(reflecting: T.self), codingPath: "", description: "\(error)")
    }
  }

  /// Performs `target`, ignoring the body but still checking the status.
  public func send(_ target: some TargetType) async throws(NetworkError) {
    _ = try await response(target)
  }

  // MARK: - Steps

  /// The token for this attempt; the first bearer attempt binds `session`, later ones must
  /// still be in it (``NetworkError/sessionEnded`` otherwise).
  private func accessToken(
    for target: some TargetType, in session: inout SessionGeneration?
  ) async throws(NetworkError) -> String? {
    guard target.authorization == .bearer else { return nil }
    guard let authenticator else {
      // Previews and stubbed tests run bearer targets without anyone signed in.
      if stubBehavior != .never { return nil }
      throw .invalidRequest(
        "\(target.method.rawValue) \(target.path) needs a bearer token but this provider has no "
          + "Authenticator; pass one to NetworkProvider.init")
    }
    let token = try await authenticator.sessionToken(in: session)
    session = token.session
    return token.accessToken
  }

  private func exchange(
    _ request: HTTPRequest, body: Data?, target: some TargetType, timeout: Duration
  ) async -> Result<NetworkResponse, NetworkError> {
    let stubDelay: Duration
    switch stubBehavior {
    case .never:
      do {
        let (head, data) = try await transport.send(request, body: body, timeout: timeout)
        return .success(NetworkResponse(request: request, response: head, body: data))
      } catch {
        return .failure(error)
      }
    case .immediate:
      stubDelay = .zero
    case .delayed(let delay):
      stubDelay = delay
    }
    if stubDelay > .zero {
      do {
        try await clock.sleep(for: stubDelay)
      } catch {
        return .failure(.cancelled)
      }
    }
    switch stubResponse(target) {
    case .response(let status, let headerFields, let data):
      let head = HTTPResponse(status: status, headerFields: headerFields)
      return .success(NetworkResponse(request: request, response: head, body: data))
    case .failure(let error):
      return .failure(error)
    }
  }
}

/// JSON coders are thread-safe once configured, but not every SDK marks them `Sendable`.
private struct Coders: @unchecked Sendable {
  let encoder: JSONEncoder
  let decoder: JSONDecoder
}

extension NetworkError {
  /// A `.decoding` error that names the type and the coding path, e.g. `items[2].author.id`.
  public init(decoding error: DecodingError, as type: Any.Type) {
    let typeName = String(reflecting: type)
    switch error {
    case .typeMismatch(let expected, let context):
      self = .decoding(
        type: typeName, codingPath: Self.render(context.codingPath),
        description: "expected \(expected): \(context.debugDescription)")
    case .valueNotFound(let expected, let context):
      self = .decoding(
        type: typeName, codingPath: Self.render(context.codingPath),
        description: "missing \(expected) value: \(context.debugDescription)")
    case .keyNotFound(let key, let context):
      self = .decoding(
        type: typeName, codingPath: Self.render(context.codingPath + [key]),
        description: "key '\(key.stringValue)' not found")
    case .dataCorrupted(let context):
      self = .decoding(
        type: typeName, codingPath: Self.render(context.codingPath),
        description: context.debugDescription)
    @unknown default:
      self = .decoding(type: typeName, codingPath: "", description: "\(error)")
    }
  }

  private static func render(_ path: [any CodingKey]) -> String {
    var result = ""
    for key in path {
      if let index = key.intValue,
        key.stringValue.hasPrefix("Index ") || key.stringValue == "\(index)"
      {
        result += "[\(index)]"
      } else {
        result += result.isEmpty ? key.stringValue : "." + key.stringValue
      }
    }
    return result
  }
}
