import Domain
import Hummingbird
import ServiceEngine

/// The per-request context: Hummingbird's core storage, what the server needs from the
/// connection (its peer address for rate limits, a way to drop it for fault injection), and
/// what the pipeline's middleware learn on the way (the caller, the collected body).
struct QappleRequestContext: RequestContext {
  var coreContext: CoreRequestContextStorage
  /// The peer's IP address, when the transport has one.
  let peerAddress: String?
  /// Closes the connection without an answer (dev-mode "drop" faults).
  let closeConnection: @Sendable () -> Void
  /// The caller, set by `AuthenticationMiddleware`.
  var viewer: Viewer?
  /// The collected body of a write (empty for reads), set by `BodyMiddleware`.
  var body = ByteBuffer()
  /// Where the handler leaves its reply for `IdempotencyMiddleware` to store (responses are
  /// streams; the stored first answer of an idempotent write needs the bytes).
  var replyBox: Locked<Reply?>?

  init(source: ApplicationRequestContextSource) {
    coreContext = CoreRequestContextStorage(source: source)
    let channel = source.channel
    peerAddress = channel.remoteAddress?.ipAddress
    closeConnection = { channel.close(promise: nil) }
  }
}
