import Domain

/// A string enum of the wire that keeps values this SDK version does not know as
/// `.unknown(String)` instead of failing to decode: a server that adds a value must not break
/// every list that contains it. `toDomain()` decides per field whether an unknown value is kept
/// (where Domain has an `unknown` case) or rejected with a ``MappingError``.
///
/// A conforming enum lists its known cases and their wire strings; `init(rawValue:)`,
/// `rawValue`, decoding and encoding come from this protocol. It is deliberately not
/// `RawRepresentable`: the standard library's `==` for raw-representable types compares raw
/// values, which would replace the synthesized `==` that `rawValue` itself relies on.
public protocol OpenStringEnum: Codable, Hashable, Sendable, CustomStringConvertible {
  /// Every known case with its wire string.
  static var wireValues: [(value: Self, wire: String)] { get }
  /// Wraps a wire string this version does not know.
  static func unknown(_ rawValue: String) -> Self
  /// The kept text of `.unknown`, or `nil` for a known case.
  var unknownRawValue: String? { get }
}

extension OpenStringEnum {
  /// The case for a wire string; unknown strings become `.unknown(rawValue)`.
  public init(rawValue: String) { self = Self.resolving(rawValue) }

  /// The wire string of a known case, or the kept text of an unknown one.
  public var rawValue: String {
    if let unknownRawValue { return unknownRawValue }
    for known in Self.wireValues where known.value == self { return known.wire }
    preconditionFailure("\(Self.self).wireValues misses a case")
  }

  /// Whether this is a value this SDK version knows.
  public var isKnown: Bool { unknownRawValue == nil }

  /// The wire string.
  public var description: String { rawValue }

  /// Decodes any string; only a non-string value fails.
  public init(from decoder: any Decoder) throws {
    self = Self.resolving(try decoder.singleValueContainer().decode(String.self))
  }

  /// Looks the wire string up among the few known cases (a linear scan beats hashing here).
  private static func resolving(_ wire: String) -> Self {
    for known in wireValues where known.wire == wire { return known.value }
    return .unknown(wire)
  }

  /// Encodes the wire string.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawValue)
  }
}

/// `User.role`: `member` or `admin`.
public enum UserRoleDTO: OpenStringEnum {
  case member, admin, unknown(String)
  /// The wire strings of the known cases.
  public static let wireValues: [(value: Self, wire: String)] = [
    (.member, "member"), (.admin, "admin"),
  ]
  /// The kept text of `.unknown`.
  public var unknownRawValue: String? { if case .unknown(let text) = self { text } else { nil } }
}

/// `SignInResponse.status`: `signed_in` or `needs_sign_up`.
public enum SignInStatusDTO: OpenStringEnum {
  case signedIn, needsSignUp, unknown(String)
  /// The wire strings of the known cases.
  public static let wireValues: [(value: Self, wire: String)] = [
    (.signedIn, "signed_in"), (.needsSignUp, "needs_sign_up"),
  ]
  /// The kept text of `.unknown`.
  public var unknownRawValue: String? { if case .unknown(let text) = self { text } else { nil } }
}

/// `ReportTargetRef.type`: what kind of thing a report is about.
public enum ReportTargetTypeDTO: OpenStringEnum {
  case answer, post, comment, chatMessage, user, unknown(String)
  /// The wire strings of the known cases.
  public static let wireValues: [(value: Self, wire: String)] = [
    (.answer, "answer"), (.post, "post"), (.comment, "comment"),
    (.chatMessage, "chat_message"), (.user, "user"),
  ]
  /// The kept text of `.unknown`.
  public var unknownRawValue: String? { if case .unknown(let text) = self { text } else { nil } }
}

