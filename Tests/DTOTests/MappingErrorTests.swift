import DTO
import Domain
import Foundation
import Testing

/// Valid DTOs to break one field at a time.
private enum Sample {
  static let date = Date(timeIntervalSince1970: 1_795_324_200)
  static let user = UserDTO(
    id: "u_1", nickname: "사과나무", role: .member, cohort: nil, joinedAt: date, answerCount: 1,
    avatarUrl: nil, isBanned: false)
  static let post = PostDTO(
    id: "p_1", content: "Hello 👋", isAnonymous: true, authorName: "Anonymous", isMine: false,
    likeCount: 0, isLiked: false, commentCount: 0, createdAt: date)
  static let summary = UserSummaryDTO(id: "u_2", nickname: "바나나")
  static let message = ChatMessageDTO(
    id: "m_1", roomId: "room_1", seq: 1, clientMessageId: "6f1c2b1e-8d4a-4c1e-9a57-3e2f1b0c9d8e",
    sender: summary, text: "hi", createdAt: date)
  static let room = ChatRoomDTO(
    id: "room_1", kind: .group, groupId: "g_1", title: "Study", unreadCount: 0, lastReadSeq: 0)
  static let notification = NotificationDTO(
    id: "n_1", kind: .reportResolved, message: "Reviewed.", isRead: false, createdAt: date)
  static let report = ReportDTO(
    id: "r_1", target: ReportTargetRefDTO(type: "post", id: "p_1"), reason: .spam,
    status: .open, createdAt: date)
  static let reportCase = ReportCaseDTO(
    id: "case_1", target: ReportTargetRefDTO(type: "post", id: "p_1"), reportCount: 1,
    reasonCounts: ["spam": 1], status: .open, isHidden: false, firstReportedAt: date,
    lastReportedAt: date)
}

/// Runs `body` and returns the mapping error it throws.
private func mappingError<T>(_ body: @autoclosure () throws(MappingError) -> T) -> MappingError? {
  do {
    _ = try body()
    return nil
  } catch {
    return error
  }
}

@Suite("Mapping rejects bad data, naming the field")
struct MappingErrorTests {
  @Test("empty ids and required strings are refused")
  func emptyStrings() {
    var post = Sample.post
    post.id = ""
    #expect(mappingError(try post.toDomain()) == MappingError(path: "id", problem: .empty))
    post = Sample.post
    post.authorName = ""
    #expect(mappingError(try post.toDomain()) == MappingError(path: "author_name", problem: .empty))
    var user = Sample.user
    user.nickname = ""
    #expect(mappingError(try user.toDomain())?.path == "nickname")
  }

  @Test("server nicknames are trusted, not re-validated")
  func trustedNickname() throws {
    var user = Sample.user
    user.nickname = "x"  // too short for a user to pick, but the server is the authority
    #expect(try user.toDomain().nickname.rawValue == "x")
  }

