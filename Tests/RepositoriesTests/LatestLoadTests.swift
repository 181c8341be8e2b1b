import Repositories
import Testing

@Suite("LatestLoad")
struct LatestLoadTests {
  @Test("only the newest load is the latest")
  func newestOnly() {
    var loads = LatestLoad()
    let first = loads.start()
    #expect(loads.isLatest(first))
    let second = loads.start()
    #expect(!loads.isLatest(first))
    #expect(loads.isLatest(second))
    let third = loads.start()
    #expect(loads.isLatest(third))
    #expect(![first, second].contains(third))
  }
}
