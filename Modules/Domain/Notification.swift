import Foundation

/// A place in the app a notification or an app-scheme link opens (`qapple://...`).
/// Navigation is state, so following a link means building that state.
public enum DeepLink: Hashable, Sendable {
  /// Today's question.
  case today
  /// A daily question and its answers.
  case question(Question.ID)
  /// A post.
  case post(BoardPost.ID)
  /// A comment, shown inside its post.
  case comment(post: BoardPost.ID, comment: Comment.ID)
  /// A study group.
  case group(StudyGroup.ID)
  /// A chat room.
  case chatRoom(ChatRoom.ID)
  /// The notification list.
  case notifications

  /// The URL scheme of the app.
  public static let scheme = "qapple"

  /// The link as a `qapple://` URL; identifiers are percent-encoded.
  public var url: URL {
    let path: String
    switch self {
    case .today: path = "today"
    case .question(let id): path = "questions/\(Self.encode(id.rawValue))"
    case .post(let id): path = "posts/\(Self.encode(id.rawValue))"
    case .comment(let post, let comment):
      path = "posts/\(Self.encode(post.rawValue))/comments/\(Self.encode(comment.rawValue))"
    case .group(let id): path = "groups/\(Self.encode(id.rawValue))"
    case .chatRoom(let id): path = "chat/\(Self.encode(id.rawValue))"
    case .notifications: path = "notifications"
    }
    return URL(string: "\(Self.scheme)://\(path)")!
  }

  /// The longest link (in UTF-8 bytes) that is read at all; longer ones are refused unread.
  public static let maximumLength = 2_048
  /// The longest identifier a link may carry, in characters.
  public static let maximumIdentifierLength = 100

  /// Parses a `qapple://` link, or an `https://` universal link whose host is one of
  /// `universalLinkHosts` (e.g. `https://qapple.app/posts/p_1`); throws ``DeepLinkError`` saying
  /// why a link is not understood. Nothing is opened for a refused link.
  ///
  /// Places: `today`, `notifications`, `questions/ID`, `posts/ID` (also `board/posts/ID`),
  /// `posts/ID/comments/ID` (also under `board/`), `groups/ID`, `chat/ID`. Identifiers are
  /// percent-decoded and must be 1-100 letters, digits or `_-.:~` (so `..`, `/`, spaces and
  /// control characters never reach a repository).
  public init(url: URL, universalLinkHosts: Set<String> = []) throws(DeepLinkError) {
    let text = url.absoluteString
    guard text.utf8.count <= Self.maximumLength else { throw .tooLong(text.utf8.count) }
    let pathPart: String
    switch url.scheme?.lowercased() {
    case Self.scheme:
      // Everything after "qapple:" and an optional "//", up to a query or fragment, so that
      // "qapple:today" and "qapple://today#top" are read like "qapple://today".
      var rest = text.dropFirst(Self.scheme.count + 1)
      if rest.hasPrefix("//") { rest = rest.dropFirst(2) }
      pathPart = String(rest.prefix { $0 != "?" && $0 != "#" })
    case "https" where !universalLinkHosts.isEmpty:
      let host = url.host?.lowercased() ?? ""
      guard universalLinkHosts.contains(host) else { throw .unknownHost(host) }
      var path = url.path(percentEncoded: true)
      if path.hasPrefix("/") { path.removeFirst() }
      pathPart = path
    default:
      throw .unsupportedScheme(url.scheme ?? "")
    }
    var segments = pathPart.split(separator: "/").map(String.init)
    if segments.first == "board", segments.dropFirst().first == "posts" {
      segments.removeFirst()
    }
    func id<Entity>(_ index: Int) throws(DeepLinkError) -> Identifier<Entity> {
      let raw = segments[index]
      guard let decoded = raw.removingPercentEncoding, Self.isValidIdentifier(decoded) else {
        throw .invalidIdentifier(String(raw.prefix(Self.maximumIdentifierLength)))
      }
      return Identifier(decoded)
    }
    switch segments.count {
    case 1 where segments[0] == "today": self = .today
    case 1 where segments[0] == "notifications": self = .notifications
    case 2 where segments[0] == "questions": self = .question(try id(1))
    case 2 where segments[0] == "posts": self = .post(try id(1))
    case 4 where segments[0] == "posts" && segments[2] == "comments":
      self = .comment(post: try id(1), comment: try id(3))
    case 2 where segments[0] == "groups": self = .group(try id(1))
    case 2 where segments[0] == "chat": self = .chatRoom(try id(1))
    default: throw .unknownPath(String(pathPart.prefix(200)))
    }
  }

  /// Whether `text` may be an identifier in a link: 1-100 letters, digits or `_-.:~`, and not
  /// `.` or `..`.
  static func isValidIdentifier(_ text: String) -> Bool {
    guard (1...maximumIdentifierLength).contains(text.count), text != ".", text != ".." else {
      return false
    }
    return text.unicodeScalars.allSatisfy {
      $0.properties.isAlphabetic || $0.properties.numericType == .decimal
        || "_-.:~".unicodeScalars.contains($0)
    }
  }

  private static func encode(_ segment: String) -> String {
    // RFC 3986 unreserved characters only: `CharacterSet.alphanumerics` also holds non-ASCII
    // letters (Hangul), which must be percent-encoded too.
    segment.addingPercentEncoding(withAllowedCharacters: unreserved) ?? segment
  }

