import Domain
import Foundation

extension ServiceEngine {
  /// Data to load into an engine in one go: people refer to each other by nickname, times are
  /// relative to the engine's clock, days relative to its "today". `FakeBackend.seed(_:)` loads
  /// one; the demo data set (``DemoSeed``) is one.
  ///
  /// Seeding runs the engine's own operations at past times, in one transaction, so the history
  /// it creates follows every rule and notifies like the service: comments and likes reach their
  /// authors, and today's question is announced to every account.
  public struct Seed: Sendable {
    /// An account.
    public struct UserSeed: Sendable {
      /// The nickname.
      public var nickname: String
      /// Member or admin.
      public var role: UserRole
      /// The academy cohort.
      public var cohort: String?
      /// The dev sign-in token; the nickname when `nil`.
      public var devToken: String?
      /// How long ago the account was created.
      public var joinedDaysAgo: Double

      /// Creates an account seed.
      public init(
        _ nickname: String, role: UserRole = .member, cohort: String? = nil,
        devToken: String? = nil, joinedDaysAgo: Double = 60
      ) {
        (self.nickname, self.role, self.cohort) = (nickname, role, cohort)
        (self.devToken, self.joinedDaysAgo) = (devToken, joinedDaysAgo)
      }
    }

    /// A question `dayOffset` days from today, with answers by nickname.
    public struct QuestionSeed: Sendable {
      /// The question.
      public var content: String
      /// Days from today: negative is past, 0 today, positive scheduled.
      public var dayOffset: Int
      /// Answers in order.
      public var answers: [(author: String, content: String)]

      /// Creates a question seed.
      public init(
        _ content: String, dayOffset: Int, answers: [(author: String, content: String)] = []
      ) {
        (self.content, self.dayOffset, self.answers) = (content, dayOffset, answers)
      }
    }

    /// A comment on a seeded post.
    public struct CommentSeed: Sendable {
      /// Who wrote it.
      public var author: String
      /// The text.
      public var content: String
      /// Shown as "Anonymous N".
      public var isAnonymous: Bool
      /// Who liked it.
      public var likedBy: [String]

      /// Creates a comment seed.
      public init(
        _ author: String, _ content: String, isAnonymous: Bool = true, likedBy: [String] = []
      ) {
        (self.author, self.content, self.isAnonymous, self.likedBy) =
          (author, content, isAnonymous, likedBy)
      }
    }

    /// A post with its likes and comments.
    public struct PostSeed: Sendable {
      /// Who wrote it.
      public var author: String
      /// The text.
      public var content: String
      /// Shown as "Anonymous".
      public var isAnonymous: Bool
      /// How long ago it was posted.
      public var minutesAgo: Int
      /// Who liked it.
      public var likedBy: [String]
      /// Its comments, oldest first.
      public var comments: [CommentSeed]

      /// Creates a post seed.
      public init(
        _ author: String, _ content: String, isAnonymous: Bool = true, minutesAgo: Int,
        likedBy: [String] = [], comments: [CommentSeed] = []
      ) {
        (self.author, self.content, self.isAnonymous) = (author, content, isAnonymous)
        (self.minutesAgo, self.likedBy, self.comments) = (minutesAgo, likedBy, comments)
      }
    }

    /// A report of a seeded post (or of one of its comments), resolved by an admin if given.
    public struct ReportSeed: Sendable {
      /// Who reports.
      public var reporter: String
      /// The index of the post in ``Seed/posts``.
      public var post: Int
      /// The index of the comment in that post's comments; `nil` reports the post.
      public var comment: Int?
      /// Why.
      public var reason: ReportReason.Code
      /// The explanation (needed for `other`).
      public var detail: String?
      /// An admin's decision on the case after this report.
      public var resolution: (admin: String, ReportResolution, note: String?)?

      /// Creates a report seed.
      public init(
        _ reporter: String, post: Int, comment: Int? = nil, reason: ReportReason.Code,
        detail: String? = nil, resolution: (admin: String, ReportResolution, note: String?)? = nil
      ) {
        (self.reporter, self.post, self.comment) = (reporter, post, comment)
        (self.reason, self.detail, self.resolution) = (reason, detail, resolution)
      }
    }

    /// A study group with members and chat.
    public struct GroupSeed: Sendable {
      /// The name.
      public var name: String
      /// The description.
      public var description: String
      /// The owner (first member).
      public var owner: String
      /// The other members.
      public var members: [String]
      /// Chat messages in order; senders must be members.
      public var messages: [(sender: String, text: String)]

      /// Creates a group seed.
      public init(
        _ name: String, description: String = "", owner: String, members: [String] = [],
        messages: [(sender: String, text: String)] = []
      ) {
        (self.name, self.description, self.owner) = (name, description, owner)
        (self.members, self.messages) = (members, messages)
      }
    }

    /// A direct conversation: the first sender opens the room.
    public struct DirectSeed: Sendable {
      /// Messages in order, between exactly two people.
      public var messages: [(sender: String, text: String)]

