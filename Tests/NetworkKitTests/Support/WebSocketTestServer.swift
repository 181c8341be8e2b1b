import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging

/// A real Hummingbird WebSocket server on 127.0.0.1, started once per test process on a random
/// port (like ``TestServer``) and shared by all tests; nothing in it is per test.
///
/// Routes:
/// - `ws /echo`: answers every message with the same message. Text commands: `close:<code>:<reason>`
///   closes with that code and reason, `big:<n>` answers with a text of `n` bytes in one frame,
///   `fragmented:<n>` with `n` bytes in frames of 16 KiB, `authorization`
///   answers with the upgrade request's `Authorization` header.
/// - `ws /private`: upgrades only with `Authorization: Bearer good`, then echoes.
/// - `GET /plain`: a plain HTTP route, so an upgrade request gets a 200 without switching.
///
/// The server accepts messages up to 64 KiB, like the Qapple server.
final class WebSocketTestServer: Sendable {
  let port: Int

  private init(port: Int) {
    self.port = port
  }

  /// The `ws://` URL of `path` on this server.
  func url(_ path: String) -> URL {
    URL(string: "ws://127.0.0.1:\(port)\(path)")!
  }

  /// The process-wide server, started on first use.
  static func shared() async throws -> WebSocketTestServer {
    try await launcher.server()
  }

  static let maximumMessageSize = 64 * 1024

  private static let launcher = Launcher()

  private actor Launcher {
    private var starting: Task<WebSocketTestServer, any Error>?

    func server() async throws -> WebSocketTestServer {
      if let starting { return try await starting.value }
      let task = Task { try await WebSocketTestServer.start() }
      starting = task
      return try await task.value
    }
  }

  private static func start() async throws -> WebSocketTestServer {
    let webSocketRouter = Router(context: BasicWebSocketRequestContext.self)
    webSocketRouter.ws("/echo") { inbound, outbound, context in
      try await echo(inbound, outbound, authorization: context.request.headers[.authorization])
    }
    webSocketRouter.ws(
      "/private",
      shouldUpgrade: { request, _ in
        request.headers[.authorization] == "Bearer good" ? .upgrade([:]) : .dontUpgrade
      },
      onUpgrade: { inbound, outbound, context in
        try await echo(inbound, outbound, authorization: context.request.headers[.authorization])
      })
    let router = Router()
    router.get("/plain") { _, _ in "not a WebSocket" }

    let port = try await runForTestProcess("WebSocketTestServer") { reportPort, logger in
      Application(
        router: router,
        server: .http1WebSocketUpgrade(
          webSocketRouter: webSocketRouter,
          configuration: .init(ws: .init(maxFrameSize: maximumMessageSize, autoPing: .disabled))),
        configuration: ApplicationConfiguration(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { reportPort($0.localAddress?.port) }, logger: logger)
    }
    return WebSocketTestServer(port: port)
  }

  private static func echo(
    _ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter, authorization: String?
  ) async throws {
    for try await message in inbound.messages(maxSize: maximumMessageSize) {
      switch message {
      case .binary(let buffer):
        try await outbound.write(.binary(buffer))
      case .text(let text) where text.hasPrefix("close:"):
        let parts = text.split(separator: ":", maxSplits: 2).map(String.init)
        let code = parts.count > 1 ? Int(parts[1]) ?? 1000 : 1000
        try await outbound.close(.init(codeNumber: code), reason: parts.count > 2 ? parts[2] : nil)
        return
      case .text(let text) where text.hasPrefix("fragmented:"):
        let size = Int(text.dropFirst(11)) ?? 0
        try await outbound.withTextMessageWriter { write in
          for start in stride(from: 0, to: size, by: 16 * 1024) {
            try await write(String(repeating: "y", count: min(16 * 1024, size - start)))
          }
        }
      case .text(let text) where text.hasPrefix("big:"):
        let size = Int(text.dropFirst(4)) ?? 0
        try await outbound.write(.text(String(repeating: "x", count: size)))
      case .text("authorization"):
        try await outbound.write(.text(authorization ?? "none"))
      case .text(let text):
        try await outbound.write(.text(text))
      }
    }
  }
}
