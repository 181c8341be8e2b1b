import Dependencies
import Domain
import Foundation
import QuestionFeature
import Repositories
import RepositoriesTesting
import TestSupport
import Testing

/// What `qapple://questions/ID` opens, on the community seed (questions in seed order: today,
/// yesterday, two and three days ago, tomorrow).
@MainActor
@Suite("QuestionDetailModel")
struct QuestionDetailModelTests {
  let backend = FakeBackend(now: { Fixtures.now })
  let seeded: SeededData
  let bear: FakeClient

  init() throws {
    seeded = try backend.seed(Fixtures.community)
    bear = try backend.client(forNickname: Fixtures.codingBear)
  }

  @Test func aCancelledLoadIsNoFailureAndLoadsOnTheNextAppearance() async throws {
    let cancels = LockIsolated(true)
    let detail = bear.model({ values in
      let fetch = values.questionRepository.fetchQuestion
      values.questionRepository.fetchQuestion = { id in
        if cancels.value { throw CancellationError() }
        return try await fetch(id)
      }
    }) { QuestionDetailModel(questionID: seeded.questions[2]) }
    await detail.task()
    #expect(detail.question == nil && detail.failure == nil)
    if case .failed(let error) = detail.phase { Issue.record("failed: \(error)") }
    cancels.setValue(false)
    await detail.task()
    #expect(detail.question?.content == "요즘 가장 재미있게 공부하는 주제는?")
  }

  @Test func aPastQuestionIAnsweredShowsItsAnswers() async throws {
    let detail = bear.model { QuestionDetailModel(questionID: seeded.questions[2]) }
    await detail.task()
    #expect(detail.question?.content == "요즘 가장 재미있게 공부하는 주제는?")
    #expect(!detail.isToday)
    #expect(!detail.canWriteAnswer)
    #expect(!detail.answers.isLocked)
    #expect(detail.answers.answers.map(\.isMine) == [true])
    let events = try await bear.uploadedEvents()
    #expect(events.map(\.properties) == [["screen": "question_detail"]])
  }

  @Test("a past question I did not answer stays locked until I answer it, as the service allows")
  func aPastQuestionIDidNotAnswerCanStillBeAnswered() async throws {
    let detail = bear.model { QuestionDetailModel(questionID: seeded.questions[1]) }
    await detail.task()
    #expect(!detail.isToday)
    #expect(detail.question?.myAnswer == nil)
    #expect(detail.answers.isLocked)
    #expect(detail.answers.answers.isEmpty)
    #expect(detail.canWriteAnswer)
    detail.writeAnswerButtonTapped()
    let sheet = try #require(detail.destination?.writeAnswer)
    sheet.textChanged("하루 늦은 답")
    await sheet.submitButtonTapped()
    #expect(detail.question?.myAnswer?.content == "하루 늦은 답")
    #expect(!detail.canWriteAnswer)
    #expect(!detail.answers.isLocked)
    #expect(detail.answers.answers.contains { $0.isMine })
  }

  @Test func todaysQuestionCanBeAnsweredFromItsLink() async throws {
    let detail = bear.model { QuestionDetailModel(questionID: seeded.questions[0]) }
    await detail.task()
    #expect(detail.isToday)
    #expect(detail.canWriteAnswer)
    #expect(detail.answers.isLocked)
    detail.writeAnswerButtonTapped()
    let sheet = try #require(detail.destination?.writeAnswer)
    sheet.textChanged("링크로 들어와서 쓴 답")
    sheet.closeButtonTapped()
    detail.writeAnswerButtonTapped()
    let reopened = try #require(detail.destination?.writeAnswer)
    #expect(reopened.text == "링크로 들어와서 쓴 답")
    await reopened.submitButtonTapped()
    #expect(detail.destination == nil)
    #expect(detail.question?.myAnswer?.content == "링크로 들어와서 쓴 답")
    #expect(!detail.canWriteAnswer)
    #expect(!detail.answers.isLocked)
    #expect(detail.answers.answers.count == 3)
  }

