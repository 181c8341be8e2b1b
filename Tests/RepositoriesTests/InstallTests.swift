import Dependencies
import Domain
import Foundation
import Repositories
import Testing

/// A set whose endpoints answer with recognizable values, one per repository.
private func recognizableSet() -> RepositorySet {
  let date = Date(timeIntervalSince1970: 1_773_622_800)
  let user = User(id: "u_installed", nickname: Nickname(trusted: "installed"), joinedAt: date)
  var auth = AuthRepository.testValue
  auth.currentState = { .signedIn(user) }
  var profile = ProfileRepository.testValue
  profile.fetchMe = { user }
  var questions = QuestionRepository.testValue
  questions.fetchToday = {
    Question(id: "q_installed", content: "Installed?", publishDate: CalendarDay(containing: date))
  }
  var board = BoardRepository.testValue
  board.fetchPosts = { _ in
    Page(items: [
      BoardPost(
        id: "p_installed", content: "Installed", isAnonymous: true, authorName: "Anonymous",
        isMine: false, createdAt: date)
    ])
  }
  var reports = ReportRepository.testValue
  reports.fetchMyReports = { _ in
    Page(items: [
      Report(id: "r_installed", target: .post("p"), reason: .spam, status: .open, createdAt: date)
    ])
  }
  var notifications = NotificationRepository.testValue
  notifications.fetchUnreadCount = { 41 }
  var studyGroups = StudyGroupRepository.testValue
  studyGroups.fetchGroup = { id in
    StudyGroup(
      id: id, name: "Installed", description: "", owner: user.summary, memberCount: 1,
      isMember: true, createdAt: date)
  }
  var chat = ChatRepository.testValue
  chat.fetchRooms = { _ in
    Page(items: [ChatRoom(id: "room_installed", kind: .direct("u_peer"), title: "peer")])
  }
  var analytics = AnalyticsRepository.testValue
  analytics.flush = { 42 }
  var admin = AdminRepository.testValue
  admin.fetchStats = {
    AdminStats(
      users: 43, admins: 1, bannedUsers: 0, questions: 0, answers: 0, posts: 0, comments: 0,
      openReports: 0, hiddenContents: 0, groups: 0, messages: 0)
  }
  return RepositorySet(
    auth: auth, profile: profile, questions: questions, board: board, reports: reports,
    notifications: notifications, studyGroups: studyGroups, chat: chat, analytics: analytics,
    admin: admin)
}

@Suite("Installing a RepositorySet")
struct InstallTests {
  @Test("install(_:) puts every repository where @Dependency finds it")
  func installThenReadBack() async throws {
    try await withDependencies {
      $0.install(recognizableSet())
    } operation: { () async throws in
      @Dependency(\.authRepository) var auth
      @Dependency(\.profileRepository) var profile
      @Dependency(\.questionRepository) var questions
      @Dependency(\.boardRepository) var board
      @Dependency(\.reportRepository) var reports
      @Dependency(\.notificationRepository) var notifications
      @Dependency(\.studyGroupRepository) var studyGroups
      @Dependency(\.chatRepository) var chat
      @Dependency(\.analyticsRepository) var analytics
      @Dependency(\.adminRepository) var admin

      guard case .signedIn(let user) = await auth.currentState() else {
        Issue.record("auth was not installed")
        return
      }
      #expect(user.id == "u_installed")
      #expect(try await profile.fetchMe().id == "u_installed")
      #expect(try await questions.fetchToday().id == "q_installed")
      #expect(try await board.fetchPosts(page: .first).items.map(\.id) == ["p_installed"])
      #expect(try await reports.fetchMyReports(page: .first).items.map(\.id) == ["r_installed"])
      #expect(try await notifications.fetchUnreadCount() == 41)
      #expect(try await studyGroups.fetchGroup("g_1").name == "Installed")
      #expect(try await chat.fetchRooms(page: .first).items.map(\.id) == ["room_installed"])
      #expect(try await analytics.flush() == 42)
      #expect(try await admin.fetchStats().users == 43)
    }
  }

  @Test("DependencyValues.repositories gives back the installed set")
  func roundTrip() async throws {
    let set = withDependencies {
      $0.install(recognizableSet())
    } operation: {
      @Dependency(\.repositories) var repositories
      return repositories
    }
    #expect(try await set.board.fetchPosts(page: .first).items.map(\.id) == ["p_installed"])
    #expect(try await set.analytics.flush() == 42)
    #expect(try await set.admin.fetchStats().users == 43)
    #expect(try await set.notifications.fetchUnreadCount() == 41)

    // Installing the read-back set again changes nothing.
    let again = withDependencies {
      $0.install(set)
    } operation: {
      @Dependency(\.repositories) var repositories
      return repositories
    }
    #expect(try await again.chat.fetchRooms(page: .first).items.map(\.id) == ["room_installed"])
    #expect(try await again.studyGroups.fetchGroup("g_2").id == "g_2")
  }

  @Test("a single repository can be overridden after installing a set")
  func overrideAfterInstall() async throws {
    let count = try await withDependencies {
      $0.install(recognizableSet())
      $0.notificationRepository.fetchUnreadCount = { 7 }
    } operation: { () async throws -> Int in
      @Dependency(\.notificationRepository) var notifications
      @Dependency(\.analyticsRepository) var analytics
      #expect(try await analytics.flush() == 42)
      return try await notifications.fetchUnreadCount()
    }
    #expect(count == 7)
  }

  @Test("nothing installed in a test: @Dependency gives the failing testValue")
  func testContextDefaultsToUnimplemented() async throws {
    try await withKnownIssue {
      try await withDependencies {
        $0.context = .test
      } operation: {
        @Dependency(\.boardRepository) var board
        _ = try await board.fetchPosts(page: .first)
      }
    } matching: { issue in
      // The endpoint's report, or the error it throws (`Unimplemented(endpoint:)`): both
      // name it.
      issue.comments.contains {
        $0.rawValue.contains("Unimplemented: 'BoardRepository.fetchPosts'")
      }
        || issue.error.map { String(describing: $0).contains(#"endpoint: "fetchPosts""#) } == true
    }
  }
}
