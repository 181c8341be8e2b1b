import Foundation

/// Rules of moderation shared by the server, the fakes and the admin tool.
public enum ModerationPolicy {
  /// Content is hidden automatically once this many distinct users reported it.
  public static let autoHideThreshold = 5
}

/// Whether a scheduled question is out yet.
public enum QuestionStatus: String, Hashable, Sendable, CaseIterable {
  /// Its day has not come.
  case scheduled
  /// Its day has come or passed.
  case published
}

/// A daily question as admins manage it.
public struct ScheduledQuestion: Identifiable, Hashable, Sendable {
  /// The question's identifier.
  public var id: Question.ID
  /// The question text, 5-200 characters.
  public var content: String
  /// The day it is published.
  public var publishDate: CalendarDay
  /// How many answers it has.
  public var answerCount: Int
  /// When it was written.
  public var createdAt: Date
  /// Scheduled or published.
  public var status: QuestionStatus

  /// Creates a scheduled question.
  public init(
    id: Question.ID, content: String, publishDate: CalendarDay, answerCount: Int = 0,
    createdAt: Date, status: QuestionStatus
  ) {
    self.id = id
    self.content = content
    self.publishDate = publishDate
    self.answerCount = answerCount
    self.createdAt = createdAt
    self.status = status
  }
}

/// A question an admin is adding or editing.
public struct QuestionDraft: Hashable, Sendable {
  /// The text.
  public var content: String
  /// The day to publish it.
  public var publishDate: CalendarDay

  /// Creates a draft.
  public init(content: String, publishDate: CalendarDay) {
    self.content = content
    self.publishDate = publishDate
  }

  /// The draft with its text checked (5-200 characters) and trimmed.
  public func validated() throws(ValidationError) -> QuestionDraft {
    QuestionDraft(content: try TextRule.question.validate(content), publishDate: publishDate)
  }

  /// The refusal of a question for a `day` that already has one (one question per day).
  public static func dayTaken(_ day: CalendarDay) -> DomainError {
    .conflict("\(day.iso8601) already has a question.")
  }
}

/// How many questions a CSV import added and which lines it refused.
public struct QuestionImportResult: Hashable, Sendable {
  /// A refused line of the file.
  public struct LineError: Hashable, Sendable {
    /// The 1-based line number in the file.
    public var line: Int
    /// Why it was refused.
    public var message: String

    /// Creates a line error.
    public init(line: Int, message: String) {
      self.line = line
      self.message = message
    }
  }

  /// How many questions were added.
  public var imported: Int
  /// The refused lines.
  public var errors: [LineError]

  /// Creates a result.
  public init(imported: Int, errors: [LineError]) {
    self.imported = imported
    self.errors = errors
  }
}

/// What a moderator decides about a reported target.
public enum ReportResolution: String, Hashable, Sendable, CaseIterable {
  /// The reports are unfounded; content stays.
  case dismiss
  /// Hide the content.
  case hideContent = "hide_content"
  /// Hide the content and ban its author.
  case banAuthor = "ban_author"
}

/// One row of the report inbox: all reports of one target, grouped.
public struct ReportCase: Identifiable, Hashable, Sendable {
  /// The typed identifier of a case.
  public typealias ID = Identifier<ReportCase>

  /// The case's identifier.
  public var id: ID
  /// What was reported.
  public var target: ReportTarget
  /// The reported text, when the target has text.
  public var excerpt: String?
  /// Who wrote the reported content, when known.
  public var author: UserSummary?
  /// How many distinct users reported it.
  public var reportCount: Int
  /// How many reports gave each reason.
  public var reasonCounts: [ReportReason.Code: Int]
  /// Open or resolved.
  public var status: ReportStatus
  /// The moderator's decision, once resolved.
  public var resolution: ReportResolution?
  /// Whether the content is hidden (automatically or by decision).
  public var isHidden: Bool
  /// The first report's time.
  public var firstReportedAt: Date
  /// The latest report's time.
  public var lastReportedAt: Date

  /// Creates a case.
  public init(
    id: ID, target: ReportTarget, excerpt: String?, author: UserSummary?, reportCount: Int,
    reasonCounts: [ReportReason.Code: Int], status: ReportStatus, resolution: ReportResolution?,
    isHidden: Bool, firstReportedAt: Date, lastReportedAt: Date
  ) {
    self.id = id
    self.target = target
    self.excerpt = excerpt
    self.author = author
    self.reportCount = reportCount
    self.reasonCounts = reasonCounts
    self.status = status
    self.resolution = resolution
    self.isHidden = isHidden
    self.firstReportedAt = firstReportedAt
    self.lastReportedAt = lastReportedAt
  }

  /// Whether enough distinct reports came in to hide the content automatically.
  public var reachedAutoHideThreshold: Bool {
    reportCount >= ModerationPolicy.autoHideThreshold
  }
}

/// A case with every report in it.
public struct ReportCaseDetail: Hashable, Sendable {
  /// The case.
  public var reportCase: ReportCase
  /// Its reports, oldest first.
  public var reports: [Report]

  /// Creates a detail.
  public init(reportCase: ReportCase, reports: [Report]) {
    self.reportCase = reportCase
    self.reports = reports
  }
}

/// A user as admins see them.
public struct AdminUser: Hashable, Sendable, Identifiable {
  /// The user.
  public var user: User
  /// How many reports target their content or them.
  public var reportCount: Int
  /// Until when they are banned; `nil` with `user.isBanned` means indefinitely.
  public var bannedUntil: Date?
  /// Why they were banned.
  public var banReason: String?

  /// Creates an admin view of a user.
  public init(user: User, reportCount: Int, bannedUntil: Date? = nil, banReason: String? = nil) {
    self.user = user
    self.reportCount = reportCount
    self.bannedUntil = bannedUntil
    self.banReason = banReason
  }

  /// The user's identifier.
  public var id: User.ID { user.id }
}

/// Counts for the admin dashboard.
public struct AdminStats: Hashable, Sendable {
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

  /// Creates stats.
  public init(
    users: Int, admins: Int, bannedUsers: Int, questions: Int, answers: Int, posts: Int,
    comments: Int, openReports: Int, hiddenContents: Int, groups: Int, messages: Int
  ) {
    self.users = users
    self.admins = admins
    self.bannedUsers = bannedUsers
    self.questions = questions
    self.answers = answers
    self.posts = posts
    self.comments = comments
    self.openReports = openReports
    self.hiddenContents = hiddenContents
    self.groups = groups
    self.messages = messages
  }
}