      /// Creates a conversation seed.
      public init(_ messages: [(sender: String, text: String)]) { self.messages = messages }
    }

    /// The accounts, created first.
    public var users: [UserSeed]
    /// Questions with answers.
    public var questions: [QuestionSeed]
    /// Posts with likes and comments.
    public var posts: [PostSeed]
    /// Reports, in order.
    public var reports: [ReportSeed]
    /// Groups with chat.
    public var groups: [GroupSeed]
    /// Direct conversations.
    public var directs: [DirectSeed]

    /// Creates a seed.
    public init(
      users: [UserSeed], questions: [QuestionSeed] = [], posts: [PostSeed] = [],
      reports: [ReportSeed] = [], groups: [GroupSeed] = [], directs: [DirectSeed] = []
    ) {
      (self.users, self.questions, self.posts) = (users, questions, posts)
      (self.reports, self.groups, self.directs) = (reports, groups, directs)
    }
  }

  /// What seeding created, to find it again in tests.
  public struct SeededData: Sendable {
    /// Account ids by nickname.
    public var users: [String: User.ID] = [:]
    /// Question ids in seed order.
    public var questions: [Question.ID] = []
    /// Post ids in seed order.
    public var posts: [BoardPost.ID] = []
    /// Comment ids of each post, in seed order.
    public var comments: [BoardPost.ID: [Comment.ID]] = [:]
    /// Group ids in seed order.
    public var groups: [StudyGroup.ID] = []
  }

  /// A seed that refers to people or content it does not create, or puts people where they
  /// cannot be.
  public enum SeedError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Nobody has this nickname.
    case unknownUser(String)
    /// A chat message's sender is not a member of the group.
    case notAMember(String, group: String)
    /// A report names a post or comment index the seed does not have.
    case unknownContent(post: Int, comment: Int?)

    /// What to fix.
    public var description: String {
      switch self {
      case .unknownUser(let nickname):
        "The seed refers to \"\(nickname)\", who is not among its users; add a UserSeed."
      case .notAMember(let nickname, let group):
        "\"\(nickname)\" sends a message in \"\(group)\" without being a member; add them."
      case .unknownContent(let post, let comment):
        "A report names post \(post)\(comment.map { ", comment \($0)" } ?? ""), which the seed "
          + "does not have."
      }
    }
  }
}

extension ServiceEngine {
  /// Loads `seed` through the engine's own operations at past times, in one transaction;
  /// returns the new ids. A seed that fails loads nothing.
  @discardableResult
  public func load(_ seed: ServiceEngine.Seed) throws -> ServiceEngine.SeededData {
    let now = self.now
    var data = ServiceEngine.SeededData()
    try inOneTransaction(startingAt: now) { travel in
      try withoutActuallyEscaping(travel) { travel in
        var loader = SeedLoader(engine: self, now: now, today: day(of: now), travel: travel)
        try loader.load(seed, into: &data)
      }
    }
    return data
  }
}

/// Loads a ``Seed`` inside one engine transaction.
private struct SeedLoader {
  let engine: ServiceEngine
  let now: Date
  let today: CalendarDay
  let travel: (Date) -> Void
  var viewers: [String: Viewer] = [:]
  /// Client message ids from a fixed seed, so seeded databases are identical.
  var random = SeededRandom(seed: 20_261_121)

  /// Runs `operation` as if at `date` (never later than now).
  func at<T>(_ date: Date, _ operation: () throws -> T) rethrows -> T {
    travel(min(date, now))
    return try operation()
  }

  func viewer(_ nickname: String) throws -> Viewer {
    if let viewer = viewers[nickname] { return viewer }
    guard let user = try engine.user(named: nickname) else {
      throw ServiceEngine.SeedError.unknownUser(nickname)
    }
    return try engine.viewer(user.id)
  }

