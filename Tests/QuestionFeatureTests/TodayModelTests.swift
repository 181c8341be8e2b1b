import Dependencies
import Domain
import Foundation
import QuestionFeature
import ReportFeature
import Repositories
import RepositoriesTesting
import TestSupport
import Testing

/// The Today tab on the community seed: 코딩곰 has not answered today's question, 하늘 and Jisoo
/// have; the answers of others stay locked until one answers.
@MainActor
@Suite("TodayModel")
struct TodayModelTests {
  let backend = FakeBackend(now: { Fixtures.now })
  let seeded: SeededData
  let bear: FakeClient
  let haneul: FakeClient

  init() throws {
    seeded = try backend.seed(Fixtures.community)
    bear = try backend.client(forNickname: Fixtures.codingBear)
    haneul = try backend.client(forNickname: Fixtures.haneul)
  }

  /// The write sheet the question's model presents, or a failed test.
  func writeSheet(of detail: QuestionDetailModel) throws -> WriteAnswerModel {
    try #require(detail.destination?.writeAnswer)
  }

  /// Taps "more" on `answer` and returns the sheet, or fails the test.
  func seeMore(on answer: Answer, in answers: AnswerListModel) throws -> SeeMoreModel {
    answers.seeMoreTapped(answer)
    guard case .seeMore(let sheet) = answers.destination else {
      throw DomainError.server("no see-more sheet for \(answer.id)")
    }
    return sheet
  }

  /// Today's screen as `client`, loaded, and its question's model.
  func loadedToday(as client: FakeClient) async throws -> (TodayModel, QuestionDetailModel) {
    let today = client.model { TodayModel() }
    await today.task()
    return (today, try #require(today.today))
  }

  @Test("a load given up (the screen went away) shows no failure and loads on the next appearance")
  func aCancelledLoadIsNoFailure() async throws {
    let cancels = LockIsolated(true)
    let today = bear.model({ values in
      let fetch = values.questionRepository.fetchToday
      values.questionRepository.fetchToday = {
        if cancels.value { throw CancellationError() }
        return try await fetch()
      }
    }) { TodayModel() }
    await today.task()
    guard case .loading = today.phase else {
      Issue.record("phase: \(today.phase)")
      return
    }
    #expect(today.failure == nil)
    cancels.setValue(false)
    await today.task()
    #expect(today.today != nil)
  }

  @Test("a load overtaken by a newer one does not put an older day's question back when it lands")
  func anOvertakenLoadDoesNotLand() async throws {
    // The screen's first read answers when the gate opens, with the question it read before
    // midnight: yesterday's.
    let gate = Gate(holding: 1)
    let reads = LockIsolated(0)
    let yesterday = seeded.questions[1]
    let today = bear.model { values in
      let (fetchToday, fetchQuestion) = (
        values.questionRepository.fetchToday, values.questionRepository.fetchQuestion
      )
      values.questionRepository.fetchToday = {
        let read = reads.withValue {
          $0 += 1
          return $0
        }
        let question = try await read == 1 ? fetchQuestion(yesterday) : fetchToday()
        await gate.wait()
        return question
      }
    } _: {
      TodayModel()
    }
    try await gate.whileHeld(today.task) {
      await today.refreshPulled()
      #expect(today.today?.questionID == seeded.questions[0])
    }
    #expect(today.today?.questionID == seeded.questions[0])
    #expect(today.today?.isToday == true)
  }

  @Test func othersAnswersUnlockOnceIAnswer() async throws {
    let (_, detail) = try await loadedToday(as: bear)
    let question = try #require(detail.question)
    #expect(question.content == Fixtures.todayQuestion)
    #expect(question.myAnswer == nil)
    #expect(detail.canWriteAnswer)
    let answers = detail.answers
    #expect(answers.isLocked)
    #expect(answers.answers.isEmpty)
    #expect(answers.failure == nil)

    detail.writeAnswerButtonTapped()
    let sheet = try writeSheet(of: detail)
    await sheet.task()
    #expect(sheet.question.id == question.id)
    #expect(!sheet.canSubmit)
    sheet.textChanged("  \"테스트 먼저 써 볼까요?\"  ")
    #expect(sheet.canSubmit)
    await sheet.submitButtonTapped()
    #expect(sheet.failure == nil)

    #expect(detail.destination == nil)
    let mine = try #require(detail.question?.myAnswer)
    #expect(mine.content == "\"테스트 먼저 써 볼까요?\"")
    #expect(detail.question?.answerCount == question.answerCount + 1)
    #expect(!detail.canWriteAnswer)
    #expect(!answers.isLocked)
    #expect(
      answers.answers.map(\.authorNickname).sorted()
        == [Fixtures.codingBear, Fixtures.jisoo, Fixtures.haneul].sorted())
    #expect(answers.answers.filter(\.isMine).map(\.id) == [mine.id])
    // The service agrees.
    #expect(try await bear.questions.fetchToday().myAnswer?.id == mine.id)

    let events = try await bear.uploadedEvents()
    #expect(events.map(\.name) == ["screen_viewed", "screen_viewed", "answer_submitted"])
    #expect(events[0].properties == ["screen": "question_today"])
    #expect(events[1].properties == ["screen": "answer_write"])
    #expect(events[2].properties == ["characters": "15"])
  }

