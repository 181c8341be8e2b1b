import Dependencies
import Domain
import Foundation
import Repositories
import RepositoriesTesting
import Testing

@Suite("Fixtures and seeding")
struct FixtureTests {
  @Test("the community seed loads people, questions, posts and groups")
  func community() async throws {
    let backend = makeBackend()
    let data = try backend.seed(Fixtures.community)
    #expect(data.users.count == 5)
    #expect(data.questions.count == 5)
    #expect(data.posts.count == 4)
    #expect(data.groups.count == 2)

    let haneul = try backend.client(forNickname: Fixtures.haneul)
    let bear = try backend.client(forNickname: Fixtures.codingBear)
    let moderator = try backend.client(forNickname: Fixtures.moderator)

    let today = try await haneul.questions.fetchToday()
    #expect(today.content == Fixtures.todayQuestion)
    #expect(today.publishDate == Fixtures.today)
    #expect(today.myAnswer != nil)
    #expect(try await haneul.questions.fetchAnswers(of: today.id, page: .first).items.count == 2)
    await #expect(throws: DomainError.answerRequired) {
      _ = try await bear.questions.fetchAnswers(of: today.id, page: .first)
    }
    // The scheduled question is not visible yet; the three past ones are.
    #expect(try await bear.questions.fetchQuestions(page: .first).items.count == 4)
    #expect(try await moderator.admin.fetchQuestions(.scheduled, .first).items.count == 1)

    let posts = try await bear.board.fetchPosts(page: .first).items
    #expect(posts.first?.content.hasPrefix("Tip:") == true)
    #expect(posts.first?.isMine == true)
    let cafe = try #require(posts.first { $0.content.contains("스터디 카페") })
    #expect(cafe.likeCount == 2)
    #expect(cafe.commentCount == 3)
    let labels = try await bear.board.fetchComments(of: cafe.id, page: .first).items.map(
      \.authorName)
    #expect(labels == ["Anonymous 1", "Jisoo", "Anonymous 1"])

    let rooms = try await haneul.chat.fetchRooms(page: .first).items
    #expect(rooms.count == 2)
    let algorithms = try #require(rooms.first { $0.title == "알고리즘 스터디" })
    #expect(algorithms.lastMessage?.seq == 3)
    #expect(algorithms.unreadCount == 2)
  }

  @Test("today's seeded question is announced to every account; seeded activity notifies")
  func seededQuestionAnnounced() async throws {
    let backend = makeBackend()
    let data = try backend.seed(Fixtures.community)
    // The moderator took part in nothing: only the announcement.
    let moderator = try backend.client(forNickname: Fixtures.moderator)
    let kinds = try await moderator.notifications.fetchNotifications(page: .first).items.map(\.kind)
    #expect(kinds == [.newQuestion(data.questions[0])])
    // Seeding runs the service's rules: minjun hears of the comments and likes on his post.
    let minjun = try backend.client(forNickname: Fixtures.minjun)
    let his = try await minjun.notifications.fetchNotifications(page: .first).items.map(\.kind)
    #expect(his.contains(.newQuestion(data.questions[0])))
    #expect(his.contains(.likeOnMyPost(post: data.posts[0])))
  }

  @Test("a seed that names an unknown user loads nothing")
  func badSeed() throws {
    let backend = makeBackend()
    let seed = Seed(
      users: [.init("alice")],
      posts: [.init("alice", "fine", minutesAgo: 1), .init("nobody", "orphan", minutesAgo: 2)])
    #expect(throws: SeedError.unknownUser("nobody")) { try backend.seed(seed) }
    #expect(backend.user(named: "alice") == nil)
  }

  @Test("signedUpClient accounts sign in again with their nickname as dev token")
  func signedUpClientToken() async throws {
    let backend = makeBackend()
    let alice = try backend.signedUpClient(nickname: "alice", cohort: "2026 Morning")
    let again = backend.makeClient()
    guard case .signedIn(let session) = try await again.auth.signIn(provider: .dev, token: "alice")
    else {
      Issue.record("The nickname should be the dev token.")
      return
    }
    #expect(session.user.id == (try alice.userID))
    #expect(session.user.cohort == "2026 Morning")
    #expect(throws: DomainError.nicknameTaken) { _ = try backend.signedUpClient(nickname: "ALICE") }
  }

  @Test("a client's repositories work through @Dependency once installed")
  func installedClient() async throws {
    let (_, alice, _, _) = try makeCast()
    let post = try await withDependencies {
      $0.install(alice.repositories)
    } operation: {
      @Dependency(\.boardRepository) var board
      return try await board.createPost(PostDraft(content: "Through dependencies"))
    }
    #expect(try await alice.board.fetchPosts(page: .first).items.map(\.id) == [post.id])
    #expect(
      try await alice.repositories.board.fetchPosts(page: .first).items.map(\.isMine) == [true])
  }
}
