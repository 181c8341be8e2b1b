import Domain
import Foundation
import Repositories
import Testing

@testable import RepositoriesTesting

@Suite("The fakes' chat calls belong to one user")
struct ChatBindingTests {
  @Test(
    "an engine's server calls and link are signedOut while another user is signed in on its client, as live ones are"
  )
  func anEnginesCallsNeverRunAsTheNextUser() async throws {
    let (backend, alice, bob, _) = try makeCast()
    let aliceID = try alice.userID
    let room = try await alice.chat.openDirectRoom(with: try bob.userID)
    let alicesServer = RepositorySet.chatServer(fakeClient: alice.id, of: backend, boundTo: aliceID)
    let bobsServer = RepositorySet.chatServer(fakeClient: bob.id, of: backend, boundTo: nil)
    _ = try await alicesServer.sendMessage("hi", room.id, UUID())

    // Bob signs in on Alice's client: her engine's calls do not run as him.
    try await alice.auth.signOut()
    _ = try await alice.auth.signIn(provider: .dev, token: "bob")
    await #expect(throws: DomainError.signedOut) {
      _ = try await alicesServer.sendMessage("as bob?", room.id, UUID())
    }
    await #expect(throws: DomainError.signedOut) { try await alicesServer.markRead(room.id, 1) }
    await #expect(throws: DomainError.signedOut) {
      _ = try await alicesServer.fetchMessages(room.id, nil, nil, 10)
    }
    // Her link stays down; his own link on the client connects.
    let alicesLink = EngineChatChannel(backend: backend, client: alice.id, user: aliceID)
    var alicesEvents = alicesLink.events.makeAsyncIterator()
    await alicesLink.open()
    #expect(await alicesEvents.next() == .state(.connecting))
    #expect(await alicesEvents.next() == .state(.offline))
    await alicesLink.close()
    let bobsLink = EngineChatChannel(backend: backend, client: alice.id, user: try bob.userID)
    var bobsEvents = bobsLink.events.makeAsyncIterator()
    await bobsLink.open()
    #expect(await bobsEvents.next() == .state(.connecting))
    #expect(await bobsEvents.next() == .state(.connected, link: ConnectionLink(1)))
    await bobsLink.close()

    // Alice back: her engine's calls run again, as her.
    try await alice.auth.signOut()
    _ = try await alice.auth.signIn(provider: .dev, token: "alice")
    _ = try await alicesServer.sendMessage("back", room.id, UUID())
    let messages = try await bobsServer.fetchMessages(room.id, nil, nil, 10)
    #expect(messages.map(\.text) == ["hi", "back"])
    #expect(messages.map(\.sender.id) == [aliceID, aliceID])
  }
}
