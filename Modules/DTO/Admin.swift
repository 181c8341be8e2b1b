import Domain
import Foundation

/// `AdminQuestion`: a daily question as admins manage it.
public struct AdminQuestionDTO: Codable, Hashable, Sendable, DomainConvertible {
  /// The question's identifier.
  public var id: String
  /// The question text.
  public var content: String
  /// The day it is published, `YYYY-MM-DD`.
  public var publishDate: String
  /// How many answers it has.
  public var answerCount: Int
  /// When it was written.
  public var createdAt: Date
  /// `scheduled` or `published`.
  public var status: QuestionStatusDTO

  /// Creates the DTO.
  public init(
    id: String, content: String, publishDate: String, answerCount: Int, createdAt: Date,
    status: QuestionStatusDTO
  ) {
    self.id = id
    self.content = content
    self.publishDate = publishDate
    self.answerCount = answerCount
    self.createdAt = createdAt
    self.status = status
  }

  /// The wire form of a Domain scheduled question.
  public init(_ question: ScheduledQuestion) {
    self.init(
      id: question.id.rawValue, content: question.content,
      publishDate: question.publishDate.iso8601, answerCount: question.answerCount,
      createdAt: question.createdAt, status: QuestionStatusDTO(rawValue: question.status.rawValue))
  }

  /// The Domain question; an unknown status or a malformed `publish_date` is refused.
  public func toDomain() throws(MappingError) -> ScheduledQuestion {
    let status: QuestionStatus
    switch self.status {
    case .scheduled: status = .scheduled
    case .published: status = .published
    case .unknown: throw self.status.unknownError("status")
    }
    return ScheduledQuestion(
      id: try id.id("id"), content: try content.nonEmpty("content"),
      publishDate: try publishDate.calendarDay("publish_date"),
      answerCount: try answerCount.nonNegative("answer_count"), createdAt: createdAt,
      status: status)
  }

  enum CodingKeys: String, CodingKey {
    case id
    case content
    case publishDate = "publish_date"
    case answerCount = "answer_count"
    case createdAt = "created_at"
    case status
  }
}

/// `QuestionImportResult`: what a CSV import added and refused.
public struct QuestionImportResultDTO: Codable, Hashable, Sendable, DomainConvertible {
  /// `QuestionImportError`: one refused line of the file.
  public struct LineErrorDTO: Codable, Hashable, Sendable {
    /// The 1-based line number.
    public var line: Int
    /// Why it was refused.
    public var message: String

    /// Creates the DTO.
    public init(line: Int, message: String) {
      self.line = line
      self.message = message
    }

    enum CodingKeys: String, CodingKey {
      case line
      case message
    }
  }

  /// How many questions were added.
  public var imported: Int
  /// The refused lines.
  public var errors: [LineErrorDTO]

  /// Creates the DTO.
  public init(imported: Int, errors: [LineErrorDTO]) {
    self.imported = imported
    self.errors = errors
  }

  /// The wire form of a Domain result.
  public init(_ result: QuestionImportResult) {
    self.init(
      imported: result.imported,
      errors: result.errors.map { LineErrorDTO(line: $0.line, message: $0.message) })
  }

  /// The Domain result; line numbers start at 1.
  public func toDomain() throws(MappingError) -> QuestionImportResult {
    var lineErrors: [QuestionImportResult.LineError] = []
    lineErrors.reserveCapacity(errors.count)
    for (index, error) in errors.enumerated() where error.line < 1 {
      throw MappingError(path: "errors[\(index)].line", problem: .negative(Int64(error.line)))
    }
    for error in errors {
      lineErrors.append(QuestionImportResult.LineError(line: error.line, message: error.message))
    }
    return QuestionImportResult(
      imported: try imported.nonNegative("imported"), errors: lineErrors)
  }

  enum CodingKeys: String, CodingKey {
    case imported
    case errors
  }
}

extension ReportResolutionDTO {
  /// The wire form of a Domain resolution.
  public init(_ resolution: ReportResolution) { self.init(rawValue: resolution.rawValue) }
}