  @Test func someoneWhoAnsweredSeesTheAnswersRightAway() async throws {
    let (_, detail) = try await loadedToday(as: haneul)
    #expect(detail.question?.myAnswer != nil)
    #expect(!detail.canWriteAnswer)
    detail.writeAnswerButtonTapped()
    #expect(detail.destination == nil)
    let answers = detail.answers
    #expect(!answers.isLocked)
    #expect(answers.answers.count == 2)
    #expect(!answers.hasMore)
    // The Today screen loaded its question: the body's own task() neither loads nor counts a
    // screen of its own.
    await detail.task()
    let events = try await haneul.uploadedEvents()
    #expect(events.map(\.properties) == [["screen": "question_today"]])
  }

  @Test func theDraftSurvivesClosingAndReopeningTheSheet() async throws {
    let (today, detail) = try await loadedToday(as: bear)
    detail.writeAnswerButtonTapped()
    let sheet = try writeSheet(of: detail)
    sheet.textChanged("반쯤 쓴 답")
    sheet.closeButtonTapped()
    #expect(detail.destination == nil)

    detail.writeAnswerButtonTapped()
    let reopened = try writeSheet(of: detail)
    #expect(reopened === sheet)
    #expect(reopened.text == "반쯤 쓴 답")
    // Dismissing by swiping the sheet away keeps it too.
    detail.destinationDismissed()
    detail.writeAnswerButtonTapped()
    #expect(try writeSheet(of: detail).text == "반쯤 쓴 답")
    // A refresh does not lose it either.
    await today.refreshPulled()
    #expect(today.today === detail)
    detail.writeAnswerButtonTapped()
    #expect(try writeSheet(of: detail) === sheet)
  }

  @Test func aFailedSubmitKeepsTheSheetAndTheDraft() async throws {
    let (_, detail) = try await loadedToday(as: bear)
    detail.writeAnswerButtonTapped()
    let sheet = try writeSheet(of: detail)
    sheet.textChanged("오프라인에서 쓴 답")
    backend.isOffline = true
    await sheet.submitButtonTapped()
    #expect(sheet.failure == .offline)
    #expect(!sheet.isSubmitting)
    #expect(sheet.text == "오프라인에서 쓴 답")
    #expect(detail.question?.myAnswer == nil)
    #expect(try writeSheet(of: detail) === sheet)
    sheet.failureDismissed()
    #expect(sheet.failure == nil)

    backend.isOffline = false
    await sheet.submitButtonTapped()
    #expect(sheet.failure == nil)
    #expect(detail.question?.myAnswer?.content == "오프라인에서 쓴 답")
    #expect(detail.answers.isLocked == false)
  }

  @Test func answeringOnAnotherDeviceFirstIsAConflictThatReloadsTheQuestion() async throws {
    let (_, phone) = try await loadedToday(as: bear)
    let (today, tablet) = try await loadedToday(
      as: try backend.client(forNickname: Fixtures.codingBear))
    phone.writeAnswerButtonTapped()
    tablet.writeAnswerButtonTapped()
    let first = try writeSheet(of: phone)
    let second = try writeSheet(of: tablet)
    first.textChanged("폰에서 쓴 답")
    second.textChanged("태블릿에서 쓴 답")
    await first.submitButtonTapped()
    await second.submitButtonTapped()
    guard case .conflict = second.failure else {
      Issue.record("expected a conflict, got \(String(describing: second.failure))")
      return
    }
    #expect(try await bear.questions.fetchToday().myAnswer?.content == "폰에서 쓴 답")
    // The tablet's screen shows the answer written on the phone, no longer stale.
    #expect(today.today === tablet)
    #expect(tablet.question?.myAnswer?.content == "폰에서 쓴 답")
    #expect(!tablet.canWriteAnswer)
    #expect(!tablet.answers.isLocked)
    #expect(tablet.answers.answers.filter(\.isMine).map(\.content) == ["폰에서 쓴 답"])
    // The sheet still says why and keeps the text until it is closed.
    #expect(try writeSheet(of: tablet) === second)
    #expect(second.text == "태블릿에서 쓴 답")
    second.closeButtonTapped()
    #expect(tablet.destination == nil)
  }

