import Dependencies
import Domain
import Foundation
import ReportFeature
import Repositories
import RepositoriesTesting
import TestSupport
import Testing

/// The report flow and the see-more sheet on the fakes: two members on shared data, the
/// engine's real rules (one report per target, hiding, deleting only one's own).
@MainActor
@Suite("ReportFeature")
struct ReportFeatureTests {
  let backend = FakeBackend(now: { Fixtures.now })
  let alice: FakeClient
  let bob: FakeClient
  let post: BoardPost

  init() async throws {
    alice = try backend.signedUpClient(nickname: "alice")
    bob = try backend.signedUpClient(nickname: "bob")
    post = try await alice.board.createPost(PostDraft(content: "Selling answers, DM me"))
  }

  @Test func choosingConfirmingAndFilingAReport() async throws {
    let report = bob.model { ReportModel(target: .post(post.id)) }
    var outcome: ReportModel.Outcome?
    report.onFinish = { outcome = $0 }
    await report.task()
    #expect(report.step == .chooseReason)
    #expect(report.reasons.first == .spam && report.reasons.last == .other)
    #expect(!report.canSubmit)

    report.reasonTapped(.spam)
    #expect(report.step == .confirm(.spam))
    #expect(report.canSubmit)
    await report.confirmButtonTapped()
    guard case .reported(let filed) = report.step else {
      Issue.record("not reported: \(report.step), \(String(describing: report.failure))")
      return
    }
    #expect(filed.target == .post(post.id))
    #expect(filed.reason == .spam)
    #expect(report.failure == nil)
    #expect(try await bob.reports.fetchMyReports(.first).items.map(\.id) == [filed.id])

    report.closeButtonTapped()
    #expect(outcome == .reported(filed))
    let events = try await bob.uploadedEvents()
    #expect(events.map(\.name) == ["screen_viewed", "report_submitted"])
    #expect(events[0].properties == ["screen": "report", "target_kind": "post"])
    #expect(
      events[1].properties == ["target_kind": "post", "reason": "spam", "outcome": "reported"])
  }

  @Test func aSecondReportShowsAlreadyReportedNotAFailure() async throws {
    _ = try await bob.reports.report(.post(post.id), .abuse)
    let report = bob.model { ReportModel(target: .post(post.id)) }
    var outcome: ReportModel.Outcome?
    report.onFinish = { outcome = $0 }
    report.reasonTapped(.privacy)
    await report.confirmButtonTapped()
    #expect(report.step == .alreadyReported)
    #expect(report.failure == nil)
    report.closeButtonTapped()
    #expect(outcome == .alreadyReported)
  }

  @Test func somethingElseNeedsItsTextAndKeepsItWhenGoingBack() async throws {
    let target = ReportTarget.user(try alice.userID)
    let report = bob.model { ReportModel(target: target) }
    report.reasonTapped(.other)
    #expect(!report.canSubmit)
    await report.confirmButtonTapped()
    #expect(report.failure == .validation(.empty(field: "detail")))
    #expect(report.step == .confirm(.other))
    report.failureDismissed()
    report.otherDetail = "Pretends to be a mentor"
    report.backButtonTapped()
    #expect(report.step == .chooseReason)
    report.reasonTapped(.other)
    #expect(report.otherDetail == "Pretends to be a mentor")
    #expect(report.canSubmit)
    await report.confirmButtonTapped()
    guard case .reported(let filed) = report.step else {
      Issue.record("not reported: \(report.step)")
      return
    }
    #expect(filed.reason == .other("Pretends to be a mentor"))
  }

  @Test func aFailureStaysOnScreenAndNothingIsFiled() async throws {
    backend.isOffline = true
    let report = bob.model { ReportModel(target: .post(post.id)) }
    report.reasonTapped(.spam)
    await report.confirmButtonTapped()
    #expect(report.failure == .offline)
    #expect(report.step == .confirm(.spam))
    #expect(!report.isSubmitting)
    backend.isOffline = false
    #expect(try await bob.reports.fetchMyReports(.first).items.isEmpty)
    // Trying again after the failure works.
    await report.confirmButtonTapped()
    #expect(report.failure == nil)
    guard case .reported = report.step else {
      Issue.record("not reported after retrying: \(report.step)")
      return
    }
  }

  @Test func reportingAMissingTargetSaysItIsGone() async throws {
    let report = bob.model { ReportModel(target: .post("p_missing")) }
    report.reasonTapped(.spam)
    await report.confirmButtonTapped()
    #expect(report.failure == .notFound)
  }

  @Test func cancellingEndsTheFlowWithoutAReport() async throws {
    let report = bob.model { ReportModel(target: .post(post.id)) }
    var outcome: ReportModel.Outcome?
    report.onFinish = { outcome = $0 }
    report.reasonTapped(.spam)
    report.closeButtonTapped()
    #expect(outcome == .cancelled)
    #expect(try await bob.reports.fetchMyReports(.first).items.isEmpty)
  }

  @Test("closing while the report is filed is ignored: the flow ends once, with the report")
  func closingWhileFilingEndsOnceWithTheReport() async throws {
    let gate = Gate()
    let report = bob.model { values in
      let file = values.reportRepository.report
      values.reportRepository.report = { target, reason in
        await gate.wait()
        return try await file(target, reason)
      }
    } _: {
      ReportModel(target: .post(post.id))
    }
    var outcomes: [ReportModel.Outcome] = []
    report.onFinish = { outcomes.append($0) }
    report.reasonTapped(.spam)
    try await gate.whileHeld(report.confirmButtonTapped) {
      report.closeButtonTapped()
      #expect(outcomes.isEmpty)
    }
    report.closeButtonTapped()
    guard case .reported(let filed) = outcomes.first, outcomes.count == 1 else {
      Issue.record("ended \(outcomes), not once with the report")
      return
    }
    #expect(try await bob.reports.fetchMyReports(.first).items.map(\.id) == [filed.id])
  }

  @Test func seeMoreOnSomeoneElsesPostReportsThroughTheSameFlow() async throws {
    let sheet = bob.model {
      SeeMoreModel(target: .post(post.id), isMine: false) { [bob, post] in
        try await bob.board.deletePost(post.id)
      }
    }
    var outcome: SeeMoreModel.Outcome?
    sheet.onFinish = { outcome = $0 }
    #expect(sheet.options == [.report])
    sheet.deleteButtonTapped()
    #expect(sheet.destination == nil)
    sheet.reportButtonTapped()
    guard case .report(let report) = sheet.destination else {
      Issue.record("no report flow")
      return
    }
    report.reasonTapped(.spam)
    await report.confirmButtonTapped()
    report.closeButtonTapped()
    guard case .report(.reported(let filed)) = outcome else {
      Issue.record("unexpected outcome \(String(describing: outcome))")
      return
    }
    #expect(filed.target == .post(post.id))
    #expect(sheet.destination == nil)
  }

  @Test func seeMoreOnMyPostDeletesAfterConfirming() async throws {
    let sheet = alice.model {
      SeeMoreModel(target: .post(post.id), isMine: true) { [alice, post] in
        try await alice.board.deletePost(post.id)
      }
    }
    var outcome: SeeMoreModel.Outcome?
    sheet.onFinish = { outcome = $0 }
    #expect(sheet.options == [.delete])
    sheet.reportButtonTapped()
    #expect(sheet.destination == nil)
    sheet.deleteButtonTapped()
    guard case .confirmDeletion = sheet.destination else {
      Issue.record("no confirmation")
      return
    }
    await sheet.deletionConfirmed()
    #expect(outcome == .deleted)
    await #expect(throws: DomainError.notFound) {
      try await bob.board.fetchPost(post.id)
    }
  }

  @Test func aFailedDeletionIsShownAndTheItemStays() async throws {
    // Bob's sheet claims the post is his: the engine refuses, and the sheet says so.
    let sheet = bob.model {
      SeeMoreModel(target: .post(post.id), isMine: true) { [bob, post] in
        try await bob.board.deletePost(post.id)
      }
    }
    var outcome: SeeMoreModel.Outcome?
    sheet.onFinish = { outcome = $0 }
    sheet.deleteButtonTapped()
    await sheet.deletionConfirmed()
    #expect(sheet.failure == .forbidden)
    #expect(outcome == nil)
    #expect(try await alice.board.fetchPost(post.id).id == post.id)
    sheet.failureDismissed()
    #expect(sheet.failure == nil)
  }
}
