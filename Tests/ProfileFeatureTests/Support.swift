import Clocks
import Dependencies
import Domain
import Foundation
import ProfileFeature
import RepositoriesTesting

/// `client`'s repositories (and `clock`, if given) as the model's dependencies.
@MainActor
func model<Model>(
  as client: FakeClient, clock: (any Clock<Duration>)? = nil,
  _ update: (inout DependencyValues) -> Void = { _ in }, _ make: () -> Model
) -> Model {
  withDependencies {
    $0.install(client)
    if let clock { $0.continuousClock = clock }
    update(&$0)
  } operation: {
    make()
  }
}

/// The events `client` uploaded, in order.
func events(of client: FakeClient) async throws -> [AnalyticsEvent] {
  _ = try await client.analytics.flush()
  let id = try client.userID
  return client.backend.analyticsEvents.filter { $0.userID == id }.map(\.event)
}

/// Lets the model's own tasks run (a check woken by the clock, a service answer arriving)
/// until `done` holds, a bounded number of turns, without moving the clock forward: each turn
/// only wakes sleeps already due, such as one that started after the clock reached its deadline.
@MainActor
func settle(_ clock: TestClock<Duration>, until done: () -> Bool = { false }) async {
  for _ in 0..<100 where !done() {
    await clock.advance(by: .zero)
  }
}

extension ProfileModel.Destination {
  /// The nickname editor, if that is what is presented.
  var editNickname: NicknameEditModel? {
    if case .editNickname(let editor) = self { editor } else { nil }
  }

  /// The report list, if that is what is presented.
  var myReports: MyReportsModel? {
    if case .myReports(let reports) = self { reports } else { nil }
  }

  /// Whether the withdrawal confirmation is presented.
  var isConfirmWithdrawal: Bool {
    if case .confirmWithdrawal = self { true } else { false }
  }
}
