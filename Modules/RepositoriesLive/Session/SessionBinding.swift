import Domain
import NetworkKit

/// Binds the calls of one user's chat engine (its server calls and its socket) to that user:
/// each call runs in the session that user is signed in with when it starts (its retries and
/// refreshes stay there). While another user is signed in, or nobody is, every call fails with
/// ``NetworkKit/NetworkError/sessionEnded`` instead of going out with someone else's token; a
/// new sign-in of the same user is followed.
struct SessionBinding: Sendable {
  /// The user whose sessions it binds to.
  let user: User.ID
  private let account: @Sendable () async -> (user: User.ID, session: SessionGeneration)?

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
  init(user: User.ID, in controller: SessionController) {
    self.init(user: user) { await controller.signedInAccount() }
  }

  /// The session a call of `user` runs in now.
  func session() async throws(NetworkError) -> SessionGeneration {
    guard let account = await account(), account.user == user else { throw .sessionEnded }
    return account.session
  }
}
