import Domain
import Foundation

// Request bodies, one per write operation of the contract. Every type spells its wire keys in
// explicit `CodingKeys`, so a plain `JSONEncoder` produces the contract's snake_case. Nullable
// keys the contract marks as required (`cohort`, `detail`, `session_id`, `note`, `until`) are
// written as `null`; in the PATCH bodies a `nil` field is left out, meaning "unchanged".

// MARK: - Auth

/// `POST /auth/sign-in`: a provider's token to sign in with.
public struct SignInRequest: Codable, Hashable, Sendable {
  /// The provider's wire name: `apple`, `kakao` or `dev`.
  public var provider: String
  /// The provider's identity token.
  public var token: String

  /// Creates the body from wire values.
  public init(provider: String, token: String) {
    self.provider = provider
    self.token = token
  }

  /// Creates the body for a Domain provider.
  public init(provider: AuthProvider, token: String) {
    self.init(provider: provider.rawValue, token: token)
  }

  enum CodingKeys: String, CodingKey {
    case provider
    case token
  }
}

/// `POST /auth/email/code`: asks for a 6-digit code at the academy email.
public struct EmailCodeRequest: Codable, Hashable, Sendable {
  /// The token from the `needs_sign_up` answer.
  public var signUpToken: String
  /// The academy email address.
  public var email: String

  /// Creates the body from wire values.
  public init(signUpToken: String, email: String) {
    self.signUpToken = signUpToken
    self.email = email
  }

  /// Creates the body from Domain values.
  public init(signUpToken: SignUpToken, email: EmailAddress) {
    self.init(signUpToken: signUpToken.rawValue, email: email.rawValue)
  }

  enum CodingKeys: String, CodingKey {
    case signUpToken = "sign_up_token"
    case email
  }
}

/// `POST /auth/email/verify`: the code the user received.
public struct EmailVerifyRequest: Codable, Hashable, Sendable {
  /// The token from the `needs_sign_up` answer.
  public var signUpToken: String
  /// The academy email address the code went to.
  public var email: String
  /// The six digits.
  public var code: String

  /// Creates the body from wire values.
  public init(signUpToken: String, email: String, code: String) {
    self.signUpToken = signUpToken
    self.email = email
    self.code = code
  }

  /// Creates the body from Domain values.
  public init(signUpToken: SignUpToken, email: EmailAddress, code: VerificationCode) {
    self.init(signUpToken: signUpToken.rawValue, email: email.rawValue, code: code.rawValue)
  }

  enum CodingKeys: String, CodingKey {
    case signUpToken = "sign_up_token"
    case email
    case code
  }
}

/// `POST /auth/sign-up`: finishes sign-up once the email is verified.
public struct SignUpRequest: Codable, Hashable, Sendable {
  /// The token from the `needs_sign_up` answer.
  public var signUpToken: String
  /// The token from email verification.
  public var verificationToken: String
  /// The chosen nickname.
  public var nickname: String
  /// The academy cohort, if given.
  public var cohort: String?
  /// The version of the terms the user agreed to.
  public var agreedTermsVersion: String

  /// Creates the body from wire values.
  public init(
    signUpToken: String, verificationToken: String, nickname: String, cohort: String? = nil,
    agreedTermsVersion: String
  ) {
    self.signUpToken = signUpToken
    self.verificationToken = verificationToken
    self.nickname = nickname
    self.cohort = cohort
    self.agreedTermsVersion = agreedTermsVersion
  }

  /// Creates the body from a completed sign-up form.
  public init(_ form: SignUpForm) {
    self.init(
      signUpToken: form.signUpToken.rawValue, verificationToken: form.verificationToken.rawValue,
      nickname: form.nickname.rawValue, cohort: form.cohort,
      agreedTermsVersion: form.agreedTermsVersion)
  }

  /// Writes every key; a missing cohort is sent as `null`, as the contract requires.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(signUpToken, forKey: .signUpToken)
    try container.encode(verificationToken, forKey: .verificationToken)
    try container.encode(nickname, forKey: .nickname)
    try container.encode(cohort, forKey: .cohort)
    try container.encode(agreedTermsVersion, forKey: .agreedTermsVersion)
  }

  enum CodingKeys: String, CodingKey {
    case signUpToken = "sign_up_token"
    case verificationToken = "verification_token"
    case nickname
    case cohort
    case agreedTermsVersion = "agreed_terms_version"
  }
}

