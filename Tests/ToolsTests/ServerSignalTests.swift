import Foundation
import HTTPTypes
import NetworkKit
import NetworkKitTesting
import Repositories
import RepositoriesLive
import Testing

/// How `qapple-server` ends when an operator stops it: open chat sockets learn that the server
/// is going away (1001, `Docs/Realtime.md`) before the process exits.
@Suite("qapple-server signals", .timeLimit(.minutes(2)))
struct ServerSignalTests {
  @Test(
    "SIGINT and SIGTERM close the chat sockets with 1001 (going away)",
    arguments: [SIGINT, SIGTERM])
  func signalsCloseSocketsGoingAway(_ signal: Int32) async throws {
    let server = try await ToolProcess.startServer(["--seed", "demo", "--log-level", "error"])
    defer { server.stop() }
    let store = InMemoryCredentialStore()
    var configuration = LiveConfiguration(baseURL: server.url, credentialStore: store)
    configuration.logger.logLevel = .critical
    let member = LiveBackend(configuration: configuration).repositories
    _ = try await member.auth.signIn(.dev, "demo-1")
    let token = try #require(await store.credentials()?.accessToken)

    var components = try #require(URLComponents(url: server.url, resolvingAgainstBaseURL: false))
    components.scheme = "ws"
    components.path = "/realtime"
    let socket = try await WebSocketTransports.platformDefault.connect(
      to: try #require(components.url), headerFields: [.authorization: "Bearer \(token)"])
    server.send(signal)

    let ending = await Result { try await Self.drain(socket) }
    guard case .failure(WebSocketError.closed(let code, _)) = ending else {
      Issue.record("the socket ended with \(ending), not a close from the server")
      return
    }
    #expect(code == 1001)
  }

  /// Reads `socket` until it ends.
  private static func drain(_ socket: any WebSocket) async throws {
    for try await _ in socket.frames {}
  }
}