  /// Bear's detail of today's question, each read of which waits at `gate` once made.
  private func gatedDetail(_ gate: Gate) -> QuestionDetailModel {
    bear.model { values in
      values.questionRepository.fetchQuestion = gate.answering(
        values.questionRepository.fetchQuestion)
    } _: {
      QuestionDetailModel(questionID: seeded.questions[0])
    }
  }

  @Test("a question read before the answer was submitted does not take the answer back")
  func aStaleReadKeepsTheAnswerSubmittedHere() async throws {
    // The first read (the screen's load) passes; the refresh's is made at once and answers
    // when the gate opens.
    let gate = Gate(letThrough: 1)
    let detail = gatedDetail(gate)
    await detail.task()
    try await gate.whileHeld(detail.refreshPulled) {
      detail.writeAnswerButtonTapped()
      let sheet = try #require(detail.destination?.writeAnswer)
      sheet.textChanged("새로고침 중에 쓴 답")
      await sheet.submitButtonTapped()
      #expect(detail.question?.myAnswer?.content == "새로고침 중에 쓴 답")
    }
    #expect(detail.question?.myAnswer?.content == "새로고침 중에 쓴 답")
    #expect(!detail.canWriteAnswer)
    #expect(!detail.answers.isLocked)
  }

  @Test(
    "a question read after the answer was taken or deleted, before the answer came, counts it once"
  )
  func aReadDuringAnAnswerChangeCountsItOnce() async throws {
    // Each answer comes when its gate opens, after the server made the change.
    let (submitted, deleted) = (Gate(), Gate())
    let detail = bear.model { values in
      values.questionRepository.submitAnswer = submitted.answering(
        values.questionRepository.submitAnswer)
      values.questionRepository.deleteAnswer = deleted.answering(
        values.questionRepository.deleteAnswer)
    } _: {
      QuestionDetailModel(questionID: seeded.questions[0])
    }
    await detail.task()
    let before = try #require(detail.question?.answerCount)
    detail.writeAnswerButtonTapped()
    let sheet = try #require(detail.destination?.writeAnswer)
    sheet.textChanged("한 번만 세는 답")
    try await submitted.whileHeld(sheet.submitButtonTapped) {
      await detail.refreshPulled()
    }
    #expect(detail.question?.answerCount == before + 1)

    let mine = try #require(detail.answers.answers.first { $0.isMine })
    detail.answers.seeMoreTapped(mine)
    guard case .seeMore(let seeMore) = detail.answers.destination else {
      Issue.record("no see-more sheet")
      return
    }
    seeMore.deleteButtonTapped()
    try await deleted.whileHeld(seeMore.deletionConfirmed) {
      await detail.refreshPulled()
    }
    #expect(detail.question?.answerCount == before)
    #expect(detail.question?.myAnswer == nil)
  }

  @Test func aConflictingAnswerReloadsTheQuestionFromItsLink() async throws {
    let detail = bear.model { QuestionDetailModel(questionID: seeded.questions[0]) }
    await detail.task()
    detail.writeAnswerButtonTapped()
    let sheet = try #require(detail.destination?.writeAnswer)
    sheet.textChanged("늦게 보낸 답")
    // Answered meanwhile on another device.
    let other = try backend.client(forNickname: Fixtures.codingBear)
    let mine = try await other.questions.submitAnswer(seeded.questions[0], "먼저 보낸 답")
    await sheet.submitButtonTapped()
    guard case .conflict = sheet.failure else {
      Issue.record("expected a conflict, got \(String(describing: sheet.failure))")
      return
    }
    #expect(detail.question?.myAnswer?.id == mine.id)
    #expect(detail.question?.answerCount == 3)
    #expect(!detail.canWriteAnswer)
    #expect(detail.failure == nil)
    #expect(!detail.answers.isLocked)
    #expect(detail.answers.answers.filter(\.isMine).map(\.id) == [mine.id])
  }

