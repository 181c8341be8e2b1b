import Domain
import Foundation
import Testing

@Suite("BatchQueue")
struct BatchQueueTests {
  @Test("what waits is handed over at once, in push order; finish ends after the last batch")
  func batchesInOrder() async {
    let queue = BatchQueue<Int>()
    for value in 1...3 { queue.push(value) }
    #expect(queue.backlog == 3)
    var iterator = queue.batches.makeAsyncIterator()
    #expect(await iterator.next() == [1, 2, 3])
    #expect(queue.backlog == 0)
    queue.push(4)
    queue.push(5)
    queue.finish()
    #expect(await iterator.next() == [4, 5])
    #expect(await iterator.next() == nil)
  }

  @Test("a reader waiting on an empty queue gets the next push")
  func waitsForPushes() async {
    let queue = BatchQueue<String>()
    let reader = Task {
      var batches: [[String]] = []
      for await batch in queue.batches { batches.append(batch) }
      return batches
    }
    try? await Task.sleep(for: .milliseconds(20))
    queue.push("one")
    try? await Task.sleep(for: .milliseconds(20))
    queue.finish()
    #expect(await reader.value == [["one"]])
  }
}
