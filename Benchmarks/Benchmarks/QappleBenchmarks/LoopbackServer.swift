import Foundation
import Hummingbird
import Logging

/// A Hummingbird 2 server on 127.0.0.1 (random port) that answers `GET /posts` with one fixed
/// JSON page, so the round-trip benchmarks measure the client side and not the server's work.
///
/// The harness runs every benchmark in its own process; the first benchmark of a process that
/// needs the server starts it and it lives until the process exits.
final class LoopbackServer: Sendable {
  /// The port the server listens on.
  let port: Int
  /// The body of every `GET /posts` answer.
  let body: Data

  /// The server's base URL, e.g. `http://127.0.0.1:43817`.
  var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

  private init(port: Int, body: Data) {
    self.port = port
    self.body = body
  }

  /// The number of posts on the page the server answers with.
  static let postsPerPage = 20

  /// The process-wide server, started on first use.
  static func shared() async throws -> LoopbackServer {
    try await launcher.server()
  }

  private static let launcher = Launcher()

  /// Starts the server once even when several callers ask for it at the same time.
  private actor Launcher {
    private var starting: Task<LoopbackServer, any Error>?

    func server() async throws -> LoopbackServer {
      if let starting { return try await starting.value }
      let task = Task { try await LoopbackServer.start() }
      starting = task
      return try await task.value
    }
  }

  /// The server stopped before it reported its port.
  struct StartupFailed: Error, CustomStringConvertible {
    var description: String { "The loopback Hummingbird server did not start on 127.0.0.1." }
  }

  private static func start() async throws -> LoopbackServer {
    let body = PostPageFixture.json(count: postsPerPage)
    // One buffer for every answer: the server only copies it onto the socket.
    let buffer = ByteBuffer(bytes: body)
    let router = Router()
    router.get("posts") { _, _ in
      Response(
        status: .ok,
        headers: [.contentType: "application/json", .contentLength: "\(buffer.readableBytes)"],
        body: .init(byteBuffer: buffer))
    }

    let (ports, continuation) = AsyncStream<Int>.makeStream()
    var logger = Logger(label: "LoopbackServer")
    logger.logLevel = .warning
    let app = Application(
      router: router,
      configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
      onServerRunning: { channel in
        continuation.yield(channel.localAddress?.port ?? 0)
        continuation.finish()
      },
      logger: logger
    )
    Task.detached {
      do {
        try await app.run()
      } catch {
        // Nobody awaits this task: say why the server is gone, the next request then fails.
        FileHandle.standardError.write(Data("LoopbackServer stopped: \(error)\n".utf8))
      }
      continuation.finish()
    }
    var iterator = ports.makeAsyncIterator()
    guard let port = await iterator.next(), port > 0 else { throw StartupFailed() }
    return LoopbackServer(port: port, body: body)
  }
}
