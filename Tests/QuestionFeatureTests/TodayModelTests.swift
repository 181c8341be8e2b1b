import Dependencies
import Domain
import Foundation
import QuestionFeature
import ReportFeature
import Repositories
import RepositoriesTesting
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

  /// The write sheet the model presents, or a failed test.
  func writeSheet(of today: TodayModel) throws -> WriteAnswerModel {
    try #require(today.destination?.writeAnswer)
  }

  @Test func othersAnswersUnlockOnceIAnswer() async throws {
    let today = model(as: bear) { TodayModel() }
    await today.task()
    let question = try #require(today.question)
    #expect(question.content == Fixtures.todayQuestion)
    #expect(question.myAnswer == nil)
    #expect(today.canWriteAnswer)
    let answers = try #require(today.answers)
    #expect(answers.isLocked)
    #expect(answers.answers.isEmpty)
    #expect(answers.failure == nil)

    today.writeAnswerButtonTapped()
    let sheet = try writeSheet(of: today)
    await sheet.task()
    #expect(sheet.question.id == question.id)
    #expect(!sheet.canSubmit)
    sheet.textChanged("  \"테스트 먼저 써 볼까요?\"  ")
    #expect(sheet.canSubmit)
    await sheet.submitButtonTapped()
    #expect(sheet.failure == nil)

    #expect(today.destination == nil)
    let mine = try #require(today.question?.myAnswer)
    #expect(mine.content == "\"테스트 먼저 써 볼까요?\"")
    #expect(today.question?.answerCount == question.answerCount + 1)
    #expect(!today.canWriteAnswer)
    #expect(!answers.isLocked)
    #expect(
      answers.answers.map(\.authorNickname).sorted()
        == [Fixtures.codingBear, Fixtures.jisoo, Fixtures.haneul].sorted())
    #expect(answers.answers.filter(\.isMine).map(\.id) == [mine.id])
    // The service agrees.
    #expect(try await bear.questions.fetchToday().myAnswer?.id == mine.id)

    let events = try await events(of: bear)
    #expect(events.map(\.name) == ["screen_viewed", "screen_viewed", "answer_submitted"])
    #expect(events[0].properties == ["screen": "question_today"])
    #expect(events[1].properties == ["screen": "answer_write"])
    #expect(events[2].properties == ["characters": "15"])
  }

  @Test func someoneWhoAnsweredSeesTheAnswersRightAway() async throws {
    let today = model(as: haneul) { TodayModel() }
    await today.task()
    #expect(today.question?.myAnswer != nil)
    #expect(!today.canWriteAnswer)
    today.writeAnswerButtonTapped()
    #expect(today.destination == nil)
    let answers = try #require(today.answers)
    #expect(!answers.isLocked)
    #expect(answers.answers.count == 2)
    #expect(!answers.hasMore)
  }

  @Test func theDraftSurvivesClosingAndReopeningTheSheet() async throws {
    let today = model(as: bear) { TodayModel() }
    await today.task()
    today.writeAnswerButtonTapped()
    let sheet = try writeSheet(of: today)
    sheet.textChanged("반쯤 쓴 답")
    sheet.closeButtonTapped()
    #expect(today.destination == nil)

    today.writeAnswerButtonTapped()
    let reopened = try writeSheet(of: today)
    #expect(reopened === sheet)
    #expect(reopened.text == "반쯤 쓴 답")
    // Dismissing by swiping the sheet away keeps it too.
    today.destinationDismissed()
    today.writeAnswerButtonTapped()
    #expect(try writeSheet(of: today).text == "반쯤 쓴 답")
    // A refresh does not lose it either.
    await today.refreshPulled()
    today.writeAnswerButtonTapped()
    #expect(try writeSheet(of: today) === sheet)
  }

  @Test func aFailedSubmitKeepsTheSheetAndTheDraft() async throws {
    let today = model(as: bear) { TodayModel() }
    await today.task()
    today.writeAnswerButtonTapped()
    let sheet = try writeSheet(of: today)
    sheet.textChanged("오프라인에서 쓴 답")
    backend.isOffline = true
    await sheet.submitButtonTapped()
    #expect(sheet.failure == .offline)
    #expect(!sheet.isSubmitting)
    #expect(sheet.text == "오프라인에서 쓴 답")
    #expect(today.question?.myAnswer == nil)
    #expect(try writeSheet(of: today) === sheet)
    sheet.failureDismissed()
    #expect(sheet.failure == nil)

    backend.isOffline = false
    await sheet.submitButtonTapped()
    #expect(sheet.failure == nil)
    #expect(today.question?.myAnswer?.content == "오프라인에서 쓴 답")
    #expect(today.answers?.isLocked == false)
  }

  @Test func answeringOnAnotherDeviceFirstIsAConflict() async throws {
    let phone = model(as: bear) { TodayModel() }
    let tablet = model(as: try backend.client(forNickname: Fixtures.codingBear)) { TodayModel() }
    await phone.task()
    await tablet.task()
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
  }

  @Test func aBannedMemberIsToldWhyTheAnswerWasRefused() async throws {
    let moderator = try backend.client(forNickname: Fixtures.moderator)
    _ = try await moderator.admin.banUser(try bear.userID, "spam", nil)
    let today = model(as: bear) { TodayModel() }
    await today.task()
    today.writeAnswerButtonTapped()
    let sheet = try writeSheet(of: today)
    sheet.textChanged("답")
    await sheet.submitButtonTapped()
    #expect(sheet.failure == .banned)
    #expect(today.answers?.isLocked == true)
  }

  @Test func tooManyWritesAreShownWithTheWait() async throws {
    backend.rateLimit = FakeRateLimit(maximumWrites: 1, per: .seconds(60))
    _ = try await bear.board.createPost(PostDraft(content: "한 번 쓴 글"))
    let today = model(as: bear) { TodayModel() }
    await today.task()
    today.writeAnswerButtonTapped()
    let sheet = try writeSheet(of: today)
    sheet.textChanged("답")
    await sheet.submitButtonTapped()
    guard case .rateLimited = sheet.failure else {
      Issue.record("expected rateLimited, got \(String(describing: sheet.failure))")
      return
    }
    #expect(today.question?.myAnswer == nil)
  }

  @Test func noQuestionTodayIsAStateNotAFailure() async throws {
    let empty = FakeBackend(now: { Fixtures.now })
    let alice = try empty.signedUpClient(nickname: "alice")
    let today = model(as: alice) { TodayModel() }
    await today.task()
    #expect(today.phase == .noQuestion)
    #expect(today.answers == nil)
    #expect(!today.canWriteAnswer)
  }

  @Test func aFailedFirstLoadIsShownAndARefreshRecovers() async throws {
    backend.isOffline = true
    let today = model(as: bear) { TodayModel() }
    await today.task()
    #expect(today.phase == .failed(.offline))
    backend.isOffline = false
    await today.refreshPulled()
    #expect(today.question?.content == Fixtures.todayQuestion)
    // A later refresh that fails keeps the question on screen.
    backend.isOffline = true
    await today.refreshPulled()
    #expect(today.question?.content == Fixtures.todayQuestion)
    #expect(today.failure == .offline)
    today.failureDismissed()
    #expect(today.failure == nil)
  }

  @Test func seeMoreOnSomeoneElsesAnswerReportsIt() async throws {
    let today = model(as: haneul) { TodayModel() }
    await today.task()
    let answers = try #require(today.answers)
    let jisoos = try #require(answers.answers.first { !$0.isMine })
    answers.seeMoreTapped(jisoos)
    guard case .seeMore(let sheet) = answers.destination else {
      Issue.record("no see-more sheet")
      return
    }
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
    let today = model(as: haneul) { TodayModel() }
    await today.task()
    let answers = try #require(today.answers)
    let mine = try #require(answers.answers.first { $0.isMine })
    answers.seeMoreTapped(mine)
    guard case .seeMore(let sheet) = answers.destination else {
      Issue.record("no see-more sheet")
      return
    }
    #expect(sheet.options == [.delete])
    sheet.deleteButtonTapped()
    await sheet.deletionConfirmed()
    #expect(sheet.failure == nil)
    #expect(answers.destination == nil)
    #expect(answers.isLocked)
    #expect(answers.answers.isEmpty)
    #expect(today.question?.myAnswer == nil)
    #expect(today.canWriteAnswer)
    // The service agrees: the answers are hidden from 하늘 again.
    await #expect(throws: DomainError.answerRequired) {
      try await haneul.questions.fetchAnswers(seeded.questions[0], .first)
    }
    await answers.refreshPulled()
    #expect(answers.isLocked)
    #expect(answers.failure == nil)
  }

  @Test func aFailedDeletionIsShownAndTheAnswerStays() async throws {
    let today = model(as: haneul) { TodayModel() }
    await today.task()
    let answers = try #require(today.answers)
    let mine = try #require(answers.answers.first { $0.isMine })
    answers.seeMoreTapped(mine)
    guard case .seeMore(let sheet) = answers.destination else {
      Issue.record("no see-more sheet")
      return
    }
    sheet.deleteButtonTapped()
    backend.isOffline = true
    await sheet.deletionConfirmed()
    #expect(sheet.failure == .offline)
    #expect(answers.answers.contains { $0.id == mine.id })
    #expect(!answers.isLocked)
    #expect(today.question?.myAnswer?.id == mine.id)
  }

  @Test func pastQuestionsOpenThroughTheDeepLink() async throws {
    let today = model(as: bear) { TodayModel() }
    var opened: [DeepLink] = []
    today.onNavigate = { opened.append($0) }
    await today.task()
    today.pastQuestionsButtonTapped()
    guard case .pastQuestions(let past) = today.destination else {
      Issue.record("no past questions")
      return
    }
    await past.task()
    // Today's is on the Today screen itself; tomorrow's is not out yet.
    #expect(past.questions.map(\.id) == Array(seeded.questions[1...3]))
    #expect(!past.hasMore)
    past.questionTapped(past.questions[0])
    #expect(opened == [.question(seeded.questions[1])])
    let events = try await events(of: bear)
    #expect(events.map { $0.properties["screen"] } == ["question_today", "question_past"])
  }
}