  mutating func uuid() -> UUID {
    var bytes = (0..<16).map { _ in UInt8.random(in: 0...255, using: &random) }
    bytes[6] = (bytes[6] & 0x0F) | 0x40
    bytes[8] = (bytes[8] & 0x3F) | 0x80
    return UUID(
      uuid: (
        bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8],
        bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
      ))
  }

  /// Midnight of `day` in the engine's time zone.
  func startOfDay(_ day: CalendarDay) -> Date { day.start(in: engine.configuration.timeZone) }

  mutating func load(_ seed: ServiceEngine.Seed, into data: inout ServiceEngine.SeededData) throws {
    for user in seed.users {
      let viewer = try at(now.addingTimeInterval(-86_400 * user.joinedDaysAgo)) {
        try engine.createUser(
          nickname: user.nickname, role: user.role, cohort: user.cohort, devToken: user.devToken)
      }
      viewers[user.nickname] = viewer
      data.users[user.nickname] = viewer.id
    }
    for question in seed.questions {
      let day = today.adding(days: question.dayOffset)
      // Today's question is created on its day, so it is announced; others a month ago.
      let created = question.dayOffset == 0 ? startOfDay(day) : now.addingTimeInterval(-2_592_000)
      let scheduled = try at(created) {
        try engine.createQuestion(
          QuestionDraft(content: question.content, publishDate: day), as: .system)
      }
      data.questions.append(scheduled.id)
      for (offset, answer) in question.answers.enumerated() {
        let author = try viewer(answer.author)
        _ = try at(startOfDay(day).addingTimeInterval(32_400 + Double(offset + 1) * 600)) {
          try engine.submitAnswer(to: scheduled.id, content: answer.content, as: author)
        }
      }
    }
    for post in seed.posts {
      let createdAt = now.addingTimeInterval(-Double(post.minutesAgo) * 60)
      let made = try at(createdAt) {
        try engine.createPost(
          PostDraft(content: post.content, isAnonymous: post.isAnonymous),
          as: try viewer(post.author))
      }
      for liker in post.likedBy {
        let liker = try viewer(liker)
        _ = try at(createdAt.addingTimeInterval(30)) {
          try engine.setPostLike(made.id, isLiked: true, as: liker)
        }
      }
      var comments: [Comment.ID] = []
      for (offset, comment) in post.comments.enumerated() {
        let time = createdAt.addingTimeInterval(Double(offset + 1) * 60)
        let author = try viewer(comment.author)
        let draft = CommentDraft(content: comment.content, isAnonymous: comment.isAnonymous)
        let id = try at(time) { try engine.createComment(on: made.id, draft, as: author).id }
        for liker in comment.likedBy {
          let liker = try viewer(liker)
          _ = try at(time.addingTimeInterval(30)) {
            try engine.setCommentLike(id, isLiked: true, as: liker)
          }
        }
        comments.append(id)
      }
      data.posts.append(made.id)
      data.comments[made.id] = comments
    }
    for (index, report) in seed.reports.enumerated() {
      guard data.posts.indices.contains(report.post) else {
        throw ServiceEngine.SeedError.unknownContent(post: report.post, comment: report.comment)
      }
      let post = data.posts[report.post]
      var target = ReportTarget.post(post)
      if let comment = report.comment {
        guard let id = data.comments[post]?[safe: comment] else {
          throw ServiceEngine.SeedError.unknownContent(post: report.post, comment: comment)
        }
        target = .comment(id)
      }
      let reporter = try viewer(report.reporter)
      let time = now.addingTimeInterval(-Double(seed.reports.count - index) * 3_600)
      _ = try at(time) {
        try engine.report(target, reason: report.reason, detail: report.detail, as: reporter)
      }
      if let (adminName, resolution, note) = report.resolution {
        let admin = try viewer(adminName)
        let open = try engine.reportCases(status: .open, PageRequest(limit: 100), as: admin)
        if let reportCase = open.items.first(where: { $0.target == target }) {
          _ = try at(time.addingTimeInterval(600)) {
            try engine.resolveReportCase(reportCase.id, resolution, note: note, as: admin)
          }
        }
      }
    }
    for group in seed.groups {
      let createdAt = now.addingTimeInterval(-86_400 * 7)
      let owner = try viewer(group.owner)
      let made = try at(createdAt) {
        try engine.createGroup(
          StudyGroupDraft(name: group.name, description: group.description), as: owner)
      }
      var roster: Set<Viewer> = [owner]
      for member in group.members {
        let member = try viewer(member)
        _ = try at(createdAt.addingTimeInterval(3_600)) {
          try engine.joinGroup(made.id, as: member)
        }
        roster.insert(member)
      }
      let room = try engine.chatRooms(PageRequest(limit: 100), as: owner).items.first {
        $0.kind == .group(made.id)
      }
      for (offset, message) in group.messages.enumerated() {
        let sender = try viewer(message.sender)
        guard roster.contains(sender), let room else {
          throw ServiceEngine.SeedError.notAMember(message.sender, group: group.name)
        }
        try send(
          message.text, to: room.id, as: sender, minutesAgo: (group.messages.count - offset) * 5)
      }
      data.groups.append(made.id)
    }
    for direct in seed.directs {
      guard let first = direct.messages.first,
        let second = direct.messages.first(where: { $0.sender != first.sender })
      else { continue }
      let opener = try viewer(first.sender)
      let room = try at(now.addingTimeInterval(-86_400)) {
        try engine.openDirectRoom(with: try viewer(second.sender).id, as: opener)
      }
      for (offset, message) in direct.messages.enumerated() {
        try send(
          message.text, to: room.id, as: try viewer(message.sender),
          minutesAgo: (direct.messages.count - offset) * 60)
      }
    }
  }

  mutating func send(
    _ text: String, to room: ChatRoom.ID, as sender: Viewer, minutesAgo: Int
  )
    throws
  {
    let id = uuid()
    _ = try at(now.addingTimeInterval(-Double(minutesAgo) * 60)) {
      try engine.sendMessage(text, to: room, clientMessageID: id, as: sender)
    }
  }
}

extension Array {
  fileprivate subscript(safe index: Int) -> Element? {
    indices.contains(index) ? self[index] : nil
  }
}
