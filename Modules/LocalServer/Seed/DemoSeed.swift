import DTO
import Domain
import Foundation
import GRDB

/// The demo community loaded by `--seed demo` into an empty database: an admin (dev token
/// `admin`), ten members (dev tokens `demo-1` ... `demo-10`), three weeks of daily questions
/// with answers (plus today's and three scheduled ones), about forty posts with comments and
/// likes, reports (one post a single report short of being hidden automatically), study groups
/// with chat, a direct conversation and the notifications all of that causes.
///
/// Everything is created through the same service code as the API, at past times relative to
/// the server clock, so counts, aliases and notifications follow the real rules. The content
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

  /// Loads the demo data unless the database already has users (idempotent across restarts).
  static func loadIfEmpty(_ core: ServerCore) throws {
    let now = core.now
    let today = core.today
    let loaded = try core.database.write { db -> Bool in
      guard try UserRecord.fetchCount(db) == 0 else { return false }
      var builder = Builder(db: db, now: now, today: today)
      try builder.build()
      return true
    }
    if loaded {
      core.logger.notice(
        "Loaded the demo data set",
        metadata: [
          "admin": "provider dev, token \(adminToken)",
          "members": "provider dev, tokens demo-1 ... demo-10",
        ])
    }
  }

  private struct Builder {
    let db: Database
    let now: Date
    let today: CalendarDay
    var random = SeededRandom(seed: 20_261_121)
    var admin: Viewer?
    var members: [Viewer] = []

    init(db: Database, now: Date, today: CalendarDay) {
      self.db = db
      self.now = now
      self.today = today
    }

    /// `days` days and `hours` hours before now.
    func ago(days: Double = 0, hours: Double = 0) -> Date {
      now.addingTimeInterval(-(days * 86_400 + hours * 3600))
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
      var adminRecord = UserRecord(
        nickname: adminNickname, nicknameKey: UserRecord.key(forNickname: adminNickname),
        role: "admin", cohort: "Staff", joinedAt: Millis.from(ago(days: 60)),
        providerKey: "dev:\(adminToken)", email: "admin@academy.example", termsVersion: "2026-03",
        banned: false)
      try adminRecord.insert(db)
      admin = Users.viewer(adminRecord)
      for (index, nickname) in memberNicknames.enumerated() {
        var record = UserRecord(
          nickname: nickname, nicknameKey: UserRecord.key(forNickname: nickname), role: "member",
          cohort: index.isMultiple(of: 2) ? "2026 Morning" : "2026 Afternoon",
          joinedAt: Millis.from(ago(days: Double(40 - index))),
          providerKey: "dev:demo-\(index + 1)", email: "learner\(index + 1)@academy.example",
          termsVersion: "2026-03", banned: false)
        try record.insert(db)
        members.append(Users.viewer(record))
      }
    }

    // MARK: Questions and answers

    mutating func createQuestionsAndAnswers() throws {
      for (offset, content) in Content.questions.enumerated() {
        // 21 past days, today (offset 21), then three scheduled days.
        let dayOffset = offset - 21
        let day = today.adding(days: dayOffset)
        let created = ago(days: Double(30 - offset / 2))
        var question = QuestionRecord(
          content: content, publishDate: day.iso8601, createdAt: Millis.from(created))
        try question.insert(db)
        guard dayOffset <= 0 else { continue }
        let published = publishInstant(of: day)
        if dayOffset == 0 {
          try Notifications.announceQuestion(db, question, now: published)
        }
        for (index, member) in members.enumerated() {
          // demo-1 has not answered today yet: the demo of "answer to see the others".
          if dayOffset == 0, index == 0 { continue }
          guard dayOffset == 0 || Double.random(in: 0..<1, using: &random) < 0.7 else { continue }
          let text = Content.answers[(offset * 7 + index * 3) % Content.answers.count]
          let written = min(now, published.addingTimeInterval(Double(index + 1) * 1700))
          _ = try Answers.create(
            db, questionKey: question.key, content: text, viewer: member, now: written,
            today: today)
        }
      }
    }

    /// 09:00 Seoul time on `day`.
    func publishInstant(of day: CalendarDay) -> Date {
      var components = DateComponents()
      components.year = day.year
      components.month = day.month
      components.day = day.day
      components.hour = 9
      var calendar = Calendar(identifier: .gregorian)
      calendar.timeZone = .seoul
      let date = calendar.date(from: components) ?? now
      return min(date, now)
    }

    // MARK: Board

    mutating func createPosts() throws -> [PostDTO] {
      var posts: [PostDTO] = []
      for (index, text) in Content.posts.enumerated() {
        let author = members[(index * 3) % members.count]
        let created = ago(days: Double(Content.posts.count - index) * 0.5, hours: Double(index % 5))
        posts.append(
          try Board.createPost(
            db, content: text, anonymous: index % 3 != 0, viewer: author, now: created))
      }
      return posts
    }

    mutating func createComments(on posts: [PostDTO]) throws {
      for (index, post) in posts.enumerated() {
        let count = index % 4 == 3 ? 0 : 1 + (index % 3)
        guard let key = PublicID.post.key(post.id) else { continue }
        let postTime = post.createdAt
        for number in 0..<count {
          let author = members[(index + number * 2 + 1) % members.count]
          let text = Content.comments[(index * 2 + number) % Content.comments.count]
          let written = min(now, postTime.addingTimeInterval(Double(number + 1) * 2400))
          _ = try Board.createComment(
            db, postKey: key, content: text, anonymous: (index + number) % 2 == 0,
            viewer: author, now: written)
        }
      }
    }

    mutating func createLikes(on posts: [PostDTO]) throws {
      for (index, post) in posts.enumerated() {
        guard let key = PublicID.post.key(post.id) else { continue }
        let likes = (index * 5) % 7
        for offset in 0..<likes {
          let liker = members[(index + offset + 2) % members.count]
          _ = try Board.setPostLike(
            db, key, liked: true, viewer: liker,
            now: min(now, post.createdAt.addingTimeInterval(Double(offset + 1) * 900)))
        }
      }
      // A few comment likes, so comments show counts too.
      let comments = try Int64.fetchAll(db, sql: "SELECT id FROM comment ORDER BY id LIMIT 12")
      for (index, comment) in comments.enumerated() {
        let liker = members[(index + 5) % members.count]
        _ = try Board.setCommentLike(
          db, comment, liked: true, viewer: liker, now: ago(hours: Double(index)))
      }
    }

    // MARK: Moderation

    mutating func createReports(posts: [PostDTO]) throws {
      guard let admin, posts.count > 10 else { return }
      // Four distinct reports on one post: one more and it is hidden automatically.
      let nearThreshold = posts[posts.count - 3]
      let reasons: [ReportReason.Code] = [.spam, .spam, .abuse, .other]
      var reported = 0
      for member in members where reported < ModerationPolicy.autoHideThreshold - 1 {
        guard try !isAuthor(member, of: nearThreshold) else { continue }
        let reason = reasons[reported]
        _ = try Moderation.report(
          db, kind: .post, id: nearThreshold.id, reason: reason,
          detail: reason == .other ? "같은 홍보 글이 반복돼요. Same ad again." : nil,
          viewer: member, now: ago(hours: Double(6 - reported)))
        reported += 1
      }
      // Two privacy reports on a comment.
      if let comment = try CommentRecord.fetchOne(db, sql: "SELECT * FROM comment ORDER BY id DESC")
      {
        var filed = 0
        for member in members where filed < 2 && member.id != comment.authorId {
          _ = try Moderation.report(
            db, kind: .comment, id: PublicID.comment(comment.key), reason: .privacy, detail: nil,
            viewer: member, now: ago(hours: Double(3 - filed)))
          filed += 1
        }
      }
      // A report already dismissed by the admin.
      let dismissed = posts[5]
      if let reporter = try members.first(where: { try !isAuthor($0, of: dismissed) }) {
        _ = try Moderation.report(
          db, kind: .post, id: dismissed.id, reason: .abuse, detail: nil, viewer: reporter,
          now: ago(days: 2))
        if let caseKey = try Int64.fetchOne(
          db, sql: "SELECT id FROM report_case WHERE target_type = 'post' AND target_id = ?",
          arguments: [dismissed.id])
        {
          _ = try Moderation.resolve(
            db, caseKey, resolution: .dismiss, note: "Friendly banter, not abuse.", admin: admin,
            now: ago(days: 1))
        }
      }
    }

    func isAuthor(_ viewer: Viewer, of post: PostDTO) throws -> Bool {
      guard let key = PublicID.post.key(post.id), let record = try PostRecord.fetchOne(db, key: key)
      else { return false }
      return record.authorId == viewer.id
    }

    // MARK: Groups and chat

    mutating func createGroupsAndChat() throws {
      for (index, group) in Content.groups.enumerated() {
        let owner = members[index * 2 % members.count]
        let created = ago(days: Double(20 - index * 3))
        let dto = try Groups.create(
          db, StudyGroupDraft(name: group.name, description: group.description), viewer: owner,
          now: created)
        guard let groupKey = PublicID.group.key(dto.id) else { continue }
        var roster = [owner]
        for offset in 1...(3 + index) {
          let member = members[(index * 2 + offset) % members.count]
          _ = try Groups.join(
            db, groupKey, viewer: member, now: created.addingTimeInterval(Double(offset) * 3600))
          roster.append(member)
        }
        guard
          let roomKey = try Int64.fetchOne(
            db, sql: "SELECT id FROM chat_room WHERE group_id = ?", arguments: [groupKey])
        else { continue }
        for (line, text) in group.messages.enumerated() {
          let sender = roster[line % roster.count]
          _ = try Chat.send(
            db, roomKey: roomKey, clientMessageID: seededUUID(), text: text, viewer: sender,
            now: ago(days: Double(3 - min(line, 3)), hours: Double(group.messages.count - line)))
        }
      }
      // A direct conversation between demo-1 and demo-2.
      let (first, second) = (members[0], members[1])
      let room = try Chat.openDirect(db, with: second.id, viewer: first, now: ago(days: 1))
      guard let roomKey = PublicID.room.key(room.id) else { return }
      for (line, text) in Content.directMessages.enumerated() {
        _ = try Chat.send(
          db, roomKey: roomKey, clientMessageID: seededUUID(), text: text,
          viewer: line.isMultiple(of: 2) ? first : second,
          now: ago(hours: Double(Content.directMessages.count - line)))
      }
    }

    /// A UUID from the seeded generator, so demo databases are identical.
    mutating func seededUUID() -> String {
      var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
      bytes[6] = (bytes[6] & 0x0F) | 0x40
      bytes[8] = (bytes[8] & 0x3F) | 0x80
      let uuid = UUID(
        uuid: (
          bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
          bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
        ))
      return uuid.uuidString.lowercased()
    }
  }
}
