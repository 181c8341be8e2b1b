import Domain
import Foundation

// Sample data for SwiftUI previews (`previewValue`), kept small and separate from the
// interfaces. Stateful fakes that follow the server's rules live in `RepositoriesTesting`.

/// The sample community previews show, built around the moment the preview process started.
struct PreviewData: Sendable {
  let now: Date
  let today: CalendarDay

  var me: User
  let jisoo: User
  let minjun: User
  let codingBear: User
  let moderator: User

  var questions: [Question]
  var answers: [Question.ID: [Answer]]
  var posts: [BoardPost]
  var comments: [BoardPost.ID: [Comment]]
  var notifications: [AppNotification]
  var groups: [StudyGroup]
  var members: [StudyGroup.ID: [GroupMember]]
  var rooms: [ChatRoom]
  var messages: [ChatRoom.ID: [ChatMessage]]
  var reports: [Report]
  var scheduledQuestions: [ScheduledQuestion]
  var reportCases: [ReportCaseDetail]
  var adminUsers: [AdminUser]

  init(now: Date = Date()) {
    self.now = now
    today = CalendarDay(containing: now)
    func ago(_ minutes: Double) -> Date { now.addingTimeInterval(-minutes * 60) }

    me = User(
      id: "u_preview_me", nickname: Nickname(trusted: "하늘"), cohort: "2026 오전",
      joinedAt: ago(60 * 24 * 40), answerCount: 12)
    jisoo = User(
      id: "u_preview_jisoo", nickname: Nickname(trusted: "Jisoo"), cohort: "2026 Morning",
      joinedAt: ago(60 * 24 * 38), answerCount: 9)
    minjun = User(
      id: "u_preview_minjun", nickname: Nickname(trusted: "minjun"), cohort: "2026 오후",
      joinedAt: ago(60 * 24 * 35), answerCount: 4)
    codingBear = User(
      id: "u_preview_bear", nickname: Nickname(trusted: "코딩곰"), cohort: "2026 오전",
      joinedAt: ago(60 * 24 * 20), answerCount: 2, isBanned: true)
    moderator = User(
      id: "u_preview_admin", nickname: Nickname(trusted: "운영팀"), role: .admin,
      joinedAt: ago(60 * 24 * 90))

    // Questions: today's is not answered yet, so previews start on "answer to see others".
    let todayID: Question.ID = "q_preview_today"
    let yesterdayID: Question.ID = "q_preview_yesterday"
    let olderID: Question.ID = "q_preview_older"
    let myOldAnswer = Answer(
      id: "a_preview_mine", questionID: yesterdayID, content: "로그를 먼저 읽자. 추측은 그다음에.",
      authorNickname: "하늘", isMine: true, createdAt: ago(60 * 20))
    questions = [
      Question(
        id: todayID, content: "오늘 가장 기억에 남는 코드 리뷰 한 줄은?", publishDate: today,
        answerCount: 2),
      Question(
        id: yesterdayID, content: "What did you learn from your last bug?",
        publishDate: today.adding(days: -1), answerCount: 3, myAnswer: myOldAnswer),
      Question(
        id: olderID, content: "요즘 가장 재미있게 공부하는 주제는?",
        publishDate: today.adding(days: -2), answerCount: 1),
    ]
    answers = [
      todayID: [
        Answer(
          id: "a_preview_1", questionID: todayID,
          content: "\"Name it after what it means, not what it does.\"", authorNickname: "Jisoo",
          isMine: false, createdAt: ago(30)),
        Answer(
          id: "a_preview_2", questionID: todayID, content: "\"이 함수는 한 가지 일만 하나요?\"",
          authorNickname: "minjun", isMine: false, createdAt: ago(55)),
      ],
      yesterdayID: [
        myOldAnswer,
        Answer(
          id: "a_preview_3", questionID: yesterdayID,
          content: "Off-by-one errors hide in pagination code.", authorNickname: "minjun",
          isMine: false, createdAt: ago(60 * 22)),
        Answer(
          id: "a_preview_4", questionID: yesterdayID, content: "재현 먼저, 수정은 나중에!",
          authorNickname: "코딩곰", isMine: false, createdAt: ago(60 * 23)),
      ],
      olderID: [
        Answer(
          id: "a_preview_5", questionID: olderID, content: "Swift Concurrency! actor가 드디어 이해됐어요.",
          authorNickname: "코딩곰", isMine: false, createdAt: ago(60 * 45))
      ],
    ]

    // Board.
    let cafePost: BoardPost.ID = "p_preview_cafe"
    let reviewPost: BoardPost.ID = "p_preview_review"
    let myPost: BoardPost.ID = "p_preview_mine"
    posts = [
      BoardPost(
        id: myPost, content: "오늘 발표 너무 떨렸는데 다들 응원해 줘서 고마워요 🙏", isAnonymous: true,
        authorName: BoardPost.anonymousAuthorName, isMine: true, likeCount: 7, commentCount: 1,
        createdAt: ago(12)),
      BoardPost(
        id: reviewPost, content: "Anyone up for a SwiftUI code review swap this week?",
        isAnonymous: false, authorName: "Jisoo", isMine: false, likeCount: 3, isLiked: true,
        commentCount: 2, createdAt: ago(95)),
      BoardPost(
        id: cafePost, content: "스터디 카페 추천해 주세요. 조용하고 콘센트 많은 곳이면 좋아요!",
        isAnonymous: true, authorName: BoardPost.anonymousAuthorName, isMine: false, likeCount: 12,
        commentCount: 2, createdAt: ago(60 * 5)),
    ]
    comments = [
      myPost: [
        Comment(
          id: "c_preview_1", postID: myPost, content: "정말 잘했어요! 👏", isAnonymous: true,
          authorName: "Anonymous 1", isMine: false, likeCount: 2, createdAt: ago(8))
      ],
      reviewPost: [
        Comment(
          id: "c_preview_2", postID: reviewPost, content: "저요! 목요일 괜찮아요?", isAnonymous: false,
          authorName: "하늘", isMine: true, likeCount: 1, createdAt: ago(80)),
        Comment(
          id: "c_preview_3", postID: reviewPost, content: "Thursday works. Library, 7 pm?",
          isAnonymous: false, authorName: "Jisoo", isMine: false, createdAt: ago(70)),
      ],
      cafePost: [
        Comment(
          id: "c_preview_4", postID: cafePost, content: "역 앞 2층 카페 괜찮아요.", isAnonymous: true,
          authorName: "Anonymous 1", isMine: false, likeCount: 4, createdAt: ago(60 * 4)),
        Comment(
          id: "c_preview_5", postID: cafePost, content: "The 3rd-floor library is quiet too.",
          isAnonymous: true, authorName: "Anonymous 2", isMine: true, isLiked: true,
          createdAt: ago(60 * 3)),
      ],
    ]

    // Groups and chat.
    let algorithms: StudyGroup.ID = "g_preview_algo"
    let swiftUI: StudyGroup.ID = "g_preview_swiftui"
    let english: StudyGroup.ID = "g_preview_english"
    groups = [
      StudyGroup(
        id: algorithms, name: "알고리즘 스터디", description: "매주 화·목 저녁 백준 문제 풀이",
        owner: me.summary, memberCount: 3, isMember: true, createdAt: ago(60 * 24 * 10)),
      StudyGroup(
        id: swiftUI, name: "SwiftUI Study",
        description: "Building one small app together, one screen a week.",
        owner: jisoo.summary, memberCount: 2, isMember: true, createdAt: ago(60 * 24 * 7)),
      StudyGroup(
        id: english, name: "English Talk", description: "Tech talk in English, Fridays at lunch.",
        owner: minjun.summary, memberCount: 1, isMember: false, createdAt: ago(60 * 24 * 2)),
    ]
    members = [
      algorithms: [
        GroupMember(user: me.summary, role: .owner, joinedAt: ago(60 * 24 * 10)),
        GroupMember(user: minjun.summary, role: .member, joinedAt: ago(60 * 24 * 9)),
        GroupMember(user: codingBear.summary, role: .member, joinedAt: ago(60 * 24 * 8)),
      ],
      swiftUI: [
        GroupMember(user: jisoo.summary, role: .owner, joinedAt: ago(60 * 24 * 7)),
        GroupMember(user: me.summary, role: .member, joinedAt: ago(60 * 24 * 6)),
      ],
      english: [GroupMember(user: minjun.summary, role: .owner, joinedAt: ago(60 * 24 * 2))],
    ]
    let algoRoom: ChatRoom.ID = "room_g_preview_algo"
    let swiftUIRoom: ChatRoom.ID = "room_g_preview_swiftui"
    let directRoom: ChatRoom.ID = "room_dm_preview_jisoo"
    func message(
      _ room: ChatRoom.ID, _ seq: Int64, _ sender: User, _ text: String, _ minutesAgo: Double
    ) -> ChatMessage {
      ChatMessage(
        id: ChatMessage.ID("m_preview_\(room.rawValue)_\(seq)"), roomID: room, seq: seq,
        clientMessageID: UUID(), sender: sender.summary, text: text, createdAt: ago(minutesAgo))
    }
    messages = [
      algoRoom: [
        message(algoRoom, 1, me, "이번 주 문제는 그래프 탐색이에요.", 90),
        message(algoRoom, 2, minjun, "BFS로 풀었는데 시간 초과 나요 😭", 40),
        message(algoRoom, 3, codingBear, "visited 체크를 큐에 넣을 때 해 보세요!", 5),
      ],
      swiftUIRoom: [
        message(swiftUIRoom, 1, jisoo, "Screen 3 is the settings form. PRs by Friday!", 300)
      ],
      directRoom: [
        message(directRoom, 1, jisoo, "Thanks for the review yesterday!", 130),
        message(directRoom, 2, me, "Anytime. Your naming is already great.", 125),
      ],
    ]
    rooms = [
      ChatRoom(
        id: algoRoom, kind: .group(algorithms), title: "알고리즘 스터디",
        lastMessage: messages[algoRoom]?.last, unreadCount: 2, lastReadSeq: 1),
      ChatRoom(
        id: directRoom, kind: .direct(jisoo.id), title: "Jisoo",
        lastMessage: messages[directRoom]?.last, unreadCount: 0, lastReadSeq: 2),
      ChatRoom(
        id: swiftUIRoom, kind: .group(swiftUI), title: "SwiftUI Study",
        lastMessage: messages[swiftUIRoom]?.last, unreadCount: 1, lastReadSeq: 0),
    ]

    notifications = [
      AppNotification(
        id: "n_preview_1", kind: .commentOnMyPost(post: myPost, comment: "c_preview_1"),
        message: "New comment from Anonymous 1: 정말 잘했어요! 👏", isRead: false,
        createdAt: ago(8)),
      AppNotification(
        id: "n_preview_2", kind: .likeOnMyPost(post: myPost),
        message: "minjun and 2 others liked your post.",
        isRead: false, createdAt: ago(10)),
      AppNotification(
        id: "n_preview_3", kind: .newQuestion(todayID),
        message: "Today's question is here: 오늘 가장 기억에 남는 코드 리뷰 한 줄은?", isRead: false,
        createdAt: ago(60 * 10)),
      AppNotification(
        id: "n_preview_4", kind: .replyToMyComment(post: reviewPost, comment: "c_preview_3"),
        message: "Jisoo also commented on a post you commented on: Thursday works.", isRead: true,
        createdAt: ago(70)),
      AppNotification(
        id: "n_preview_5", kind: .reportResolved,
        message: "A moderator reviewed your report. Thank you for keeping Qapple kind.",
        isRead: true, createdAt: ago(60 * 26)),
    ]

    reports = [
      Report(
        id: "r_preview_mine", target: .comment("c_preview_spam"), reason: .spam,
        status: .resolved, createdAt: ago(60 * 30))
    ]

    // Admin.
    scheduledQuestions = [
      ScheduledQuestion(
        id: "q_preview_next", content: "내일의 나에게 해주고 싶은 말은?", publishDate: today.adding(days: 1),
        createdAt: ago(60 * 24 * 3), status: .scheduled),
      ScheduledQuestion(
        id: "q_preview_later", content: "Which app do you open first every morning?",
        publishDate: today.adding(days: 2), createdAt: ago(60 * 24 * 3), status: .scheduled),
    ]
    scheduledQuestions += questions.map {
      ScheduledQuestion(
        id: $0.id, content: $0.content, publishDate: $0.publishDate, answerCount: $0.answerCount,
        createdAt: ago(60 * 24 * 5), status: .published)
    }
    let spamCase = ReportCase(
      id: "case_preview_spam", target: .post("p_preview_spam"),
      excerpt: "🔥 Cheap followers! DM me now 🔥", author: codingBear.summary, reportCount: 5,
      reasonCounts: [.spam: 4, .abuse: 1], status: .open, resolution: nil, isHidden: true,
      firstReportedAt: ago(60 * 3), lastReportedAt: ago(15))
    let rudeCase = ReportCase(
      id: "case_preview_rude", target: .comment("c_preview_rude"), excerpt: "그것도 모르세요?",
      author: minjun.summary, reportCount: 2, reasonCounts: [.abuse: 2], status: .open,
      resolution: nil, isHidden: false, firstReportedAt: ago(60 * 6), lastReportedAt: ago(60 * 2))
    let closedCase = ReportCase(
      id: "case_preview_closed", target: .answer("a_preview_old"), excerpt: "My phone number is…",
      author: jisoo.summary, reportCount: 1, reasonCounts: [.privacy: 1], status: .resolved,
      resolution: .hideContent, isHidden: true, firstReportedAt: ago(60 * 50),
      lastReportedAt: ago(60 * 50))
    reportCases = [
      ReportCaseDetail(
        reportCase: spamCase,
        reports: (0..<5).map { index in
          Report(
            id: Report.ID("r_preview_spam_\(index)"), target: spamCase.target,
            reason: index == 4 ? .abuse : .spam, status: .open,
            createdAt: ago(Double(180 - index * 40)))
        }),
      ReportCaseDetail(
        reportCase: rudeCase,
        reports: [
          Report(
            id: "r_preview_rude_1", target: rudeCase.target, reason: .abuse, status: .open,
            createdAt: ago(60 * 6)),
          Report(
            id: "r_preview_rude_2", target: rudeCase.target,
            reason: .other("반말과 비꼬는 말투"), status: .open, createdAt: ago(60 * 2)),
        ]),
      ReportCaseDetail(
        reportCase: closedCase,
        reports: [
          Report(
            id: "r_preview_closed", target: closedCase.target, reason: .privacy,
            status: .resolved, createdAt: ago(60 * 50))
        ]),
    ]
    adminUsers = [
      AdminUser(user: me, reportCount: 0),
      AdminUser(user: jisoo, reportCount: 1),
      AdminUser(user: minjun, reportCount: 2),
      AdminUser(
        user: codingBear, reportCount: 5, bannedUntil: now.addingTimeInterval(86_400 * 7),
        banReason: "Repeated spam"),
      AdminUser(user: moderator, reportCount: 0),
    ]
  }

  /// Everyone in the sample community.
  var users: [User] { [me, jisoo, minjun, codingBear, moderator] }
}
