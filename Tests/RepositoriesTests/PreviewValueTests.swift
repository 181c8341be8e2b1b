import Dependencies
import Domain
import Foundation
import Repositories
import Testing

// Preview values are static sample data: reads answer the sample community, writes answer
// what the input would become and store nothing.

@Suite("previewValue: sample data for every repository")
struct PreviewValueTests {
  @Test("auth is signed in as the sample member and streams the current state first")
  func auth() async throws {
    let auth = AuthRepository.previewValue
    guard case .signedIn(let user) = await auth.currentState() else {
      Issue.record("The preview session should start signed in.")
      return
    }
    var iterator = auth.sessionStates().makeAsyncIterator()
    #expect(await iterator.next() == .signedIn(user))
    let availability = try await auth.checkNickname(Nickname(trusted: "Jisoo"))
    #expect(availability.isAvailable == false)
    #expect(try await auth.checkNickname(Nickname(trusted: "brandnew")).isAvailable)
  }

  @Test("profile: the signed-in member and their answers")
  func profile() async throws {
    let profile = ProfileRepository.previewValue
    let me = try await profile.fetchMe()
    #expect(me.nickname.rawValue == "하늘")
    let answers = try await profile.fetchMyAnswers(page: .first)
    #expect(!answers.items.isEmpty)
    #expect(answers.items.allSatisfy { $0.isMine })
    await #expect(throws: DomainError.notFound) { _ = try await profile.fetchUser(id: "u_nobody") }
  }

  @Test("questions: today's question, past ones, answers hidden until answered")
  func questions() async throws {
    let questions = QuestionRepository.previewValue
    let today = try await questions.fetchToday()
    #expect(today.publishDate == CalendarDay(containing: Date()))
    #expect(today.content.contains("코드 리뷰"))
    let past = try await questions.fetchQuestions(page: .first)
    #expect(past.items.count >= 3)
    let answered = try #require(past.items.first { $0.myAnswer != nil })
    let answers = try await questions.fetchAnswers(of: answered.id, page: .first)
    #expect(answers.items.count == answered.answerCount)
    #expect(answers.items.contains { $0.isMine })
  }

  @Test("board: posts in Korean and English with likes and comments; a like toggles")
  func board() async throws {
    let board = BoardRepository.previewValue
    let posts = try await board.fetchPosts(page: .first)
    #expect(posts.items.count >= 3)
    #expect(posts.items.contains { $0.content.contains("스터디") })
    #expect(posts.items.contains { $0.content.contains("SwiftUI") })
    let post = try #require(posts.items.first { $0.commentCount > 0 })
    let comments = try await board.fetchComments(of: post.id, page: .first)
    #expect(comments.items.count == post.commentCount)

    let toggled = try await board.setPostLike(post.id, !post.isLiked)
    #expect(toggled == post.likeState.toggled())
    let restored = try await board.setPostLike(post.id, post.isLiked)
    #expect(restored == post.likeState)
  }

  @Test("reports: the member's reports are listed")
  func reports() async throws {
    let reports = try await ReportRepository.previewValue.fetchMyReports(page: .first)
    #expect(!reports.items.isEmpty)
  }

  @Test("notifications: several kinds, some unread")
  func notifications() async throws {
    let repository = NotificationRepository.previewValue
    let page = try await repository.fetchNotifications(page: .first)
    let kinds = Set(page.items.map { String(describing: $0.kind).prefix(while: { $0 != "(" }) })
    #expect(kinds.count >= 4)
    #expect(page.items.allSatisfy { $0.deepLink != nil })
  }

  @Test("study groups: joined and open groups with members")
  func studyGroups() async throws {
    let groups = StudyGroupRepository.previewValue
    let page = try await groups.fetchGroups(query: nil, page: .first)
    #expect(page.items.contains { $0.isMember })
    #expect(page.items.contains { !$0.isMember })
    let group = try #require(page.items.first)
    let members = try await groups.fetchMembers(of: group.id, page: .first)
    #expect(members.items.count == group.memberCount)
    let search = try await groups.fetchGroups(query: "swiftui", page: .first)
    #expect(search.items.map(\.name) == ["SwiftUI Study"])
  }

