import Domain
import Foundation

// The `--json` schema of the member tool. These types are the tools' contract with scripts:
// they change only by adding fields. They are built from Domain values, never from wire types.

/// A page of a listing: `{"items": [...], "next_cursor": "..." | null}`.
public struct ListOutput<Item: Codable & Sendable>: Codable, Sendable {
  /// The items, in the server's order.
  public var items: [Item]
  /// Pass to `--cursor` for the next page; `null` on the last page.
  public var nextCursor: String?

  /// Creates a page.
  public init(items: [Item], nextCursor: String?) {
    self.items = items
    self.nextCursor = nextCursor
  }

  /// A Domain page with each element turned into its output.
  public init<Element>(_ page: Page<Element>, _ transform: (Element) -> Item) {
    self.init(items: page.items.map(transform), nextCursor: page.nextCursor?.rawValue)
  }

  enum CodingKeys: String, CodingKey {
    case items
    case nextCursor = "next_cursor"
  }

  /// Writes `next_cursor` as `null` on the last page.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(items, forKey: .items)
    try container.encode(nextCursor, forKey: .nextCursor)
  }
}

/// A user: `qapple profile`, `qapple status`, `qapple signin`.
public struct UserOutput: Codable, Hashable, Sendable {
  /// The user id.
  public var id: String
  /// The nickname.
  public var nickname: String
  /// `member` or `admin` (or a role this version does not know).
  public var role: String
  /// The cohort, or `null`.
  public var cohort: String?
  /// When the account was created.
  public var joinedAt: Date
  /// How many daily questions the user answered.
  public var answerCount: Int
  /// Whether the user is banned from writing.
  public var isBanned: Bool

  /// The output of `user`.
  public init(_ user: User) {
    id = user.id.rawValue
    nickname = user.nickname.rawValue
    role = user.role.name
    cohort = user.cohort
    joinedAt = user.joinedAt
    answerCount = user.answerCount
    isBanned = user.isBanned
  }

  enum CodingKeys: String, CodingKey {
    case id, nickname, role, cohort
    case joinedAt = "joined_at"
    case answerCount = "answer_count"
    case isBanned = "is_banned"
  }

  /// Writes every key, `cohort` as `null` when unset.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(id, forKey: .id)
    try container.encode(nickname, forKey: .nickname)
    try container.encode(role, forKey: .role)
    try container.encode(cohort, forKey: .cohort)
    try container.encode(joinedAt, forKey: .joinedAt)
    try container.encode(answerCount, forKey: .answerCount)
    try container.encode(isBanned, forKey: .isBanned)
  }
}

/// Step 1 of `qapple signup`: where the code went and until when it works.
public struct EmailCodeOutput: Codable, Hashable, Sendable {
  /// The address the code was sent to.
  public var email: String
  /// When the code stops working.
  public var codeExpiresAt: Date

  /// Creates the output.
  public init(email: String, codeExpiresAt: Date) {
    self.email = email
    self.codeExpiresAt = codeExpiresAt
  }

  enum CodingKeys: String, CodingKey {
    case email
    case codeExpiresAt = "code_expires_at"
  }
}

/// Who is signed in where: `qapple status`.
public struct SessionOutput: Codable, Hashable, Sendable {
  /// The server, `local` for the embedded one, else its URL.
  public var server: String
  /// `signed_in` or `signed_out`.
  public var state: String
  /// The signed-in user, or `null`.
  public var user: UserOutput?

  /// Creates the output.
  public init(server: String, state: String, user: UserOutput?) {
    self.server = server
    self.state = state
    self.user = user
  }

  enum CodingKeys: String, CodingKey {
    case server, state, user
  }

  /// Writes every key, `user` as `null` when signed out.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(server, forKey: .server)
    try container.encode(state, forKey: .state)
    try container.encode(user, forKey: .user)
  }
}

/// An answer to a daily question.
public struct AnswerOutput: Codable, Hashable, Sendable {
  /// The answer id (report it as `answer:<id>`).
  public var id: String
  /// The question it answers.
  public var questionID: String
  /// The text.
  public var content: String
  /// The author's nickname.
  public var authorNickname: String
  /// Whether the signed-in user wrote it.
  public var isMine: Bool
  /// When it was written.
  public var createdAt: Date

