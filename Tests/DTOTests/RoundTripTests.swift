import DTO
import Domain
import Foundation
import Testing

/// Domain -> DTO -> JSON -> DTO -> Domain gives back the same value: what the local server
/// writes, the client reads.
@Suite("Domain round trips through the wire")
struct RoundTripTests {
  private func roundTrip<D: DomainConvertible & Codable>(_ dto: D) throws -> D.DomainValue {
    let data = try QappleCoding.makeEncoder().encode(dto)
    return try DTODecoding.decode(D.self, from: data).toDomain()
  }

  private let date = utc(2026, 11, 21, 5, 10, 0, milliseconds: 123)

  @Test("users, sessions and sign-in results")
  func users() throws {
    let user = User(
      id: "u_1", nickname: try Nickname(validating: "사과나무"), role: .unknown("mentor"),
      cohort: "2026 Morning", joinedAt: date, answerCount: 4,
      avatarURL: URL(string: "https://cdn.example/a.png"), isBanned: true)
    #expect(try roundTrip(UserDTO(user)) == user)
    let session = AuthSession(accessToken: "a", refreshToken: "r", expiresAt: date, user: user)
    #expect(try roundTrip(SignInResponseDTO(.signedIn(session))) == .signedIn(session))
    let needsSignUp = SignInResult.needsSignUp(SignUpToken(rawValue: "sut"))
    #expect(try roundTrip(SignInResponseDTO(needsSignUp)) == needsSignUp)
    // Contract: nullable keys are present as null.
    let json = try jsonObject(SignInResponseDTO(needsSignUp))
    #expect(json["session"] is NSNull)
  }

  @Test("content: questions, posts, comments, reports")
  func content() throws {
    let answer = Answer(
      id: "a_1", questionID: "q_1", content: "네 🍎", authorNickname: "바나나", isMine: true,
      createdAt: date)
    let question = Question(
      id: "q_1", content: "오늘은?", publishDate: try CalendarDay(iso8601: "2026-11-21"),
      answerCount: 3, myAnswer: answer)
    #expect(try roundTrip(QuestionDTO(question)) == question)
    let post = BoardPost(
      id: "p_1", content: "hi", isAnonymous: true, authorName: "Anonymous", isMine: false,
      likeCount: 2, isLiked: true, commentCount: 1, createdAt: date)
    #expect(try roundTrip(PostDTO(post)) == post)
    let comment = Comment(
      id: "c_1", postID: "p_1", content: "저요", isAnonymous: true, authorName: "Anonymous 1",
      isMine: true, createdAt: date)
    #expect(try roundTrip(CommentDTO(comment)) == comment)
    let report = Report(
      id: "r_1", target: .chatMessage("m_1"), reason: .other("광고"), status: .resolved,
      createdAt: date)
    #expect(try roundTrip(ReportDTO(report)) == report)
  }

  @Test("notifications of every kind")
  func notifications() throws {
    let kinds: [NotificationKind] = [
      .commentOnMyPost(post: "p", comment: "c"), .replyToMyComment(post: "p", comment: "c"),
      .likeOnMyPost(post: "p"), .likeOnMyComment(post: "p", comment: "c"), .newQuestion("q"),
      .groupInvite("g"), .groupMessage("room"), .reportResolved, .unknown("birthday_party"),
    ]
    for kind in kinds {
      let notification = AppNotification(
        id: "n", kind: kind, message: "m", isRead: true, createdAt: date)
      #expect(try roundTrip(NotificationDTO(notification)) == notification)
    }
  }

  @Test("groups and chat")
  func chat() throws {
    let owner = UserSummary(id: "u_1", nickname: "사과나무")
    let group = StudyGroup(
      id: "g_1", name: "알고리즘", description: "", owner: owner, memberCount: 1, isMember: true,
      createdAt: date)
    #expect(try roundTrip(StudyGroupDTO(group)) == group)
    let member = GroupMember(user: owner, role: .owner, joinedAt: date)
    #expect(try roundTrip(GroupMemberDTO(member)) == member)
    let message = ChatMessage(
      id: "m_1", roomID: "room_1", seq: 7, clientMessageID: UUID(), sender: owner, text: "안녕",
      createdAt: date)
    #expect(try roundTrip(ChatMessageDTO(message)) == message)
    let room = ChatRoom(
      id: "room_1", kind: .direct("u_2"), title: "바나나", lastMessage: message, unreadCount: 2,
      lastReadSeq: 5)
    #expect(try roundTrip(ChatRoomDTO(room)) == room)
    let groupRoom = ChatRoom(id: "room_2", kind: .group("g_1"), title: "알고리즘")
    #expect(try roundTrip(ChatRoomDTO(groupRoom)) == groupRoom)
  }

  @Test("admin values and pages")
  func admin() throws {
    let reportCase = ReportCase(
      id: "case_1", target: .post("p_1"), excerpt: "x", author: nil, reportCount: 5,
      reasonCounts: [.spam: 4, .other: 1], status: .resolved, resolution: .banAuthor,
      isHidden: true, firstReportedAt: date, lastReportedAt: date)
    let detail = ReportCaseDetail(
      reportCase: reportCase,
      reports: [
        Report(id: "r", target: .post("p_1"), reason: .spam, status: .resolved, createdAt: date)
      ])
    #expect(try roundTrip(ReportCaseDetailDTO(detail)) == detail)
    let scheduled = ScheduledQuestion(
      id: "q", content: "Why?", publishDate: try CalendarDay(iso8601: "2027-01-01"),
      createdAt: date, status: .scheduled)
    let page = Page(items: [scheduled], nextCursor: "next")
    #expect(try roundTrip(PageDTO(page, AdminQuestionDTO.init)) == page)
    let lastPage = Page<ScheduledQuestion>(items: [], nextCursor: nil)
    #expect(try roundTrip(PageDTO(lastPage, AdminQuestionDTO.init)) == lastPage)
    #expect(try jsonObject(PageDTO(lastPage, AdminQuestionDTO.init))["next_cursor"] is NSNull)
    let stats = AdminStats(
      users: 1, admins: 2, bannedUsers: 3, questions: 4, answers: 5, posts: 6, comments: 7,
      openReports: 8, hiddenContents: 9, groups: 10, messages: 11)
    #expect(try roundTrip(AdminStatsDTO(stats)) == stats)
  }
}
