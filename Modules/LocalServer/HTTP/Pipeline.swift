import DTO
import Foundation
import GRDB
import Hummingbird

/// Runs one operation: body limit, authentication, role, rate limit, ban, idempotent replay,
/// then the handler. Each step fails with the contract's error envelope.
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
      viewer = try await authenticate(request)
    }
    if operation.access == .admin, viewer?.isAdmin != true {
      throw APIError.forbidden("This operation is for admins only.")
    }
    if operation.isWrite, operation.rateLimited, let limiter = core.rateLimiter {
      let key = viewer.map { "user:\($0.id)" } ?? "address:\(context.peerAddress ?? "unknown")"
      if let wait = limiter.admit(key, at: core.now) {
        throw APIError.rateLimited(retryAfter: wait)
      }
    }
    if operation.blockedWhenBanned, let viewer, viewer.isBanned(at: core.now) {
      throw APIError.banned(until: viewer.bannedUntil)
    }

    let idempotencyKey = try operation.idempotent ? self.idempotencyKey(of: request) : nil
    let scope = viewer.map { PublicID.user($0.id) } ?? "anyone"
    let fingerprint = Idempotency.fingerprint(request.uri.string, body)
    if let idempotencyKey,
      let stored = try await Idempotency.lookup(
        core, scope: scope, operation: operation.id, key: idempotencyKey)
    {
      // A key names one request: reusing it for another one is a client bug, not a retry.
      if let hash = stored.fingerprint, hash != fingerprint {
        throw APIError.validation(
          field: "Idempotency-Key",
          "Idempotency-Key \(idempotencyKey) was already used for a different request; "
            + "send a new key for a new request.")
      }
      var reply = stored.reply
      reply.headers[HeaderName.idempotentReplayed] = "true"
      return reply.response
    }

    let call = Call(
      operation: operation, request: request, context: context, core: core, viewer: viewer,
      body: body)
    let reply = try await handler(call)

    if let idempotencyKey, (200..<300).contains(reply.status.code) {
      try await Idempotency.store(
        core, scope: scope, operation: operation.id, key: idempotencyKey,
        fingerprint: fingerprint, reply: reply)
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
  private func authenticate(_ request: Request) async throws -> Viewer {
    guard let header = request.headers[.authorization] else {
      throw APIError.unauthorized("Send the access token as Authorization: Bearer <token>.")
    }
    let parts = header.split(separator: " ", maxSplits: 1)
    guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty else {
      throw APIError.unauthorized("The Authorization header must be \"Bearer <access token>\".")
    }
    let token = String(parts[1]).trimmingCharacters(in: .whitespaces)
    let now = core.now
    let user = try await core.read { db in try Sessions.authenticate(db, token: token, now: now) }
    return Users.viewer(user)
  }

  private func idempotencyKey(of request: Request) throws -> String? {
    guard let key = request.headers[HeaderName.idempotencyKey] else { return nil }
    guard (1...255).contains(key.count) else {
      throw APIError.validation(field: "Idempotency-Key", "Idempotency-Key takes 1-255 characters.")
    }
    return key
  }
}

/// The stored first answers of writes sent with an `Idempotency-Key`, with a fingerprint of
/// the request they answered.
enum Idempotency {
  /// FNV-1a (64 bit) of the target and body: enough to tell a retry from a different request.
  static func fingerprint(_ target: String, _ body: ByteBuffer) -> String {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    func mix(_ byte: UInt8) {
      hash ^= UInt64(byte)
      hash &*= 0x0000_0100_0000_01B3
    }
    for byte in target.utf8 { mix(byte) }
    mix(0)
    body.withUnsafeReadableBytes { bytes in
      for byte in bytes { mix(byte) }
    }
    return String(hash, radix: 16)
  }

  static func lookup(
    _ core: ServerCore, scope: String, operation: String, key: String
  ) async throws -> (reply: Reply, fingerprint: String?)? {
    try await core.read { db in
      guard
        let row = try Row.fetchOne(
          db,
          sql: """
            SELECT status, body, request_hash FROM idempotency
            WHERE scope = ? AND operation = ? AND key = ?
            """,
          arguments: [scope, operation, key])
      else { return nil }
      let status: Int = row["status"]
      let body: Data = row["body"]
      var headers = HTTPFields()
      if !body.isEmpty { headers[.contentType] = "application/json; charset=utf-8" }
      return (
        Reply(status: HTTPResponse.Status(code: status), headers: headers, body: body),
        row["request_hash"]
      )
    }
  }

  static func store(
    _ core: ServerCore, scope: String, operation: String, key: String, fingerprint: String,
    reply: Reply
  ) async throws {
    let now = Millis.from(core.now)
    try await core.write { db in
      try db.execute(
        sql: """
          INSERT OR IGNORE INTO idempotency
            (scope, operation, key, status, body, created_at, request_hash)
          VALUES (?, ?, ?, ?, ?, ?, ?)
          """,
        arguments: [scope, operation, key, reply.status.code, reply.body, now, fingerprint])
    }
  }
}
