import Domain
import Repositories

/// What a chat screen shows about the real-time link: nothing while it is connected, otherwise
/// "Connecting..." or "Offline" (messages the user sends wait in the outbox meanwhile).
public enum ChatConnectionBanner: Hashable, Sendable {
  /// The link is being opened.
  case connecting
  /// The link is down; `retryIn` says when the next attempt starts, when known.
  case offline(retryIn: Duration?)

  /// The banner for `state`, or `nil` when the link is live.
  public init?(_ state: ChatConnectionState) {
    switch state {
    case .connected: return nil
    case .connecting: self = .connecting
    case .offline: self = .offline(retryIn: nil)
    case .waitingToReconnect(let retryIn): self = .offline(retryIn: retryIn)
    }
  }
}

extension AuthRepository {
  /// Whether nobody is signed in any more: a sync engine stream that ended by itself ended
  /// because the session did.
  func hasSessionEnded() async -> Bool {
    if case .signedIn = await currentState() { return false }
    return true
  }
}
