import DTO
import Domain
import Foundation
import Hummingbird
import Logging
import ServiceEngine

// The pipeline of an operation, as Hummingbird middleware on the operation's route group:
// authentication and admin role, body limit, idempotent replay, write rate limit, then the
// handler (a replay writes nothing, so the limit does not count it). Each fails with the
// contract's error envelope; the rules themselves (bans, ownership, validation) are the
// engine's.

/// Collects the body of a write (the routes of writes only), refusing more than the
/// configured maximum with 413: at once when `Content-Length` says so, else while reading
/// (Hummingbird's `contentTooLarge`, which the envelope middleware turns into the same 413).
struct BodyMiddleware: RouterMiddleware {
  typealias Context = QappleRequestContext
  let limit: Int

  func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    if let declared = request.headers[.contentLength].flatMap(Int.init), declared > limit {
      throw APIError.payloadTooLarge(limit: limit)
    }
    var (request, context) = (request, context)
    context.body = try await request.collectBody(upTo: limit)
    return try await next(request, context)
  }
}

/// Finds the caller from `Authorization: Bearer <token>` (401 `unauthorized` or
/// `token_expired`); with `adminOnly`, refuses members with 403.
struct AuthenticationMiddleware: RouterMiddleware {
  typealias Context = QappleRequestContext
  let engine: ServiceEngine
  let adminOnly: Bool

  func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    var context = context
    context.viewer = try Self.viewer(authorization: request.headers[.authorization], engine: engine)
    if adminOnly, context.viewer?.isAdmin != true {
      throw APIError.forbidden("This operation is for admins only.")
    }
    return try await next(request, context)
  }

  /// The user an `Authorization: Bearer <access token>` header names; the 401 envelope
  /// (`unauthorized` or `token_expired`) otherwise. The WebSocket handshake uses it too.
  static func viewer(authorization header: String?, engine: ServiceEngine) throws -> Viewer {
    try session(authorization: header, engine: engine).viewer
  }

  /// ``viewer(authorization:engine:)`` and the access token it was named by.
  static func session(
    authorization header: String?, engine: ServiceEngine
  ) throws -> (viewer: Viewer, accessToken: String) {
    guard let header else {
      throw APIError.unauthorized("Send the access token as Authorization: Bearer <token>.")
    }
    let parts = header.split(separator: " ", maxSplits: 1)
    guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty else {
      throw APIError.unauthorized("The Authorization header must be \"Bearer <access token>\".")
    }
    let token = String(parts[1]).trimmingCharacters(in: .whitespaces)
    switch try engine.checkAccessToken(token) {
    case .valid(let viewer): return (viewer, token)
    case .expired: throw APIError.tokenExpired
    case .refused(let reason): throw APIError.unauthorized(reason)
    }
  }
}

/// The write limit of `bucket`, per user (per address when signed out): 429 with
/// `Retry-After`.
struct RateLimitMiddleware: RouterMiddleware {
  typealias Context = QappleRequestContext
  let limiter: RateLimiter
  let bucket: RateLimiter.Bucket
  let engine: ServiceEngine
  /// Tells a repeat of a write already made, which is not counted.
  let isRepeat: Operation.RepeatCheck?

  func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    if let isRepeat, isRepeat(request, context.viewer, engine) {
      return try await next(request, context)
    }
    let caller =
      context.viewer.map { RateLimiter.caller($0.id) }
      ?? "address:\(context.peerAddress ?? "unknown")"
    try limiter.admit(bucket, caller: caller, at: engine.now)
    return try await next(request, context)
  }
}

/// Honors `Idempotency-Key`: a repeat gets the stored first answer (marked
/// `Idempotent-Replayed: true`), a key reused for a different request is refused, and a new
/// request's successful answer is stored by the engine. Requests with the same key take turns,
/// so a repeat sent while the first is still being answered waits for that answer instead of
/// running the write a second time. It runs before the write limit, so a replay is never
/// counted or refused as a write.
///
/// The answer is stored after the write's own transaction: when storing it fails, the write
/// stands, so the caller gets its answer (and the failure is logged) rather than an error that
/// would invite a retry; only a retry whose first answer was also lost can then write again.
struct IdempotencyMiddleware: RouterMiddleware {
  typealias Context = QappleRequestContext
  let operation: String
  let engine: ServiceEngine
  let logger: Logger
  let turns = KeyedTurns()

  func handle(
    _ request: Request, context: Context, next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    guard let key = request.headers[HeaderName.idempotencyKey] else {
      return try await next(request, context)
    }
    guard (1...255).contains(key.count) else {
      let field = HeaderName.idempotencyKey.rawName
      throw APIError.validation(field: field, "\(field) takes 1-255 characters.")
    }
    let scope = context.viewer?.id.rawValue ?? "anyone"
    return try await turns.take("\(scope) \(key)") {
      try await replayOrAnswer(request, context: context, scope: scope, key: key, next: next)
    }
  }

  /// The stored answer for `key`, or `next`'s answer, stored when it succeeds.
  private func replayOrAnswer(
    _ request: Request, context: Context, scope: String, key: String,
    next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    let fingerprint = ServiceEngine.fingerprint(
      Data(request.uri.string.utf8), Data(buffer: context.body))
    if let stored = try engine.storedReply(scope: scope, operation: operation, key: key) {
      // A key names one request: reusing it for another one is a client bug, not a retry.
      if let hash = stored.fingerprint, hash != fingerprint {
        let field = HeaderName.idempotencyKey.rawName
        throw APIError.validation(
          field: field,
          "\(field) \(key) was already used for a different request; "
            + "send a new key for a new request.")
      }
      var headers: HTTPFields = [HeaderName.idempotentReplayed: "true"]
      if !stored.body.isEmpty { headers[.contentType] = "application/json; charset=utf-8" }
      return Reply(status: .init(code: stored.status), headers: headers, body: stored.body)
        .response
    }
    var context = context
    let box = Locked<Reply?>(nil)
    context.replyBox = box
    let response = try await next(request, context)
    if let reply = box.withLock({ $0 }), (200..<300).contains(reply.status.code) {
      do {
        try engine.storeReply(
          StoredReply(status: reply.status.code, body: reply.body, fingerprint: fingerprint),
          scope: scope, operation: operation, key: key)
      } catch {
        logger.error(
          "The answer to \(operation) (Idempotency-Key \(key)) was not stored; a repeat will run it again: \(error)"
        )
      }
    }
    return response
  }
}

/// Runs an operation's handler with what the middleware learned; the engine's refusals become
/// envelopes here, where the caller is known (a ban's message names its end).
struct HandlerResponder: HTTPResponder {
  typealias Context = QappleRequestContext
  let handler: Handler
  let core: ServerCore

  func respond(to request: Request, context: Context) async throws -> Response {
    let call = Call(request: request, context: context, core: core)
    do {
      let reply = try await handler(call)
      context.replyBox?.withLock { $0 = reply }
      return reply.response
    } catch let error as DomainError {
      throw APIError(error, viewer: context.viewer)
    }
  }
}
