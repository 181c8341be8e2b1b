import Domain
import Foundation
import Repositories
import Testing

@testable import RepositoriesTesting

@Suite("The fakes' chat link", .timeLimit(.minutes(1)))
struct ChannelLinkTests {
  @Test(
    "answers to a call on a link replaced since are not queued: the call fails offline, as on a closed socket"
  )
  func answersOfAReplacedLinkAreNotQueued() async throws {
    let (backend, alice, bob, _) = try makeCast()
    let room = try await alice.chat.openDirectRoom(with: try bob.userID)
    let channel = EngineChatChannel(backend: backend, client: alice.id, user: try alice.userID)
    var events = channel.events.makeAsyncIterator()
    await channel.open()
    #expect(await events.next() == .state(.connecting))
    #expect(await events.next() == .state(.connected, link: ConnectionLink(1)))
    backend.isOffline = true
    #expect(await events.next() == .state(.waitingToReconnect(retryIn: .zero)))
    backend.isOffline = false
    #expect(await events.next() == .state(.connecting))
    #expect(await events.next() == .state(.connected, link: ConnectionLink(2)))

    // Link 1's answers, arriving late (its subscribe ran as the link went down): not queued
    // after link 2's state, where they would say the room is subscribed on link 2.
    #expect(throws: DomainError.offline) {
      try channel.push([.subscribed(room: room.id, lastSeq: 0)], on: ConnectionLink(1))
    }
    await #expect(throws: DomainError.offline) {
      try await channel.subscribe(to: room.id, afterSeq: 0, on: ConnectionLink(1))
    }
    // Link 2's own answers come.
    try await channel.subscribe(to: room.id, afterSeq: 0, on: ConnectionLink(2))
    #expect(await events.next() == .subscribed(room: room.id, lastSeq: 0))
    try await channel.unsubscribe(from: room.id, on: ConnectionLink(2))
    #expect(await events.next() == .unsubscribed(room: room.id))
    await channel.close()
    #expect(await events.next() == .state(.offline))
  }
}
