import Domain
import Foundation
import ServiceEngine

/// Data to load into a ``FakeBackend`` in one go: people refer to each other by nickname, times
/// are relative to the backend's clock, days relative to its "today".
///
/// Seeding runs the engine's own operations at past times, so the history it creates follows
/// every rule and notifies like the service: comments and likes reach their authors, and
/// today's question is announced to every account.
public struct Seed: Sendable {
  /// An account.
  public struct UserSeed: Sendable {
    /// The nickname (also the dev sign-in token).
    public var nickname: String
    /// Member or admin.
    public var role: UserRole
    /// The academy cohort.
    public var cohort: String?

    /// Creates a user seed.
    public init(_ nickname: String, role: UserRole = .member, cohort: String? = nil) {
      self.nickname = nickname
      self.role = role
      self.cohort = cohort
    }
  }

  /// A daily question and its answers.
  public struct QuestionSeed: Sendable {
    /// The question text.
    public var content: String
    /// Its day relative to the backend's today (0 today, -1 yesterday, 1 tomorrow).
    public var dayOffset: Int
    /// Answers as (author nickname, text).
    public var answers: [(author: String, content: String)]

    /// Creates a question seed.
    public init(
      _ content: String, dayOffset: Int, answers: [(author: String, content: String)] = []
    ) {
      self.content = content
      self.dayOffset = dayOffset
      self.answers = answers
    }
  }

  /// A comment on a seeded post.
  public struct CommentSeed: Sendable {
    /// The author's nickname.
    public var author: String
    /// The text.
    public var content: String
    /// Whether it shows as "Anonymous N".
    public var isAnonymous: Bool
    /// Nicknames of those who liked it.
    public var likedBy: [String]

    /// Creates a comment seed.
    public init(
      _ author: String, _ content: String, isAnonymous: Bool = true, likedBy: [String] = []
    ) {
      self.author = author
      self.content = content
      self.isAnonymous = isAnonymous
      self.likedBy = likedBy
    }
  }

  /// A post with likes and comments.
  public struct PostSeed: Sendable {
    /// The author's nickname.
    public var author: String
    /// The text.
    public var content: String
    /// Whether it shows as "Anonymous".
    public var isAnonymous: Bool
    /// How long before the backend's now it was posted; comments follow a minute apart.
    public var minutesAgo: Int
    /// Nicknames of those who liked it.
    public var likedBy: [String]
    /// Its comments, oldest first.
    public var comments: [CommentSeed]

    /// Creates a post seed.
    public init(
      _ author: String, _ content: String, isAnonymous: Bool = true, minutesAgo: Int,
      likedBy: [String] = [], comments: [CommentSeed] = []
    ) {
      self.author = author
      self.content = content
      self.isAnonymous = isAnonymous
      self.minutesAgo = minutesAgo
      self.likedBy = likedBy
      self.comments = comments
    }
  }

  /// A study group with members and chat history.
  public struct GroupSeed: Sendable {
    /// The group name.
    public var name: String
    /// What it studies.
    public var description: String
    /// The owner's nickname.
    public var owner: String
    /// Other members' nicknames.
    public var members: [String]
    /// Chat messages as (sender nickname, text), oldest first.
    public var messages: [(sender: String, text: String)]

    /// Creates a group seed.
    public init(
      _ name: String, description: String = "", owner: String, members: [String] = [],
      messages: [(sender: String, text: String)] = []
    ) {
      self.name = name
      self.description = description
      self.owner = owner
      self.members = members
      self.messages = messages
    }
  }

  /// The accounts.
  public var users: [UserSeed]
  /// The questions.
  public var questions: [QuestionSeed]
  /// The posts, in the order they appear in the seed (their times decide the list order).
  public var posts: [PostSeed]
  /// The study groups.
  public var groups: [GroupSeed]

  /// Creates a seed.
  public init(
    users: [UserSeed], questions: [QuestionSeed] = [], posts: [PostSeed] = [],
    groups: [GroupSeed] = []
  ) {
    self.users = users
    self.questions = questions
    self.posts = posts
    self.groups = groups
  }
}

/// What seeding created, to find it again in tests.
public struct SeededData: Sendable {
  /// Account ids by nickname.
  public var users: [String: User.ID]
  /// Question ids in seed order.
  public var questions: [Question.ID]
  /// Post ids in seed order.
  public var posts: [BoardPost.ID]
  /// Comment ids of each post, in seed order.
  public var comments: [BoardPost.ID: [Comment.ID]]
  /// Group ids in seed order.
  public var groups: [StudyGroup.ID]

  /// The id of the seeded user with `nickname`; stops the test if there is none.
  public func user(_ nickname: String) -> User.ID {
    guard let id = users[nickname] else {
      preconditionFailure("No seeded user is named \(nickname); check the Seed.")
    }
    return id
  }
}

/// A seed that refers to people it does not create or puts them where they cannot be.
public enum SeedError: Error, Hashable, Sendable, CustomStringConvertible {
  /// Nobody has this nickname.
  case unknownUser(String)
  /// A chat message's sender is not a member of the group.
  case notAMember(String, group: String)

  /// What to fix.
  public var description: String {
    switch self {
    case .unknownUser(let nickname):
      "The seed refers to \"\(nickname)\", who is not among its users; add a UserSeed."
    case .notAMember(let nickname, let group):
      "\"\(nickname)\" sends a message in \"\(group)\" without being a member; add them."
    }
  }
}

