import Domain
import Foundation
import Logging
import ServiceEngine

/// Everything a request handler needs, shared by all requests of one running server: the
/// engine (which owns the database, the clock and every rule), the limits and the log.
final class ServerCore: Sendable {
  let configuration: ServerConfiguration
  let engine: ServiceEngine
  let logger: Logger
  let faults: FaultInjector
  let rateLimiter: RateLimiter?
  /// The socket faults (dev mode), shared by every connection so one seed repeats a run.
  let socketFaults: SocketFaultInjector
  /// The open `/realtime` sockets with the function that closes each, so shutdown can close
  /// them (1001) and wait until they are gone.
  let sockets = InProgress<@Sendable (SocketClose, String) -> Void>()
  /// The connections that have not sent a byte yet, with the function that closes each
  /// (``SilenceTrackingChannel``): shutdown closes them, as no request will end them.
  let silentConnections = InProgress<@Sendable () -> Void>()
  /// Chat messages' `message` frames, encoded once for all their subscribers.
  let messageFrames = MessageFrames()
  /// The base URL with the bound port (`http://127.0.0.1:<port>`), once listening.
  let listeningURL = Locked<URL?>(nil)

  init(configuration: ServerConfiguration, engine: ServiceEngine, logger: Logger) {
    self.configuration = configuration
    self.engine = engine
    self.logger = logger
    faults = FaultInjector(rules: configuration.faults, seed: configuration.faultSeed)
    socketFaults = SocketFaultInjector(
      faults: configuration.socketFaults, seed: configuration.faultSeed)
    rateLimiter = configuration.rateLimit.map(RateLimiter.init)
  }
}