/// `Report.reason`: why something was reported.
public enum ReportReasonDTO: OpenStringEnum {
  case spam, abuse, obscene, privacy, impersonation, illegal, other, unknown(String)
  /// The wire strings of the known cases.
  public static let wireValues: [(value: Self, wire: String)] = [
    (.spam, "spam"), (.abuse, "abuse"), (.obscene, "obscene"), (.privacy, "privacy"),
    (.impersonation, "impersonation"), (.illegal, "illegal"), (.other, "other"),
  ]
  /// The kept text of `.unknown`.
  public var unknownRawValue: String? { if case .unknown(let text) = self { text } else { nil } }
}

/// `Report.status` and `ReportCase.status`: `open` or `resolved`.
public enum ReportStatusDTO: OpenStringEnum {
  case open, resolved, unknown(String)
  /// The wire strings of the known cases.
  public static let wireValues: [(value: Self, wire: String)] = [
    (.open, "open"), (.resolved, "resolved"),
  ]
  /// The kept text of `.unknown`.
  public var unknownRawValue: String? { if case .unknown(let text) = self { text } else { nil } }
}

/// `ReportCase.resolution`: a moderator's decision.
public enum ReportResolutionDTO: OpenStringEnum {
  case dismiss, hideContent, banAuthor, unknown(String)
  /// The wire strings of the known cases.
  public static let wireValues: [(value: Self, wire: String)] = [
    (.dismiss, "dismiss"), (.hideContent, "hide_content"), (.banAuthor, "ban_author"),
  ]
  /// The kept text of `.unknown`.
  public var unknownRawValue: String? { if case .unknown(let text) = self { text } else { nil } }
}

/// `Notification.kind`: what a notification is about.
public enum NotificationKindDTO: OpenStringEnum {
  case commentOnMyPost, replyToMyComment, likeOnMyPost, likeOnMyComment, newQuestion
  case groupInvite, groupMessage, reportResolved, unknown(String)
  /// The wire strings of the known cases.
  /// Spelled once, by `NotificationKind.Code` in Domain.
  public static let wireValues: [(value: Self, wire: String)] = [
    (.commentOnMyPost, .commentOnMyPost), (.replyToMyComment, .replyToMyComment),
    (.likeOnMyPost, .likeOnMyPost), (.likeOnMyComment, .likeOnMyComment),
    (.newQuestion, .newQuestion), (.groupInvite, .groupInvite),
    (.groupMessage, .groupMessage), (.reportResolved, .reportResolved),
  ].map { (value: Self, code: NotificationKind.Code) in (value, code.rawValue) }
  /// The kept text of `.unknown`.
  public var unknownRawValue: String? { if case .unknown(let text) = self { text } else { nil } }
}

/// `ChatRoom.kind`: `group` or `direct`.
public enum ChatRoomKindDTO: OpenStringEnum {
  case group, direct, unknown(String)
  /// The wire strings of the known cases.
  public static let wireValues: [(value: Self, wire: String)] = [
    (.group, "group"), (.direct, "direct"),
  ]
  /// The kept text of `.unknown`.
  public var unknownRawValue: String? { if case .unknown(let text) = self { text } else { nil } }
}

/// `GroupMember.role`: `owner` or `member`.
public enum GroupMemberRoleDTO: OpenStringEnum {
  case owner, member, unknown(String)
  /// The wire strings of the known cases.
  public static let wireValues: [(value: Self, wire: String)] = [
    (.owner, "owner"), (.member, "member"),
  ]
  /// The kept text of `.unknown`.
  public var unknownRawValue: String? { if case .unknown(let text) = self { text } else { nil } }
}

/// `AdminQuestion.status`: `scheduled` or `published`.
public enum QuestionStatusDTO: OpenStringEnum {
  case scheduled, published, unknown(String)
  /// The wire strings of the known cases.
  public static let wireValues: [(value: Self, wire: String)] = [
    (.scheduled, "scheduled"), (.published, "published"),
  ]
  /// The kept text of `.unknown`.
  public var unknownRawValue: String? { if case .unknown(let text) = self { text } else { nil } }
}
