import Domain
import Foundation
import LocalServer
import ServiceEngine
import Testing
import ToolSupport

/// `qapple chat rooms` as a real process, like every listing: `--json` prints a
/// `ListOutput<ChatRoomOutput>` in the server's order, `--cursor` continues after a page, and
/// the text output names the next cursor on stderr.
@Suite("qapple chat rooms", .serialized)
struct ChatRoomsTests {
  @Test func roomsDecodeFromJSONAndPageOnWithTheCursor() async throws {
    let (server, url, tools) = try await demoServer(signedIn: "demo-1")
    defer { try? FileManager.default.removeItem(at: tools.home) }
    guard case .signedIn(let me) = try server.engine.signIn(provider: "dev", token: "demo-1"),
      case .signedIn(let peer) = try server.engine.signIn(provider: "dev", token: "demo-2")
    else { throw ChatCrashTests.Failure("demo-1 or demo-2 is not a member") }
    let viewer = try server.engine.viewer(me.user.id)
    // A direct room besides the seeded ones: at least two rooms, so a page of one leaves more.
    _ = try server.engine.openDirectRoom(with: peer.user.id, as: viewer)
    let expected = try server.engine.chatRooms(PageRequest(limit: 100), as: viewer).items
    try #require(expected.count >= 2, "\(expected)")
    let serverOption = ["--server", url.absoluteString]

    let first = try await tools.run(
      "qapple", arguments: ["chat", "rooms", "--json", "--limit", "1"] + serverOption)
    #expect(first.status == 0, "\(first)")
    let page = try first.decode(ListOutput<ChatRoomOutput>.self)
    #expect(page.items.map(\.id) == [expected[0].id.rawValue])
    let cursor = try #require(page.nextCursor, "one room of \(expected.count) names the next page")
    #expect(!first.stderr.contains("--cursor"), "no hint with --json: \(first)")

    let next = try await tools.run(
      "qapple",
      arguments: ["chat", "rooms", "--json", "--limit", "100", "--cursor", cursor] + serverOption)
    #expect(next.status == 0, "\(next)")
    let rest = try next.decode(ListOutput<ChatRoomOutput>.self)
    #expect(rest.items.map(\.id) == expected.dropFirst().map(\.id.rawValue))
    #expect(rest.nextCursor == nil)

    // Every field as the server has it (dates aside: JSON keeps whole seconds).
    for (room, output) in zip(expected, page.items + rest.items) {
      switch room.kind {
      case .group(let group):
        #expect(output.kind == "group" && output.groupID == group.rawValue && output.peerID == nil)
      case .direct(let other):
        #expect(output.kind == "direct" && output.peerID == other.rawValue && output.groupID == nil)
      }
      #expect(output.title == room.title)
      #expect(output.unreadCount == room.unreadCount)
      #expect(output.lastReadSeq == room.lastReadSeq)
      #expect(output.lastMessage?.id == room.lastMessage?.id.rawValue)
      #expect(output.lastMessage?.seq == room.lastMessage?.seq)
      #expect(output.lastMessage?.text == room.lastMessage?.text)
      #expect(output.lastMessage?.sender.id == room.lastMessage?.sender.id.rawValue)
    }
    let direct = (page.items + rest.items).filter { $0.peerID == peer.user.id.rawValue }
    #expect(direct.count == 1, "the direct room with demo-2 is listed once")

    // The text output: the table on stdout, the next cursor on stderr.
    let text = try await tools.run(
      "qapple", arguments: ["chat", "rooms", "--limit", "1"] + serverOption)
    #expect(text.status == 0, "\(text)")
    #expect(text.stdout.contains(expected[0].id.rawValue), "\(text)")
    #expect(text.stderr.contains("(more: add --cursor "), "\(text)")
    await server.stop()
  }
}