extension FakeBackend {
  /// Loads `seed` through the engine's own operations (validating nicknames and texts like the
  /// server, notifying like the server), at past times relative to now; returns the new ids.
  /// A seed that fails loads nothing.
  @discardableResult
  public func seed(_ seed: Seed) throws -> SeededData {
    let now = engine.now
    let today = engine.today
    var data = SeededData(users: [:], questions: [], posts: [], comments: [:], groups: [])
    try engine.inOneTransaction(startingAt: now) { travel in
      try withoutActuallyEscaping(travel) { travel in
        try SeedLoader(engine: engine, now: now, today: today, travel: travel).load(
          seed, into: &data)
      }
    }
    return data
  }

  /// A new client signed in as the seeded or created user with `nickname`.
  public func client(forNickname nickname: String) throws -> FakeClient {
    guard let user = user(named: nickname) else { throw DomainError.notFound }
    return try client(signedInAs: user.id)
  }
}

/// Loads a ``Seed`` inside one engine transaction.
private struct SeedLoader {
  let engine: ServiceEngine
  let now: Date
  let today: CalendarDay
  let travel: (Date) -> Void

  /// Runs `operation` as if at `date` (never later than now).
  func at<T>(_ date: Date, _ operation: () throws -> T) rethrows -> T {
    travel(min(date, now))
    return try operation()
  }

  func load(_ seed: Seed, into data: inout SeededData) throws {
    var viewers: [String: Viewer] = [:]
    for user in seed.users {
      let viewer = try at(now.addingTimeInterval(-86_400 * 60)) {
        try engine.createUser(nickname: user.nickname, role: user.role, cohort: user.cohort)
      }
      viewers[user.nickname] = viewer
      data.users[user.nickname] = viewer.id
    }
    func viewer(_ nickname: String) throws -> Viewer {
      if let viewer = viewers[nickname] { return viewer }
      guard let user = try engine.user(named: nickname) else {
        throw SeedError.unknownUser(nickname)
      }
      return try engine.viewer(user.id)
    }
    for question in seed.questions {
      let day = today.adding(days: question.dayOffset)
      // Today's question is created on its day, so it is announced; others a month ago.
      let created = question.dayOffset == 0 ? startOfDay(day) : now.addingTimeInterval(-86_400 * 30)
      let scheduled = try at(created) {
        try engine.createQuestion(
          QuestionDraft(content: question.content, publishDate: day), as: .system)
      }
      data.questions.append(scheduled.id)
      let published = min(now, startOfDay(day))
      for (offset, answer) in question.answers.enumerated() {
        let author = try viewer(answer.author)
        _ = try at(published.addingTimeInterval(Double(offset + 1) * 600)) {
          try engine.submitAnswer(to: scheduled.id, content: answer.content, as: author)
        }
      }
    }
    for post in seed.posts {
      let createdAt = now.addingTimeInterval(-Double(post.minutesAgo) * 60)
      let created = try at(createdAt) {
        try engine.createPost(
          PostDraft(content: post.content, isAnonymous: post.isAnonymous),
          as: try viewer(post.author))
      }
      for liker in post.likedBy {
        _ = try at(createdAt.addingTimeInterval(30)) {
          try engine.setPostLike(created.id, isLiked: true, as: try viewer(liker))
        }
      }
      var commentIDs: [Comment.ID] = []
      for (offset, comment) in post.comments.enumerated() {
        let time = createdAt.addingTimeInterval(Double(offset + 1) * 60)
        let made = try at(time) {
          try engine.createComment(
            on: created.id,
            CommentDraft(content: comment.content, isAnonymous: comment.isAnonymous),
            as: try viewer(comment.author))
        }
        for liker in comment.likedBy {
          _ = try at(time.addingTimeInterval(30)) {
            try engine.setCommentLike(made.id, isLiked: true, as: try viewer(liker))
          }
        }
        commentIDs.append(made.id)
      }
      data.posts.append(created.id)
      data.comments[created.id] = commentIDs
    }
    for group in seed.groups {
      let createdAt = now.addingTimeInterval(-86_400 * 7)
      let owner = try viewer(group.owner)
      let made = try at(createdAt) {
        try engine.createGroup(
          StudyGroupDraft(name: group.name, description: group.description), as: owner)
      }
      var roster: Set<String> = [owner.id.rawValue]
      for member in group.members {
        let member = try viewer(member)
        _ = try at(createdAt.addingTimeInterval(3_600)) {
          try engine.joinGroup(made.id, as: member)
        }
        roster.insert(member.id.rawValue)
      }
      let room = try engine.chatRooms(PageRequest(limit: 100), as: owner).items.first {
        $0.kind == .group(made.id)
      }
      for (offset, message) in group.messages.enumerated() {
        let sender = try viewer(message.sender)
        guard roster.contains(sender.id.rawValue), let room else {
          throw SeedError.notAMember(message.sender, group: group.name)
        }
        _ = try at(now.addingTimeInterval(-Double(group.messages.count - offset) * 300)) {
          try engine.sendMessage(message.text, to: room.id, clientMessageID: UUID(), as: sender)
        }
      }
      data.groups.append(made.id)
    }
  }

  /// Midnight of `day` in the engine's time zone.
  func startOfDay(_ day: CalendarDay) -> Date {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = engine.configuration.timeZone
    let components = DateComponents(year: day.year, month: day.month, day: day.day)
    return calendar.date(from: components) ?? now
  }
}