/// `ReportCase`: one row of the report inbox, all reports of one target.
public struct ReportCaseDTO: Codable, Hashable, Sendable, DomainConvertible {
  /// The case's identifier.
  public var id: String
  /// What was reported.
  public var target: ReportTargetRefDTO
  /// The reported text.
  public var excerpt: String?
  /// Who wrote the reported content.
  public var author: UserSummaryDTO?
  /// How many distinct users reported it.
  public var reportCount: Int
  /// How many reports gave each reason, keyed by the reason's wire code.
  public var reasonCounts: [String: Int]
  /// `open` or `resolved`.
  public var status: ReportStatusDTO
  /// The decision, once resolved.
  public var resolution: ReportResolutionDTO?
  /// Whether the content is hidden.
  public var isHidden: Bool
  /// The first report's time.
  public var firstReportedAt: Date
  /// The latest report's time.
  public var lastReportedAt: Date

  /// Creates the DTO.
  public init(
    id: String, target: ReportTargetRefDTO, excerpt: String? = nil, author: UserSummaryDTO? = nil,
    reportCount: Int, reasonCounts: [String: Int], status: ReportStatusDTO,
    resolution: ReportResolutionDTO? = nil, isHidden: Bool, firstReportedAt: Date,
    lastReportedAt: Date
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

  /// The wire form of a Domain case.
  public init(_ reportCase: ReportCase) {
    var counts: [String: Int] = [:]
    for (code, count) in reportCase.reasonCounts { counts[code.rawValue] = count }
    self.init(
      id: reportCase.id.rawValue, target: ReportTargetRefDTO(reportCase.target),
      excerpt: reportCase.excerpt, author: reportCase.author.map(UserSummaryDTO.init),
      reportCount: reportCase.reportCount, reasonCounts: counts,
      status: ReportStatusDTO(reportCase.status),
      resolution: reportCase.resolution.map(ReportResolutionDTO.init),
      isHidden: reportCase.isHidden, firstReportedAt: reportCase.firstReportedAt,
      lastReportedAt: reportCase.lastReportedAt)
  }

  /// The Domain case. Unknown target types, reasons, statuses and resolutions are refused:
  /// a moderator must not act on a case the tool cannot show correctly.
  public func toDomain() throws(MappingError) -> ReportCase {
    let target: ReportTarget
    do { target = try self.target.toDomain() } catch { throw error.nested(in: "target") }
    let author: UserSummary?
    do { author = try self.author?.toDomain() } catch { throw error.nested(in: "author") }
    var counts: [ReportReason.Code: Int] = [:]
    // Sorted so that the first bad key reported is the same on every run.
    for (key, count) in reasonCounts.sorted(by: { $0.key < $1.key }) {
      let reason = ReportReasonDTO(rawValue: key)
      guard let code = reason.code else { throw reason.unknownError("reason_counts.\(key)") }
      counts[code] = try count.nonNegative("reason_counts.\(key)")
    }
    let resolution: ReportResolution?
    switch self.resolution {
    case nil: resolution = nil
    case .dismiss: resolution = .dismiss
    case .hideContent: resolution = .hideContent
    case .banAuthor: resolution = .banAuthor
    case .unknown?: throw self.resolution!.unknownError("resolution")
    }
    return ReportCase(
      id: try id.id("id"), target: target, excerpt: excerpt, author: author,
      reportCount: try reportCount.nonNegative("report_count"), reasonCounts: counts,
      status: try status.toDomain("status"), resolution: resolution, isHidden: isHidden,
      firstReportedAt: firstReportedAt, lastReportedAt: lastReportedAt)
  }

  /// Writes every key; absent values are sent as `null`, as the contract requires.
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

  enum CodingKeys: String, CodingKey {
    case id
    case target
    case excerpt
    case author
    case reportCount = "report_count"
    case reasonCounts = "reason_counts"
    case status
    case resolution
    case isHidden = "is_hidden"
    case firstReportedAt = "first_reported_at"
    case lastReportedAt = "last_reported_at"
  }
}

/// `ReportCaseDetail`: a case with every report in it (wire key `case`).
public struct ReportCaseDetailDTO: Codable, Hashable, Sendable, DomainConvertible {
  /// The case (wire key `case`, a Swift keyword).
  public var reportCase: ReportCaseDTO
  /// Its reports, oldest first.
  public var reports: [ReportDTO]

  /// Creates the DTO.
  public init(reportCase: ReportCaseDTO, reports: [ReportDTO]) {
    self.reportCase = reportCase
    self.reports = reports
  }

