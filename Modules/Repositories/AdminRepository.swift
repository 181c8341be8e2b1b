import Dependencies
import DependenciesMacros
import Domain
import Foundation

/// Moderation and content management for admins; members get `DomainError.forbidden`.
@DependencyClient
public struct AdminRepository: Sendable {
  /// Scheduled and published questions.
  public var fetchQuestions:
    @Sendable (_ status: QuestionStatus?, _ page: PageRequest) async throws
      -> Page<ScheduledQuestion>
  /// Schedules a question (one per day).
  public var createQuestion: @Sendable (_ draft: QuestionDraft) async throws -> ScheduledQuestion
  /// Edits a question.
  public var updateQuestion:
    @Sendable (_ id: Question.ID, _ draft: QuestionDraft) async throws -> ScheduledQuestion
  /// Deletes a question.
  public var deleteQuestion: @Sendable (_ id: Question.ID) async throws -> Void
  /// Imports questions from CSV (`publish_date,content` header row).
  public var importQuestions: @Sendable (_ csv: Data) async throws -> QuestionImportResult
  /// The report inbox, one case per reported target.
  public var fetchReportCases:
    @Sendable (_ status: ReportStatus?, _ page: PageRequest) async throws -> Page<ReportCase>
  /// One case with all its reports.
  public var fetchReportCase: @Sendable (_ id: ReportCase.ID) async throws -> ReportCaseDetail
  /// Decides a case: dismiss, hide the content, or ban its author.
  public var resolveReportCase:
    @Sendable (_ id: ReportCase.ID, _ resolution: ReportResolution, _ note: String?) async throws
      -> ReportCase
  /// Users, optionally filtered by nickname.
  public var fetchUsers:
    @Sendable (_ query: String?, _ page: PageRequest) async throws -> Page<AdminUser>
  /// Bans a user from writing, until a date or indefinitely.
  public var banUser:
    @Sendable (_ id: User.ID, _ reason: String, _ until: Date?) async throws -> AdminUser
  /// Lifts a ban.
  public var unbanUser: @Sendable (_ id: User.ID) async throws -> AdminUser
  /// Dashboard counts.
  public var fetchStats: @Sendable () async throws -> AdminStats
}
