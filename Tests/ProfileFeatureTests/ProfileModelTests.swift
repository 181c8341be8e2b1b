import Clocks
import Dependencies
import Domain
import Foundation
import ProfileFeature
import Repositories
import RepositoriesTesting
import TestSupport
import Testing

/// The Profile tab on the fakes: the profile, my answers and reports with paging, the nickname
/// editor, signing out and withdrawing.
@MainActor
@Suite("ProfileModel")
struct ProfileModelTests {
  let backend = FakeBackend(now: { Fixtures.now })

  @Test func myProfileAndMyAnswersOpenTheirQuestions() async throws {
    let seeded = try backend.seed(Fixtures.community)
    let haneul = try backend.client(forNickname: Fixtures.haneul)
    let profile = haneul.model { ProfileModel() }
    var opened: [DeepLink] = []
    profile.onNavigate = { opened.append($0) }
    await profile.task()
    let user = try #require(profile.user)
    #expect(user.nickname.rawValue == Fixtures.haneul)
    #expect(user.cohort == "2026 오전")
    #expect(user.answerCount == 2)
    #expect(
      profile.myAnswers.answers.map(\.questionID) == [seeded.questions[0], seeded.questions[1]])
    #expect(profile.myAnswers.answers.allSatisfy { $0.isMine })
    #expect(!profile.myAnswers.hasMore)
    profile.myAnswers.answerTapped(profile.myAnswers.answers[1])
    #expect(opened == [.question(seeded.questions[1])])
    let events = try await haneul.uploadedEvents()
    #expect(events.map(\.properties) == [["screen": "profile"]])
  }

  @Test func aCancelledLoadIsNoFailureAndLoadsOnTheNextAppearance() async throws {
    _ = try backend.seed(Fixtures.community)
    let haneul = try backend.client(forNickname: Fixtures.haneul)
    let cancels = LockIsolated(true)
    let profile = haneul.model { values in
      let fetch = values.profileRepository.fetchMe
      values.profileRepository.fetchMe = {
        if cancels.value { throw CancellationError() }
        return try await fetch()
      }
    } _: {
      ProfileModel()
    }
    await profile.task()
    #expect(profile.phase == .loading && profile.failure == nil)
    cancels.setValue(false)
    await profile.task()
    #expect(profile.user?.nickname.rawValue == Fixtures.haneul)
    cancels.setValue(true)
    await profile.refreshPulled()
    #expect(profile.user?.nickname.rawValue == Fixtures.haneul && profile.failure == nil)
  }

  @Test func myAnswersComePageByPage() async throws {
    let count = PageRequest.defaultLimit + 4
    let seeded = try backend.seed(
      Seed(
        users: [.init("alice"), .init("bob")],
        questions: (0..<count).map {
          .init(
            "Question \($0)?", dayOffset: -$0, answers: [("alice", "Answer \($0)"), ("bob", "B")])
        }))
    let alice = try backend.client(forNickname: "alice")
    let profile = alice.model { ProfileModel() }
    await profile.task()
    let answers = profile.myAnswers
    #expect(answers.answers.count == PageRequest.defaultLimit)
    #expect(answers.hasMore)
    backend.isOffline = true
    await answers.scrolledToBottom()
    #expect(answers.failure == .offline)
    answers.failureDismissed()
    backend.isOffline = false
    await answers.scrolledToBottom()
    #expect(answers.failure == nil)
    #expect(Set(answers.answers.map(\.questionID)) == Set(seeded.questions))
    #expect(answers.answers.allSatisfy { $0.authorNickname == "alice" })
    #expect(!answers.hasMore)
  }

  @Test func myReportsComePageByPage() async throws {
    let alice = try backend.signedUpClient(nickname: "alice")
    let bob = try backend.signedUpClient(nickname: "bob")
    let count = PageRequest.defaultLimit + 2
    var posts: [BoardPost.ID] = []
    for index in 0..<count {
      posts.append(try await alice.board.createPost(PostDraft(content: "Post \(index)")).id)
    }
    for post in posts {
      _ = try await bob.reports.report(.post(post), .spam)
    }
    let profile = bob.model { ProfileModel() }
    await profile.task()
    profile.myReportsButtonTapped()
    let reports = try #require(profile.destination?.myReports)
    await reports.task()
    #expect(reports.reports.count == PageRequest.defaultLimit)
    #expect(reports.hasMore)
    await reports.scrolledToBottom()
    #expect(Set(reports.reports.map(\.target)) == Set(posts.map { .post($0) }))
    #expect(!reports.hasMore)
    // Alice filed none.
    let alicesProfile = alice.model { ProfileModel() }
    alicesProfile.myReportsButtonTapped()
    let alicesReports = try #require(alicesProfile.destination?.myReports)
    await alicesReports.task()
    #expect(alicesReports.reports.isEmpty)

    backend.isOffline = true
    await reports.refreshPulled()
    #expect(reports.failure == .offline)
    #expect(reports.reports.count == count)
    profile.destinationDismissed()
    #expect(profile.destination == nil)
    backend.isOffline = false
    let events = try await bob.uploadedEvents()
    #expect(events.map { $0.properties["screen"] } == ["profile", "profile_reports"])
  }

  @Test("a profile read before a nickname save does not put the old name back")
  func aStaleReloadKeepsTheSavedNickname() async throws {
    let alice = try backend.signedUpClient(nickname: "alice")
    let holding = Locked(false)
    let read = Locked(false)
    let (released, release) = AsyncStream<Void>.makeStream()
    let profile = alice.model { values in
      let fetch = values.profileRepository.fetchMe
      values.profileRepository.fetchMe = {
        let me = try await fetch()
        if holding.withLock({ $0 }) {
          read.withLock { $0 = true }
          for await _ in released { break }
        }
        return me
      }
    } _: {
      ProfileModel()
    }
    await profile.task()
    holding.withLock { $0 = true }
    let refresh = Task { await profile.refreshPulled() }
    try await waitUntil("the profile is read") { read.withLock { $0 } }
    profile.editNicknameButtonTapped()
    let editor = try #require(profile.destination?.editNickname)
    // Only the case changes: no availability check to wait for.
    editor.nicknameChanged("Alice")
    await editor.saveButtonTapped()
    #expect(profile.user?.nickname.rawValue == "Alice")
    release.finish()
    await refresh.value
    #expect(profile.user?.nickname.rawValue == "Alice")
  }

  @Test("a load overtaken by a newer one does not put its older profile back when it lands")
  func anOvertakenLoadDoesNotLand() async throws {
    let alice = try backend.signedUpClient(nickname: "alice")
    // The screen's first read answers when the gate opens.
    let gate = Gate(holding: 1)
    let profile = alice.model { values in
      let fetch = values.profileRepository.fetchMe
      values.profileRepository.fetchMe = {
        let me = try await fetch()
        await gate.wait()
        return me
      }
    } _: {
      ProfileModel()
    }
    try await gate.whileHeld(profile.task) {
      // Renamed elsewhere (another device) while the first read was on its way.
      _ = try await alice.profile.updateProfile(
        ProfileUpdate(nickname: try Nickname(validating: "alicia")))
      await profile.refreshPulled()
      #expect(profile.user?.nickname.rawValue == "alicia")
    }
    #expect(profile.user?.nickname.rawValue == "alicia")
  }

  @Test func theNicknameEditorSavesIntoTheProfile() async throws {
    let alice = try backend.signedUpClient(nickname: "alice")
    _ = try backend.signedUpClient(nickname: "bob")
    let clock = TestClock()
    let profile = alice.model(clock: clock) { ProfileModel() }
    await profile.task()
    profile.editNicknameButtonTapped()
    let editor = try #require(profile.destination?.editNickname)
    await editor.task()
    #expect(editor.current.rawValue == "alice")
    editor.nicknameChanged("bob")
    await clock.advance(by: NicknameEditModel.debounce)
    try await waitUntil(step: clock.turning) { editor.availability != .checking }
    #expect(editor.availability == .taken)
    editor.nicknameChanged("앨리스")
    await clock.advance(by: NicknameEditModel.debounce)
    try await waitUntil(step: clock.turning) { editor.availability != .checking }
    #expect(editor.availability == .available)
    await editor.saveButtonTapped()
    #expect(profile.destination == nil)
    #expect(profile.user?.nickname.rawValue == "앨리스")
    #expect(try await alice.profile.fetchMe().nickname.rawValue == "앨리스")
    let events = try await alice.uploadedEvents()
    #expect(events.map(\.name) == ["screen_viewed", "screen_viewed", "nickname_changed"])
    #expect(events.map { $0.properties["screen"] } == ["profile", "profile_nickname", nil])
    #expect(events[2].properties.isEmpty)

    profile.editNicknameButtonTapped()
    let again = try #require(profile.destination?.editNickname)
    #expect(again.current.rawValue == "앨리스")
    again.cancelButtonTapped()
    #expect(profile.destination == nil)
  }

  @Test func signingOutEndsTheSession() async throws {
    let alice = try backend.signedUpClient(nickname: "alice")
    let profile = alice.model { ProfileModel() }
    await profile.task()
    await profile.signOutButtonTapped()
    #expect(profile.failure == nil)
    #expect(alice.sessionState == .signedOut)

    // Offline the session still ends on the device (as with the live client), and the screen
    // says the server was not reached.
    let bob = try backend.signedUpClient(nickname: "bob")
    let bobsProfile = bob.model { ProfileModel() }
    await bobsProfile.task()
    backend.isOffline = true
    await bobsProfile.signOutButtonTapped()
    #expect(bobsProfile.failure == .offline)
    #expect(!bobsProfile.isSigningOut)
    #expect(bob.sessionState == .signedOut)
  }

  @Test func withdrawingNeedsAConfirmation() async throws {
    let alice = try backend.signedUpClient(nickname: "alice")
    let bob = try backend.signedUpClient(nickname: "bob")
    let id = try alice.userID
    let profile = alice.model { ProfileModel() }
    await profile.task()
    // Without the confirmation step nothing happens.
    await profile.withdrawalConfirmed()
    #expect(backend.user(id) != nil)
    profile.withdrawButtonTapped()
    #expect(profile.destination?.isConfirmWithdrawal == true)
    profile.destinationDismissed()
    await profile.withdrawalConfirmed()
    #expect(backend.user(id) != nil)

    profile.withdrawButtonTapped()
    backend.isOffline = true
    await profile.withdrawalConfirmed()
    #expect(profile.failure == .offline)
    #expect(!profile.isWithdrawing)
    #expect(backend.user(id) != nil)
    backend.isOffline = false

    profile.withdrawButtonTapped()
    #expect(profile.failure == nil)
    await profile.withdrawalConfirmed()
    #expect(profile.failure == nil)
    #expect(profile.destination == nil)
    #expect(alice.sessionState == .signedOut)
    #expect(backend.user(id) == nil)
    // The name is free for someone else now.
    #expect(try await bob.auth.checkNickname(Nickname(trusted: "alice")).isAvailable)
  }

  @Test func aFailedLoadIsShownAndARefreshRecovers() async throws {
    let alice = try backend.signedUpClient(nickname: "alice")
    backend.isOffline = true
    let profile = alice.model { ProfileModel() }
    await profile.task()
    #expect(profile.phase == .failed(.offline))
    profile.editNicknameButtonTapped()
    #expect(profile.destination == nil)
    backend.isOffline = false
    await profile.refreshPulled()
    #expect(profile.user?.nickname.rawValue == "alice")
    backend.isOffline = true
    await profile.refreshPulled()
    #expect(profile.failure == .offline)
    #expect(profile.user?.nickname.rawValue == "alice")
  }
}
