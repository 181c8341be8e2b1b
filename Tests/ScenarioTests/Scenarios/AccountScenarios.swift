import Domain
import Foundation
import Repositories
import Testing

/// Sign-up, nicknames, the session stream, sign-out and withdrawal.
enum AccountScenarios {
  /// A taken nickname (in any letter case) is refused at sign-up and in a profile update.
  static func nicknameTaken(_ backend: any ScenarioBackend) async throws {
    let alice = try await backend.makeMember(nickname: "alice")
    let bob = try await backend.makeMember(nickname: "bob")

    let newcomer = try await backend.makeClient()
    await #expect(throws: DomainError.nicknameTaken) {
      try await backend.signUp(newcomer, nickname: "alice", token: "newcomer")
    }
    let other = try await backend.makeClient()
    await #expect(throws: DomainError.nicknameTaken) {
      try await backend.signUp(other, nickname: "ALICE", token: "other")
    }
    let availability = try await other.auth.checkNickname(try Nickname(validating: "Alice"))
    #expect(!availability.isAvailable)
    #expect(try await other.auth.checkNickname(try Nickname(validating: "zoe")).isAvailable)

    await #expect(throws: DomainError.nicknameTaken) {
      try await bob.profile.updateProfile(
        ProfileUpdate(nickname: try Nickname(validating: "alice")))
    }
    // Keeping one's own nickname (another case of it) is not "taken".
    let renamed = try await alice.profile.updateProfile(
      ProfileUpdate(nickname: try Nickname(validating: "Alice")))
    #expect(renamed.nickname.rawValue == "Alice")
    let bobRenamed = try await bob.profile.updateProfile(
      ProfileUpdate(nickname: try Nickname(validating: "bobby")))
    #expect(bobRenamed.nickname.rawValue == "bobby")
    #expect(try await bob.profile.fetchMe().nickname.rawValue == "bobby")

    // A fresh nickname works for the newcomer, and its session is theirs.
    let user = try await backend.signUp(newcomer, nickname: "newcomer", token: "newcomer2")
    #expect(user.nickname.rawValue == "newcomer")
    #expect(user.role == .member)
    #expect(try await newcomer.profile.fetchMe().id == user.id)
  }

  /// Blank tokens and a blank terms version (`TextRule.required`, `TextRule.signInToken`) are
  /// `.empty` on the field they fill, before anything else is looked at, on every backend (the
  /// live client refuses them before sending; the service refuses the same). The sign-up they
  /// interrupted still finishes.
  static func blankSignUpFields(_ backend: any ScenarioBackend) async throws {
    let client = try await backend.makeClient()
    func expectEmpty(_ field: String, _ body: () async throws -> Void) async {
      let error = await expectValidation(field: field, body)
      #expect(error == .validation(.empty(field: field)))
    }
    await expectEmpty("token") { _ = try await client.auth.signIn(.dev, " \n") }
    guard case .needsSignUp(let token) = try await client.auth.signIn(.dev, "blankfields") else {
      throw ScenarioFailure(description: "blankfields already has an account")
    }
    let email = try EmailAddress(validating: "blankfields@academy.example")
    let blank = SignUpToken(rawValue: "  ")
    await expectEmpty("sign_up_token") { _ = try await client.auth.requestEmailCode(blank, email) }
    _ = try await client.auth.requestEmailCode(token, email)
    let code = try #require(try await backend.lastEmailCode(for: email))
    await expectEmpty("sign_up_token") {
      _ = try await client.auth.verifyEmailCode(blank, email, code)
    }
    let verified = try await client.auth.verifyEmailCode(token, email, code)
    let nickname = try Nickname(validating: "blankfields")
    func form(_ token: SignUpToken, _ verification: String, terms: String) -> SignUpForm {
      SignUpForm(
        signUpToken: token, verificationToken: EmailVerificationToken(rawValue: verification),
        nickname: nickname, agreedTermsVersion: terms)
    }
    await expectEmpty("sign_up_token") {
      _ = try await client.auth.signUp(form(blank, verified.rawValue, terms: "2026-03"))
    }
    await expectEmpty("verification_token") {
      _ = try await client.auth.signUp(form(token, "", terms: "2026-03"))
    }
    await expectEmpty("agreed_terms_version") {
      _ = try await client.auth.signUp(form(token, verified.rawValue, terms: " \t"))
    }
    let user = try await client.auth.signUp(form(token, verified.rawValue, terms: "2026-03"))
    #expect(user.nickname == nickname)
  }

  /// The session stream from first launch to withdrawal: signed out, needs sign-up, signed in,
  /// signed out, signed in again, and signed out for good after withdrawal (the same dev token
  /// then needs a new sign-up).
  static func sessionLifecycle(_ backend: any ScenarioBackend) async throws {
    let client = try await backend.makeClient()
    var states = client.auth.sessionStates().makeAsyncIterator()
    #expect(await states.next() == .signedOut)
    #expect(await client.auth.currentState() == .signedOut)
    await #expect(throws: DomainError.signedOut) { try await client.board.fetchPosts(.first) }

    let user = try await backend.signUp(client, nickname: "alice")
    guard case .needsSignUp = await states.next() else {
      Issue.record("expected needsSignUp first")
      return
    }
    #expect(await states.next() == .signedIn(user))
    #expect(await client.auth.currentState() == .signedIn(user))

    try await client.auth.signOut()
    #expect(await states.next() == .signedOut)
    await #expect(throws: DomainError.signedOut) { try await client.board.fetchPosts(.first) }

    let again = try await backend.signIn(client, token: "alice", expecting: .member)
    #expect(again.id == user.id)
    #expect(await states.next() == .signedIn(again))

    // Switching accounts on a signed-in client goes straight to the other account, or
    // straight to sign-up for an unknown one (no signed-out screen flashes in between).
    let bob = try await backend.makeMember(nickname: "bob")
    let bobUser = try await bob.profile.fetchMe()
    let asBob = try await backend.signIn(client, token: "bob", expecting: .member)
    #expect(asBob.id == bobUser.id)
    #expect(await states.next() == .signedIn(asBob))
    guard case .needsSignUp(let pending) = try await client.auth.signIn(.dev, "stranger") else {
      Issue.record("an unknown dev token signed in")
      return
    }
    #expect(await states.next() == .needsSignUp(pending))
    #expect(await client.auth.currentState() == .needsSignUp(pending))
    await #expect(throws: DomainError.signedOut) { try await client.board.fetchPosts(.first) }
    _ = try await backend.signIn(client, token: "alice", expecting: .member)
    while let state = await states.next(), state != .signedIn(again) {}
    _ = try await client.board.createPost(
      PostDraft(content: "Goodbye, everyone", isAnonymous: false))

    try await client.auth.withdraw()
    #expect(await states.next() == .signedOut)
    await #expect(throws: DomainError.signedOut) { try await client.board.fetchPosts(.first) }

    // The account is gone: its content stays, shown as withdrawn; the token signs up anew.
    let witness = try await backend.makeMember(nickname: "carol")
    let posts = try await witness.board.fetchPosts(.first).items
    #expect(posts.map(\.content) == ["Goodbye, everyone"])
    #expect(posts.first?.authorName == "(withdrawn)")
    guard case .needsSignUp = try await client.auth.signIn(.dev, "alice") else {
      Issue.record("a withdrawn account signed in again")
      return
    }
    // The nickname is free again.
    #expect(try await witness.auth.checkNickname(try Nickname(validating: "alice")).isAvailable)
  }

  /// The session state carries the freshest own profile: a profile update or a fresh
  /// `fetchMe` (new answer count, a ban) shows up in it; an update that changes nothing does not
  /// repeat the state.
  static func sessionFollowsProfile(_ backend: any ScenarioBackend) async throws {
    let admin = try await backend.makeAdmin()
    let question = try await backend.publishTodayQuestion(by: admin)
    let alice = try await backend.makeClient()
    let user = try await backend.signUp(alice, nickname: "alice")
    var states = alice.auth.sessionStates().makeAsyncIterator()
    #expect(await states.next() == .signedIn(user))

    let moved = try await alice.profile.updateProfile(ProfileUpdate(cohort: "2026 Evening"))
    #expect(await states.next() == .signedIn(moved))
    let unchanged = try await alice.profile.updateProfile(ProfileUpdate(cohort: "2026 Evening"))
    #expect(unchanged == moved)
    // Nothing changed, so the next state is the sign-out, not a repeat.
    try await alice.auth.signOut()
    #expect(await states.next() == .signedOut)

    _ = try await backend.signIn(alice, token: "alice", expecting: .member)
    #expect(await states.next() == .signedIn(moved))
    _ = try await alice.questions.submitAnswer(question.id, "An answer changes my count")
    let counted = try await alice.profile.fetchMe()
    #expect(counted.answerCount == 1)
    await expectSessionState(of: alice, is: counted, next: &states)

    _ = try await admin.admin.banUser(user.id, "Testing", nil)
    let banned = try await alice.profile.fetchMe()
    #expect(banned.isBanned)
    await expectSessionState(of: alice, is: banned, next: &states)
  }

  /// Expects the session state (and the stream's next element) to show `user`, as the live
  /// session controller does after every fresh own profile.
  private static func expectSessionState(
    of client: RepositorySet, is user: User,
    next states: inout AsyncStream<SessionState>.Iterator,
    sourceLocation: SourceLocation = #_sourceLocation
  ) async {
    #expect(await client.auth.currentState() == .signedIn(user), sourceLocation: sourceLocation)
    #expect(await states.next() == .signedIn(user), sourceLocation: sourceLocation)
  }
}
