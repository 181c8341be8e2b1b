import Domain
import Foundation
import Testing

@Suite("LikeState")
struct LikeStateTests {
  @Test(
    "toggled flips the like and moves the count by one, never below zero",
    arguments: [
      (false, 0, true, 1), (true, 1, false, 0), (false, 7, true, 8), (true, 7, false, 6),
      (true, 0, false, 0),
    ])
  func toggled(isLiked: Bool, count: Int, expectedLiked: Bool, expectedCount: Int) {
    let toggled = LikeState(isLiked: isLiked, likeCount: count).toggled()
    #expect(toggled == LikeState(isLiked: expectedLiked, likeCount: expectedCount))
    #expect(toggled.likeCount >= 0)
  }

  @Test("Toggling twice restores a consistent state", arguments: [0, 1, 42])
  func toggledTwice(count: Int) {
    let unliked = LikeState(isLiked: false, likeCount: count)
    #expect(unliked.toggled().toggled() == unliked)
  }

  @Test("Posts and comments expose and accept their like state")
  func entitiesLikeState() {
    let date = Date(timeIntervalSince1970: 0)
    var post = BoardPost(
      id: "p_1", content: "hi", isAnonymous: true, authorName: "Anonymous", isMine: false,
      likeCount: 2, createdAt: date)
    post.likeState = post.likeState.toggled()
    #expect((post.isLiked, post.likeCount) == (true, 3))
    var comment = Comment(
      id: "c_1", postID: "p_1", content: "yo", isAnonymous: false, authorName: "kim",
      isMine: true, likeCount: 1, isLiked: true, createdAt: date)
    comment.likeState = comment.likeState.toggled()
    #expect((comment.isLiked, comment.likeCount) == (false, 0))
  }
}

@Suite("Drafts are trimmed and checked before sending")
struct DraftTests {
  @Test("PostDraft")
  func postDraft() throws {
    #expect(PostDraft(content: "x").isAnonymous)
    #expect(
      try PostDraft(content: "  오늘 배운 것 \n", isAnonymous: false).validated()
        == PostDraft(content: "오늘 배운 것", isAnonymous: false))
    #expect(throws: ValidationError.empty(field: "content")) {
      try PostDraft(content: " ").validated()
    }
    #expect(try PostDraft(content: repeated("가", 1000)).validated().content.count == 1000)
    #expect(throws: ValidationError.tooLong(field: "content", maximum: 1000, actual: 1001)) {
      try PostDraft(content: repeated("가", 1001)).validated()
    }
  }

  @Test("CommentDraft")
  func commentDraft() throws {
    #expect(CommentDraft(content: "x").isAnonymous)
    #expect(
      try CommentDraft(content: " 좋아요 ", isAnonymous: false).validated()
        == CommentDraft(content: "좋아요", isAnonymous: false))
    #expect(throws: ValidationError.empty(field: "content")) {
      try CommentDraft(content: "").validated()
    }
    #expect(try CommentDraft(content: repeated("a", 300)).validated().content.count == 300)
    #expect(throws: ValidationError.tooLong(field: "content", maximum: 300, actual: 301)) {
      try CommentDraft(content: repeated("a", 301)).validated()
    }
  }

  @Test("StudyGroupDraft")
  func studyGroupDraft() throws {
    #expect(StudyGroupDraft(name: "n").description == "")
    #expect(
      try StudyGroupDraft(name: "  Swift 스터디 ", description: " 매주 화요일 ").validated()
        == StudyGroupDraft(name: "Swift 스터디", description: "매주 화요일"))
    #expect(try StudyGroupDraft(name: "a", description: "  ").validated().description == "")
    #expect(try StudyGroupDraft(name: repeated("가", 30)).validated().name.count == 30)
    #expect(throws: ValidationError.empty(field: "name")) {
      try StudyGroupDraft(name: "  ").validated()
    }
    #expect(throws: ValidationError.tooLong(field: "name", maximum: 30, actual: 31)) {
      try StudyGroupDraft(name: repeated("가", 31)).validated()
    }
    #expect(throws: ValidationError.tooLong(field: "description", maximum: 500, actual: 501)) {
      try StudyGroupDraft(name: "a", description: repeated("a", 501)).validated()
    }
    // The name is checked first, so the form can point at the top field.
    #expect(throws: ValidationError.empty(field: "name")) {
      try StudyGroupDraft(name: "", description: repeated("a", 501)).validated()
    }
  }

  @Test("QuestionDraft")
  func questionDraft() throws {
    let day = try CalendarDay(iso8601: "2026-11-21")
    #expect(
      try QuestionDraft(content: "  오늘 무엇을 배웠나요?  ", publishDate: day).validated()
        == QuestionDraft(content: "오늘 무엇을 배웠나요?", publishDate: day))
    #expect(throws: ValidationError.tooShort(field: "content", minimum: 5, actual: 3)) {
      try QuestionDraft(content: " abc ", publishDate: day).validated()
    }
    #expect(throws: ValidationError.empty(field: "content")) {
      try QuestionDraft(content: "", publishDate: day).validated()
    }
    #expect(
      try QuestionDraft(content: repeated("가", 200), publishDate: day).validated().content.count
        == 200)
    #expect(throws: ValidationError.tooLong(field: "content", maximum: 200, actual: 201)) {
      try QuestionDraft(content: repeated("가", 201), publishDate: day).validated()
    }
  }
}

@Suite("Entity rules")
struct EntityRuleTests {
  static let date = Date(timeIntervalSince1970: 1_800_000_000)

  @Test("Others' answers are visible only after answering")
  func canSeeAnswers() throws {
    let day = try CalendarDay(iso8601: "2026-11-21")
    var question = Question(id: "q_1", content: "Q?", publishDate: day)
    #expect(!question.canSeeAnswers)
    question.myAnswer = Answer(
      id: "a_1", questionID: "q_1", content: "A", authorNickname: "kim", isMine: true,
      createdAt: Self.date)
    #expect(question.canSeeAnswers)
  }

  @Test("Only the owner owns a group")
  func groupOwnership() {
    let group = StudyGroup(
      id: "g_1", name: "Swift", description: "", owner: UserSummary(id: "u_1", nickname: "kim"),
      memberCount: 1, isMember: true, createdAt: Self.date)
    #expect(group.isOwned(by: "u_1"))
    #expect(!group.isOwned(by: "u_2"))
  }

  @Test("Anonymous commenters are numbered", arguments: [(1, "Anonymous 1"), (12, "Anonymous 12")])
  func anonymousLabel(ordinal: Int, expected: String) {
    #expect(Comment.anonymousLabel(ordinal: ordinal) == expected)
  }

  @Test(
    "Only admins are admins",
    arguments: [(UserRole.admin, true), (.member, false), (.unknown("admin"), false)])
  func roles(role: UserRole, isAdmin: Bool) {
    #expect(role.isAdmin == isAdmin)
  }

  @Test("A user's summary carries id and nickname")
  func userSummary() throws {
    let user = User(id: "u_1", nickname: try Nickname(validating: "홍길동"), joinedAt: Self.date)
    #expect(user.summary == UserSummary(id: "u_1", nickname: "홍길동"))
    #expect(user.role == .member)
    #expect(!user.isBanned)
  }
}