  @Test func aRefreshReadBeforeAConflictsReloadDoesNotPutTheUnansweredQuestionBack()
    async throws
  {
    // The phone's pull to refresh reads today's question unanswered; its answer is late.
    let gate = Gate(letThrough: 1, holding: 1)
    let phone = bear.model { values in
      let fetch = values.questionRepository.fetchToday
      values.questionRepository.fetchToday = {
        let question = try await fetch()
        await gate.wait()
        return question
      }
    } _: {
      TodayModel()
    }
    await phone.task()
    let detail = try #require(phone.today)
    let refresh = Task { await phone.refreshPulled() }
    try await gate.waitForArrivals()
    // The tablet answers; the phone's submit is a conflict, whose reload shows that answer.
    _ = try await backend.client(forNickname: Fixtures.codingBear).questions.submitAnswer(
      detail.questionID, "태블릿에서 쓴 답")
    detail.writeAnswerButtonTapped()
    let sheet = try writeSheet(of: detail)
    sheet.textChanged("폰에서 쓴 답")
    await sheet.submitButtonTapped()
    guard case .conflict = sheet.failure else {
      Issue.record("expected a conflict, got \(String(describing: sheet.failure))")
      await gate.open()
      return
    }
    #expect(detail.question?.myAnswer?.content == "태블릿에서 쓴 답")
    // The refresh read before the reload lands now: it is dropped.
    await gate.open()
    await refresh.value
    #expect(phone.today === detail)
    #expect(detail.question?.myAnswer?.content == "태블릿에서 쓴 답")
    #expect(!detail.canWriteAnswer)
    #expect(!detail.answers.isLocked)
  }

  @Test func aBannedMemberIsToldWhyTheAnswerWasRefused() async throws {
    let moderator = try backend.client(forNickname: Fixtures.moderator)
    _ = try await moderator.admin.banUser(try bear.userID, "spam", nil)
    let (_, detail) = try await loadedToday(as: bear)
    detail.writeAnswerButtonTapped()
    let sheet = try writeSheet(of: detail)
    sheet.textChanged("답")
    await sheet.submitButtonTapped()
    #expect(sheet.failure == .banned)
    #expect(detail.answers.isLocked == true)
  }

  @Test func tooManyWritesAreShownWithTheWait() async throws {
    backend.rateLimit = FakeRateLimit(maximumWrites: 1, per: .seconds(60))
    _ = try await bear.board.createPost(PostDraft(content: "한 번 쓴 글"))
    let (_, detail) = try await loadedToday(as: bear)
    detail.writeAnswerButtonTapped()
    let sheet = try writeSheet(of: detail)
    sheet.textChanged("답")
    await sheet.submitButtonTapped()
    guard case .rateLimited = sheet.failure else {
      Issue.record("expected rateLimited, got \(String(describing: sheet.failure))")
      return
    }
    #expect(detail.question?.myAnswer == nil)
  }

  @Test func noQuestionTodayIsAStateNotAFailure() async throws {
    let empty = FakeBackend(now: { Fixtures.now })
    let alice = try empty.signedUpClient(nickname: "alice")
    let today = alice.model { TodayModel() }
    await today.task()
    #expect(today.hasNoQuestion)
    #expect(today.today == nil)
    #expect(today.loadFailure == nil)
  }

  @Test func aFailedFirstLoadIsShownAndARefreshRecovers() async throws {
    backend.isOffline = true
    let today = bear.model { TodayModel() }
    await today.task()
    #expect(today.loadFailure == .offline)
    #expect(today.today == nil)
    backend.isOffline = false
    await today.refreshPulled()
    let detail = try #require(today.today)
    #expect(detail.question?.content == Fixtures.todayQuestion)
    #expect(detail.answers.isLocked)
    // A later refresh that fails keeps the question on screen.
    backend.isOffline = true
    await today.refreshPulled()
    #expect(today.today === detail)
    #expect(detail.question?.content == Fixtures.todayQuestion)
    #expect(today.failure == .offline)
    today.failureDismissed()
    #expect(today.failure == nil)
  }

  @Test func seeMoreOnSomeoneElsesAnswerReportsIt() async throws {
    let (_, detail) = try await loadedToday(as: haneul)
    let answers = detail.answers
    let jisoos = try #require(answers.answers.first { !$0.isMine })
    let sheet = try seeMore(on: jisoos, in: answers)
    #expect(sheet.target == .answer(jisoos.id))
    #expect(sheet.options == [.report])
    sheet.reportButtonTapped()
    guard case .report(let report) = sheet.destination else {
      Issue.record("no report flow")
      return
    }
    report.reasonTapped(.abuse)
    await report.confirmButtonTapped()
    report.closeButtonTapped()
    #expect(answers.destination == nil)
    let filed = try await haneul.reports.fetchMyReports(.first).items
    #expect(filed.map(\.target) == [.answer(jisoos.id)])
  }

