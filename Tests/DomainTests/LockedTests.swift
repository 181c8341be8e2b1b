import Domain
import Foundation
import Testing

@Suite("Locked")
struct LockedTests {
  @Test("concurrent updates are exclusive: none is lost")
  func exclusive() async {
    let counter = Locked(0)
    await withTaskGroup(of: Void.self) { group in
      for _ in 0..<8 {
        group.addTask {
          for _ in 0..<1_000 { counter.withLock { $0 += 1 } }
        }
      }
    }
    #expect(counter.withLock { $0 } == 8_000)
  }

  @Test("withLock returns the body's result and rethrows its error")
  func resultAndError() {
    struct Refused: Error {}
    let names = Locked(["Mina"])
    #expect(
      names.withLock {
        $0.append("Jun"); return $0.count
      } == 2)
    #expect(throws: Refused.self) { try names.withLock { _ in throw Refused() } }
    #expect(names.withLock { $0 } == ["Mina", "Jun"])
  }
}
