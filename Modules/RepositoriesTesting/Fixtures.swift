import Domain
import Foundation

/// Sample people and content for tests and demos, in Korean and English like the community.
///
/// ```swift
/// let backend = FakeBackend(now: { Fixtures.now })
/// let data = try backend.seed(Fixtures.community)
/// let haneul = try backend.client(forNickname: Fixtures.haneul)
/// ```
public enum Fixtures {
  /// A fixed "now": Monday 16 March 2026, 10:00 in Seoul (01:00 UTC).
  public static let now = Date(timeIntervalSince1970: 1_773_622_800)

  /// The Seoul day of ``now``: 2026-03-16.
  public static var today: CalendarDay { CalendarDay(containing: now) }

  /// A member of the morning cohort.
  public static let haneul = "하늘"
  /// A member of the afternoon cohort.
  public static let minjun = "minjun"
  /// A member who writes in English.
  public static let jisoo = "Jisoo"
  /// A member who has not answered today's question.
  public static let codingBear = "코딩곰"
  /// The moderator account.
  public static let moderator = "운영팀"

  /// The text of today's question in ``community``.
  public static let todayQuestion = "오늘 가장 기억에 남는 코드 리뷰 한 줄은?"

  /// Five people (one admin), five questions (today, three past days, one scheduled for
  /// tomorrow), four posts with likes and comments, and two study groups with chat history.
  public static var community: Seed {
    Seed(
      users: [
        .init(haneul, cohort: "2026 오전"),
        .init(minjun, cohort: "2026 오후"),
        .init(jisoo, cohort: "2026 Morning"),
        .init(codingBear, cohort: "2026 오전"),
        .init(moderator, role: .admin),
      ],
      questions: [
        .init(
          todayQuestion, dayOffset: 0,
          answers: [
            (haneul, "\"이 함수는 한 가지 일만 하나요?\" 덕분에 리팩터링을 시작했어요."),
            (jisoo, "\"Name it after what it means, not what it does.\""),
          ]),
        .init(
          "What did you learn from your last bug?", dayOffset: -1,
          answers: [
            (minjun, "Off-by-one errors hide in pagination code."),
            (haneul, "로그를 먼저 읽자."),
          ]),
        .init(
          "요즘 가장 재미있게 공부하는 주제는?", dayOffset: -2,
          answers: [(codingBear, "Swift Concurrency! actor가 드디어 이해됐어요.")]),
        .init("Which app do you open first every morning?", dayOffset: -3),
        .init("내일의 나에게 해주고 싶은 말은?", dayOffset: 1),
      ],
      posts: [
        .init(
          minjun, "스터디 카페 추천해 주세요. 조용하고 콘센트 많은 곳이면 좋아요!", minutesAgo: 180,
          likedBy: [haneul, jisoo],
          comments: [
            .init(haneul, "역 앞 2층 카페 괜찮아요."),
            .init(jisoo, "The library on the 3rd floor is quiet too.", isAnonymous: false),
            .init(haneul, "주말엔 사람이 많아요 ㅠㅠ"),
          ]),
        .init(
          jisoo, "Anyone up for a SwiftUI code review swap this week?", isAnonymous: false,
          minutesAgo: 90, likedBy: [minjun],
          comments: [.init(codingBear, "저요! 목요일 괜찮아요?", likedBy: [jisoo])]),
        .init(haneul, "오늘 발표 너무 떨렸는데 다들 응원해 줘서 고마워요 🙏", minutesAgo: 45),
        .init(codingBear, "Tip: swift test --filter runs one suite in seconds.", minutesAgo: 10),
      ],
      groups: [
        .init(
          "알고리즘 스터디", description: "매주 화·목 저녁 백준 문제 풀이", owner: haneul,
          members: [minjun, codingBear],
          messages: [
            (haneul, "이번 주 문제는 그래프 탐색이에요."),
            (minjun, "BFS로 풀었는데 시간 초과 나요 😭"),
            (codingBear, "visited 체크를 큐에 넣을 때 해 보세요!"),
          ]),
        .init(
          "SwiftUI Study", description: "Building one small app together, one screen a week.",
          owner: jisoo, members: [haneul],
          messages: [(jisoo, "Screen 3 is the settings form. PRs by Friday!")]),
      ])
  }

  /// A question-import file with quoting, a comma and a line break inside quotes, and two bad
  /// rows (an impossible date on line 6, a too-short text on line 7).
  public static var questionImportCSV: Data {
    let text = """
      publish_date,content
      2026-04-01,"What would you build with one more week?"
      2026-04-02,"코드 리뷰에서 ""좋은 질문""이란?"
      2026-04-03,"Two lines,
      one question: what is next?"
      2026-02-30,이 날짜는 없어요
      2026-04-05,Hi

      """
    return Data(text.utf8)
  }
}
