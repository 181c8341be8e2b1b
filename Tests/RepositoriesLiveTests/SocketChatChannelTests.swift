import Foundation
import Logging
import NetworkKit
import NetworkKitTesting
import Testing

@testable import RepositoriesLive

@Suite("SocketChatChannel", .timeLimit(.minutes(1)))
struct SocketChatChannelTests {
  @Test func aChannelNeverReconnectsWithTheNextUsersToken() async throws {
    let harness = Harness()
    try await harness.signIn(as: "u_a", accessToken: "access-a", refreshToken: "refresh-a")
    let transport = ScriptedWebSocketTransport(.accept)
    let channel = SocketChatChannel(
      baseURL: Harness.baseURL, authenticator: harness.backend.authenticator,
      logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, transport: transport,
      clock: ContinuousClock())
    await channel.open()
    #expect(await transport.attempt(0).headerFields[.authorization] == "Bearer access-a")

    // A signs out and B signs in before the engine of A is stopped; then A's socket drops.
    harness.stub(.post, "/auth/sign-out", status: .noContent, json: "")
    try await harness.repositories.auth.signOut()
    try await harness.signIn(as: "u_b", accessToken: "access-b", refreshToken: "refresh-b")
    let states = channel.connection.stateChanges()
    await transport.socket(0).closeFromServer(code: .goingAway)

    // Two reconnect attempts fail for want of A's session; no socket opens with B's token.
    for await state in states {
      if case .waitingToReconnect(let attempt, _) = state, attempt >= 2 { break }
    }
    #expect(transport.attempts.count == 1)
    await channel.close()
  }
}