  /// The output of `answer`.
  public init(_ answer: Answer) {
    id = answer.id.rawValue
    questionID = answer.questionID.rawValue
    content = answer.content
    authorNickname = answer.authorNickname
    isMine = answer.isMine
    createdAt = answer.createdAt
  }

  enum CodingKeys: String, CodingKey {
    case id, content
    case questionID = "question_id"
    case authorNickname = "author_nickname"
    case isMine = "is_mine"
    case createdAt = "created_at"
  }
}

/// A daily question: `qapple today`.
public struct QuestionOutput: Codable, Hashable, Sendable {
  /// The question id.
  public var id: String
  /// The question.
  public var content: String
  /// Its day, `YYYY-MM-DD`.
  public var publishDate: String
  /// How many answers it has.
  public var answerCount: Int
  /// The signed-in user's answer, or `null`.
  public var myAnswer: AnswerOutput?

  /// The output of `question`.
  public init(_ question: Question) {
    id = question.id.rawValue
    content = question.content
    publishDate = question.publishDate.iso8601
    answerCount = question.answerCount
    myAnswer = question.myAnswer.map(AnswerOutput.init)
  }

  enum CodingKeys: String, CodingKey {
    case id, content
    case publishDate = "publish_date"
    case answerCount = "answer_count"
    case myAnswer = "my_answer"
  }

  /// Writes every key, `my_answer` as `null` when not answered.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(id, forKey: .id)
    try container.encode(content, forKey: .content)
    try container.encode(publishDate, forKey: .publishDate)
    try container.encode(answerCount, forKey: .answerCount)
    try container.encode(myAnswer, forKey: .myAnswer)
  }
}

/// A bulletin-board post.
public struct PostOutput: Codable, Hashable, Sendable {
  /// The post id (`board show <id>`, `report post:<id>`).
  public var id: String
  /// The text.
  public var content: String
  /// Whether the author is hidden.
  public var isAnonymous: Bool
  /// The nickname, or `Anonymous`.
  public var authorName: String
  /// Whether the signed-in user wrote it.
  public var isMine: Bool
  /// Likes.
  public var likeCount: Int
  /// Whether the signed-in user liked it.
  public var isLiked: Bool
  /// Comments.
  public var commentCount: Int
  /// When it was posted.
  public var createdAt: Date

  /// The output of `post`.
  public init(_ post: BoardPost) {
    id = post.id.rawValue
    content = post.content
    isAnonymous = post.isAnonymous
    authorName = post.authorName
    isMine = post.isMine
    likeCount = post.likeCount
    isLiked = post.isLiked
    commentCount = post.commentCount
    createdAt = post.createdAt
  }

  enum CodingKeys: String, CodingKey {
    case id, content
    case isAnonymous = "is_anonymous"
    case authorName = "author_name"
    case isMine = "is_mine"
    case likeCount = "like_count"
    case isLiked = "is_liked"
    case commentCount = "comment_count"
    case createdAt = "created_at"
  }
}

/// A comment on a post.
public struct CommentOutput: Codable, Hashable, Sendable {
  /// The comment id (`board like --comment <id>`, `report comment:<id>`).
  public var id: String
  /// The post it belongs to.
  public var postID: String
  /// The text.
  public var content: String
  /// Whether the author is hidden.
  public var isAnonymous: Bool
  /// The nickname, or `Anonymous N` (stable per post).
  public var authorName: String
  /// Whether the signed-in user wrote it.
  public var isMine: Bool
  /// Likes.
  public var likeCount: Int
  /// Whether the signed-in user liked it.
  public var isLiked: Bool
  /// When it was written.
  public var createdAt: Date

  /// The output of `comment`.
  public init(_ comment: Comment) {
    id = comment.id.rawValue
    postID = comment.postID.rawValue
    content = comment.content
    isAnonymous = comment.isAnonymous
    authorName = comment.authorName
    isMine = comment.isMine
    likeCount = comment.likeCount
    isLiked = comment.isLiked
    createdAt = comment.createdAt
  }

