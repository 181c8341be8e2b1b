import Domain
import Foundation
import Repositories
import Testing

/// Profiles, avatars and withdrawal.
enum ProfileScenarios {
  /// The first bytes of a PNG file: enough for a server that checks what it stores.
  static let pngBytes = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13])

  /// Cohorts are trimmed, cleared with an empty text and limited in length; avatars must be
  /// JPEG or PNG pictures; other members' public profiles can be read.
  static func profile(_ backend: any ScenarioBackend) async throws {
    let alice = try await backend.makeMember(nickname: "alice")
    let bob = try await backend.makeMember(nickname: "bob")
    let aliceID = try await alice.profile.fetchMe().id

    let moved = try await alice.profile.updateProfile(ProfileUpdate(cohort: "  2026 Evening  "))
    #expect(moved.cohort == "2026 Evening")
    #expect(moved.nickname.rawValue == "alice")
    let cleared = try await alice.profile.updateProfile(ProfileUpdate(cohort: ""))
    #expect(cleared.cohort == nil)
    await expectValidation(field: "cohort") {
      try await alice.profile.updateProfile(
        ProfileUpdate(cohort: String(repeating: "c", count: 31)))
    }

    let seen = try await bob.profile.fetchUser(aliceID)
    #expect(seen.id == aliceID)
    #expect(seen.nickname.rawValue == "alice")
    await #expect(throws: DomainError.notFound) { try await bob.profile.fetchUser("u_999999") }
    // By nickname, case-insensitively; nobody by that name is notFound, no name is invalid.
    #expect(try await bob.profile.findUser("ALICE").id == aliceID)
    #expect(try await bob.profile.findUser("  alice\n").id == aliceID)
    await #expect(throws: DomainError.notFound) { try await bob.profile.findUser("nobody") }
    await expectValidation(field: "nickname") { try await bob.profile.findUser("  ") }

    let withAvatar = try await alice.profile.uploadAvatar(pngBytes, "me.png", "image/png")
    #expect(withAvatar.avatarURL != nil)
    #expect(try await bob.profile.fetchUser(aliceID).avatarURL == withAvatar.avatarURL)
    await expectValidation(field: "image") {
      try await alice.profile.uploadAvatar(Data("%PDF-1.7".utf8), "cv.pdf", "application/pdf")
    }
    // A file that says it is a PNG but is not one: the server reads the bytes and refuses it.
    await expectValidation(field: "image") {
      try await alice.profile.uploadAvatar(Data("not a picture".utf8), "fake.png", "image/png")
    }
  }

  /// Withdrawal ends every session of the account, keeps its content (named content shows
  /// "(withdrawn)", anonymous content stays anonymous) and its public profile is gone.
  static func withdrawal(_ backend: any ScenarioBackend) async throws {
    let admin = try await backend.makeAdmin()
    let question = try await backend.publishTodayQuestion(by: admin)
    let alice = try await backend.makeMember(nickname: "alice")
    let aliceElsewhere = try await backend.makeClient()
    _ = try await backend.signIn(aliceElsewhere, token: "alice", expecting: .member)
    let bob = try await backend.makeMember(nickname: "bob")
    let aliceID = try await alice.profile.fetchMe().id

    let named = try await alice.board.createPost(
      PostDraft(content: "Signed post", isAnonymous: false))
    let anonymous = try await alice.board.createPost(PostDraft(content: "Anonymous post"))
    let namedComment = try await alice.board.createComment(
      named.id, CommentDraft(content: "Signed comment", isAnonymous: false))
    let anonymousComment = try await alice.board.createComment(
      named.id, CommentDraft(content: "Anonymous comment"))
    _ = try await alice.questions.submitAnswer(question.id, "My last answer")
    _ = try await bob.questions.submitAnswer(question.id, "Bob's answer")

    try await alice.auth.withdraw()
    #expect(await alice.auth.currentState() == .signedOut)
    await #expect(throws: DomainError.signedOut) {
      try await aliceElsewhere.board.fetchPosts(.first)
    }
    #expect(await aliceElsewhere.auth.currentState() == .signedOut)

    let posts = try await bob.board.fetchPosts(.first).items
    #expect(posts.map(\.id) == [anonymous.id, named.id])
    #expect(posts.map(\.authorName) == ["Anonymous", "(withdrawn)"])
    let comments = try await bob.board.fetchComments(named.id, .first).items
    #expect(comments.map(\.id) == [namedComment.id, anonymousComment.id])
    #expect(comments.map(\.authorName) == ["(withdrawn)", "Anonymous 1"])
    let answers = try await bob.questions.fetchAnswers(question.id, .first).items
    #expect(answers.map(\.authorNickname) == ["bob", "(withdrawn)"])
    #expect(try await bob.questions.fetchToday().answerCount == 2)
    await #expect(throws: DomainError.notFound) { try await bob.profile.fetchUser(aliceID) }
    #expect(try await admin.admin.fetchStats().users == 2)
  }

  /// Analytics events are buffered until a flush; a flush uploads them in batches and returns
  /// the accepted count; nothing is counted twice; a signed-out flush keeps the events.
  static func analytics(_ backend: any ScenarioBackend) async throws {
    let client = try await backend.makeClient()
    let opened = try AnalyticsEvent(
      name: "app_opened", properties: ["screen": "today"], occurredAt: scenarioEpoch)
    await client.analytics.track(opened)
    await #expect(throws: DomainError.signedOut) { try await client.analytics.flush() }

    _ = try await backend.signUp(client, nickname: "alice")
    for index in 0..<149 {
      await client.analytics.track(
        try AnalyticsEvent(
          name: "post_viewed", properties: ["index": "\(index)"],
          occurredAt: scenarioEpoch.addingTimeInterval(Double(index))))
    }
    let uploaded = try await client.analytics.flush()
    #expect(uploaded == 150)
    let again = try await client.analytics.flush()
    #expect(again == 0)
    await client.analytics.track(
      try AnalyticsEvent(name: "answer_submitted", occurredAt: scenarioEpoch))
    #expect(try await client.analytics.flush() == 1)
  }

  /// Events go up only as the user who was signed in when they were tracked, even when another
  /// user signs in on the same device first.
  static func analyticsFollowTheirUser(_ backend: any ScenarioBackend) async throws {
    let device = try await backend.makeClient()
    _ = try await backend.signUp(device, nickname: "alice")
    for name in ["post_viewed", "post_liked"] {
      await device.analytics.track(try AnalyticsEvent(name: name, occurredAt: scenarioEpoch))
    }
    try await device.auth.signOut()
    // Nobody is signed in and nothing tracked meanwhile waits: nothing to upload.
    #expect(try await device.analytics.flush() == 0)
    _ = try await backend.signUp(device, nickname: "bob")
    #expect(try await device.analytics.flush() == 0)
    await device.analytics.track(try AnalyticsEvent(name: "app_opened", occurredAt: scenarioEpoch))
    #expect(try await device.analytics.flush() == 1)
    try await device.auth.signOut()
    _ = try await backend.signIn(device, token: "alice", expecting: .member)
    #expect(try await device.analytics.flush() == 2)
  }
}