  @Test("negative counts are refused")
  func negativeCounts() {
    var post = Sample.post
    post.commentCount = -2
    #expect(
      mappingError(try post.toDomain())
        == MappingError(path: "comment_count", problem: .negative(-2)))
    var room = Sample.room
    room.lastReadSeq = -1
    #expect(mappingError(try room.toDomain())?.path == "last_read_seq")
    let stats = AdminStatsDTO(
      users: 1, admins: 1, bannedUsers: 0, questions: 0, answers: 0, posts: 0, comments: 0,
      openReports: -3, hiddenContents: 0, groups: 0, messages: 0)
    #expect(
      mappingError(try stats.toDomain())
        == MappingError(path: "open_reports", problem: .negative(-3)))
  }

  @Test("a page names the index of the broken item; a nested object names its key")
  func nestedPaths() throws {
    var broken = Sample.post
    broken.authorName = ""
    let page = PageDTO(items: [Sample.post, Sample.post, Sample.post, broken], nextCursor: nil)
    let error = mappingError(try page.toDomain())
    #expect(error == MappingError(path: "items[3].author_name", problem: .empty))
    var user = Sample.user
    user.nickname = ""
    let session = SessionDTO(
      accessToken: "a", refreshToken: "r", expiresAt: Sample.date, user: user)
    #expect(mappingError(try session.toDomain())?.path == "user.nickname")
    // The tokens alone map without the user; empty ones are refused.
    #expect(try session.tokens() == ("a", "r"))
    let empty = SessionDTO(accessToken: "a", refreshToken: "", expiresAt: Sample.date, user: user)
    #expect(mappingError(try empty.tokens())?.path == "refresh_token")
    let response = SignInResponseDTO(status: .signedIn, session: session)
    #expect(mappingError(try response.toDomain())?.path == "session.user.nickname")
    #expect(
      error?.description
        == "The server sent a response this SDK cannot use: items[3].author_name must not be empty."
    )
  }

  @Test("needs_sign_up without sign_up_token, signed_in without session, unknown status")
  func signInStatus() {
    #expect(
      mappingError(try SignInResponseDTO(status: .needsSignUp).toDomain())
        == MappingError(
          path: "sign_up_token", problem: .missing(requiredBecause: "status is needs_sign_up")))
    #expect(mappingError(try SignInResponseDTO(status: .signedIn).toDomain())?.path == "session")
    #expect(
      mappingError(try SignInResponseDTO(status: .unknown("mfa_required")).toDomain())
        == MappingError(
          path: "status",
          problem: .unknownValue("mfa_required", expected: ["signed_in", "needs_sign_up"])))
  }

  @Test(
    "a notification kind needs the ids it links to",
    arguments: [
      (NotificationKindDTO.commentOnMyPost, "p_1", nil, "comment_id"),
      (.replyToMyComment, nil, "c_1", "post_id"),
      (.likeOnMyPost, nil, nil, "post_id"),
      (.likeOnMyComment, "p_1", nil, "comment_id"),
      (.newQuestion, nil, nil, "question_id"),
      (.groupInvite, nil, nil, "group_id"),
      (.groupMessage, nil, nil, "room_id"),
    ] as [(NotificationKindDTO, String?, String?, String)])
  func notificationIDs(
    kind: NotificationKindDTO, postId: String?, commentId: String?, missing: String
  ) {
    var notification = Sample.notification
    notification.kind = kind
    notification.postId = postId
    notification.commentId = commentId
    #expect(
      mappingError(try notification.toDomain())
        == MappingError(
          path: missing, problem: .missing(requiredBecause: "kind is \(kind.rawValue)")))
  }

  @Test("an unknown notification kind is kept, a known one with an empty id is refused")
  func notificationUnknownAndEmpty() throws {
    var notification = Sample.notification
    notification.kind = .unknown("birthday_party")
    #expect(try notification.toDomain().kind == .unknown("birthday_party"))
    notification.kind = .newQuestion
    notification.questionId = ""
    #expect(
      mappingError(try notification.toDomain())
        == MappingError(path: "question_id", problem: .empty))
  }

  @Test(
    "publish_date must be an existing YYYY-MM-DD day",
    arguments: [
      "2026-02-30", "2026-2-3", "21-11-2026", "2026-11-21T00:00:00Z", "",
    ])
  func publishDate(text: String) {
    let question = QuestionDTO(id: "q_1", content: "Why?", publishDate: text, answerCount: 0)
    #expect(mappingError(try question.toDomain())?.path == "publish_date")
    let admin = AdminQuestionDTO(
      id: "q_1", content: "Why?", publishDate: text, answerCount: 0, createdAt: Sample.date,
      status: .scheduled)
    #expect(mappingError(try admin.toDomain())?.path == "publish_date")
  }

  @Test("report targets of an unknown type and reasons 'other' without detail are refused")
  func reports() {
    var report = Sample.report
    report.target = ReportTargetRefDTO(type: "poll", id: "x_1")
    let error = mappingError(try report.toDomain())
    #expect(error?.path == "target.type")
    #expect(
      error?.problem
        == .unknownValue("poll", expected: ["answer", "post", "comment", "chat_message", "user"]))
    report = Sample.report
    report.reason = .other
    #expect(
      mappingError(try report.toDomain())
        == MappingError(path: "detail", problem: .invalid(.empty(field: "detail"))))
    report.detail = ""
    #expect(mappingError(try report.toDomain())?.path == "detail")
    report.detail = String(repeating: "가", count: 501)
    #expect(
      mappingError(try report.toDomain())
        == MappingError(
          path: "detail",
          problem: .invalid(.tooLong(field: "detail", maximum: 500, actual: 501))))
    // Text a server kept with another reason is not the report's: read as filed, not refused.
    report = Sample.report
    report.reason = .spam
    report.detail = "buy now"
    #expect((try? report.toDomain())?.reason == .spam)
    report = Sample.report
    report.reason = .unknown("boring")
    #expect(mappingError(try report.toDomain())?.path == "reason")
    report = Sample.report
    report.status = .unknown("escalated")
    #expect(mappingError(try report.toDomain())?.path == "status")
  }

  @Test("chat rooms need group_id or peer by kind; unknown kinds are refused")
  func rooms() throws {
    var room = Sample.room
    room.groupId = nil
    #expect(
      mappingError(try room.toDomain())
        == MappingError(path: "group_id", problem: .missing(requiredBecause: "kind is group")))
    room.kind = .direct
    #expect(
      mappingError(try room.toDomain())
        == MappingError(path: "peer", problem: .missing(requiredBecause: "kind is direct")))
    room.peer = UserSummaryDTO(id: "", nickname: "바나나")
    #expect(mappingError(try room.toDomain())?.path == "peer.id")
    room.peer = Sample.summary
    #expect(try room.toDomain().kind == .direct("u_2"))
    room.kind = .unknown("channel")
    #expect(mappingError(try room.toDomain())?.path == "kind")
  }

  @Test("chat messages need a UUID and nest their sender's path")
  func messages() {
    var message = Sample.message
    message.clientMessageId = "not-a-uuid"
    #expect(
      mappingError(try message.toDomain())
        == MappingError(
          path: "client_message_id",
          problem: .invalidFormat(value: "not-a-uuid", expected: "a UUID")))
    message = Sample.message
    message.sender.nickname = ""
    #expect(mappingError(try message.toDomain())?.path == "sender.nickname")
    var room = Sample.room
    room.lastMessage = message
    #expect(mappingError(try room.toDomain())?.path == "last_message.sender.nickname")
  }

  @Test(
    "invalid avatar URLs are refused",
    arguments: ["not a url", "/avatars/1.png", "ftp://x.example/a.png", ""])
  func avatarURL(text: String) {
    var user = Sample.user
    user.avatarUrl = text
    #expect(mappingError(try user.toDomain())?.path == "avatar_url")
  }

  @Test("roles: unknown user and group roles are kept")
  func roles() throws {
    var user = Sample.user
    user.role = .unknown("owner")
    #expect(try user.toDomain().role == .unknown("owner"))
    let member = GroupMemberDTO(
      user: Sample.summary, role: .unknown("mentor"), joinedAt: Sample.date)
    #expect(try member.toDomain().role == .unknown("mentor"))
  }

  @Test("admin enums Domain cannot represent are refused")
  func adminEnums() {
    let question = AdminQuestionDTO(
      id: "q_1", content: "Why?", publishDate: "2026-11-21", answerCount: 0,
      createdAt: Sample.date, status: .unknown("archived"))
    #expect(mappingError(try question.toDomain())?.path == "status")
    var reportCase = Sample.reportCase
    reportCase.resolution = .unknown("warn_author")
    #expect(mappingError(try reportCase.toDomain())?.path == "resolution")
    reportCase = Sample.reportCase
    reportCase.reasonCounts = ["spam": 1, "boring": 2]
    #expect(
      mappingError(try reportCase.toDomain())?.problem
        == .unknownValue(
          "boring",
          expected: ["spam", "abuse", "obscene", "privacy", "impersonation", "illegal", "other"]))
    #expect(mappingError(try reportCase.toDomain())?.path == "reason_counts.boring")
    reportCase.reasonCounts = ["spam": -1]
    #expect(mappingError(try reportCase.toDomain())?.path == "reason_counts.spam")
    let detail = ReportCaseDetailDTO(
      reportCase: Sample.reportCase,
      reports: [
        Sample.report,
        ReportDTO(
          id: "", target: Sample.report.target, reason: .spam, status: .open,
          createdAt: Sample.date),
      ])
    #expect(
      mappingError(try detail.toDomain()) == MappingError(path: "reports[1].id", problem: .empty))
    let importResult = QuestionImportResultDTO(
      imported: 1, errors: [.init(line: 2, message: "ok"), .init(line: 0, message: "bad")])
    #expect(mappingError(try importResult.toDomain())?.path == "errors[1].line")
  }

  @Test("an empty next_cursor is refused (it would restart the list)")
  func emptyCursor() {
    let page = PageDTO(items: [Sample.post], nextCursor: "")
    #expect(mappingError(try page.toDomain()) == MappingError(path: "next_cursor", problem: .empty))
  }
}