  enum CodingKeys: String, CodingKey {
    case id, content
    case postID = "post_id"
    case isAnonymous = "is_anonymous"
    case authorName = "author_name"
    case isMine = "is_mine"
    case likeCount = "like_count"
    case isLiked = "is_liked"
    case createdAt = "created_at"
  }
}

/// A post with its comments: `qapple board show`.
public struct PostDetailOutput: Codable, Sendable {
  /// The post.
  public var post: PostOutput
  /// The first page of comments, oldest first.
  public var comments: ListOutput<CommentOutput>

  /// Creates the output.
  public init(post: PostOutput, comments: ListOutput<CommentOutput>) {
    self.post = post
    self.comments = comments
  }
}

/// A like or unlike: `qapple board like`.
public struct LikeOutput: Codable, Hashable, Sendable {
  /// What was liked, `post:<id>` or `comment:<id>`.
  public var target: String
  /// Whether it is liked now.
  public var isLiked: Bool
  /// Its likes now.
  public var likeCount: Int

  /// Creates the output.
  public init(target: String, state: LikeState) {
    self.target = target
    isLiked = state.isLiked
    likeCount = state.likeCount
  }

  enum CodingKeys: String, CodingKey {
    case target
    case isLiked = "is_liked"
    case likeCount = "like_count"
  }
}

/// A filed report: `qapple report`, and each report of an admin's case.
public struct ReportOutput: Codable, Hashable, Sendable {
  /// The report id.
  public var id: String
  /// What was reported, `kind:id`.
  public var target: String
  /// The reason code (`spam`, ..., `other`).
  public var reason: String
  /// The text of `other`, else `null`.
  public var detail: String?
  /// `open` or `resolved`.
  public var status: String
  /// When it was filed.
  public var createdAt: Date

  /// The output of `report`.
  public init(_ report: Report) {
    id = report.id.rawValue
    target = report.target.description
    reason = report.reason.code.rawValue
    detail = report.reason.detail
    status = report.status.rawValue
    createdAt = report.createdAt
  }

  enum CodingKeys: String, CodingKey {
    case id, target, reason, detail, status
    case createdAt = "created_at"
  }

  /// Writes every key, `detail` as `null` unless the reason is `other`.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(id, forKey: .id)
    try container.encode(target, forKey: .target)
    try container.encode(reason, forKey: .reason)
    try container.encode(detail, forKey: .detail)
    try container.encode(status, forKey: .status)
    try container.encode(createdAt, forKey: .createdAt)
  }
}

/// A notification.
public struct NotificationOutput: Codable, Hashable, Sendable {
  /// The notification id.
  public var id: String
  /// `comment_on_my_post`, `reply_to_my_comment`, `like_on_my_post`, `like_on_my_comment`,
  /// `new_question`, `group_invite`, `group_message`, `report_resolved`, or an unknown kind.
  public var kind: String
  /// The text.
  public var message: String
  /// Whether it was read.
  public var isRead: Bool
  /// The `qapple://` link it opens, or `null`.
  public var link: String?
  /// When it arrived.
  public var createdAt: Date

  /// The output of `notification`.
  public init(_ notification: AppNotification) {
    id = notification.id.rawValue
    kind = notification.kind.outputName
    message = notification.message
    isRead = notification.isRead
    link = notification.deepLink?.url.absoluteString
    createdAt = notification.createdAt
  }

  enum CodingKeys: String, CodingKey {
    case id, kind, message, link
    case isRead = "is_read"
    case createdAt = "created_at"
  }

  /// Writes every key, `link` as `null` when there is none.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(id, forKey: .id)
    try container.encode(kind, forKey: .kind)
    try container.encode(message, forKey: .message)
    try container.encode(isRead, forKey: .isRead)
    try container.encode(link, forKey: .link)
    try container.encode(createdAt, forKey: .createdAt)
  }
}

/// The notification inbox: `qapple notifications`.
public struct NotificationListOutput: Codable, Sendable {
  /// The notifications, newest first.
  public var items: [NotificationOutput]
  /// Pass to `--cursor` for the next page; `null` on the last page.
  public var nextCursor: String?
  /// How many are unread (after `--read-all`: 0).
  public var unreadCount: Int

