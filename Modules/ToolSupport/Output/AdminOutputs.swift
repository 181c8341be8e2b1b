import Domain
import Foundation

// The `--json` schema of the admin tool (see MemberOutputs.swift for the rules).

/// A daily question as admins manage it: `qapple-admin questions list`.
public struct ScheduledQuestionOutput: Codable, Hashable, Sendable {
  /// The question id.
  public var id: String
  /// The question.
  public var content: String
  /// Its day, `YYYY-MM-DD`.
  public var publishDate: String
  /// `scheduled` or `published`.
  public var status: String
  /// How many answers it has.
  public var answerCount: Int
  /// When it was written.
  public var createdAt: Date

  /// The output of `question`.
  public init(_ question: ScheduledQuestion) {
    id = question.id.rawValue
    content = question.content
    publishDate = question.publishDate.iso8601
    status = question.status.rawValue
    answerCount = question.answerCount
    createdAt = question.createdAt
  }

  enum CodingKeys: String, CodingKey {
    case id, content, status
    case publishDate = "publish_date"
    case answerCount = "answer_count"
    case createdAt = "created_at"
  }
}

/// What a CSV import did: `qapple-admin questions import`.
public struct ImportOutput: Codable, Hashable, Sendable {
  /// A refused line.
  public struct LineError: Codable, Hashable, Sendable {
    /// The 1-based line number in the file.
    public var line: Int
    /// Why it was refused.
    public var message: String
  }

  /// How many questions were added.
  public var imported: Int
  /// The refused lines.
  public var errors: [LineError]

  /// The output of `result`.
  public init(_ result: QuestionImportResult) {
    imported = result.imported
    errors = result.errors.map { LineError(line: $0.line, message: $0.message) }
  }
}

/// One case of the report inbox: `qapple-admin reports list`.
public struct ReportCaseOutput: Codable, Hashable, Sendable {
  /// The case id (`reports show <id>`, `reports resolve <id>`).
  public var id: String
  /// What was reported, `kind:id`.
  public var target: String
  /// The reported text, or `null`.
  public var excerpt: String?
  /// Who wrote it, or `null`.
  public var author: UserSummaryOutput?
  /// Distinct reporters.
  public var reportCount: Int
  /// Reports per reason code.
  public var reasonCounts: [String: Int]
  /// `open` or `resolved`.
  public var status: String
  /// `dismiss`, `hide_content`, `ban_author`, or `null` while open.
  public var resolution: String?
  /// Whether the content is hidden.
  public var isHidden: Bool
  /// The first report.
  public var firstReportedAt: Date
  /// The latest report.
  public var lastReportedAt: Date

  /// The output of `reportCase`.
  public init(_ reportCase: ReportCase) {
    id = reportCase.id.rawValue
    target = reportCase.target.description
    excerpt = reportCase.excerpt
    author = reportCase.author.map(UserSummaryOutput.init)
    reportCount = reportCase.reportCount
    reasonCounts = Dictionary(
      uniqueKeysWithValues: reportCase.reasonCounts.map { ($0.key.rawValue, $0.value) })
    status = reportCase.status.rawValue
    resolution = reportCase.resolution?.rawValue
    isHidden = reportCase.isHidden
    firstReportedAt = reportCase.firstReportedAt
    lastReportedAt = reportCase.lastReportedAt
  }

  enum CodingKeys: String, CodingKey {
    case id, target, excerpt, author, status, resolution
    case reportCount = "report_count"
    case reasonCounts = "reason_counts"
    case isHidden = "is_hidden"
    case firstReportedAt = "first_reported_at"
    case lastReportedAt = "last_reported_at"
  }

  /// Writes every key, absent values as `null`.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(id, forKey: .id)
    try container.encode(target, forKey: .target)
    try container.encode(excerpt, forKey: .excerpt)
    try container.encode(author, forKey: .author)
    try container.encode(reportCount, forKey: .reportCount)
    try container.encode(reasonCounts, forKey: .reasonCounts)
    try container.encode(status, forKey: .status)
    try container.encode(resolution, forKey: .resolution)
    try container.encode(isHidden, forKey: .isHidden)
    try container.encode(firstReportedAt, forKey: .firstReportedAt)
    try container.encode(lastReportedAt, forKey: .lastReportedAt)
  }
}

/// A case with its reports: `qapple-admin reports show`.
public struct ReportCaseDetailOutput: Codable, Hashable, Sendable {
  /// The case.
  public var reportCase: ReportCaseOutput
  /// Its reports, oldest first.
  public var reports: [ReportOutput]

  /// The output of `detail`.
  public init(_ detail: ReportCaseDetail) {
    reportCase = ReportCaseOutput(detail.reportCase)
    reports = detail.reports.map(ReportOutput.init)
  }

  enum CodingKeys: String, CodingKey {
    case reportCase = "case"
    case reports
  }
}

/// A user as admins see them: `qapple-admin users list|ban|unban`.
public struct AdminUserOutput: Codable, Hashable, Sendable {
  /// The user.
  public var user: UserOutput
  /// Reports against their content or them.
  public var reportCount: Int
  /// When the ban ends, or `null` (indefinite, or not banned: see `user.is_banned`).
  public var bannedUntil: Date?
  /// Why they were banned, or `null`.
  public var banReason: String?

  /// The output of `user`.
  public init(_ user: AdminUser) {
    self.user = UserOutput(user.user)
    reportCount = user.reportCount
    bannedUntil = user.bannedUntil
    banReason = user.banReason
  }

  enum CodingKeys: String, CodingKey {
    case user
    case reportCount = "report_count"
    case bannedUntil = "banned_until"
    case banReason = "ban_reason"
  }

  /// Writes every key, absent values as `null`.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(user, forKey: .user)
    try container.encode(reportCount, forKey: .reportCount)
    try container.encode(bannedUntil, forKey: .bannedUntil)
    try container.encode(banReason, forKey: .banReason)
  }
}

/// Dashboard counts: `qapple-admin stats`.
public struct StatsOutput: Codable, Hashable, Sendable {
  /// All accounts.
  public var users: Int
  /// Admin accounts.
  public var admins: Int
  /// Banned accounts.
  public var bannedUsers: Int
  /// Questions, scheduled ones included.
  public var questions: Int
  /// Answers.
  public var answers: Int
  /// Posts.
  public var posts: Int
  /// Comments.
  public var comments: Int
  /// Report cases waiting for a decision.
  public var openReports: Int
  /// Hidden posts, comments, answers and messages.
  public var hiddenContents: Int
  /// Study groups.
  public var groups: Int
  /// Chat messages.
  public var messages: Int

  /// The output of `stats`.
  public init(_ stats: AdminStats) {
    users = stats.users
    admins = stats.admins
    bannedUsers = stats.bannedUsers
    questions = stats.questions
    answers = stats.answers
    posts = stats.posts
    comments = stats.comments
    openReports = stats.openReports
    hiddenContents = stats.hiddenContents
    groups = stats.groups
    messages = stats.messages
  }

  enum CodingKeys: String, CodingKey {
    case users, admins, questions, answers, posts, comments, groups, messages
    case bannedUsers = "banned_users"
    case openReports = "open_reports"
    case hiddenContents = "hidden_contents"
  }
}
