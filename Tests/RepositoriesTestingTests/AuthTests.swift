import Domain
import Foundation
import Repositories
import RepositoriesTesting
import Testing

@Suite("Fake auth: sign-in, email-code sign-up, sessions")
struct AuthTests {
  /// Signs in with an unknown dev token and returns the sign-up token.
  func startSignUp(_ client: FakeClient, token: String) async throws -> SignUpToken {
    guard
      case .needsSignUp(let signUpToken) = try await client.auth.signIn(
        provider: .dev, token: token)
    else {
      Issue.record("An unknown dev token should need sign-up.")
      throw DomainError.notFound
    }
    return signUpToken
  }

  /// Runs the whole email flow and signs up with `nickname`.
  func signUp(_ client: FakeClient, token: String, nickname: String) async throws -> User {
    let signUpToken = try await startSignUp(client, token: token)
    let email = try EmailAddress(validating: "\(token)@academy.example")
    _ = try await client.auth.requestEmailCode(signUpToken: signUpToken, email: email)
    let code = try #require(client.backend.lastEmailCode(for: email))
    let verified = try await client.auth.verifyEmailCode(
      signUpToken: signUpToken, email: email, code: code)
    return try await client.auth.signUp(
      SignUpForm(
        signUpToken: signUpToken, verificationToken: verified,
        nickname: try Nickname(validating: nickname), cohort: "2026 오전", agreedTermsVersion: "1"))
  }