  /// Creates the output.
  public init(items: [NotificationOutput], nextCursor: String?, unreadCount: Int) {
    self.items = items
    self.nextCursor = nextCursor
    self.unreadCount = unreadCount
  }

  enum CodingKeys: String, CodingKey {
    case items
    case nextCursor = "next_cursor"
    case unreadCount = "unread_count"
  }

  /// Writes every key, `next_cursor` as `null` on the last page.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(items, forKey: .items)
    try container.encode(nextCursor, forKey: .nextCursor)
    try container.encode(unreadCount, forKey: .unreadCount)
  }
}

/// Who someone is, in lists.
public struct UserSummaryOutput: Codable, Hashable, Sendable {
  /// The user id.
  public var id: String
  /// The nickname.
  public var nickname: String

  /// The output of `summary`.
  public init(_ summary: UserSummary) {
    id = summary.id.rawValue
    nickname = summary.nickname
  }
}

/// A study group: `qapple groups list`.
public struct GroupOutput: Codable, Hashable, Sendable {
  /// The group id (`groups join <id>`).
  public var id: String
  /// The name.
  public var name: String
  /// The description.
  public var description: String
  /// The owner.
  public var owner: UserSummaryOutput
  /// Members, owner included.
  public var memberCount: Int
  /// Whether the signed-in user is a member.
  public var isMember: Bool
  /// When it was created.
  public var createdAt: Date

  /// The output of `group`.
  public init(_ group: StudyGroup) {
    id = group.id.rawValue
    name = group.name
    description = group.description
    owner = UserSummaryOutput(group.owner)
    memberCount = group.memberCount
    isMember = group.isMember
    createdAt = group.createdAt
  }

  enum CodingKeys: String, CodingKey {
    case id, name, description, owner
    case memberCount = "member_count"
    case isMember = "is_member"
    case createdAt = "created_at"
  }
}

/// A member of a study group: `qapple groups members`.
public struct GroupMemberOutput: Codable, Hashable, Sendable {
  /// The member.
  public var user: UserSummaryOutput
  /// `owner` or `member` (or a role this version does not know).
  public var role: String
  /// When they joined.
  public var joinedAt: Date

  /// The output of `member`.
  public init(_ member: GroupMember) {
    user = UserSummaryOutput(member.user)
    switch member.role {
    case .owner: role = "owner"
    case .member: role = "member"
    case .unknown(let name): role = name
    }
    joinedAt = member.joinedAt
  }

  enum CodingKeys: String, CodingKey {
    case user, role
    case joinedAt = "joined_at"
  }
}

extension UserRole {
  /// The role's wire name.
  var name: String {
    switch self {
    case .member: "member"
    case .admin: "admin"
    case .unknown(let name): name
    }
  }
}

extension NotificationKind {
  /// The kind's wire name, as `--json` prints it (`comment_on_my_post`, ...).
  public var outputName: String {
    if case .unknown(let name) = self { return name }
    return code?.rawValue ?? ""
  }

}

/// Where `qapple open URL` landed and what the screen shows:
/// `{"link": "qapple://posts/p_3", "tab": "board", "screen": "post", "content": {...}}`.
public struct OpenOutput<Content: Codable & Sendable>: Codable, Sendable {
  /// The link as the app understood it (`qapple://...`).
  public var link: String
  /// The tab it selected: `today`, `board`, `groups` or `profile`.
  public var tab: String
  /// The screen on top: `today`, `question`, `post`, `group`, `chat_room`, `notifications`.
  public var screen: String
  /// What the screen shows (a `PostDetailOutput` for a post, and so on).
  public var content: Content

  /// Creates the output.
  public init(link: String, tab: String, screen: String, content: Content) {
    self.link = link
    self.tab = tab
    self.screen = screen
    self.content = content
  }
}

/// A question's screen: `qapple open qapple://questions/ID`.
public struct QuestionScreenOutput: Codable, Sendable {
  /// The question (with the user's answer).
  public var question: QuestionOutput
  /// The answers loaded, empty while locked.
  public var answers: [AnswerOutput]
  /// `true` until the user answered: the answers stay hidden.
  public var locked: Bool

