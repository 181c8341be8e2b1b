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
  private let controller: SessionController

  /// A binding for `user`, who is signed in when `controller` says so
  /// (`SessionController.signedInAccount()`).
  init(user: User.ID, in controller: SessionController) {
    self.user = user
    self.controller = controller
  }

  /// The session a call of `user` runs in now.
  func session() async throws(NetworkError) -> SessionGeneration {
    guard let account = await controller.signedInAccount(), account.user == user else {
      throw .sessionEnded
    }
    return account.session
  }
}
