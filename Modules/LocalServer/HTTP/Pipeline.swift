import DTO
import Domain
import Foundation
import Hummingbird
import ServiceEngine

/// Runs one operation: body limit, authentication, role, rate limit, idempotent replay, then
/// the handler. Each step fails with the contract's error envelope; the rules themselves
/// (bans, ownership, validation) are the engine's.
struct EndpointResponder: HTTPResponder {
  typealias Context = QappleRequestContext

  let operation: Operation
  let handler: Handler
  let core: ServerCore

  func respond(to request: Request, context: Context) async throws -> Response {
    var request = request
    let body = try await collectBody(of: &request)

    var viewer: Viewer?
    if operation.access != .anyone {
      viewer = try authenticate(request)
    }
    do {
      if operation.access == .admin, viewer?.isAdmin != true {
        throw APIError.forbidden("This operation is for admins only.")
      }
      if operation.isWrite, operation.rateLimited, let limiter = core.rateLimiter {
        let key =
          viewer.map { "user:\($0.id.rawValue)" } ?? "address:\(context.peerAddress ?? "unknown")"
        try limiter.admit(key, at: core.now)
      }
      let call = Call(
        operation: operation, request: request, context: context, core: core, viewer: viewer,
        body: body)
      guard operation.idempotent, let key = try idempotencyKey(of: request) else {
        return try await handler(call).response
      }
      return try await idempotent(call, key: key)
    } catch let error as DomainError {
      throw APIError(error, viewer: viewer)
    }
  }

  /// Answers a write sent with an `Idempotency-Key`: a repeat gets the stored first answer,
  /// a new request runs and its successful answer is stored.
  private func idempotent(_ call: Call, key: String) async throws -> Response {
    let scope = call.viewer?.id.rawValue ?? "anyone"
    let fingerprint = ServiceEngine.fingerprint(
      Data(call.request.uri.string.utf8), Data(buffer: call.body))
    if let stored = try core.engine.storedReply(scope: scope, operation: operation.id, key: key) {
      // A key names one request: reusing it for another one is a client bug, not a retry.
      if let hash = stored.fingerprint, hash != fingerprint {
        throw APIError.validation(
          field: "Idempotency-Key",
          "Idempotency-Key \(key) was already used for a different request; "
            + "send a new key for a new request.")
      }
      var headers = HTTPFields()
      if !stored.body.isEmpty { headers[.contentType] = "application/json; charset=utf-8" }
      headers[HeaderName.idempotentReplayed] = "true"
      return Reply(status: .init(code: stored.status), headers: headers, body: stored.body)
        .response
    }
    let reply = try await handler(call)
    if (200..<300).contains(reply.status.code) {
      try core.engine.storeReply(
        StoredReply(status: reply.status.code, body: reply.body, fingerprint: fingerprint),
        scope: scope, operation: operation.id, key: key)
    }
    return reply.response
  }

  /// Reads the whole body of a write, refusing more than the configured maximum with 413.
  private func collectBody(of request: inout Request) async throws -> ByteBuffer {
    guard operation.isWrite else { return ByteBuffer() }
    let limit = core.configuration.maxBodySize
    if let declared = request.headers[.contentLength].flatMap(Int.init), declared > limit {
      throw APIError.payloadTooLarge(limit: limit)
    }
    do {
      return try await request.collectBody(upTo: limit)
    } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
      throw APIError.payloadTooLarge(limit: limit)
    }
  }

  /// The caller of an authenticated operation, from `Authorization: Bearer <token>`.
  private func authenticate(_ request: Request) throws -> Viewer {
    guard let header = request.headers[.authorization] else {
      throw APIError.unauthorized("Send the access token as Authorization: Bearer <token>.")
    }
    let parts = header.split(separator: " ", maxSplits: 1)
    guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty else {
      throw APIError.unauthorized("The Authorization header must be \"Bearer <access token>\".")
    }
    let token = String(parts[1]).trimmingCharacters(in: .whitespaces)
    switch try core.engine.checkAccessToken(token) {
    case .valid(let viewer): return viewer
    case .expired: throw APIError.tokenExpired
    case .refused(let reason): throw APIError.unauthorized(reason)
    }
  }

  private func idempotencyKey(of request: Request) throws -> String? {
    guard let key = request.headers[HeaderName.idempotencyKey] else { return nil }
    guard (1...255).contains(key.count) else {
      throw APIError.validation(field: "Idempotency-Key", "Idempotency-Key takes 1-255 characters.")
    }
    return key
  }
}