  /// The wire form of a Domain detail.
  public init(_ detail: ReportCaseDetail) {
    self.init(
      reportCase: ReportCaseDTO(detail.reportCase), reports: detail.reports.map(ReportDTO.init))
  }

  /// The Domain detail; any bad report fails it, naming `reports[i]`.
  public func toDomain() throws(MappingError) -> ReportCaseDetail {
    let reportCase: ReportCase
    do { reportCase = try self.reportCase.toDomain() } catch { throw error.nested(in: "case") }
    return ReportCaseDetail(
      reportCase: reportCase, reports: try mapAll(reports, path: "reports"))
  }

  enum CodingKeys: String, CodingKey {
    case reportCase = "case"
    case reports
  }
}

/// `AdminUser`: a user as admins see them.
public struct AdminUserDTO: Codable, Hashable, Sendable, DomainConvertible {
  /// The user.
  public var user: UserDTO
  /// How many reports target their content or them.
  public var reportCount: Int
  /// Until when they are banned.
  public var bannedUntil: Date?
  /// Why they were banned.
  public var banReason: String?

  /// Creates the DTO.
  public init(
    user: UserDTO, reportCount: Int, bannedUntil: Date? = nil, banReason: String? = nil
  ) {
    self.user = user
    self.reportCount = reportCount
    self.bannedUntil = bannedUntil
    self.banReason = banReason
  }

  /// The wire form of a Domain admin user.
  public init(_ adminUser: AdminUser) {
    self.init(
      user: UserDTO(adminUser.user), reportCount: adminUser.reportCount,
      bannedUntil: adminUser.bannedUntil, banReason: adminUser.banReason)
  }

  /// The Domain admin user.
  public func toDomain() throws(MappingError) -> AdminUser {
    let user: User
    do { user = try self.user.toDomain() } catch { throw error.nested(in: "user") }
    return AdminUser(
      user: user, reportCount: try reportCount.nonNegative("report_count"),
      bannedUntil: bannedUntil, banReason: banReason)
  }

  /// Writes every key; absent values are sent as `null`, as the contract requires.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(user, forKey: .user)
    try container.encode(reportCount, forKey: .reportCount)
    try container.encode(bannedUntil, forKey: .bannedUntil)
    try container.encode(banReason, forKey: .banReason)
  }

  enum CodingKeys: String, CodingKey {
    case user
    case reportCount = "report_count"
    case bannedUntil = "banned_until"
    case banReason = "ban_reason"
  }
}

/// `AdminStats`: counts for the admin dashboard.
public struct AdminStatsDTO: Codable, Hashable, Sendable, DomainConvertible {
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
  /// Hidden contents.
  public var hiddenContents: Int
  /// Study groups.
  public var groups: Int
  /// Chat messages.
  public var messages: Int

  /// Creates the DTO.
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

  /// The wire form of Domain stats.
  public init(_ stats: AdminStats) {
    self.init(
      users: stats.users, admins: stats.admins, bannedUsers: stats.bannedUsers,
      questions: stats.questions, answers: stats.answers, posts: stats.posts,
      comments: stats.comments, openReports: stats.openReports,
      hiddenContents: stats.hiddenContents, groups: stats.groups, messages: stats.messages)
  }

  /// The Domain stats; negative counts are refused.
  public func toDomain() throws(MappingError) -> AdminStats {
    AdminStats(
      users: try users.nonNegative("users"), admins: try admins.nonNegative("admins"),
      bannedUsers: try bannedUsers.nonNegative("banned_users"),
      questions: try questions.nonNegative("questions"),
      answers: try answers.nonNegative("answers"), posts: try posts.nonNegative("posts"),
      comments: try comments.nonNegative("comments"),
      openReports: try openReports.nonNegative("open_reports"),
      hiddenContents: try hiddenContents.nonNegative("hidden_contents"),
      groups: try groups.nonNegative("groups"), messages: try messages.nonNegative("messages"))
  }

  enum CodingKeys: String, CodingKey {
    case users
    case admins
    case bannedUsers = "banned_users"
    case questions
    case answers
    case posts
    case comments
    case openReports = "open_reports"
    case hiddenContents = "hidden_contents"
    case groups
    case messages
  }
}
