import Domain
import Foundation

/// The signed-in user an operation acts as, loaded once per request (the server) or per call
/// (the fakes) by ``ServiceEngine/authenticate(accessToken:)`` or ``ServiceEngine/viewer(_:)``.
public struct Viewer: Sendable, Hashable {
  /// The user's identifier.
  public var id: User.ID { User.ID(rawValue: PublicID.user(key)) }
  /// The row key.
  let key: Int64
  /// The nickname at load time.
  public let nickname: String
  /// Whether the user is an admin.
  public let isAdmin: Bool
  let banned: Bool
  /// When the ban ends; `nil` for a ban without end (or no ban).
  public let bannedUntil: Date?

  /// The service itself, acting without an account (seeding scheduled questions, say): an
  /// admin whose actions notify everyone, since it is nobody.
  public static let system = Viewer(
    key: 0, nickname: "Qapple", isAdmin: true, banned: false, bannedUntil: nil)
}

extension Viewer {
  init(_ user: UserRecord) {
    key = user.key
    nickname = user.nickname
    isAdmin = user.isAdmin
    banned = user.banned
    bannedUntil = user.bannedUntil.map(Millis.date)
  }

  /// The same viewer with the ban as the store has it now.
  func with(banned: Bool, until bannedUntil: Date?) -> Viewer {
    Viewer(
      key: key, nickname: nickname, isAdmin: isAdmin, banned: banned, bannedUntil: bannedUntil)
  }

  /// Whether the ban (if any) is still running at `now`; bans with an end stop by themselves.
  public func isBanned(at now: Date) -> Bool {
    guard banned else { return false }
    guard let bannedUntil else { return true }
    return bannedUntil > now
  }

  /// Refuses banned users: they may read, and do what the service lets them do while banned
  /// (leave a group, move read cursors, withdraw), but not write content.
  func requireNotBanned(at now: Date) throws(DomainError) {
    if isBanned(at: now) { throw .banned }
  }

  /// Refuses the viewer as the other user of an operation that names one (`user_id`): nobody
  /// talks to, invites or bans themselves.
  func requireOther(_ userKey: Int64) throws(DomainError) {
    guard userKey != key else {
      throw .validation(.invalidFormat(field: "user_id", expected: "another user (not yourself)"))
    }
  }

  /// Refuses members on admin operations (`forbidden`); the fakes call it before counting an
  /// admin write, as the server's admin routes refuse members before the write limit.
  public func requireAdmin() throws(DomainError) {
    guard isAdmin else { throw .forbidden }
  }
}
