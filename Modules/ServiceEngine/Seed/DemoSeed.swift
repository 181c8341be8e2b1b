import Domain
import Foundation
import GRDB

/// The demo community loaded by `--seed demo` into an empty database: an admin (dev token
/// `admin`), ten members (dev tokens `demo-1` ... `demo-10`), three weeks of daily questions
/// with answers (plus today's and three scheduled ones), about forty posts with comments and
/// likes, reports (one post a single report short of being hidden automatically), study groups
/// with chat, a direct conversation and the notifications all of that causes.
///
/// Everything is created through the engine's own operations, at past times relative to the
/// engine's clock, so counts, aliases and notifications follow the real rules. The content
/// mixes Korean and English. A fixed random seed makes every demo database the same.
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
    let now = engine.now
    try engine.inOneTransaction(startingAt: now) { travel in
      try withoutActuallyEscaping(travel) { travel in
        var builder = Builder(engine: engine, now: now, today: engine.day(of: now), travel: travel)
        try builder.build()
      }
    }
    return true
  }

  private struct Builder {
    let engine: ServiceEngine
    let now: Date
    let today: CalendarDay
    let travel: (Date) -> Void
    var random = SeededRandom(seed: 20_261_121)
    var admin: Viewer?
    var members: [Viewer] = []

    /// `days` days and `hours` hours before now.
    func ago(days: Double = 0, hours: Double = 0) -> Date {
      now.addingTimeInterval(-(days * 86_400 + hours * 3600))
    }

    /// Runs one operation as if at `date` (never later than now).
    func at<T>(_ date: Date, _ operation: () throws(DomainError) -> T) throws(DomainError) -> T {
      travel(min(date, now))
      return try operation()
    }

    mutating func build() throws {
      try createUsers()
      try createQuestionsAndAnswers()
      let posts = try createPosts()
      try createComments(on: posts)
      try createLikes(on: posts)
      try createReports(posts: posts)
      try createGroupsAndChat()
    }

    // MARK: Users

    mutating func createUsers() throws {
      admin = try engine.createUser(
        nickname: adminNickname, role: .admin, cohort: "Staff", devToken: adminToken,
        joinedAt: ago(days: 60))
      for (index, nickname) in memberNicknames.enumerated() {
        members.append(
          try engine.createUser(
            nickname: nickname, cohort: index.isMultiple(of: 2) ? "2026 Morning" : "2026 Afternoon",
            devToken: "demo-\(index + 1)", joinedAt: ago(days: Double(40 - index))))
      }
    }

    // MARK: Questions and answers

    mutating func createQuestionsAndAnswers() throws {
      guard let admin else { return }
      for (offset, content) in Content.questions.enumerated() {
        // 21 past days, today (offset 21), then three scheduled days.
        let dayOffset = offset - 21
        let day = today.adding(days: dayOffset)
        let question = try at(ago(days: Double(30 - offset / 2))) { () throws(DomainError) in
          try engine.createQuestion(QuestionDraft(content: content, publishDate: day), as: admin)
        }
        guard dayOffset <= 0 else { continue }
        let published = publishInstant(of: day)
        if dayOffset == 0 {
          travel(published)
          try engine.write { db, moment in
            let key = try PublicID.question.require(question.id.rawValue)
            try Notifications.announceQuestion(db, try Admin.question(db, key), now: moment.now)
          }
        }
        for (index, member) in members.enumerated() {
          // demo-1 has not answered today yet: the demo of "answer to see the others".
          if dayOffset == 0, index == 0 { continue }
          guard dayOffset == 0 || Double.random(in: 0..<1, using: &random) < 0.7 else { continue }
          let text = Content.answers[(offset * 7 + index * 3) % Content.answers.count]
          _ = try at(published.addingTimeInterval(Double(index + 1) * 1700)) {
            () throws(DomainError) in
            try engine.submitAnswer(to: question.id, content: text, as: member)
          }
        }
      }
    }

    /// 09:00 in the service's time zone on `day`.
    func publishInstant(of day: CalendarDay) -> Date {
      var components = DateComponents()
      components.year = day.year
      components.month = day.month
      components.day = day.day
      components.hour = 9
      var calendar = Calendar(identifier: .gregorian)
      calendar.timeZone = engine.configuration.timeZone
      let date = calendar.date(from: components) ?? now
      return min(date, now)
    }

    // MARK: Board

    mutating func createPosts() throws -> [(post: BoardPost, author: Viewer)] {
      var posts: [(BoardPost, Viewer)] = []
      for (index, text) in Content.posts.enumerated() {
        let author = members[(index * 3) % members.count]
        let created = ago(days: Double(Content.posts.count - index) * 0.5, hours: Double(index % 5))
        let post = try at(created) { () throws(DomainError) in
          try engine.createPost(PostDraft(content: text, isAnonymous: index % 3 != 0), as: author)
        }
        posts.append((post, author))
      }
      return posts
    }

    mutating func createComments(on posts: [(post: BoardPost, author: Viewer)]) throws {
      for (index, (post, _)) in posts.enumerated() {
        let count = index % 4 == 3 ? 0 : 1 + (index % 3)
        for number in 0..<count {
          let author = members[(index + number * 2 + 1) % members.count]
          let text = Content.comments[(index * 2 + number) % Content.comments.count]
          let draft = CommentDraft(content: text, isAnonymous: (index + number) % 2 == 0)
          _ = try at(post.createdAt.addingTimeInterval(Double(number + 1) * 2400)) {
            () throws(DomainError) in
            try engine.createComment(on: post.id, draft, as: author)
          }
        }
      }
    }

    mutating func createLikes(on posts: [(post: BoardPost, author: Viewer)]) throws {
      for (index, (post, _)) in posts.enumerated() {
        for offset in 0..<((index * 5) % 7) {
          let liker = members[(index + offset + 2) % members.count]
          _ = try at(post.createdAt.addingTimeInterval(Double(offset + 1) * 900)) {
            () throws(DomainError) in
            try engine.setPostLike(post.id, isLiked: true, as: liker)
          }
        }
      }
      // A few comment likes, so comments show counts too.
      let comments = try engine.read { db, _ in
        try Int64.fetchAll(db, sql: "SELECT id FROM comment ORDER BY id LIMIT 12")
      }
      for (index, comment) in comments.enumerated() {
        let liker = members[(index + 5) % members.count]
        _ = try at(ago(hours: Double(index))) { () throws(DomainError) in
          try engine.setCommentLike(
            Comment.ID(rawValue: PublicID.comment(comment)), isLiked: true, as: liker)
        }
      }
    }

    // MARK: Moderation

    mutating func createReports(posts: [(post: BoardPost, author: Viewer)]) throws {
      guard let admin, posts.count > 10 else { return }
      // Four distinct reports on one post: one more and it is hidden automatically.
      let nearThreshold = posts[posts.count - 3]
      let reasons: [ReportReason.Code] = [.spam, .spam, .abuse, .other]
      var reported = 0
      for member in members
      where reported < ModerationPolicy.autoHideThreshold - 1 && member != nearThreshold.author {
        let reason = reasons[reported]
        _ = try at(ago(hours: Double(6 - reported))) { () throws(DomainError) in
          try engine.report(
            .post(nearThreshold.post.id), reason: reason,
            detail: reason == .other ? "같은 홍보 글이 반복돼요. Same ad again." : nil, as: member)
        }
        reported += 1
      }
      // Two privacy reports on a comment.
      if let comment = try engine.read({ db, _ in
        try CommentRecord.fetchOne(db, sql: "SELECT * FROM comment ORDER BY id DESC")
      }) {
        var filed = 0
        for member in members where filed < 2 && member.key != comment.authorId {
          _ = try at(ago(hours: Double(3 - filed))) { () throws(DomainError) in
            try engine.report(
              .comment(Comment.ID(rawValue: PublicID.comment(comment.key))), reason: .privacy,
              as: member)
          }
          filed += 1
        }
      }
      // A report already dismissed by the admin.
      let dismissed = posts[5]
      if let reporter = members.first(where: { $0 != dismissed.author }) {
        _ = try at(ago(days: 2)) { () throws(DomainError) in
          try engine.report(.post(dismissed.post.id), reason: .abuse, as: reporter)
        }
        let open = try at(ago(days: 1)) { () throws(DomainError) in
          try engine.reportCases(status: .open, PageRequest(limit: 100), as: admin)
        }
        if let reportCase = open.items.first(where: { $0.target == .post(dismissed.post.id) }) {
          _ = try at(ago(days: 1)) { () throws(DomainError) in
            try engine.resolveReportCase(
              reportCase.id, .dismiss, note: "Friendly banter, not abuse.", as: admin)
          }
        }
      }
    }

    // MARK: Groups and chat

    mutating func createGroupsAndChat() throws {
      for (index, content) in Content.groups.enumerated() {
        let owner = members[index * 2 % members.count]
        let created = ago(days: Double(20 - index * 3))
        let group = try at(created) { () throws(DomainError) in
          try engine.createGroup(
            StudyGroupDraft(name: content.name, description: content.description), as: owner)
        }
        var roster = [owner]
        for offset in 1...(3 + index) {
          let member = members[(index * 2 + offset) % members.count]
          _ = try at(created.addingTimeInterval(Double(offset) * 3600)) {
            () throws(DomainError) in
            try engine.joinGroup(group.id, as: member)
          }
          roster.append(member)
        }
        let rooms = try engine.chatRooms(PageRequest(limit: 100), as: owner)
        guard let room = rooms.items.first(where: { $0.kind == .group(group.id) }) else {
          continue
        }
        for (line, text) in content.messages.enumerated() {
          let sender = roster[line % roster.count]
          let uuid = seededUUID()
          _ = try at(
            ago(days: Double(3 - min(line, 3)), hours: Double(content.messages.count - line))
          ) { () throws(DomainError) in
            try engine.sendMessage(text, to: room.id, clientMessageID: uuid, as: sender)
          }
        }
      }
      // A direct conversation between demo-1 and demo-2.
      let (first, second) = (members[0], members[1])
      let room = try at(ago(days: 1)) { () throws(DomainError) in
        try engine.openDirectRoom(with: second.id, as: first)
      }
      for (line, text) in Content.directMessages.enumerated() {
        let uuid = seededUUID()
        _ = try at(ago(hours: Double(Content.directMessages.count - line))) {
          () throws(DomainError) in
          try engine.sendMessage(
            text, to: room.id, clientMessageID: uuid, as: line.isMultiple(of: 2) ? first : second)
        }
      }
    }

    /// A UUID from the seeded generator, so demo databases are identical.
    mutating func seededUUID() -> UUID {
      var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
      bytes[6] = (bytes[6] & 0x0F) | 0x40
      bytes[8] = (bytes[8] & 0x3F) | 0x80
      return UUID(
        uuid: (
          bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
          bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
        ))
    }
  }
}