/// `POST /auth/refresh`: trades the refresh token for a new session.
public struct RefreshRequest: Codable, Hashable, Sendable {
  /// The current refresh token (it rotates).
  public var refreshToken: String

  /// Creates the body.
  public init(refreshToken: String) { self.refreshToken = refreshToken }

  enum CodingKeys: String, CodingKey {
    case refreshToken = "refresh_token"
  }
}

/// `POST /auth/sign-out`: revokes the refresh token.
public struct SignOutRequest: Codable, Hashable, Sendable {
  /// The refresh token to revoke.
  public var refreshToken: String

  /// Creates the body.
  public init(refreshToken: String) { self.refreshToken = refreshToken }

  enum CodingKeys: String, CodingKey {
    case refreshToken = "refresh_token"
  }
}

// MARK: - Me

/// `PATCH /me`: profile changes; `nil` fields are left out and stay as they are.
public struct UpdateProfileRequest: Codable, Hashable, Sendable {
  /// A new nickname.
  public var nickname: String?
  /// A new cohort; a blank text clears it (as the contract's `null` does).
  public var cohort: String?

  /// Creates the body from wire values.
  public init(nickname: String? = nil, cohort: String? = nil) {
    self.nickname = nickname
    self.cohort = cohort
  }

  /// Creates the body from a Domain profile update.
  public init(_ update: ProfileUpdate) {
    self.init(nickname: update.nickname?.rawValue, cohort: update.cohort)
  }

  enum CodingKeys: String, CodingKey {
    case nickname
    case cohort
  }
}

// MARK: - Questions and board

/// `POST /questions/{question_id}/answers`: an answer to the daily question.
public struct CreateAnswerRequest: Codable, Hashable, Sendable {
  /// The answer text (1-250 characters; check with `Answer.validate(content:)` first).
  public var content: String

  /// Creates the body.
  public init(content: String) { self.content = content }

  enum CodingKeys: String, CodingKey {
    case content
  }
}

/// `POST /posts`: a new bulletin-board post.
public struct CreatePostRequest: Codable, Hashable, Sendable {
  /// The post text.
  public var content: String
  /// Whether the nickname is hidden.
  public var isAnonymous: Bool

  /// Creates the body from wire values.
  public init(content: String, isAnonymous: Bool) {
    self.content = content
    self.isAnonymous = isAnonymous
  }

  /// Creates the body from a draft (pass `draft.validated()` to send trimmed, checked text).
  public init(_ draft: PostDraft) {
    self.init(content: draft.content, isAnonymous: draft.isAnonymous)
  }

  enum CodingKeys: String, CodingKey {
    case content
    case isAnonymous = "is_anonymous"
  }
}

/// `POST /posts/{post_id}/comments`: a new comment.
public struct CreateCommentRequest: Codable, Hashable, Sendable {
  /// The comment text.
  public var content: String
  /// Whether the nickname is hidden.
  public var isAnonymous: Bool

  /// Creates the body from wire values.
  public init(content: String, isAnonymous: Bool) {
    self.content = content
    self.isAnonymous = isAnonymous
  }

  /// Creates the body from a draft (pass `draft.validated()` to send trimmed, checked text).
  public init(_ draft: CommentDraft) {
    self.init(content: draft.content, isAnonymous: draft.isAnonymous)
  }

  enum CodingKeys: String, CodingKey {
    case content
    case isAnonymous = "is_anonymous"
  }
}

// MARK: - Reports

/// `ReportTargetRef`: what a report is about, as a wire type and an identifier.
public struct ReportTargetRefDTO: Codable, Hashable, Sendable {
  /// `answer`, `post`, `comment`, `chat_message` or `user`.
  public var type: String
  /// The identifier of the reported thing.
  public var id: String

  /// Creates a reference from wire values.
  public init(type: String, id: String) {
    self.type = type
    self.id = id
  }

  /// Creates a reference to a Domain report target.
  public init(_ target: ReportTarget) {
    self.init(type: target.kind.rawValue, id: target.rawID)
  }

  enum CodingKeys: String, CodingKey {
    case type
    case id
  }
}

/// `POST /reports`: reports a target once.
public struct CreateReportRequest: Codable, Hashable, Sendable {
  /// What is reported.
  public var target: ReportTargetRefDTO
  /// The reason code, e.g. `spam` or `other`.
  public var reason: String
  /// The explanation; required for `other`.
  public var detail: String?