  /// Creates the output.
  public init(question: QuestionOutput, answers: [AnswerOutput], locked: Bool) {
    self.question = question
    self.answers = answers
    self.locked = locked
  }
}

/// A group's screen: `qapple open qapple://groups/ID`.
public struct GroupScreenOutput: Codable, Sendable {
  /// The group.
  public var group: GroupOutput
  /// The members loaded.
  public var members: [GroupMemberOutput]

  /// Creates the output.
  public init(group: GroupOutput, members: [GroupMemberOutput]) {
    self.group = group
    self.members = members
  }
}

/// A chat room's screen: `qapple open qapple://chat/ID`.
public struct ChatScreenOutput: Codable, Sendable {
  /// The room id.
  public var room: String
  /// The group name or the other person's nickname.
  public var title: String?
  /// The messages, oldest first, each as `qapple chat open` prints it.
  public var messages: [String]

  /// Creates the output.
  public init(room: String, title: String?, messages: [String]) {
    self.room = room
    self.title = title
    self.messages = messages
  }
}

/// A chat message as a listing shows it: a room's newest message in `qapple chat rooms`.
public struct ChatMessageOutput: Codable, Hashable, Sendable {
  /// The message id.
  public var id: String
  /// The server's per-room sequence number; `null` while the message is not sent yet.
  public var seq: Int64?
  /// Who sent it.
  public var sender: UserSummaryOutput
  /// The text.
  public var text: String
  /// When it was created.
  public var createdAt: Date

  /// The output of `message`.
  public init(_ message: ChatMessage) {
    id = message.id.rawValue
    seq = message.seq
    sender = UserSummaryOutput(message.sender)
    text = message.text
    createdAt = message.createdAt
  }

  enum CodingKeys: String, CodingKey {
    case id, seq, sender, text
    case createdAt = "created_at"
  }

  /// Writes every key, `seq` as `null` while unsent.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(id, forKey: .id)
    try container.encode(seq, forKey: .seq)
    try container.encode(sender, forKey: .sender)
    try container.encode(text, forKey: .text)
    try container.encode(createdAt, forKey: .createdAt)
  }
}

/// A chat room: `qapple chat rooms`.
public struct ChatRoomOutput: Codable, Hashable, Sendable {
  /// The room id (`chat open <id>`).
  public var id: String
  /// `group` or `direct`.
  public var kind: String
  /// The study group of a group room; `null` for a direct room.
  public var groupID: String?
  /// The other person's user id in a direct room; `null` for a group room.
  public var peerID: String?
  /// The group name or the other person's nickname.
  public var title: String
  /// Messages the user has not read.
  public var unreadCount: Int
  /// The highest `seq` the user has read.
  public var lastReadSeq: Int64
  /// The newest message, or `null` in a room without messages.
  public var lastMessage: ChatMessageOutput?

  /// The output of `room`.
  public init(_ room: ChatRoom) {
    id = room.id.rawValue
    switch room.kind {
    case .group(let group): (kind, groupID, peerID) = ("group", group.rawValue, nil)
    case .direct(let peer): (kind, groupID, peerID) = ("direct", nil, peer.rawValue)
    }
    title = room.title
    unreadCount = room.unreadCount
    lastReadSeq = room.lastReadSeq
    lastMessage = room.lastMessage.map(ChatMessageOutput.init)
  }

  enum CodingKeys: String, CodingKey {
    case id, kind, title
    case groupID = "group_id"
    case peerID = "peer_id"
    case unreadCount = "unread_count"
    case lastReadSeq = "last_read_seq"
    case lastMessage = "last_message"
  }

  /// Writes every key, `group_id`, `peer_id` and `last_message` as `null` when absent.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(id, forKey: .id)
    try container.encode(kind, forKey: .kind)
    try container.encode(groupID, forKey: .groupID)
    try container.encode(peerID, forKey: .peerID)
    try container.encode(title, forKey: .title)
    try container.encode(unreadCount, forKey: .unreadCount)
    try container.encode(lastReadSeq, forKey: .lastReadSeq)
    try container.encode(lastMessage, forKey: .lastMessage)
  }
}
