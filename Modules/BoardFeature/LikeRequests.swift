import Domain

/// Optimistic likes with rollback, for posts and comments.
///
/// A tap flips what the screen shows at once and records it as the user's wish. Taps while a
/// request for the same item runs only flip the state shown and the wish; when the running
/// request returns it sends the newest wish if it differs from what the server confirmed, so
/// the last tap wins and no two requests for one item race. Only taps make wishes: a reload
/// that lands meanwhile changes what the screen shows, not what the user asked for. On success
/// the server's ``Domain/LikeState`` replaces the shown one (its count includes other members'
/// likes); on failure the last state the server confirmed comes back and the error is thrown
/// for the screen to show.
@MainActor
final class LikeRequests<ID: Hashable & Sendable> {
  /// The newest wish per item whose request runs.
  private var wishes: [ID: Bool] = [:]

  /// The user tapped like on `id`: `read` and `write` reach the state shown, `send` asks the
  /// server for a state. Returns the state the server confirmed, or `nil` when the tap joined
  /// a running request (or the item is not shown).
  func toggle(
    _ id: ID, read: () -> LikeState?, write: (LikeState) -> Void,
    send: (_ isLiked: Bool) async throws -> LikeState
  ) async throws(DomainError) -> LikeState? {
    guard let shown = read() else { return nil }
    let tapped = shown.toggled()
    write(tapped)
    let isRunning = wishes[id] != nil
    wishes[id] = tapped.isLiked
    guard !isRunning else { return nil }
    defer { wishes[id] = nil }
    var confirmed = shown
    while let wish = wishes[id], wish != confirmed.isLiked {
      do {
        confirmed = try await send(wish)
      } catch {
        write(confirmed)
        throw DomainError(error)
      }
    }
    write(confirmed)
    return confirmed
  }
}