@Suite("Lenient page mapping")
struct LenientPageTests {
  @Test("invalid_post_page_items.json: strict fails at the first bad item, lenient drops both")
  func droppingInvalid() throws {
    let dto = try Fixture.decode(PageDTO<PostDTO>.self, "invalid_post_page_items")
    #expect(dto.items.count == 5)
    #expect(
      mappingError(try dto.toDomain())
        == MappingError(path: "items[3].author_name", problem: .empty))

    let lenient = try dto.compactToDomain()
    #expect(lenient.page.items.map(\.id) == ["p_12", "p_11", "p_10"])
    #expect(lenient.page.nextCursor == "c_p_10")
    #expect(
      lenient.dropped == [
        MappingError(path: "items[3].author_name", problem: .empty),
        MappingError(path: "items[4].like_count", problem: .negative(-1)),
      ])

    let custom = try dto.compactToDomain { post throws(MappingError) in
      try post.toDomain().id
    }
    #expect(custom.page.items == ["p_12", "p_11", "p_10"])
    #expect(custom.dropped.count == 2)
  }

  @Test("a custom transform maps a page")
  func customTransform() throws {
    let dto = try Fixture.decode(PageDTO<PostDTO>.self, "post_page")
    let page = try dto.toDomain { post throws(MappingError) in try post.toDomain().likeCount }
    #expect(page.items == [5, 0, 12])
    #expect(page.nextCursor == "c_p_10")
  }
}