  /// Creates the body from wire values.
  public init(target: ReportTargetRefDTO, reason: String, detail: String? = nil) {
    self.target = target
    self.reason = reason
    self.detail = detail
  }

  /// Creates the body from Domain values; `.other(text)` sends its text as `detail`.
  public init(target: ReportTarget, reason: ReportReason) {
    self.init(
      target: ReportTargetRefDTO(target), reason: reason.code.rawValue, detail: reason.detail)
  }

  /// Writes every key; a missing detail is sent as `null`, as the contract requires.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(target, forKey: .target)
    try container.encode(reason, forKey: .reason)
    try container.encode(detail, forKey: .detail)
  }

  enum CodingKeys: String, CodingKey {
    case target
    case reason
    case detail
  }
}

// MARK: - Study groups and chat

/// `POST /groups`: a new study group.
public struct CreateGroupRequest: Codable, Hashable, Sendable {
  /// The name.
  public var name: String
  /// The description (may be empty).
  public var description: String

  /// Creates the body from wire values.
  public init(name: String, description: String) {
    self.name = name
    self.description = description
  }

  /// Creates the body from a draft (pass `draft.validated()` to send trimmed, checked text).
  public init(_ draft: StudyGroupDraft) {
    self.init(name: draft.name, description: draft.description)
  }

  enum CodingKeys: String, CodingKey {
    case name
    case description
  }
}

/// `PATCH /groups/{group_id}`: group changes; `nil` fields are left out and stay as they are.
public struct UpdateGroupRequest: Codable, Hashable, Sendable {
  /// A new name.
  public var name: String?
  /// A new description.
  public var description: String?

  /// Creates the body.
  public init(name: String? = nil, description: String? = nil) {
    self.name = name
    self.description = description
  }

  /// Creates a body that sets both fields from a draft.
  public init(_ draft: StudyGroupDraft) {
    self.init(name: draft.name, description: draft.description)
  }

  enum CodingKeys: String, CodingKey {
    case name
    case description
  }
}

/// `POST /chat/rooms/direct`: opens (or finds) the direct room with a user.
public struct OpenDirectRoomRequest: Codable, Hashable, Sendable {
  /// The other user's identifier.
  public var userId: String

  /// Creates the body from a wire identifier.
  public init(userId: String) { self.userId = userId }

  /// Creates the body for a Domain user identifier.
  public init(user: User.ID) { self.init(userId: user.rawValue) }

  enum CodingKeys: String, CodingKey {
    case userId = "user_id"
  }
}

/// `POST /groups/{group_id}/invitations`: the same `{user_id}` body as opening a direct room.
public typealias InviteToGroupRequest = OpenDirectRoomRequest

/// `POST /chat/rooms/{room_id}/messages`: sends a chat message.
public struct SendMessageRequest: Codable, Hashable, Sendable {
  /// The sender's UUID for the message; the server de-duplicates retries by it.
  public var clientMessageId: UUID
  /// The message text.
  public var text: String

  /// Creates the body.
  public init(clientMessageId: UUID, text: String) {
    self.clientMessageId = clientMessageId
    self.text = text
  }

  enum CodingKeys: String, CodingKey {
    case clientMessageId = "client_message_id"
    case text
  }

  /// Writes the id in lower case (`UUID.lowercasedText`), as it is written wherever it is
  /// compared as text: the same text as the send's `Idempotency-Key`.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(clientMessageId.lowercasedText, forKey: .clientMessageId)
    try container.encode(text, forKey: .text)
  }
}

/// `PUT /chat/rooms/{room_id}/read`: moves the read cursor.
public struct MarkReadRequest: Codable, Hashable, Sendable {
  /// The highest `seq` the user has read.
  public var seq: Int64

  /// Creates the body.
  public init(seq: Int64) { self.seq = seq }

  enum CodingKeys: String, CodingKey {
    case seq
  }
}

// MARK: - Analytics

/// `AnalyticsEvent`: one named event in an upload batch.
public struct AnalyticsEventDTO: Codable, Hashable, Sendable {
  /// The snake_case event name.
  public var name: String
  /// The event's string properties.
  public var properties: [String: String]
  /// When it happened.
  public var occurredAt: Date
  /// The app session it belongs to.
  public var sessionId: String?

  /// Creates an event from wire values.
  public init(
    name: String, properties: [String: String], occurredAt: Date, sessionId: String? = nil
  ) {
    self.name = name
    self.properties = properties
    self.occurredAt = occurredAt
    self.sessionId = sessionId
  }

