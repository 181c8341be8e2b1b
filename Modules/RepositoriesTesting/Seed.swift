import Domain
import Foundation

/// Data to load into a ``FakeBackend`` in one go: people refer to each other by nickname, times
/// are relative to the backend's clock, days relative to its "today".
///
/// Seeding writes straight into the tables: it sends no notifications for the history it
/// creates, except `new_question` for today's question (to every account, as the server's demo
/// seed does).
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
  /// Loads `seed` (validating nicknames and texts like the server) and returns the new ids;
  /// a seed that fails loads nothing.
  @discardableResult
  public func seed(_ seed: Seed) throws -> SeededData {
    let date = now()
    return try state.withLock { state in
      var copy = state
      copy.now = date
      let data = try copy.load(seed)
      state = copy
      return data
    }
  }

  /// A new client signed in as the seeded or created user with `nickname`.
  public func client(forNickname nickname: String) throws -> FakeClient {
    guard let user = user(named: nickname) else { throw DomainError.notFound }
    return try client(signedInAs: user.id)
  }
}

extension BackendState {
  mutating func load(_ seed: Seed) throws -> SeededData {
    var data = SeededData(users: [:], questions: [], posts: [], comments: [:], groups: [])
    for user in seed.users {
      let nickname = try validating { () throws(ValidationError) in
        try Nickname(validating: user.nickname)
      }
      guard !isNicknameTaken(nickname.rawValue) else { throw DomainError.nicknameTaken }
      let record = insertUser(
        nickname: nickname.rawValue, role: user.role,
        cohort: try Self.validCohort(user.cohort),
        providerKey: Self.providerKey(.dev, user.nickname))
      data.users[user.nickname] = record.id
    }
    func id(_ nickname: String) throws -> User.ID {
      if let id = data.users[nickname] { return id }
      let folded = nickname.lowercased()
      if let user = users.values.first(where: { $0.nickname.lowercased() == folded }) {
        return user.id
      }
      throw SeedError.unknownUser(nickname)
    }
    for question in seed.questions {
      let draft = try validating { () throws(ValidationError) in
        try QuestionDraft(
          content: question.content, publishDate: today.adding(days: question.dayOffset)
        )
        .validated()
      }
      guard !isDayTaken(draft.publishDate) else { throw Self.dayTaken(draft.publishDate) }
      let record = QuestionRecord(
        id: makeID("q"), content: draft.content, publishDate: draft.publishDate,
        createdAt: now.addingTimeInterval(-86_400 * 30), order: nextOrder())
      questions[record.id] = record
      if record.publishDate == today { announce(record) }
      data.questions.append(record.id)
      for (offset, answer) in question.answers.enumerated() {
        let text = try validating { () throws(ValidationError) in
          try Answer.validate(content: answer.content)
        }
        let author = try id(answer.author)
        let publishedAt = min(now, Self.startOfDay(draft.publishDate, in: timeZone))
        let record = AnswerRecord(
          id: makeID("a"), questionID: record.id, authorID: author, content: text,
          createdAt: publishedAt.addingTimeInterval(Double(offset + 1) * 600), order: nextOrder())
        answers[record.id] = record
      }
    }
    for post in seed.posts {
      let draft = try validating { () throws(ValidationError) in
        try PostDraft(content: post.content, isAnonymous: post.isAnonymous).validated()
      }
      let createdAt = now.addingTimeInterval(-Double(post.minutesAgo) * 60)
      var record = PostRecord(
        id: makeID("p"), authorID: try id(post.author), content: draft.content,
        isAnonymous: draft.isAnonymous, createdAt: createdAt, order: nextOrder())
      record.likes = Set(try post.likedBy.map(id))
      var commentIDs: [Comment.ID] = []
      for (offset, comment) in post.comments.enumerated() {
        let draft = try validating { () throws(ValidationError) in
          try CommentDraft(content: comment.content, isAnonymous: comment.isAnonymous).validated()
        }
        let author = try id(comment.author)
        if draft.isAnonymous, record.anonymousOrdinals[author] == nil {
          record.anonymousOrdinals[author] = record.anonymousOrdinals.count + 1
        }
        var commentRecord = CommentRecord(
          id: makeID("c"), postID: record.id, authorID: author, content: draft.content,
          isAnonymous: draft.isAnonymous,
          createdAt: min(now, createdAt.addingTimeInterval(Double(offset + 1) * 60)),
          order: nextOrder())
        commentRecord.likes = Set(try comment.likedBy.map(id))
        comments[commentRecord.id] = commentRecord
        commentIDs.append(commentRecord.id)
      }
      posts[record.id] = record
      data.posts.append(record.id)
      data.comments[record.id] = commentIDs
    }
    for group in seed.groups {
      let draft = try validating { () throws(ValidationError) in
        try StudyGroupDraft(name: group.name, description: group.description).validated()
      }
      let owner = try id(group.owner)
      let groupID: StudyGroup.ID = makeID("g")
      let createdAt = now.addingTimeInterval(-86_400 * 7)
      var record = GroupRecord(
        id: groupID, name: draft.name, description: draft.description, ownerID: owner,
        createdAt: createdAt, order: nextOrder(), roomID: ChatRoom.ID("room_\(groupID.rawValue)"))
      record.members[owner] = (createdAt, nextOrder())
      for member in group.members {
        record.members[try id(member)] = (createdAt.addingTimeInterval(3_600), nextOrder())
      }
      var room = RoomRecord(
        id: record.roomID, kind: .group(groupID), createdAt: createdAt, order: nextOrder())
      for (offset, message) in group.messages.enumerated() {
        let text = try validating { () throws(ValidationError) in
          try ChatMessage.validate(text: message.text)
        }
        let sender = try id(message.sender)
        guard record.members[sender] != nil else {
          throw SeedError.notAMember(message.sender, group: group.name)
        }
        room.lastSeq += 1
        room.messages.append(
          MessageRecord(
            id: makeID("m"), roomID: room.id, seq: room.lastSeq, clientMessageID: UUID(),
            senderID: sender, text: text,
            createdAt: now.addingTimeInterval(-Double(group.messages.count - offset) * 300)))
      }
      groups[groupID] = record
      rooms[room.id] = room
      data.groups.append(groupID)
    }
    return data
  }

  /// Midnight of `day` in `timeZone`.
  static func startOfDay(_ day: CalendarDay, in timeZone: TimeZone) -> Date {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = timeZone
    let components = DateComponents(year: day.year, month: day.month, day: day.day)
    return calendar.date(from: components) ?? Date(timeIntervalSince1970: 0)
  }
}
