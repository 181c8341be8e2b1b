import Clocks
import Dependencies
import Domain
import Foundation
import ProfileFeature
import RepositoriesTesting

/// A few turns of the test clock without moving it, for work already on the main actor's way
/// (an answer that must then be dropped).
@MainActor
func settleBriefly(_ clock: TestClock<Duration>) async {
  for _ in 0..<20 {
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