  /// Creates the wire form of a Domain event.
  public init(_ event: AnalyticsEvent) {
    self.init(
      name: event.name, properties: event.properties, occurredAt: event.occurredAt,
      sessionId: event.sessionID)
  }

  /// Writes every key; a missing session is sent as `null`, as the contract requires.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(name, forKey: .name)
    try container.encode(properties, forKey: .properties)
    try container.encode(occurredAt, forKey: .occurredAt)
    try container.encode(sessionId, forKey: .sessionId)
  }

  enum CodingKeys: String, CodingKey {
    case name
    case properties
    case occurredAt = "occurred_at"
    case sessionId = "session_id"
  }
}

/// `POST /analytics/events`: a batch of 1-100 events.
public struct AnalyticsBatchRequest: Codable, Hashable, Sendable {
  /// The events, oldest first.
  public var events: [AnalyticsEventDTO]

  /// Creates the body from wire events.
  public init(events: [AnalyticsEventDTO]) { self.events = events }

  /// Creates the body from Domain events.
  public init(_ events: [AnalyticsEvent]) { self.init(events: events.map(AnalyticsEventDTO.init)) }

  enum CodingKeys: String, CodingKey {
    case events
  }
}

// MARK: - Admin

/// `POST /admin/questions`: schedules a daily question.
public struct CreateQuestionRequest: Codable, Hashable, Sendable {
  /// The question text.
  public var content: String
  /// The day to publish it, `YYYY-MM-DD`.
  public var publishDate: String

  /// Creates the body from wire values.
  public init(content: String, publishDate: String) {
    self.content = content
    self.publishDate = publishDate
  }

  /// Creates the body from a draft (pass `draft.validated()` to send trimmed, checked text).
  public init(_ draft: QuestionDraft) {
    self.init(content: draft.content, publishDate: draft.publishDate.iso8601)
  }

  enum CodingKeys: String, CodingKey {
    case content
    case publishDate = "publish_date"
  }
}

/// `PATCH /admin/questions/{question_id}`: question changes; `nil` fields are left out.
public struct UpdateQuestionRequest: Codable, Hashable, Sendable {
  /// New text.
  public var content: String?
  /// A new day, `YYYY-MM-DD`.
  public var publishDate: String?

  /// Creates the body from wire values.
  public init(content: String? = nil, publishDate: String? = nil) {
    self.content = content
    self.publishDate = publishDate
  }

  /// Creates the body from Domain values.
  public init(content: String? = nil, publishDay: CalendarDay?) {
    self.init(content: content, publishDate: publishDay?.iso8601)
  }

  /// Creates a body that sets both fields from a draft.
  public init(_ draft: QuestionDraft) {
    self.init(content: draft.content, publishDate: draft.publishDate.iso8601)
  }

  enum CodingKeys: String, CodingKey {
    case content
    case publishDate = "publish_date"
  }
}

/// `POST /admin/reports/{case_id}/resolve`: a moderator's decision.
public struct ResolveReportRequest: Codable, Hashable, Sendable {
  /// `dismiss`, `hide_content` or `ban_author`.
  public var action: String
  /// A note for the record.
  public var note: String?

  /// Creates the body from wire values.
  public init(action: String, note: String? = nil) {
    self.action = action
    self.note = note
  }

  /// Creates the body from a Domain resolution.
  public init(resolution: ReportResolution, note: String? = nil) {
    self.init(action: resolution.rawValue, note: note)
  }

  /// Writes every key; a missing note is sent as `null`, as the contract requires.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(action, forKey: .action)
    try container.encode(note, forKey: .note)
  }

  enum CodingKeys: String, CodingKey {
    case action
    case note
  }
}

/// `PUT /admin/users/{user_id}/ban`: bans a user, until a date or indefinitely.
public struct BanUserRequest: Codable, Hashable, Sendable {
  /// Why (1-200 characters).
  public var reason: String
  /// When the ban ends; `nil` bans indefinitely.
  public var until: Date?

  /// Creates the body.
  public init(reason: String, until: Date? = nil) {
    self.reason = reason
    self.until = until
  }

  /// Writes every key; an indefinite ban is sent as `"until": null`, as the contract requires.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(reason, forKey: .reason)
    try container.encode(until, forKey: .until)
  }

  enum CodingKeys: String, CodingKey {
    case reason
    case until
  }
}
