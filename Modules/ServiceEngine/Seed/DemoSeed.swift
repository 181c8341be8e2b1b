import Domain
import Foundation
import GRDB

/// The demo community loaded by `--seed demo` into an empty database: an admin (dev token
/// `admin`), ten members (dev tokens `demo-1` ... `demo-10`), three weeks of daily questions
/// with answers (plus today's and three scheduled ones), about forty posts with comments and
/// likes, reports (one post a single report short of being hidden automatically), study groups
/// with chat, a direct conversation and the notifications all of that causes.
///
/// It is a ``ServiceEngine/Seed``: loading it runs the engine's own operations at past times,
/// so counts, aliases and notifications follow the real rules. The content mixes Korean and
/// English. A fixed random seed makes every demo database the same.
public enum DemoSeed {
  /// The dev sign-in token of the demo admin.
  public static let adminToken = "admin"
  /// The nickname of the demo admin.
  public static let adminNickname = "사과지기"
  /// The dev sign-in tokens of the demo members, `demo-1` ... `demo-10`.
  public static let memberTokens = (1...10).map { "demo-\($0)" }

  static let memberNicknames = [
    "사과나무", "swiftie", "코딩하는곰", "NightOwl", "밤샘개발자",
    "pixelpush", "한라봉", "TCAfan", "새벽코더", "ByteBard",
  ]

  /// Loads the demo data unless the database already has users (idempotent across restarts);
  /// returns whether it loaded. All of it is one transaction.
  @discardableResult
  public static func loadIfEmpty(_ engine: ServiceEngine) throws -> Bool {
    let empty = try engine.read { db, _ in try UserRecord.fetchCount(db) == 0 }
    guard empty else { return false }
    try engine.load(seed)
    return true
  }

  /// The demo community as a seed.
  public static var seed: ServiceEngine.Seed {
    typealias Seed = ServiceEngine.Seed
    var random = SeededRandom(seed: 20_261_121)
    let members = memberNicknames
    let users =
      [Seed.UserSeed(adminNickname, role: .admin, cohort: "Staff", devToken: adminToken)]
      + members.enumerated().map { index, nickname in
        Seed.UserSeed(
          nickname, cohort: index.isMultiple(of: 2) ? "2026 Morning" : "2026 Afternoon",
          devToken: memberTokens[index], joinedDaysAgo: Double(40 - index))
      }
    // 21 past days, today (offset 21), then three scheduled days; about 70 % answer a past
    // question, everyone but demo-1 answers today's ("answer to see the others").
    let questions = Content.questions.enumerated().map { offset, content in
      let dayOffset = offset - 21
      let answers: [(author: String, content: String)] =
        dayOffset > 0
        ? []
        : members.enumerated().compactMap { index, member in
          if dayOffset == 0 ? index == 0 : Double.random(in: 0..<1, using: &random) >= 0.7 {
            return nil
          }
          return (member, Content.answers[(offset * 7 + index * 3) % Content.answers.count])
        }
      return Seed.QuestionSeed(content, dayOffset: dayOffset, answers: answers)
    }
    let posts = Content.posts.enumerated().map { index, text in
      let comments = (0..<(index % 4 == 3 ? 0 : 1 + index % 3)).map { number in
        Seed.CommentSeed(
          members[(index + number * 2 + 1) % members.count],
          Content.comments[(index * 2 + number) % Content.comments.count],
          isAnonymous: (index + number) % 2 == 0,
          likedBy: index < 6 && number == 0 ? [members[(index + 5) % members.count]] : [])
      }
      return Seed.PostSeed(
        members[(index * 3) % members.count], text, isAnonymous: index % 3 != 0,
        minutesAgo: (Content.posts.count - index) * 720 + (index % 5) * 60,
        likedBy: (0..<((index * 5) % 7)).map { members[(index + $0 + 2) % members.count] },
        comments: comments)
    }
    // One post a single report short of being hidden automatically, two privacy reports on a
    // comment, and a report the admin already dismissed.
    let near = posts.count - 3
    let reporters = members.filter { $0 != posts[near].author }
    let reasons: [(ReportReason.Code, String?)] = [
      (.spam, nil), (.spam, nil), (.abuse, nil), (.other, "같은 홍보 글이 반복돼요. Same ad again."),
    ]
    var reports = zip(reporters, reasons).map { reporter, reason in
      Seed.ReportSeed(reporter, post: near, reason: reason.0, detail: reason.1)
    }
    let commented = posts.indices.last { !posts[$0].comments.isEmpty } ?? 0
    let commentIndex = posts[commented].comments.count - 1
    let commentAuthor = posts[commented].comments[commentIndex].author
    reports += members.filter { $0 != commentAuthor }.prefix(2).map {
      Seed.ReportSeed($0, post: commented, comment: commentIndex, reason: .privacy)
    }
    if let reporter = members.first(where: { $0 != posts[5].author }) {
      reports.append(
        Seed.ReportSeed(
          reporter, post: 5, reason: .abuse,
          resolution: (adminNickname, .dismiss, "Friendly banter, not abuse.")))
    }
    let groups = Content.groups.enumerated().map { index, group in
      let roster = (0...(3 + index)).map { members[(index * 2 + $0) % members.count] }
      return Seed.GroupSeed(
        group.name, description: group.description, owner: roster[0],
        members: Array(roster.dropFirst()),
        messages: group.messages.enumerated().map { (roster[$0 % roster.count], $1) })
    }
    let direct = Seed.DirectSeed(
      Content.directMessages.enumerated().map { (members[$0 % 2], $1) })
    return Seed(
      users: users, questions: questions, posts: posts, reports: reports, groups: groups,
      directs: [direct])
  }
}
