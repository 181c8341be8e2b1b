import Dependencies
import Domain
import Foundation
import QuestionFeature
import Repositories
import RepositoriesTesting
import TestSupport
import Testing

/// The write sheet's text rules: the engine's limit, counted as users see characters, cutting
/// at character boundaries, and the font size of the text actually kept.
@MainActor
@Suite("WriteAnswerModel")
struct WriteAnswerModelTests {
  let backend = FakeBackend(now: { Fixtures.now })
  let bear: FakeClient
  let question: Question

  init() async throws {
    try backend.seed(Fixtures.community)
    bear = try backend.client(forNickname: Fixtures.codingBear)
    question = try await bear.questions.fetchToday()
  }

  func sheet() -> WriteAnswerModel {
    bear.model { WriteAnswerModel(question: question) }
  }

  @Test func aSecondTapWhileTheAnswerIsHandedOverSendsNothing() async throws {
    let submits = Locked(0)
    let tracking = Locked(false)
    let (held, release) = AsyncStream<Void>.makeStream()
    let sheet = bear.model({ values in
      let submit = values.questionRepository.submitAnswer
      values.questionRepository.submitAnswer = { id, content in
        submits.withLock { $0 += 1 }
        return try await submit(id, content)
      }
      let track = values.analyticsRepository.track
      values.analyticsRepository.track = { event in
        if event.name == "answer_submitted" {
          tracking.withLock { $0 = true }
          for await _ in held { break }
        }
        await track(event)
      }
    }) { WriteAnswerModel(question: question) }
    sheet.textChanged("My first answer")
    let first = Task { await sheet.submitButtonTapped() }
    try await waitUntil("the first submit reaches tracking") { tracking.withLock { $0 } }
    #expect(!sheet.canSubmit)
    await sheet.submitButtonTapped()
    release.yield()
    await first.value
    #expect(submits.withLock { $0 } == 1)
    #expect(sheet.failure == nil)
  }

  @Test func theLimitIsTheEnginesRule() {
    #expect(WriteAnswerModel.limit == TextRule.answer.length.upperBound)
    let sheet = sheet()
    #expect(sheet.remainingCount == limit)
    sheet.textChanged("안녕")
    #expect(sheet.remainingCount == limit - 2)
    #expect(sheet.droppedCharacterCount == 0)
  }

  @Test func emojiAndHangulCountAsOneCharacterEach() {
    let sheet = sheet()
    let family = "👩‍👩‍👧‍👦"
    sheet.textChanged(family + "한" + "e\u{301}")
    #expect(sheet.remainingCount == limit - 3)
  }

  @Test func textPastTheLimitIsCutAtACharacterBoundaryAndSaysSo() async throws {
    let sheet = sheet()
    let family = "👩‍👩‍👧‍👦"
    sheet.textChanged(String(repeating: family, count: limit + 30))
    #expect(sheet.text == String(repeating: family, count: limit))
    #expect(sheet.text.unicodeScalars.count == limit * family.unicodeScalars.count)
    #expect(sheet.droppedCharacterCount == 30)
    #expect(sheet.remainingCount == 0)
    #expect(sheet.fontSize == 17)
    #expect(sheet.canSubmit)
    // Typing on at the limit keeps the text and says one character did not fit.
    sheet.textChanged(sheet.text + "가")
    #expect(sheet.text == String(repeating: family, count: limit))
    #expect(sheet.droppedCharacterCount == 1)
    // Deleting brings the counter back; nothing was dropped by that change.
    sheet.textChanged(String(sheet.text.dropLast(10)))
    #expect(sheet.remainingCount == 10)
    #expect(sheet.droppedCharacterCount == 0)
    // What is kept is what the engine accepts.
    await sheet.submitButtonTapped()
    #expect(sheet.failure == nil)
    #expect(try await bear.questions.fetchToday().myAnswer?.content.count == limit - 10)
  }

  @Test func surroundingWhitespaceDoesNotCountLikeOnTheServer() async throws {
    let sheet = sheet()
    let text = "  " + String(repeating: "a", count: limit) + "bc"
    sheet.textChanged(text)
    #expect(sheet.text == "  " + String(repeating: "a", count: limit))
    #expect(sheet.droppedCharacterCount == 2)
    #expect(sheet.remainingCount == 0)
    await sheet.submitButtonTapped()
    #expect(sheet.failure == nil)
    #expect(
      try await bear.questions.fetchToday().myAnswer?.content
        == String(repeating: "a", count: limit))
  }

  @Test func theFontStepsDownAtEveryFifthOfTheLimit() {
    let sheet = sheet()
    func size(at count: Int) -> Int {
      sheet.textChanged(String(repeating: "가", count: count))
      return sheet.fontSize
    }
    let fifth = limit / 5
    #expect(size(at: 0) == 48)
    #expect(size(at: fifth - 1) == 48)
    #expect(size(at: fifth) == 40)
    #expect(size(at: 2 * fifth - 1) == 40)
    #expect(size(at: 2 * fifth) == 32)
    #expect(size(at: 3 * fifth - 1) == 32)
    #expect(size(at: 3 * fifth) == 24)
    #expect(size(at: 4 * fifth - 1) == 24)
    #expect(size(at: 4 * fifth) == 17)
    #expect(size(at: limit) == 17)
    #expect(WriteAnswerModel.fontSizes == [48, 40, 32, 24, 17])
  }

  @Test func theFontFollowsTheTextKeptNotTheTextPasted() {
    let sheet = sheet()
    // Leading whitespace is not counted, so a short answer after many spaces stays large,
    // however much was pasted.
    sheet.textChanged(String(repeating: " ", count: limit * 2) + "짧은 답")
    #expect(sheet.remainingCount == limit - 4)
    #expect(sheet.fontSize == 48)
    // A paste over the limit is sized by the kept text, then shrinking it grows the font again.
    sheet.textChanged(String(repeating: "가", count: limit * 3))
    #expect(sheet.fontSize == 17)
    sheet.textChanged(String(sheet.text.prefix(limit / 5 - 1)))
    #expect(sheet.fontSize == 48)
  }

  @Test func anEmptyAnswerIsRefusedWithoutARequest() async throws {
    let sheet = sheet()
    var submitted: Answer?
    sheet.onSubmitted = { submitted = $0 }
    sheet.textChanged("  \n ")
    #expect(!sheet.canSubmit)
    await sheet.submitButtonTapped()
    #expect(sheet.failure == .validation(.empty(field: "content")))
    #expect(submitted == nil)
    #expect(try await bear.questions.fetchToday().myAnswer == nil)
    #expect(try await bear.uploadedEvents().isEmpty)
  }

  @Test func aQuestionThatIsGoneSaysSo() async throws {
    var gone = question
    gone.id = "q_missing"
    let sheet = bear.model { WriteAnswerModel(question: gone) }
    sheet.textChanged("답")
    await sheet.submitButtonTapped()
    #expect(sheet.failure == .notFound)
  }
}
