import ChatCore
import DTO
import Domain
import Endpoints
import Foundation
import HTTPTypes
import Logging
import NetworkKit
import NetworkKitTesting
import Repositories
import Testing

@testable import RepositoriesLive

/// A live backend whose transport is a `StubTransport`: every request a test did not stub fails
/// with `notStubbed`, and every request is recorded, so tests see exactly what went out.
struct Harness {
  static let baseURL = URL(string: "https://api.qapple.test")!

  let transport = StubTransport()
  let backend: LiveBackend
  let store: any CredentialStore

  init(
    store: any CredentialStore = InMemoryCredentialStore(),
    refreshesProfileOnRestore: Bool = false,
    analytics: AnalyticsOptions = AnalyticsOptions(flushPolicy: .manual),
    retryPolicy: RetryPolicy = .never,
    now: @escaping @Sendable () -> Date = { Date() },
    storage: ChatStorage = .inMemory
  ) {
    self.store = store
    backend = LiveBackend(
      configuration: LiveConfiguration(
        baseURL: Self.baseURL, credentialStore: store, transport: transport,
        logger: Logger(label: "RepositoriesLiveTests") { _ in SwiftLogNoOpLogHandler() },
        retryPolicy: retryPolicy, now: now,
        analytics: analytics, refreshesProfileOnRestore: refreshesProfileOnRestore,
        chat: ChatOptions(storage: storage)))
  }

  var repositories: RepositorySet { backend.repositories }

  /// Answers `method path` with `json` (a string) and `status`.
  func stub(
    _ method: HTTPRequest.Method, _ path: String, status: HTTPResponse.Status = .ok,
    json: String, headers: HTTPFields = [:]
  ) {
    var fields = headers
    fields[.contentType] = "application/json"
    transport.stub(
      method, path, with: .response(status: status, headerFields: fields, body: Data(json.utf8)))
  }

  /// Answers `method path` with the route's own sample response.
  func stubSample(_ route: some APITarget, status: HTTPResponse.Status = .ok) {
    transport.stub(
      route.method, String(route.path.prefix { $0 != "?" }),
      with: .response(
        status: status, headerFields: [.contentType: "application/json"], body: route.sampleData))
  }

  /// Answers `method path` with an error envelope.
  func stubError(
    _ method: HTTPRequest.Method, _ path: String, status: Int, code: String, message: String,
    field: String? = nil, headers: HTTPFields = [:]
  ) {
    stub(
      method, path, status: HTTPResponse.Status(code: status),
      json: Fixtures.error(code: code, message: message, field: field), headers: headers)
  }

  /// Signs in through a stubbed `POST /auth/sign-in` answering `session`.
  @discardableResult
  func signIn(
    as user: String = "u_01", nickname: String = "사과러너", accessToken: String = "access-1",
    refreshToken: String = "refresh-1", expiresAt: Date = Date(timeIntervalSinceNow: 3_600)
  ) async throws -> User {
    stub(
      .post, "/auth/sign-in",
      json: Fixtures.signedIn(
        Fixtures.session(
          accessToken: accessToken, refreshToken: refreshToken, expiresAt: expiresAt,
          user: Fixtures.user(id: user, nickname: nickname))))
    let result = try await repositories.auth.signIn(.dev, "dev-\(user)")
    guard case .signedIn(let session) = result else {
      Issue.record("expected a session, got \(result)")
      throw DomainError.signedOut
    }
    return session.user
  }

  /// Requests that went out, excluding sign-in (which most tests do first).
  var sentRequests: [StubTransport.Received] {
    transport.receivedRequests.filter { $0.request.path != "/auth/sign-in" }
  }

  /// The JSON body of a received request as a dictionary.
  static func jsonBody(_ received: StubTransport.Received) throws -> [String: Any] {
    let body = try #require(received.body)
    return try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
  }
}

/// JSON documents in the contract's wire format.
enum Fixtures {
  static func user(
    id: String = "u_01", nickname: String = "사과러너", role: String = "member",
    answerCount: Int = 42
  ) -> String {
    """
    {"id": "\(id)", "nickname": "\(nickname)", "role": "\(role)", "cohort": "2026 오전반",
     "joined_at": "2026-03-02T00:12:45.120Z", "answer_count": \(answerCount),
     "avatar_url": null, "is_banned": false}
    """
  }

  static func session(
    accessToken: String = "access-1", refreshToken: String = "refresh-1",
    expiresAt: Date = Date(timeIntervalSinceNow: 3_600), user: String = user()
  ) -> String {
    """
    {"access_token": "\(accessToken)", "refresh_token": "\(refreshToken)",
     "expires_at": "\(QappleCoding.string(from: expiresAt))", "user": \(user)}
    """
  }

  static func signedIn(_ session: String) -> String {
    #"{"status": "signed_in", "session": \#(session), "sign_up_token": null}"#
  }

  static func needsSignUp(_ token: String) -> String {
    #"{"status": "needs_sign_up", "session": null, "sign_up_token": "\#(token)"}"#
  }

  static func error(
    code: String, message: String, field: String? = nil, validation: String? = nil
  ) -> String {
    let field = field.map { "\"\($0)\"" } ?? "null"
    let detail = validation.map { #", "validation": \#($0)"# } ?? ""
    return
      #"{"error": {"code": "\#(code)", "message": "\#(message)", "field": \#(field)\#(detail)}}"#
  }

  /// The Domain user `user(id:nickname:)` describes.
  static func domainUser(id: String = "u_01", nickname: String = "사과러너") -> User {
    User(
      id: User.ID(id), nickname: Nickname(trusted: nickname), role: .member, cohort: "2026 오전반",
      joinedAt: QappleCoding.date(from: "2026-03-02T00:12:45.120Z")!, answerCount: 42)
  }
}

/// Runs `operation` and returns the `DomainError` it threw (recording an issue otherwise).
func domainError(
  _ operation: () async throws -> some Any, sourceLocation: SourceLocation = #_sourceLocation
) async -> DomainError? {
  do {
    _ = try await operation()
    Issue.record("expected a DomainError, but the call succeeded", sourceLocation: sourceLocation)
    return nil
  } catch let error as DomainError {
    return error
  } catch {
    Issue.record("expected a DomainError, got \(error)", sourceLocation: sourceLocation)
    return nil
  }
}

extension AsyncStream {
  /// The next `count` elements.
  func first(_ count: Int) async -> [Element] {
    var result: [Element] = []
    for await element in self {
      result.append(element)
      if result.count == count { break }
    }
    return result
  }
}