  private static let unreserved = CharacterSet(
    charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}

/// Why a link could not be opened.
public enum DeepLinkError: Error, Hashable, Sendable, CustomStringConvertible {
  /// Not a `qapple://` link.
  case unsupportedScheme(String)
  /// A `qapple://` link to a place this version does not know.
  case unknownPath(String)
  /// A universal link to a host that is not the app's.
  case unknownHost(String)
  /// An identifier in the link that no real item has (empty, too long, `..`, `/`, spaces or
  /// control characters); carries the identifier as written (at most 100 characters).
  case invalidIdentifier(String)
  /// A link longer than ``DeepLink/maximumLength`` bytes; carries its length.
  case tooLong(Int)

  /// What went wrong.
  public var description: String {
    switch self {
    case .unsupportedScheme(let scheme):
      "Links with the scheme \"\(scheme)\" are not Qapple links."
    case .unknownPath(let path):
      "The link qapple://\(path) points nowhere this version knows; update the app."
    case .unknownHost(let host):
      "Links to \"\(host)\" are not Qapple links."
    case .invalidIdentifier(let id):
      "The link names \"\(id)\", which is not an identifier of anything in Qapple."
    case .tooLong(let length):
      "The link is \(length) bytes long; links longer than \(DeepLink.maximumLength) are not opened."
    }
  }
}

/// What a notification is about, with the identifiers needed to open it.
public enum NotificationKind: Hashable, Sendable {
  /// Someone commented on my post.
  case commentOnMyPost(post: BoardPost.ID, comment: Comment.ID)
  /// Someone replied under a post where I commented.
  case replyToMyComment(post: BoardPost.ID, comment: Comment.ID)
  /// Someone liked my post.
  case likeOnMyPost(post: BoardPost.ID)
  /// Someone liked my comment.
  case likeOnMyComment(post: BoardPost.ID, comment: Comment.ID)
  /// A new daily question is out.
  case newQuestion(Question.ID)
  /// I was invited to a study group.
  case groupInvite(StudyGroup.ID)
  /// A new message in a group or direct chat.
  case groupMessage(ChatRoom.ID)
  /// A report I filed was resolved.
  case reportResolved
  /// A kind this SDK version does not know; shown as plain text without a link.
  case unknown(String)

  /// The kind without its identifiers, named as on the wire and in storage.
  public enum Code: String, CaseIterable, Hashable, Sendable {
    /// ``NotificationKind/commentOnMyPost(post:comment:)``.
    case commentOnMyPost = "comment_on_my_post"
    /// ``NotificationKind/replyToMyComment(post:comment:)``.
    case replyToMyComment = "reply_to_my_comment"
    /// ``NotificationKind/likeOnMyPost(post:)``.
    case likeOnMyPost = "like_on_my_post"
    /// ``NotificationKind/likeOnMyComment(post:comment:)``.
    case likeOnMyComment = "like_on_my_comment"
    /// ``NotificationKind/newQuestion(_:)``.
    case newQuestion = "new_question"
    /// ``NotificationKind/groupInvite(_:)``.
    case groupInvite = "group_invite"
    /// ``NotificationKind/groupMessage(_:)``.
    case groupMessage = "group_message"
    /// ``NotificationKind/reportResolved``.
    case reportResolved = "report_resolved"
  }

  /// The kind's code, or `nil` for ``unknown(_:)``.
  public var code: Code? {
    switch self {
    case .commentOnMyPost: .commentOnMyPost
    case .replyToMyComment: .replyToMyComment
    case .likeOnMyPost: .likeOnMyPost
    case .likeOnMyComment: .likeOnMyComment
    case .newQuestion: .newQuestion
    case .groupInvite: .groupInvite
    case .groupMessage: .groupMessage
    case .reportResolved: .reportResolved
    case .unknown: nil
    }
  }

  /// Where tapping the notification goes, or `nil` when it only informs.
  public var deepLink: DeepLink? {
    switch self {
    case .commentOnMyPost(let post, let comment), .replyToMyComment(let post, let comment),
      .likeOnMyComment(let post, let comment):
      .comment(post: post, comment: comment)
    case .likeOnMyPost(let post): .post(post)
    case .newQuestion(let question): .question(question)
    case .groupInvite(let group): .group(group)
    case .groupMessage(let room): .chatRoom(room)
    case .reportResolved: .notifications
    case .unknown: nil
    }
  }
}

/// A notification in the user's inbox (named so it does not clash with Foundation's).
public struct AppNotification: Identifiable, Hashable, Sendable {
  /// The typed identifier of a notification.
  public typealias ID = Identifier<AppNotification>

  /// The notification's identifier.
  public var id: ID
  /// What it is about.
  public var kind: NotificationKind
  /// The text to show.
  public var message: String
  /// Whether the user has seen it.
  public var isRead: Bool
  /// When it was created.
  public var createdAt: Date

  /// Creates a notification.
  public init(id: ID, kind: NotificationKind, message: String, isRead: Bool, createdAt: Date) {
    self.id = id
    self.kind = kind
    self.message = message
    self.isRead = isRead
    self.createdAt = createdAt
  }

  /// Where tapping it goes.
  public var deepLink: DeepLink? { kind.deepLink }
}
