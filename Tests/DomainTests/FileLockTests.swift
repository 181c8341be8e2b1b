import Domain
import Foundation
import TestSupport
import Testing

@Suite("FileLock")
struct FileLockTests {
  @Test("a lock held keeps the next one out until it is released; the lock file is 0600")
  func excludes() async throws {
    let folder = try TemporaryDirectory("lock")
    defer { folder.remove() }
    let path = folder.path("session.json.lock")
    let first = try #require(try await FileLock.acquire(at: path, waitingAtMost: .seconds(5)))
    #expect(try permissions(of: URL(fileURLWithPath: path)) == 0o600)
    // Held: a bounded wait gives up.
    #expect(try await FileLock.acquire(at: path, waitingAtMost: .milliseconds(50)) == nil)

    let order = Locked<[String]>([])
    let waiter = Task {
      let lock = try await FileLock.acquire(at: path, waitingAtMost: .seconds(10))
      order.withLock { $0.append("second locked") }
      return lock
    }
    try await Task.sleep(for: .milliseconds(100))
    order.withLock { $0.append("first released") }
    first.unlock()
    let second = try #require(try await waiter.value)
    #expect(order.withLock { $0 } == ["first released", "second locked"])
    second.unlock()
    first.unlock()
    // Released: the next one gets it. (A few seconds allowed: a child process another test
    // spawns holds a copy of every open file until it starts its program.)
    #expect(try await FileLock.acquire(at: path, waitingAtMost: .seconds(5)) != nil)
  }

  @Test("a lock file that cannot be made is an error naming it")
  func unopenable() async throws {
    let folder = try TemporaryDirectory("lock")
    defer { folder.remove() }
    let path = folder.path("missing/session.json.lock")
    await #expect(throws: PrivateFile.Failure.self) {
      try await FileLock.acquire(at: path, waitingAtMost: .seconds(1))
    }
  }
}