  @Test func deletingMyAnswerLocksTheAnswersAgain() async throws {
    let (_, detail) = try await loadedToday(as: haneul)
    let answers = detail.answers
    let mine = try #require(answers.answers.first { $0.isMine })
    let sheet = try seeMore(on: mine, in: answers)
    #expect(sheet.options == [.delete])
    sheet.deleteButtonTapped()
    await sheet.deletionConfirmed()
    #expect(sheet.failure == nil)
    #expect(answers.destination == nil)
    #expect(answers.isLocked)
    #expect(answers.answers.isEmpty)
    #expect(detail.question?.myAnswer == nil)
    #expect(detail.canWriteAnswer)
    // The service agrees: the answers are hidden from 하늘 again.
    await #expect(throws: DomainError.answerRequired) {
      try await haneul.questions.fetchAnswers(seeded.questions[0], .first)
    }
    await answers.refreshPulled()
    #expect(answers.isLocked)
    #expect(answers.failure == nil)
  }

  @Test func deletingMyAnswerWhileARefreshRunsKeepsTheAnswersLocked() async throws {
    // The refresh read the answers before the deletion; its page lands after it.
    let holding = LockIsolated(false)
    let read = LockIsolated(false)
    let (released, release) = AsyncStream<Void>.makeStream()
    let today = haneul.model({ dependencies in
      let fetch = dependencies.questionRepository.fetchAnswers
      dependencies.questionRepository.fetchAnswers = { id, page in
        let answers = try await fetch(id, page)
        if holding.value {
          read.setValue(true)
          for await _ in released { break }
        }
        return answers
      }
    }) { TodayModel() }
    await today.task()
    let answers = try #require(today.today).answers
    let mine = try #require(answers.answers.first { $0.isMine })
    holding.setValue(true)
    let refresh = Task { await answers.refreshPulled() }
    try await waitUntil("the answers are read") { read.value }
    let sheet = try seeMore(on: mine, in: answers)
    sheet.deleteButtonTapped()
    await sheet.deletionConfirmed()
    #expect(answers.isLocked)
    release.yield()
    await refresh.value
    #expect(answers.isLocked)
    #expect(answers.answers.isEmpty)
  }

  /// The refresh read today's question before the deletion; it lands after it.
  @Test func aQuestionReadBeforeTheDeletionDoesNotBringTheAnswerBack() async throws {
    let holding = LockIsolated(false)
    let read = LockIsolated(false)
    let (released, release) = AsyncStream<Void>.makeStream()
    let today = haneul.model({ dependencies in
      let fetch = dependencies.questionRepository.fetchToday
      dependencies.questionRepository.fetchToday = {
        let question = try await fetch()
        if holding.value {
          read.setValue(true)
          for await _ in released { break }
        }
        return question
      }
    }) { TodayModel() }
    await today.task()
    let detail = try #require(today.today)
    let mine = try #require(detail.answers.answers.first { $0.isMine })
    holding.setValue(true)
    let refresh = Task { await today.refreshPulled() }
    try await waitUntil("the question is read") { read.value }
    let sheet = try seeMore(on: mine, in: detail.answers)
    sheet.deleteButtonTapped()
    await sheet.deletionConfirmed()
    #expect(detail.question?.myAnswer == nil && detail.canWriteAnswer)
    release.yield()
    await refresh.value
    #expect(detail.question?.myAnswer == nil)
    #expect(detail.canWriteAnswer)
    #expect(detail.answers.isLocked)
  }

  @Test func aFailedDeletionIsShownAndTheAnswerStays() async throws {
    let (_, detail) = try await loadedToday(as: haneul)
    let answers = detail.answers
    let mine = try #require(answers.answers.first { $0.isMine })
    let sheet = try seeMore(on: mine, in: answers)
    sheet.deleteButtonTapped()
    backend.isOffline = true
    await sheet.deletionConfirmed()
    #expect(sheet.failure == .offline)
    #expect(answers.answers.contains { $0.id == mine.id })
    #expect(!answers.isLocked)
    #expect(detail.question?.myAnswer?.id == mine.id)
  }

  @Test func pastQuestionsOpenThroughTheDeepLink() async throws {
    let screen = try await openedPastQuestions(as: bear)
    let past = screen.past
    // Today's is on the Today screen itself; tomorrow's is not out yet.
    #expect(past.questions.map(\.id) == Array(seeded.questions[1...3]))
    #expect(!past.hasMore)
    past.questionTapped(past.questions[0])
    #expect(screen.opened.value == [.question(seeded.questions[1])])
    let events = try await bear.uploadedEvents()
    #expect(events.map { $0.properties["screen"] } == ["question_today", "question_past"])
  }
}
