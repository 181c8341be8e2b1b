import Domain
import Foundation
import LocalServer
import ServiceEngine
import Testing

/// `qapple dm NICKNAME` as a real process: the nickname is looked up (any case), the direct room
/// opened, and the command ends with standard input (closed here).
@Suite("qapple dm", .serialized)
struct DirectMessageTests {
  @Test func opensTheDirectRoomByNickname() async throws {
    let (server, url, tools) = try await demoServer(signedIn: "demo-1")
    defer { try? FileManager.default.removeItem(at: tools.home) }
    guard case .signedIn(let peer) = try server.engine.signIn(provider: "dev", token: "demo-2")
    else { throw ChatCrashTests.Failure("demo-2 is not a member") }
    let nickname = peer.user.nickname.rawValue

    let byName = try await tools.run(
      "qapple", arguments: ["dm", nickname.uppercased(), "--server", url.absoluteString])
    #expect(byName.status == 0, "\(byName)")
    #expect(byName.stdout.contains("with \(nickname)."), "\(byName)")
    let byID = try await tools.run(
      "qapple", arguments: ["dm", peer.user.id.rawValue, "--server", url.absoluteString])
    #expect(byID.status == 0, "\(byID)")
    #expect(byID.stdout.contains("with \(nickname)."), "\(byID)")

    let unknown = try await tools.run(
      "qapple", arguments: ["dm", "nobody", "--server", url.absoluteString])
    #expect(unknown.status != 0, "\(unknown)")
    #expect(unknown.stderr.lowercased().contains("not found"), "\(unknown)")
    await server.stop()
  }
}
