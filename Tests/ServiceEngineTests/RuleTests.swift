import Domain
import Foundation
import Testing

@testable import ServiceEngine

/// Rules of `Docs/Rules.md` that no test through the fakes, the server or the scenarios pinned:
/// each fails when its rule's code is removed or inverted. (The differential scenarios compare
/// the two backends, which run this one engine, so they cannot catch a rule broken in it.)
@Suite("ServiceEngine: rules pinned on the engine")
struct RuleTests {
  let engine: ServiceEngine
  let admin: Viewer

  init() throws {
    engine = try ServiceEngine(now: { Date(timeIntervalSince1970: 1_773_622_800) })
    admin = try engine.createUser(nickname: "Staff", role: .admin)
  }

  /// Today's question, created by the admin.
  func todaysQuestion() throws -> Question.ID {
    try engine.createQuestion(
      QuestionDraft(content: "What did you build today?", publishDate: engine.today), as: admin
    ).id
  }

  /// Three members: Alice, Bob and Carol.
  func threeMembers() throws -> (Viewer, Viewer, Viewer) {
    (
      try engine.createUser(nickname: "Alice"), try engine.createUser(nickname: "Bob"),
      try engine.createUser(nickname: "Carol")
    )
  }

  /// Mina's group, which Jun joined.
  func groupOfTwo() throws -> (owner: Viewer, member: Viewer, StudyGroup) {
    let (mina, jun) = (
      try engine.createUser(nickname: "Mina"), try engine.createUser(nickname: "Jun")
    )
    let group = try engine.createGroup(StudyGroupDraft(name: "Swift study"), as: mina)
    _ = try engine.joinGroup(group.id, as: jun)
    return (mina, jun, group)
  }

