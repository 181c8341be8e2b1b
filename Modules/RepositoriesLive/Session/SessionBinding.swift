import Domain
import NetworkKit

/// Binds the calls of one user's chat engine (its server calls and its socket) to that user's
/// session: the session they are signed in with when the first call asks. Once that session
/// ended (a sign-out, or another user signed in before the engine stopped), every call fails
/// with ``NetworkKit/NetworkError/sessionEnded`` instead of going out with the next user's
/// token; a binding made for a user who is not signed in never binds.
final class SessionBinding: Sendable {
  /// The user whose session it binds to.
  let user: User.ID
  private let account: @Sendable () async -> (user: User.ID, session: SessionGeneration)?
  private let bound = Locked<SessionGeneration?>(nil)

  /// A binding for `user`; `account` tells who is signed in, in which session
  /// (`SessionController.signedInAccount()`).
  init(
    user: User.ID,
    account: @escaping @Sendable () async -> (user: User.ID, session: SessionGeneration)?
  ) {
    self.user = user
    self.account = account
  }

  /// A binding for `user` with the session controller `controller`.
  convenience init(user: User.ID, in controller: SessionController) {
    self.init(user: user) { await controller.signedInAccount() }
  }

  /// The bound session, binding it first if needed.
  func session() async throws(NetworkError) -> SessionGeneration {
    if let session = bound.withLock({ $0 }) { return session }
    guard let account = await account(), account.user == user else { throw .sessionEnded }
    return bound.withLock { bound in
      let session = bound ?? account.session
      bound = session
      return session
    }
  }
}