  @Test("apple and kakao are refused locally with a validation error on provider")
  func onlyDevSignIn() async {
    let client = makeBackend().makeClient()
    for provider in [AuthProvider.apple, .kakao] {
      let field = await validationField {
        _ = try await client.auth.signIn(provider: provider, token: "t")
      }
      #expect(field == "provider")
    }
    #expect(
      await validationField { _ = try await client.auth.signIn(provider: .dev, token: " ") }
        == "token")
  }

  @Test("an unknown account needs sign-up; the full email flow signs up and in")
  func fullSignUp() async throws {
    let backend = makeBackend()
    let client = backend.makeClient()
    let user = try await signUp(client, token: "kakao-123", nickname: "새싹")
    #expect(user.nickname.rawValue == "새싹")
    #expect(user.cohort == "2026 오전")
    #expect(client.sessionState == .signedIn(user))
    #expect(try await client.profile.fetchMe().id == user.id)

    // The same token signs in to the same account from another device.
    let other = backend.makeClient()
    guard
      case .signedIn(let session) = try await other.auth.signIn(provider: .dev, token: "kakao-123")
    else {
      Issue.record("A known token should sign in.")
      return
    }
    #expect(session.user.id == user.id)
    #expect(session.expiresAt == Fixtures.now.addingTimeInterval(15 * 60))
    #expect(try other.userID == user.id)
  }

  @Test("codes expire after 10 minutes and stop working after 5 wrong tries")
  func emailCodeRules() async throws {
    let backend = makeBackend()
    let client = backend.makeClient()
    let token = try await startSignUp(client, token: "t1")
    let email = try EmailAddress(validating: "t1@academy.example")
    let expiry = try await client.auth.requestEmailCode(signUpToken: token, email: email)
    #expect(expiry == Fixtures.now.addingTimeInterval(600))
    let code = try #require(backend.lastEmailCode(for: "t1@academy.example"))
    let wrong = try VerificationCode(validating: code.rawValue == "000000" ? "111111" : "000000")
    for _ in 1...5 {
      let field = await validationField {
        _ = try await client.auth.verifyEmailCode(signUpToken: token, email: email, code: wrong)
      }
      #expect(field == "code")
    }
    // The right code no longer works after five wrong ones.
    #expect(
      await validationField {
        _ = try await client.auth.verifyEmailCode(signUpToken: token, email: email, code: code)
      } == "code")

    // A new code works, but not once it is older than 10 minutes.
    _ = try await client.auth.requestEmailCode(signUpToken: token, email: email)
    let fresh = try #require(backend.lastEmailCode(for: email))
    backend.advance(by: 601)
    #expect(
      await validationField {
        _ = try await client.auth.verifyEmailCode(signUpToken: token, email: email, code: fresh)
      } == "code")
  }

  @Test("sign-up tokens last an hour; a verification token of another sign-up is refused")
  func tokenLifetimes() async throws {
    let backend = makeBackend()
    let first = backend.makeClient()
    let second = backend.makeClient()
    let token = try await startSignUp(first, token: "t3")
    let otherToken = try await startSignUp(second, token: "t4")
    let email = try EmailAddress(validating: "t4@academy.example")
    _ = try await second.auth.requestEmailCode(signUpToken: otherToken, email: email)
    let verified = try await second.auth.verifyEmailCode(
      signUpToken: otherToken, email: email, code: try #require(backend.lastEmailCode(for: email)))
    await #expect(throws: DomainError.signedOut) {
      _ = try await first.auth.signUp(
        SignUpForm(
          signUpToken: token, verificationToken: verified, nickname: Nickname(trusted: "thief"),
          agreedTermsVersion: "1"))
    }
    backend.advance(by: 3601)
    await #expect(throws: DomainError.signedOut) {
      _ = try await first.auth.requestEmailCode(signUpToken: token, email: email)
    }
  }

  @Test("sign-up refuses taken (case-insensitive) and reserved nicknames and empty terms")
  func signUpRules() async throws {
    let backend = makeBackend()
    _ = try backend.signedUpClient(nickname: "Alice")
    let client = backend.makeClient()
    let token = try await startSignUp(client, token: "t2")
    let email = try EmailAddress(validating: "t2@academy.example")
    _ = try await client.auth.requestEmailCode(signUpToken: token, email: email)
    let verified = try await client.auth.verifyEmailCode(
      signUpToken: token, email: email, code: try #require(backend.lastEmailCode(for: email)))
    func form(_ nickname: String, terms: String = "2026-01") -> SignUpForm {
      SignUpForm(
        signUpToken: token, verificationToken: verified, nickname: Nickname(trusted: nickname),
        agreedTermsVersion: terms)
    }
    await #expect(throws: DomainError.nicknameTaken) {
      _ = try await client.auth.signUp(form("aLiCe"))
    }
    #expect(await validationField { _ = try await client.auth.signUp(form("관리자")) } == "nickname")
    #expect(await validationField { _ = try await client.auth.signUp(form("a")) } == "nickname")
    #expect(
      await validationField { _ = try await client.auth.signUp(form("carol", terms: " ")) }
        == "agreed_terms_version")
    var longCohort = form("carol")
    longCohort.cohort = String(repeating: "c", count: 31)
    #expect(await validationField { _ = try await client.auth.signUp(longCohort) } == "cohort")
    let carol = try await client.auth.signUp(form("carol"))
    #expect(carol.nickname.rawValue == "carol")
  }

  @Test("checkNickname says whether a nickname is free")
  func nicknameAvailability() async throws {
    let backend = makeBackend()
    _ = try backend.signedUpClient(nickname: "alice")
    let client = backend.makeClient()
    #expect(try await client.auth.checkNickname(Nickname(trusted: "ALICE")).isAvailable == false)
    #expect(try await client.auth.checkNickname(Nickname(trusted: "익명")).isAvailable == false)
    #expect(try await client.auth.checkNickname(Nickname(trusted: "bob")).isAvailable)
  }

  @Test("sessionStates yields the current state first, then each change, to every subscriber")
  func sessionStateSequence() async throws {
    let backend = makeBackend()
    let client = try backend.signedUpClient(nickname: "alice")
    let user = try #require(backend.user(named: "alice"))
    var first = client.auth.sessionStates().makeAsyncIterator()
    var second = client.auth.sessionStates().makeAsyncIterator()
    #expect(backend.sessionStreamCount(of: client) == 2)

    try await client.auth.signOut()
    _ = try await client.auth.signIn(provider: .dev, token: "alice")
    try await client.auth.withdraw()
    _ = try await client.auth.signIn(provider: .dev, token: "alice")

    var states: [SessionState] = []
    for _ in 0..<5 { states.append(try #require(await first.next())) }
    #expect(states.count == 5)
    #expect(states[0] == .signedIn(user))
    #expect(states[1] == .signedOut)
    #expect(states[2] == .signedIn(user))
    #expect(states[3] == .signedOut)
    guard case .needsSignUp = states[4] else {
      Issue.record("After withdrawal the same token needs sign-up again, got \(states[4]).")
      return
    }
    for expected in states { #expect(await second.next() == expected) }
  }

  @Test("a signed-out client gets signedOut from every call that needs a session")
  func signedOutCalls() async throws {
    let client = makeBackend().makeClient()
    await #expect(throws: DomainError.signedOut) { _ = try await client.profile.fetchMe() }
    await #expect(throws: DomainError.signedOut) {
      _ = try await client.board.fetchPosts(page: .first)
    }
    await #expect(throws: DomainError.signedOut) { try await client.auth.withdraw() }
    #expect(throws: DomainError.signedOut) { _ = try client.userID }
    // Signing out twice is harmless.
    try await client.auth.signOut()
    #expect(await client.auth.currentState() == .signedOut)
  }

  @Test("withdrawal keeps content as (withdrawn), signs out other devices and frees the nickname")
  func withdrawal() async throws {
    let (backend, alice, bob, _) = try makeCast()
    let aliceOnPhone = try backend.client(signedInAs: try alice.userID)
    let post = try await alice.board.createPost(
      PostDraft(content: "Named post", isAnonymous: false))
    _ = try await alice.board.createComment(
      on: post.id, draft: CommentDraft(content: "anon", isAnonymous: true))

    try await alice.auth.withdraw()
    #expect(alice.sessionState == .signedOut)
    #expect(backend.user(named: "alice") == nil)

    let seen = try await bob.board.fetchPost(post.id)
    #expect(seen.authorName == "(withdrawn)")
    let comments = try await bob.board.fetchComments(of: post.id, page: .first)
    #expect(comments.items.map(\.authorName) == ["Anonymous 1"])

    // The other device finds out on its next call.
    #expect(aliceOnPhone.sessionState != .signedOut)
    await #expect(throws: DomainError.signedOut) { _ = try await aliceOnPhone.profile.fetchMe() }
    #expect(aliceOnPhone.sessionState == .signedOut)

    _ = try backend.signedUpClient(nickname: "alice")
  }
}

@Suite("Fake profile")
struct ProfileTests {
  @Test("nickname changes are checked and the session state follows")
  func updateProfile() async throws {
    let (_, alice, bob, _) = try makeCast()
    await #expect(throws: DomainError.nicknameTaken) {
      _ = try await alice.profile.updateProfile(ProfileUpdate(nickname: Nickname(trusted: "BOB")))
    }
    #expect(
      await validationField {
        _ = try await alice.profile.updateProfile(
          ProfileUpdate(nickname: Nickname(trusted: "no spaces")))
      } == "nickname")
    let updated = try await alice.profile.updateProfile(
      ProfileUpdate(nickname: Nickname(trusted: "앨리스"), cohort: "2026 Morning"))
    #expect(updated.nickname.rawValue == "앨리스")
    #expect(alice.sessionState == .signedIn(updated))
    #expect(try await bob.profile.fetchUser(updated.id).nickname.rawValue == "앨리스")
    await #expect(throws: DomainError.notFound) { _ = try await bob.profile.fetchUser("u_404") }
  }

  @Test("avatars must be JPEG or PNG, by MIME type and by their bytes")
  func avatar() async throws {
    let (_, alice, _, _) = try makeCast()
    #expect(
      await validationField {
        _ = try await alice.profile.uploadAvatar(Data([1, 2]), "a.gif", "image/gif")
      } == "image")
    #expect(
      await validationField {
        _ = try await alice.profile.uploadAvatar(Data(), "a.png", "image/png")
      } == "image")
    // The bytes must be a picture of the declared type, as the server reads them.
    #expect(
      await validationField {
        _ = try await alice.profile.uploadAvatar(Data("not a picture".utf8), "a.png", "image/png")
      } == "image")
    #expect(
      await validationField {
        _ = try await alice.profile.uploadAvatar(Data([0x89, 0x50]), "a.png", "image/png")
      } == "image")
    let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13])
    let user = try await alice.profile.uploadAvatar(png, "a.png", "image/png")
    let url = try #require(user.avatarURL)
    #expect(url.path.hasSuffix("/avatars/\(user.id.rawValue)"))
  }
}
