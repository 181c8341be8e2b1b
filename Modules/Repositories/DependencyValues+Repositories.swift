import Dependencies
import Domain

/// Every repository, for code that swaps them all at once (a live configuration, a fake
/// backend signed in as one user, a preview).
public struct RepositorySet: Sendable {
  /// Auth and session.
  public var auth: AuthRepository
  /// Profiles.
  public var profile: ProfileRepository
  /// Questions and answers.
  public var questions: QuestionRepository
  /// Board and comments.
  public var board: BoardRepository
  /// Reports.
  public var reports: ReportRepository
  /// Notifications.
  public var notifications: NotificationRepository
  /// Study groups.
  public var studyGroups: StudyGroupRepository
  /// Chat over REST.
  public var chat: ChatRepository
  /// Analytics.
  public var analytics: AnalyticsRepository
  /// Admin tools.
  public var admin: AdminRepository

  /// Creates a set from its parts.
  public init(
    auth: AuthRepository, profile: ProfileRepository, questions: QuestionRepository,
    board: BoardRepository, reports: ReportRepository, notifications: NotificationRepository,
    studyGroups: StudyGroupRepository, chat: ChatRepository, analytics: AnalyticsRepository,
    admin: AdminRepository
  ) {
    self.auth = auth
    self.profile = profile
    self.questions = questions
    self.board = board
    self.reports = reports
    self.notifications = notifications
    self.studyGroups = studyGroups
    self.chat = chat
    self.analytics = analytics
    self.admin = admin
  }
}

extension DependencyValues {
  /// Installs every repository of `set`, e.g. `prepareDependencies { $0.install(live) }`.
  public mutating func install(_ set: RepositorySet) {
    authRepository = set.auth
    profileRepository = set.profile
    questionRepository = set.questions
    boardRepository = set.board
    reportRepository = set.reports
    notificationRepository = set.notifications
    studyGroupRepository = set.studyGroups
    chatRepository = set.chat
    analyticsRepository = set.analytics
    adminRepository = set.admin
  }

  /// The repositories currently installed, as one set.
  public var repositories: RepositorySet {
    RepositorySet(
      auth: authRepository, profile: profileRepository, questions: questionRepository,
      board: boardRepository, reports: reportRepository, notifications: notificationRepository,
      studyGroups: studyGroupRepository, chat: chatRepository, analytics: analyticsRepository,
      admin: adminRepository)
  }

  /// Auth and session: `@Dependency(\.authRepository)`.
  public var authRepository: AuthRepository {
    get { self[AuthRepository.self] }
    set { self[AuthRepository.self] = newValue }
  }
  /// Profiles: `@Dependency(\.profileRepository)`.
  public var profileRepository: ProfileRepository {
    get { self[ProfileRepository.self] }
    set { self[ProfileRepository.self] = newValue }
  }
  /// Questions and answers: `@Dependency(\.questionRepository)`.
  public var questionRepository: QuestionRepository {
    get { self[QuestionRepository.self] }
    set { self[QuestionRepository.self] = newValue }
  }
  /// Board and comments: `@Dependency(\.boardRepository)`.
  public var boardRepository: BoardRepository {
    get { self[BoardRepository.self] }
    set { self[BoardRepository.self] = newValue }
  }
  /// Reports: `@Dependency(\.reportRepository)`.
  public var reportRepository: ReportRepository {
    get { self[ReportRepository.self] }
    set { self[ReportRepository.self] = newValue }
  }
  /// Notifications: `@Dependency(\.notificationRepository)`.
  public var notificationRepository: NotificationRepository {
    get { self[NotificationRepository.self] }
    set { self[NotificationRepository.self] = newValue }
  }
  /// Study groups: `@Dependency(\.studyGroupRepository)`.
  public var studyGroupRepository: StudyGroupRepository {
    get { self[StudyGroupRepository.self] }
    set { self[StudyGroupRepository.self] = newValue }
  }
  /// Chat over REST: `@Dependency(\.chatRepository)`.
  public var chatRepository: ChatRepository {
    get { self[ChatRepository.self] }
    set { self[ChatRepository.self] = newValue }
  }
  /// Analytics: `@Dependency(\.analyticsRepository)`.
  public var analyticsRepository: AnalyticsRepository {
    get { self[AnalyticsRepository.self] }
    set { self[AnalyticsRepository.self] = newValue }
  }
  /// Admin tools: `@Dependency(\.adminRepository)`.
  public var adminRepository: AdminRepository {
    get { self[AdminRepository.self] }
    set { self[AdminRepository.self] = newValue }
  }
}
