import Domain
import Foundation
import GRDB

/// The first answer to a write sent with an idempotency key, as its front end encoded it.
public struct StoredReply: Sendable, Hashable {
  /// The status of the first answer.
  public var status: Int
  /// Its body.
  public var body: Data
  /// A fingerprint of the request it answered (`nil` for rows from before fingerprints).
  public var fingerprint: String?

  /// Creates a stored reply.
  public init(status: Int, body: Data, fingerprint: String?) {
    self.status = status
    self.body = body
    self.fingerprint = fingerprint
  }
}

/// Stored first answers of retried writes (`Docs/Rules.md`, "Idempotency"): a key names one
/// request per caller and operation; a repeat gets the first answer, and reusing the key for a
/// different request is refused.
extension ServiceEngine {
  /// The stored answer for `key`, if any. `scope` is the caller (a user id, or `anyone`).
  public func storedReply(
    scope: String, operation: String, key: String
  ) throws(DomainError) -> StoredReply? {
    try read { db, _ in
      try Row.fetchOne(
        db,
        sql: """
          SELECT status, body, request_hash FROM idempotency
          WHERE scope = ? AND operation = ? AND key = ?
          """,
        arguments: [scope, operation, key]
      ).map { StoredReply(status: $0["status"], body: $0["body"], fingerprint: $0["request_hash"]) }
    }
  }

  /// Stores the first answer for `key` (a second store for the same key keeps the first).
  public func storeReply(
    _ reply: StoredReply, scope: String, operation: String, key: String
  ) throws(DomainError) {
    try write { db, moment in
      try db.execute(
        sql: """
          INSERT OR IGNORE INTO idempotency
            (scope, operation, key, status, body, created_at, request_hash)
          VALUES (?, ?, ?, ?, ?, ?, ?)
          """,
        arguments: [
          scope, operation, key, reply.status, reply.body, moment.millis, reply.fingerprint,
        ])
    }
  }

  /// FNV-1a (64 bit) of a request's parts: enough to tell a retry from a different request.
  public static func fingerprint(_ parts: Data...) -> String {
    var hash: UInt64 = 0xCBF2_9CE4_8422_2325
    for (index, part) in parts.enumerated() {
      if index > 0 { hash &*= 0x0000_0100_0000_01B3 }  // a 0 byte between parts
      for byte in part {
        hash ^= UInt64(byte)
        hash &*= 0x0000_0100_0000_01B3
      }
    }
    return String(hash, radix: 16)
  }
}
