import DTO
import Domain
import Foundation

/// Builds realistic board pages: Korean and English posts of varied length, some anonymous, with
/// RFC 3339 timestamps that carry milliseconds, encoded by the SDK's own encoder.
///
/// The pages are generated from a fixed seed so every run measures the same bytes.
enum PostPageFixture {
  /// The JSON body of a page of `count` posts, as the server sends it.
  static func json(count: Int) -> Data {
    let page = PageDTO(items: posts(count: count), nextCursor: "c_p_\(count)")
    do {
      return try QappleCoding.makeEncoder().encode(page)
    } catch {
      // Encoding plain strings, numbers and dates cannot fail; if it does the fixture is wrong.
      fatalError("The benchmark fixture failed to encode: \(error)")
    }
  }

  /// `count` posts, newest first, one every 37 seconds before 2026-11-21T05:10:00Z.
  static func posts(count: Int) -> [PostDTO] {
    var random = SplitMix64(seed: 0x5EED_0F_A99E)
    let newest = Date(timeIntervalSince1970: 1_795_237_800)
    return (0..<count).map { index in
      let isAnonymous = random.next() % 4 == 0
      let sentences = 1 + Int(random.next() % 4)
      let content = (0..<sentences)
        .map { _ in Self.sentences[Int(random.next() % UInt64(Self.sentences.count))] }
        .joined(separator: " ")
      let milliseconds = Double(random.next() % 1000) / 1000
      return PostDTO(
        id: "p_\(count - index)",
        content: content,
        isAnonymous: isAnonymous,
        authorName: isAnonymous
          ? "Anonymous" : Self.nicknames[Int(random.next() % UInt64(Self.nicknames.count))],
        isMine: random.next() % 10 == 0,
        likeCount: Int(random.next() % 250),
        isLiked: random.next() % 3 == 0,
        commentCount: Int(random.next() % 60),
        createdAt: newest.addingTimeInterval(-Double(index) * 37 - milliseconds)
      )
    }
  }

  private static let sentences = [
    "스터디 같이 하실 분 구해요!",
    "Looking for a Combine study buddy 🙌",
    "오늘 점심 메뉴 추천 받습니다 🍜",
    "Does anyone know why my Xcode previews keep crashing?",
    "어제 발표 자료 공유해 주실 수 있나요? 정리가 정말 잘 되어 있더라고요.",
    "SwiftUI에서 NavigationStack 경로를 상태로 관리하는 방법이 궁금합니다.",
    "The async/await migration finally landed and the crash rate dropped by half.",
    "기숙사 와이파이가 또 끊겼어요 😭 다들 괜찮으신가요?",
    "Tip: run the tests with --parallel and the suite finishes in a third of the time.",
    "면접 준비하면서 알고리즘 문제를 매일 하나씩 풀고 있어요. 같이 하실 분?",
    "Is the library open late during exam week?",
    "오늘의 질문 답변 너무 공감돼요. 저도 처음엔 그랬어요.",
    "I wrote a small parser for RFC 3339 dates and it is five times faster than the formatter.",
    "캠퍼스 고양이 사진 올려요 🐈 너무 귀엽죠",
    "Core Data vs SQLite for an offline-first app: what would you pick and why?",
    "다음 주 해커톤 팀원 모집합니다. 디자이너 한 분 계시면 좋겠어요!",
  ]

  private static let nicknames = [
    "사과나무", "Kiwi22", "코딩하는곰", "swift_lover", "밤샘개발자", "Mango", "새벽세시", "devjin",
    "한강러너", "Pixel", "초록사과", "async_await",
  ]
}

/// A small deterministic generator (SplitMix64), so fixtures are identical on every run.
struct SplitMix64 {
  private var state: UInt64

  /// Starts the sequence at `seed`.
  init(seed: UInt64) { state = seed }

  /// The next number of the sequence.
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var value = state
    value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return value ^ (value >> 31)
  }
}
