import Domain
import Foundation
import LocalServer
import Persistence
import ServiceEngine
import Testing

@testable import ToolSupport

/// `qapple chat send` as a real process, killed with SIGKILL at random points while its outbox
/// holds messages, 20 times, then run once more: every message it stored is delivered exactly
/// once (the outbox is on disk before anything goes out; the client message id de-duplicates
/// resends of messages whose answer was lost with the process).
@Suite("Chat outbox survives SIGKILL", .serialized)
struct ChatCrashTests {
  @Test func killedSendersDeliverEveryStoredMessageExactlyOnce() async throws {
    let (server, url, tools) = try await demoServer(signedIn: "demo-1")
    let home = tools.home
    defer { try? FileManager.default.removeItem(at: home) }
    guard case .signedIn(let session) = try server.engine.signIn(provider: "dev", token: "demo-1")
    else { throw Failure("demo-1 is not a member") }
    let viewer = try server.engine.viewer(session.user.id)
    let room = try #require(try server.engine.chatRooms(.first, as: viewer).items.first).id

    var random = SeededRandom(seed: 20_261_124)
    var kills = 0
    for round in 1...20 {
      let texts = (1...5).map { "crash-\(round)-\($0)" }
      let delay = Int.random(in: 15...110, using: &random)
      let run = try await tools.run(
        "qapple",
        arguments: ["chat", "send", room.rawValue] + texts + ["--server", url.absoluteString],
        killAfter: .milliseconds(delay))
      if run.status != 0 { kills += 1 }
    }
    // One more run, not killed: it sends whatever the killed ones left in the outbox, and two
    // messages of its own (on a loaded machine every killed run may die before storing one).
    let final = try await tools.run(
      "qapple",
      arguments: [
        "chat", "send", room.rawValue, "crash-final-1", "crash-final-2", "--server",
        url.absoluteString,
      ])
    #expect(final.status == 0, "\(final)")

    let cacheFile = DataDirectory(url: home).chatCacheFile(
      server: .remote(url), user: session.user.id)
    let store = try ChatStore(at: .file(path: cacheFile.path), owner: session.user.id)
    defer { try? store.close() }
    #expect(try store.outbox().isEmpty)
    let cached = try store.latestMessages(in: room, limit: 1000).map(\.text)
      .filter { $0.hasPrefix("crash-") }
    var delivered: [String] = []
    var after: Int64 = 0
    while true {
      let page = try server.engine.messages(
        in: room, afterSeq: after, beforeSeq: nil, limit: 100, as: viewer)
      delivered += page.map(\.text).filter { $0.hasPrefix("crash-") }
      guard let last = page.last?.seq, page.count == 100 else { break }
      after = last
    }
    #expect(Set(delivered).count == delivered.count, "a message was delivered twice")
    #expect(Set(delivered) == Set(cached), "stored and delivered differ")
    #expect(delivered.contains("crash-final-1") && delivered.contains("crash-final-2"))
    print(
      "chat crash test: 20 rounds, \(kills) killed before finishing, \(cached.count) messages "
        + "stored, \(delivered.count) delivered, \(delivered.count - Set(delivered).count) duplicates"
    )
    await server.stop()
  }

  struct Failure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
  }
}