  /// The open case of `target`.
  func openCase(of target: ReportTarget) throws -> ReportCase.ID {
    try #require(
      try engine.reportCases(status: .open, .first, as: admin).items.first {
        $0.target == target
      }
    ).id
  }

  @Test("withdrawal deletes the avatar")
  func withdrawalDeletesTheAvatar() throws {
    let mina = try engine.createUser(nickname: "Mina")
    let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1])
    _ = try engine.uploadAvatar(try AvatarImage(validating: png), as: mina)
    #expect(try engine.avatar(of: mina.id).data == png)
    try engine.withdraw(as: mina)
    #expect(throws: DomainError.notFound) { try engine.avatar(of: mina.id) }
  }

  @Test("withdrawal ends memberships of others' groups")
  func withdrawalEndsMemberships() throws {
    let (mina, jun, group) = try groupOfTwo()
    #expect(try engine.group(group.id, as: mina).memberCount == 2)
    try engine.withdraw(as: jun)
    #expect(try engine.groupMembers(of: group.id, .first).items.map(\.user.id) == [mina.id])
    #expect(try engine.group(group.id, as: mina).memberCount == 1)
  }

  @Test("a new answer replaces a hidden one for good: a later dismissal does not bring it back")
  func aNewAnswerReplacesAHiddenOne() throws {
    let question = try todaysQuestion()
    let alice = try engine.createUser(nickname: "Alice")
    let first = try engine.submitAnswer(to: question, content: "The first one", as: alice)
    let reporters = try (1...5).map { try engine.createUser(nickname: "Reporter\($0)") }
    for reporter in reporters {
      _ = try engine.submitAnswer(to: question, content: "Mine", as: reporter)
      _ = try engine.report(.answer(first.id), reason: .spam, as: reporter)
    }
    #expect(try engine.isHidden(.answer(first.id)))
    let second = try engine.submitAnswer(to: question, content: "The second one", as: alice)
    _ = try engine.resolveReportCase(
      try openCase(of: .answer(first.id)), .dismiss, note: nil, as: admin)

    let shown = try engine.answers(of: question, .first, as: reporters[0]).items
    #expect(shown.filter { $0.authorNickname == "Alice" }.map(\.id) == [second.id])
    #expect(try engine.me(as: alice).answerCount == 1)
    #expect(try engine.adminStats(as: admin).answers == 6)
  }

  @Test("a hidden answer still makes its question history: it can neither change nor go")
  func aHiddenAnswerMakesItsQuestionHistory() throws {
    let question = try todaysQuestion()
    let (bob, carol) = (
      try engine.createUser(nickname: "Bob"), try engine.createUser(nickname: "Carol")
    )
    let answer = try engine.submitAnswer(to: question, content: "Call 010-1234-5678", as: bob)
    _ = try engine.submitAnswer(to: question, content: "Careful", as: carol)
    _ = try engine.report(.answer(answer.id), reason: .privacy, as: carol)
    _ = try engine.resolveReportCase(
      try openCase(of: .answer(answer.id)), .hideContent, note: nil, as: admin)
    let carols = try #require(
      try engine.answers(of: question, .first, as: carol).items.first(where: \.isMine))
    try engine.deleteAnswer(carols.id, as: carol)

    // Only the hidden answer is left.
    #expect(throws: DomainError.self) {
      _ = try engine.updateQuestion(question, content: "Reworded?", publishDate: nil, as: admin)
    }
    #expect(throws: DomainError.self) { try engine.deleteQuestion(question, as: admin) }
    let scheduled = try engine.scheduledQuestions(status: nil, .first, as: admin).items.first {
      $0.id == question
    }
    #expect(scheduled?.answerCount == 1)
  }

  @Test("resolving a reopened case tells only the reporters since the last resolution")
  func aReopenedCaseTellsOnlyItsNewReporters() throws {
    let (alice, bob, carol) = try threeMembers()
    let post = try engine.createPost(PostDraft(content: "Hmm"), as: alice)
    _ = try engine.report(.post(post.id), reason: .spam, as: bob)
    _ = try engine.resolveReportCase(
      try openCase(of: .post(post.id)), .dismiss, note: nil, as: admin)
    _ = try engine.report(.post(post.id), reason: .abuse, as: carol)
    _ = try engine.resolveReportCase(
      try openCase(of: .post(post.id)), .dismiss, note: nil, as: admin)
    for reporter in [bob, carol] {
      #expect(try engine.notifications(.first, as: reporter).items.map(\.kind) == [.reportResolved])
    }
  }

  @Test("ban_author without a note bans for \"Reported content\"")
  func banAuthorWithoutANote() throws {
    let (alice, bob) = (
      try engine.createUser(nickname: "Alice"), try engine.createUser(nickname: "Bob")
    )
    let post = try engine.createPost(PostDraft(content: "Buy followers"), as: alice)
    _ = try engine.report(.post(post.id), reason: .spam, as: bob)
    _ = try engine.resolveReportCase(
      try openCase(of: .post(post.id)), .banAuthor, note: nil, as: admin)
    let banned = try engine.adminUsers(matching: "Alice", .first, as: admin).items.first
    #expect(banned?.banReason == "Reported content")
  }

  @Test("a banned member may still move a room's read cursor")
  func aBannedMemberMarksARoomRead() throws {
    let (mina, jun, _) = try groupOfTwo()
    let room = try #require(try engine.chatRooms(.first, as: mina).items.first).id
    for text in ["one", "two"] {
      _ = try engine.sendMessage(text, to: room, clientMessageID: UUID(), as: mina)
    }
    _ = try engine.banUser(jun.id, reason: "Spam", until: nil, as: admin)
    let banned = try engine.viewer(jun.id)
    try engine.markRoomRead(room, seq: 2, as: banned)
    let read = try #require(try engine.chatRooms(.first, as: banned).items.first)
    #expect(read.lastReadSeq == 2 && read.unreadCount == 0)
  }

  @Test("a reply notification skips an earlier commenter whose comment was deleted")
  func noReplyNoticeForADeletedComment() throws {
    let (alice, bob, carol) = try threeMembers()
    let post = try engine.createPost(PostDraft(content: "Who pairs on Friday?"), as: alice)
    let gone = try engine.createComment(on: post.id, CommentDraft(content: "Me"), as: bob)
    try engine.deleteComment(gone.id, as: bob)
    _ = try engine.createComment(on: post.id, CommentDraft(content: "Me too"), as: carol)
    #expect(try engine.notifications(.first, as: bob).items.isEmpty)
    // The author heard of both comments.
    #expect(try engine.notifications(.first, as: alice).items.count == 2)
  }
}
