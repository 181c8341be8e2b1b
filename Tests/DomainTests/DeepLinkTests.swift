import Domain
import Foundation
import Testing

@Suite("DeepLink")
struct DeepLinkTests {
  @Test(
    "Every link survives a round trip through its URL",
    arguments: [
      DeepLink.today, .notifications, .question("q_1"), .question("2026-11-21"), .post("p_1"),
      .post("p/1"), .post("p?x=1&y=2"), .post("a b"), .post("게시글-1"), .post("100%"),
      .post("a#b"), .comment(post: "p_1", comment: "c_2"), .comment(post: "p/1", comment: "c?2"),
      .comment(post: "스터디 글", comment: "댓글 1"), .group("g 1/2"), .group("스위프트"),
      .chatRoom("room?#%"), .chatRoom("dm:u_1:u_2"), .chatRoom("../etc"),
    ])
  func roundTrip(link: DeepLink) throws {
    let url = link.url
    #expect(url.scheme == "qapple")
    #expect(url.absoluteString.allSatisfy { $0.isASCII })
    #expect(try DeepLink(url: url) == link)
  }

  @Test(
    "URLs have the documented shape",
    arguments: [
      (DeepLink.today, "qapple://today"),
      (.notifications, "qapple://notifications"),
      (.question("q_1"), "qapple://questions/q_1"),
      (.post("p_1"), "qapple://posts/p_1"),
      (.comment(post: "p_1", comment: "c_2"), "qapple://posts/p_1/comments/c_2"),
      (.group("g_1"), "qapple://groups/g_1"),
      (.chatRoom("r_1"), "qapple://chat/r_1"),
      (.post("a b/c?d"), "qapple://posts/a%20b%2Fc%3Fd"),
      (.post("가"), "qapple://posts/%EA%B0%80"),
      (.post("a-b.c_d~e"), "qapple://posts/a-b.c_d~e"),
    ])
  func urlShape(link: DeepLink, expected: String) {
    #expect(link.url.absoluteString == expected)
  }

  @Test(
    "Tolerates case, trailing slashes, queries and fragments",
    arguments: [
      ("QAPPLE://today", DeepLink.today),
      ("qapple://today/", .today),
      ("qapple://posts/p_1?utm_source=push", .post("p_1")),
      ("qapple://posts/p_1/comments/c_2#reply", .comment(post: "p_1", comment: "c_2")),
      ("qapple://today#top", .today),
      ("qapple:today", .today),
      ("qapple:posts/p_1", .post("p_1")),
      ("qapple://groups/%EC%8A%A4%ED%84%B0%EB%94%94", .group("스터디")),
    ])
  func lenientParsing(text: String, expected: DeepLink) throws {
    let url = try #require(URL(string: text))
    #expect(try DeepLink(url: url) == expected)
  }

  @Test(
    "Other schemes are refused",
    arguments: [
      ("https://qapple.app/posts/1", "https"), ("mailto:a@b.co", "mailto"),
      ("qapples://today", "qapples"), ("/posts/1", ""),
    ])
  func unsupportedScheme(text: String, scheme: String) throws {
    let url = try #require(URL(string: text))
    #expect(throws: DeepLinkError.unsupportedScheme(scheme)) { try DeepLink(url: url) }
  }

  @Test(
    "Unknown places are refused with their path",
    arguments: [
      ("qapple://", ""), ("qapple://settings", "settings"), ("qapple://posts", "posts"),
      ("qapple://posts/p_1/likes/3", "posts/p_1/likes/3"),
      ("qapple://posts/p_1/comments", "posts/p_1/comments"),
      ("qapple://today/extra", "today/extra"), ("qapple://chat", "chat"),
      ("qapple://questions/q_1/answers", "questions/q_1/answers"),
      ("qapple://Today", "Today"), ("qapple://settings?x=1", "settings"),
    ])
  func unknownPath(text: String, path: String) throws {
    let url = try #require(URL(string: text))
    #expect(throws: DeepLinkError.unknownPath(path)) { try DeepLink(url: url) }
  }

  @Test("Errors say what went wrong")
  func errorDescriptions() {
    #expect(DeepLinkError.unsupportedScheme("https").description.contains("\"https\""))
    #expect(DeepLinkError.unknownPath("settings").description.contains("qapple://settings"))
  }
}

@Suite("NotificationKind")
struct NotificationKindTests {
  @Test(
    "Each kind opens the right place",
    arguments: [
      (
        NotificationKind.commentOnMyPost(post: "p_1", comment: "c_1"),
        DeepLink?.some(.comment(post: "p_1", comment: "c_1"))
      ),
      (.replyToMyComment(post: "p_2", comment: "c_2"), .comment(post: "p_2", comment: "c_2")),
      (.likeOnMyPost(post: "p_3"), .post("p_3")),
      (.likeOnMyComment(post: "p_4", comment: "c_4"), .comment(post: "p_4", comment: "c_4")),
      (.newQuestion("q_1"), .question("q_1")),
      (.groupInvite("g_1"), .group("g_1")),
      (.groupMessage("r_1"), .chatRoom("r_1")),
      (.reportResolved, .notifications),
      (.unknown("badge_earned"), nil),
    ])
  func deepLink(kind: NotificationKind, expected: DeepLink?) throws {
    #expect(kind.deepLink == expected)
    let notification = AppNotification(
      id: "n_1", kind: kind, message: "m", isRead: false,
      createdAt: Date(timeIntervalSince1970: 0))
    #expect(notification.deepLink == expected)
    if let link = kind.deepLink {
      #expect(try DeepLink(url: link.url) == link)
    }
  }
}
