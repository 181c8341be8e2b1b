import DTO
import Domain
import Foundation
import Testing

@Suite("Fixtures: questions, board, reports")
struct ContentFixtureTests {
  @Test("question.json maps the day and my answer")
  func question() throws {
    let question = try Fixture.decode(QuestionDTO.self, "question").toDomain()
    #expect(question.id == "q_01")
    #expect(question.content == "오늘 배운 것 중 가장 기억에 남는 것은? 🍎")
    #expect(question.publishDate == (try CalendarDay(year: 2026, month: 11, day: 21)))
    #expect(question.answerCount == 17)
    let answer = try #require(question.myAnswer)
    #expect(question.canSeeAnswers)
    #expect(answer.id == "a_900")
    #expect(answer.questionID == "q_01")
    #expect(answer.isMine)
    #expect(answer.authorNickname == "사과나무")
    expectSameInstant(answer.createdAt, utc(2026, 11, 21, 0, 5, 9, milliseconds: 250))
  }

  @Test("answer_page.json maps a page with a next cursor")
  func answers() throws {
    let page = try Fixture.decode(PageDTO<AnswerDTO>.self, "answer_page").toDomain()
    #expect(page.items.map(\.id) == ["a_901", "a_902"])
    #expect(page.items.map(\.authorNickname) == ["바나나", "Kiwi22"])
    #expect(page.items[0].content == "SwiftUI에서 @Observable로 바꾸니 코드가 절반이 됐어요 🎉")
    #expect(page.items.allSatisfy { !$0.isMine })
    #expect(page.nextCursor == "c_a_902")
    #expect(page.hasMore)
  }

  @Test("post_page.json: named and anonymous posts, three date spellings")
  func posts() throws {
    let dto = try Fixture.decode(PageDTO<PostDTO>.self, "post_page")
    let page = try dto.toDomain()
    #expect(page.nextCursor == PageCursor(rawValue: "c_p_10"))
    #expect(page.items.count == 3)
    let first = page.items[0]
    #expect(first.id == "p_12")
    #expect(first.content == "스터디 같이 하실 분 구해요! Looking for a Combine study buddy 🙌")
    #expect(first.isAnonymous == false)
    #expect(first.authorName == "사과나무")
    #expect(first.isMine)
    #expect(first.likeState == LikeState(isLiked: false, likeCount: 5))
    #expect(first.commentCount == 2)
    expectSameInstant(first.createdAt, utc(2026, 11, 21, 5, 10, 0, milliseconds: 123))
    let anonymous = page.items[1]
    #expect(anonymous.isAnonymous)
    #expect(anonymous.authorName == "Anonymous")
    #expect(anonymous.createdAt == utc(2026, 11, 21, 3))
    // "+09:00" offsets are converted to the same instant in UTC.
    expectSameInstant(page.items[2].createdAt, utc(2026, 11, 21, 2, 30, 0, milliseconds: 500))
    #expect(page.items[2].isLiked)
    #expect(page.items[2].likeCount == 12)
  }

  @Test("post.json maps the same post as the page's first item")
  func post() throws {
    let post = try Fixture.decode(PostDTO.self, "post").toDomain()
    let fromPage = try Fixture.decode(PageDTO<PostDTO>.self, "post_page").toDomain().items[0]
    #expect(post == fromPage)
  }

  @Test("comment_page.json keeps the stable anonymous label and a null cursor")
  func comments() throws {
    let page = try Fixture.decode(PageDTO<CommentDTO>.self, "comment_page").toDomain()
    #expect(page.nextCursor == nil)
    #expect(page.hasMore == false)
    #expect(page.items.map(\.authorName) == ["Anonymous 1", "Kiwi22", "Anonymous 1"])
    #expect(page.items[0].authorName == Comment.anonymousLabel(ordinal: 1))
    #expect(page.items.allSatisfy { $0.postID == "p_12" })
    #expect(page.items.map(\.isAnonymous) == [true, false, true])
    #expect(page.items[0].likeState == LikeState(isLiked: true, likeCount: 1))
    expectSameInstant(page.items[2].createdAt, utc(2026, 11, 21, 5, 26, 0, milliseconds: 999))
  }

  @Test("like_state.json")
  func likeState() throws {
    #expect(
      try Fixture.decode(LikeStateDTO.self, "like_state").toDomain()
        == LikeState(isLiked: true, likeCount: 6))
  }

  @Test("report.json maps reason other with its detail")
  func report() throws {
    let report = try Fixture.decode(ReportDTO.self, "report").toDomain()
    #expect(report.id == "r_5")
    #expect(report.target == .comment("c_3"))
    #expect(report.reason == .other("계속 같은 링크를 올려요 (same link over and over)"))
    #expect(report.status == .open)
    #expect(report.createdAt == utc(2026, 11, 21, 6))
  }

  @Test("report_page.json maps chat message and user targets")
  func reports() throws {
    let page = try Fixture.decode(PageDTO<ReportDTO>.self, "report_page").toDomain()
    #expect(page.items.map(\.target) == [.comment("c_3"), .chatMessage("m_77"), .user("u_99")])
    #expect(page.items.map(\.reason.code) == [.other, .abuse, .impersonation])
    #expect(page.items.map(\.status) == [.open, .resolved, .open])
    #expect(page.nextCursor == nil)
  }
}
