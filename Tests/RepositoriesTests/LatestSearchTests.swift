import Clocks
import Dependencies
import Repositories
import Testing

/// `LatestSearch`: a text change supersedes the search before; a search runs after its pause.
@MainActor
@Suite("LatestSearch")
struct LatestSearchTests {
  @Test func aSearchRunsAfterItsPauseUnlessANewerChangeCameFirst() async throws {
    let clock = TestClock()
    let searches = LatestSearch()
    let ran = LockIsolated<[String]>([])
    let first = searches.supersede()
    let stale = Task {
      await searches.afterPause(.milliseconds(300), on: clock, run: first) {
        ran.withValue { $0.append("first") }
      }
    }
    await Task.megaYield()
    let second = searches.supersede()
    #expect(!searches.isCurrent(first) && searches.isCurrent(second))
    // The first pause ended with the change: it returns without searching.
    await stale.value
    let current = Task {
      await searches.afterPause(.milliseconds(300), on: clock, run: second) {
        ran.withValue { $0.append("second") }
      }
    }
    await Task.megaYield()
    await clock.advance(by: .milliseconds(299))
    await Task.megaYield()
    #expect(ran.value.isEmpty)
    await clock.advance(by: .milliseconds(2))
    await current.value
    #expect(ran.value == ["second"])
  }

  @Test func skippingThePauseEndsTheWaitWithoutANewNumber() async throws {
    let searches = LatestSearch()
    let run = searches.supersede()
    let ran = LockIsolated(false)
    let waiting = Task {
      await searches.afterPause(.seconds(60), on: TestClock(), run: run) { ran.setValue(true) }
    }
    await Task.megaYield()
    searches.skipPause()
    await waiting.value
    #expect(!ran.value && searches.isCurrent(run))
  }
}
