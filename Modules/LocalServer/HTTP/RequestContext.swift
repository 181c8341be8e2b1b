import Hummingbird

/// The per-request context: Hummingbird's core storage plus what the server needs from the
/// connection (its peer address for rate limits, a way to drop it for fault injection).
struct QappleRequestContext: RequestContext {
  var coreContext: CoreRequestContextStorage
  /// The peer's IP address, when the transport has one.
  let peerAddress: String?
  /// Closes the connection without an answer (dev-mode "drop" faults).
  let closeConnection: @Sendable () -> Void

  init(source: ApplicationRequestContextSource) {
    coreContext = CoreRequestContextStorage(source: source)
    let channel = source.channel
    peerAddress = channel.remoteAddress?.ipAddress
    closeConnection = { channel.close(promise: nil) }
  }
}
