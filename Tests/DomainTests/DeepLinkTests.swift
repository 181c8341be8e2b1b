import Domain
import Foundation
import Testing

@Suite("DeepLink")
struct DeepLinkTests {
  @Test(
    "Every link survives a round trip through its URL",
    arguments: [
      DeepLink.today, .notifications, .question("q_1"), .question("2026-11-21"), .post("p_1"),
      .post("게시글-1"), .post("a-b.c_d~e"), .comment(post: "p_1", comment: "c_2"),
      .comment(post: "스터디글", comment: "댓글1"), .group("g_1"), .group("스위프트"),
      .chatRoom("room_3"), .chatRoom("dm:u_1:u_2"),
      .post(Identifier(String(repeating: "a", count: 100))),
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

  @Test(
    "Hostile links open nothing and say why",
    arguments: [
      ("qapple://posts/%2E%2E%2Fetc", DeepLinkError.invalidIdentifier("%2E%2E%2Fetc")),
      ("qapple://posts/..", .invalidIdentifier("..")),
      ("qapple://chat/.", .invalidIdentifier(".")),
      ("qapple://posts/a%2Fb", .invalidIdentifier("a%2Fb")),
      ("qapple://posts/a%20b", .invalidIdentifier("a%20b")),
      ("qapple://posts/a%00b", .invalidIdentifier("a%00b")),
      // Foundation escapes the broken escape ("%25E0..."); decoded it holds "%", refused.
      ("qapple://posts/%E0%A4%A", .invalidIdentifier("%25E0%25A4%25A")),
      ("qapple://posts/p_1/comments/%3Cscript%3E", .invalidIdentifier("%3Cscript%3E")),
      (
        "qapple://groups/" + String(repeating: "g", count: 101),
        .invalidIdentifier(String(repeating: "g", count: 100))
      ),
      ("qapple://posts/../etc/passwd", .unknownPath("posts/../etc/passwd")),
      ("qapple://evil.example/posts/p_1", .unknownPath("evil.example/posts/p_1")),
      ("qapple://board/settings", .unknownPath("board/settings")),
      (
        "qapple://posts/" + String(repeating: "p", count: 3_000),
        .tooLong("qapple://posts/".utf8.count + 3_000)
      ),
    ])
  func hostileLinks(text: String, error: DeepLinkError) throws {
    let url = try #require(URL(string: text))
    #expect(throws: error) { try DeepLink(url: url) }
    #expect(!error.description.isEmpty)
  }

  @Test(
    "Board links may name their tab",
    arguments: [
      ("qapple://board/posts/p_3", DeepLink.post("p_3")),
      ("qapple://board/posts/p_3/comments/c_9", .comment(post: "p_3", comment: "c_9")),
    ])
  func boardPrefix(text: String, expected: DeepLink) throws {
    #expect(try DeepLink(url: try #require(URL(string: text))) == expected)
  }

  @Test("Universal links open on the app's hosts only")
  func universalLinks() throws {
    let hosts: Set<String> = ["qapple.app"]
    let post = try #require(URL(string: "https://qapple.app/posts/p_1?utm=x"))
    #expect(try DeepLink(url: post, universalLinkHosts: hosts) == .post("p_1"))
    let chat = try #require(URL(string: "https://QAPPLE.app/chat/room_2"))
    #expect(try DeepLink(url: chat, universalLinkHosts: hosts) == .chatRoom("room_2"))
    let elsewhere = try #require(URL(string: "https://evil.example/posts/p_1"))
    #expect(throws: DeepLinkError.unknownHost("evil.example")) {
      try DeepLink(url: elsewhere, universalLinkHosts: hosts)
    }
    let plain = try #require(URL(string: "http://qapple.app/posts/p_1"))
    #expect(throws: DeepLinkError.unsupportedScheme("http")) {
      try DeepLink(url: plain, universalLinkHosts: hosts)
    }
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
