import Dependencies
import Domain
import Foundation
import QuestionFeature
import Repositories
import RepositoriesTesting
import Testing

/// Paging of the answer list and the past questions, on seeds larger than a page.
@MainActor
@Suite("Question paging")
struct PagingTests {
  let backend = FakeBackend(now: { Fixtures.now })

  @Test func answersComePageByPageOnceAnswered() async throws {
    let members = memberSeeds(PageRequest.defaultLimit + 5)
    let seeded = try backend.seed(
      Seed(
        users: members + [.init("alice")],
        questions: [
          .init(
            "What did you ship today?", dayOffset: 0,
            answers: members.map { ($0.nickname, "Answer of \($0.nickname)") })
        ]))
    let alice = try backend.client(forNickname: "alice")
    let detail = alice.model { QuestionDetailModel(questionID: seeded.questions[0]) }
    await detail.task()
    #expect(detail.answers.isLocked)
    // Scrolling a locked list asks for nothing.
    await detail.answers.scrolledToBottom()
    #expect(detail.answers.answers.isEmpty)

    detail.writeAnswerButtonTapped()
    let sheet = try #require(detail.destination?.writeAnswer)
    sheet.textChanged("Paging code")
    await sheet.submitButtonTapped()
    let answers = detail.answers
    #expect(answers.answers.count == PageRequest.defaultLimit)
    #expect(answers.answers.first?.isMine == true)
    #expect(answers.hasMore)

    backend.isOffline = true
    await answers.scrolledToBottom()
    #expect(answers.failure == .offline)
    #expect(answers.answers.count == PageRequest.defaultLimit)
    #expect(answers.hasMore)
    answers.failureDismissed()
    backend.isOffline = false

    await answers.scrolledToBottom()
    #expect(answers.failure == nil)
    #expect(answers.answers.count == members.count + 1)
    #expect(Set(answers.answers.map(\.id)).count == members.count + 1)
    #expect(!answers.hasMore)
    #expect(!answers.isLoadingMore)
    await answers.refreshPulled()
    #expect(answers.answers.count == PageRequest.defaultLimit)
  }

  @Test func pastQuestionsComePageByPage() async throws {
    let count = PageRequest.defaultLimit + 3
    let seeded = try backend.seed(
      Seed(
        users: [.init("alice")],
        questions: (0...count).map { .init("Question of day -\($0)?", dayOffset: -$0) }))
    let alice = try backend.client(forNickname: "alice")
    let screen = try await openedPastQuestions(as: alice)
    let past = screen.past
    #expect(past.questions.map(\.id) == Array(seeded.questions[1..<PageRequest.defaultLimit]))
    #expect(past.hasMore)
    await past.scrolledToBottom()
    #expect(past.questions.map(\.id) == Array(seeded.questions[1...]))
    #expect(!past.hasMore)
    past.questionTapped(past.questions[count - 1])
    #expect(screen.opened.value == [.question(seeded.questions[count])])

    backend.isOffline = true
    await past.refreshPulled()
    #expect(past.failure == .offline)
    #expect(past.questions.count == count)
  }
}