  @Test("an older load that lands after a newer one is dropped: the answer made elsewhere stays")
  func anOlderLoadDoesNotOverwriteANewerOne() async throws {
    // The screen's load passes; the first refresh reads the question unanswered, then waits.
    let gate = Gate(letThrough: 1, holding: 1)
    let detail = gatedDetail(gate)
    await detail.task()
    try await gate.whileHeld(detail.refreshPulled) {
      // Answered on another device, then a newer refresh shows it.
      let other = try backend.client(forNickname: Fixtures.codingBear)
      _ = try await other.questions.submitAnswer(seeded.questions[0], "다른 기기에서 쓴 답")
      await detail.refreshPulled()
      #expect(detail.question?.myAnswer != nil)
    }
    #expect(detail.question?.myAnswer?.content == "다른 기기에서 쓴 답")
    #expect(!detail.canWriteAnswer)
    #expect(!detail.answers.isLocked)
  }

  @Test func aConflictWhoseReloadFailsSaysWhyAndKeepsTheDraft() async throws {
    let readsFail = Locked(false)
    let detail = bear.model {
      let questions = $0.questionRepository
      $0.questionRepository.fetchQuestion = { id in
        if readsFail.withLock({ $0 }) { throw DomainError.offline }
        return try await questions.fetchQuestion(id)
      }
    } _: {
      QuestionDetailModel(questionID: seeded.questions[0])
    }
    await detail.task()
    detail.writeAnswerButtonTapped()
    let sheet = try #require(detail.destination?.writeAnswer)
    sheet.textChanged("늦게 보낸 답")
    // Answered meanwhile on another device; then the question cannot be read again.
    let other = try backend.client(forNickname: Fixtures.codingBear)
    let mine = try await other.questions.submitAnswer(seeded.questions[0], "먼저 보낸 답")
    readsFail.withLock { $0 = true }
    await sheet.submitButtonTapped()
    // The reload was tried and its failure is the screen's; the sheet says why the answer was
    // refused and keeps the text, also after closing and reopening it.
    guard case .conflict = sheet.failure else {
      Issue.record("expected a conflict, got \(String(describing: sheet.failure))")
      return
    }
    #expect(detail.failure == .offline)
    #expect(sheet.text == "늦게 보낸 답")
    sheet.closeButtonTapped()
    detail.writeAnswerButtonTapped()
    #expect(detail.destination?.writeAnswer === sheet)
    #expect(sheet.text == "늦게 보낸 답")
    // Readable again: a refresh shows the answer sent first and unlocks the others'.
    readsFail.withLock { $0 = false }
    await detail.refreshPulled()
    #expect(detail.failure == nil)
    #expect(detail.question?.myAnswer?.id == mine.id)
    #expect(!detail.canWriteAnswer)
    #expect(!detail.answers.isLocked)
  }

  @Test func aQuestionNotPublishedOrUnknownIsNotFound() async throws {
    for id in [seeded.questions[4], "q_missing"] {
      let detail = bear.model { QuestionDetailModel(questionID: id) }
      await detail.task()
      #expect(detail.phase == .failed(.notFound))
      #expect(!detail.canWriteAnswer)
    }
  }

  @Test func aFailedLoadIsShownAndARefreshRecovers() async throws {
    backend.isOffline = true
    let detail = bear.model { QuestionDetailModel(questionID: seeded.questions[2]) }
    await detail.task()
    #expect(detail.phase == .failed(.offline))
    backend.isOffline = false
    await detail.refreshPulled()
    #expect(detail.question?.id == seeded.questions[2])
    #expect(detail.answers.answers.count == 1)
    backend.isOffline = true
    await detail.refreshPulled()
    #expect(detail.failure == .offline)
    #expect(detail.question?.id == seeded.questions[2])
  }
}
