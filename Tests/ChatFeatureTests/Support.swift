import Clocks
import Dependencies
import Domain
import Foundation
import Repositories
import RepositoriesTesting
import Testing

/// Waits until `condition` holds, looking every 10 ms for at most `timeout` of real time; records
/// an issue naming `what` and returns `false` when it never does.
@MainActor
func eventually(
  _ what: String, timeout: Duration = .seconds(10), _ condition: @MainActor () -> Bool
) async -> Bool {
  let clock = ContinuousClock()
  let end = clock.now.advanced(by: timeout)
  while !condition() {
    guard clock.now < end else {
      Issue.record("Timed out waiting until \(what)")
      return false
    }
    try? await Task.sleep(for: .milliseconds(10))
  }
  return true
}