  @Test("chat: group and direct rooms with messages in seq order")
  func chat() async throws {
    let chat = ChatRepository.previewValue
    let rooms = try await chat.fetchRooms(page: .first)
    #expect(rooms.items.contains { if case .direct = $0.kind { true } else { false } })
    #expect(rooms.items.contains { if case .group = $0.kind { true } else { false } })
    let room = try #require(rooms.items.first)
    let messages = try await chat.fetchMessages(
      in: room.id, afterSeq: nil, beforeSeq: nil, limit: 50)
    #expect(!messages.isEmpty)
    #expect(messages.compactMap(\.seq) == messages.compactMap(\.seq).sorted())

    // The sync endpoints show the same sample, connected.
    var cached = chat.messages(in: room.id, limit: 50).makeAsyncIterator()
    #expect(try await cached.next() == messages)
    var list = chat.rooms().makeAsyncIterator()
    #expect(try await list.next() == rooms.items)
    var states = chat.connectionStates().makeAsyncIterator()
    #expect(await states.next() == .connected)
    let pending = try await chat.send(text: "곧 갈게요", to: room.id)
    #expect(pending.deliveryState == .pending && pending.seq == nil)
    await #expect(throws: ValidationError.self) { try await chat.send(text: "", to: room.id) }
    #expect(try await chat.loadOlder(in: room.id, limit: 50) == 0)
  }

  @Test("analytics: tracking is accepted and nothing is uploaded")
  func analytics() async throws {
    let analytics = AnalyticsRepository.previewValue
    await analytics.track(try AnalyticsEvent(name: "preview_opened", occurredAt: Date()))
    #expect(try await analytics.flush() == 0)
  }

  @Test("writes answer what the input becomes and store nothing")
  func writesAreStateless() async throws {
    let board = BoardRepository.previewValue
    let post = try await board.createPost(PostDraft(content: "미리보기 글", isAnonymous: false))
    #expect(post.content == "미리보기 글" && post.isMine && post.authorName == "하늘")
    #expect(try await board.fetchPosts(page: PageRequest(limit: 100)).items.contains(post) == false)
    let message = try await ChatRepository.previewValue.sendMessage(
      "hi", "room_g_preview_algo", UUID())
    #expect(message.sender.nickname == "하늘" && message.seq != nil)
  }

  @Test("admin: scheduled questions, open cases, users and stats")
  func admin() async throws {
    let admin = AdminRepository.previewValue
    let scheduled = try await admin.fetchQuestions(status: .scheduled, page: .first)
    #expect(!scheduled.items.isEmpty)
    #expect(scheduled.items.allSatisfy { $0.status == .scheduled })
    let cases = try await admin.fetchReportCases(status: nil, page: .first)
    #expect(cases.items.contains { $0.reachedAutoHideThreshold && $0.isHidden })
    let detail = try await admin.fetchReportCase(try #require(cases.items.first).id)
    #expect(detail.reports.count == detail.reportCase.reportCount)
    let users = try await admin.fetchUsers(query: "곰", page: .first)
    #expect(users.items.map(\.user.nickname.rawValue) == ["코딩곰"])
    let stats = try await admin.fetchStats()
    #expect(stats.users == 5)
    #expect(stats.admins == 1)
  }

  @Test("@Dependency resolves previewValue in the preview context")
  func previewContext() async throws {
    let post = try await withDependencies {
      $0.context = .preview
    } operation: {
      @Dependency(\.boardRepository) var board
      return try await board.fetchPosts(page: .first).items.first
    }
    let sample = try await BoardRepository.previewValue.fetchPosts(page: .first).items.first
    #expect(post != nil)
    #expect(post == sample)
  }

  @Test("preview pages walk every item once")
  func previewPagination() async throws {
    let board = BoardRepository.previewValue
    let all = try await board.fetchPosts(page: PageRequest(limit: 100)).items
    var seen: [BoardPost.ID] = []
    var request = PageRequest(limit: 1)
    while true {
      let page = try await board.fetchPosts(page: request)
      seen += page.items.map(\.id)
      guard let next = page.nextCursor else { break }
      request = PageRequest(cursor: next, limit: 1)
    }
    #expect(seen == all.map(\.id))
  }
}
