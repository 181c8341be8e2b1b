import Domain
import TestSupport
import Testing

@Suite("Broadcaster")
struct BroadcasterTests {
  @Test("every subscriber gets every value, in order; a replaying one starts with the latest")
  func fanOut() async {
    let broadcaster = Broadcaster<Int>(replaysLatest: true, initial: 0)
    var early = broadcaster.subscribe().makeAsyncIterator()
    broadcaster.publish(1)
    var late = broadcaster.subscribe().makeAsyncIterator()
    broadcaster.publish(2)
    #expect(await early.next() == 0)
    #expect(await early.next() == 1)
    #expect(await early.next() == 2)
    #expect(await late.next() == 1)
    #expect(await late.next() == 2)
    #expect(broadcaster.current == 2)
    #expect(broadcaster.subscriberCount == 2)
  }

  @Test("publishIfChanged skips a repeat of the latest value")
  func dedupe() async {
    let broadcaster = Broadcaster<String>(replaysLatest: true)
    #expect(broadcaster.current == nil)
    var values = broadcaster.subscribe().makeAsyncIterator()
    #expect(broadcaster.publishIfChanged("a"))
    #expect(!broadcaster.publishIfChanged("a"))
    #expect(broadcaster.publishIfChanged("b"))
    broadcaster.finish()
    #expect(await values.next() == "a")
    #expect(await values.next() == "b")
    #expect(await values.next() == nil)
  }

  @Test("without replay a subscriber sees only later values; after finish streams end at once")
  func noReplayAndFinish() async {
    let broadcaster = Broadcaster<Int>()
    broadcaster.publish(1)
    var values = broadcaster.subscribe().makeAsyncIterator()
    broadcaster.publish(2)
    broadcaster.finish()
    broadcaster.publish(3)
    #expect(await values.next() == 2)
    #expect(await values.next() == nil)
    var after = broadcaster.subscribe().makeAsyncIterator()
    #expect(await after.next() == nil)
    #expect(broadcaster.subscriberCount == 0)
  }

  @Test("a reader that stops is unsubscribed")
  func readerStops() async throws {
    let broadcaster = Broadcaster<Int>()
    let task = Task { for await _ in broadcaster.subscribe() {} }
    try await waitUntil("the reader subscribes") { broadcaster.subscriberCount == 1 }
    task.cancel()
    await task.value
    #expect(broadcaster.subscriberCount == 0)
  }
}
