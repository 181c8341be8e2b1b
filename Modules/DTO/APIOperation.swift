/// Every operation of the REST contract, declared once: its operation id (as in
/// `Docs/openapi.yaml`), HTTP method, path template and who may call it.
///
/// The client routers in `Endpoints` and the routes of `LocalServer` both read this table, and
/// `EndpointsTests` compares it with the OpenAPI document in both directions, so a route is
/// written in Swift exactly once.
public enum APIOperation: String, CaseIterable, Hashable, Sendable {
  case authSignIn = "AuthAPI.signIn"
  case authRequestEmailCode = "AuthAPI.requestEmailCode"
  case authVerifyEmailCode = "AuthAPI.verifyEmailCode"
  case authSignUp = "AuthAPI.signUp"
  case authRefresh = "AuthAPI.refresh"
  case authSignOut = "AuthAPI.signOut"
  case meMe = "MeAPI.me"
  case meUpdateProfile = "MeAPI.updateProfile"
  case meWithdraw = "MeAPI.withdraw"
  case meUploadAvatar = "MeAPI.uploadAvatar"
  case meNicknameAvailability = "MeAPI.nicknameAvailability"
  case meUser = "MeAPI.user"
  case meUserByNickname = "MeAPI.userByNickname"
  case meMyAnswers = "MeAPI.myAnswers"
  case questionToday = "QuestionAPI.today"
  case questionList = "QuestionAPI.list"
  case questionQuestion = "QuestionAPI.question"
  case answerAnswers = "AnswerAPI.answers"
  case answerCreate = "AnswerAPI.create"
  case answerDelete = "AnswerAPI.delete"
  case boardPosts = "BoardAPI.posts"
  case boardCreate = "BoardAPI.create"
  case boardSearch = "BoardAPI.search"
  case boardPost = "BoardAPI.post"
  case boardDelete = "BoardAPI.delete"
  case boardLike = "BoardAPI.like"
  case boardUnlike = "BoardAPI.unlike"
  case commentComments = "CommentAPI.comments"
  case commentCreate = "CommentAPI.create"
  case commentDelete = "CommentAPI.delete"
  case commentLike = "CommentAPI.like"
  case commentUnlike = "CommentAPI.unlike"
  case reportCreate = "ReportAPI.create"
  case reportMine = "ReportAPI.mine"
  case notificationList = "NotificationAPI.list"
  case notificationUnreadCount = "NotificationAPI.unreadCount"
  case notificationMarkRead = "NotificationAPI.markRead"
  case notificationMarkAllRead = "NotificationAPI.markAllRead"
  case studyGroupGroups = "StudyGroupAPI.groups"
  case studyGroupCreate = "StudyGroupAPI.create"
  case studyGroupGroup = "StudyGroupAPI.group"
  case studyGroupUpdate = "StudyGroupAPI.update"
  case studyGroupDelete = "StudyGroupAPI.delete"
  case studyGroupJoin = "StudyGroupAPI.join"
  case studyGroupLeave = "StudyGroupAPI.leave"
  case studyGroupInvite = "StudyGroupAPI.invite"
  case studyGroupMembers = "StudyGroupAPI.members"
  case chatRooms = "ChatAPI.rooms"
  case chatOpenDirect = "ChatAPI.openDirect"
  case chatMessages = "ChatAPI.messages"
  case chatSend = "ChatAPI.send"
  case chatMarkRead = "ChatAPI.markRead"
  case chatRealtime = "ChatAPI.realtime"
  case analyticsTrack = "AnalyticsAPI.track"
  case adminQuestions = "AdminAPI.questions"
  case adminCreateQuestion = "AdminAPI.createQuestion"
  case adminUpdateQuestion = "AdminAPI.updateQuestion"
  case adminDeleteQuestion = "AdminAPI.deleteQuestion"
  case adminImportQuestions = "AdminAPI.importQuestions"
  case adminReports = "AdminAPI.reports"
  case adminReport = "AdminAPI.report"
  case adminResolveReport = "AdminAPI.resolveReport"
  case adminUsers = "AdminAPI.users"
  case adminBanUser = "AdminAPI.banUser"
  case adminUnbanUser = "AdminAPI.unbanUser"
  case adminStats = "AdminAPI.stats"

  /// The HTTP methods the contract uses.
  public enum Method: String, Hashable, Sendable {
    /// `GET`: reads.
    case get = "GET"
    /// `POST`: creates or acts.
    case post = "POST"
    /// `PUT`: sets a state (a like, a ban, a membership).
    case put = "PUT"
    /// `PATCH`: changes some fields.
    case patch = "PATCH"
    /// `DELETE`: removes.
    case delete = "DELETE"
  }

  /// Who may call an operation.
  public enum Access: Hashable, Sendable {
    /// No token needed (sign-in, sign-up, refresh, nickname availability).
    case anyone
    /// A signed-in user (`Authorization: Bearer`).
    case member
    /// A signed-in admin; members get 403 `forbidden`.
    case admin
  }

  /// The operation id, `<Router>.<case>`, e.g. `BoardAPI.like`.
  public var id: String { rawValue }

  /// The HTTP method.
  public var method: Method { declaration.method }

  /// The documented path template with `{snake_case}` parameters, e.g. `/posts/{post_id}/like`.
  public var pathTemplate: String { declaration.template }

  /// Who may call the operation.
  public var access: Access { declaration.access }

  /// The names of the template's parameters, in order (`["post_id"]`).
  public var pathParameters: [String] {
    pathTemplate.split(separator: "/").compactMap { segment in
      segment.hasPrefix("{") && segment.hasSuffix("}")
        ? String(segment.dropFirst().dropLast()) : nil
    }
  }

  private var declaration: (method: Method, template: String, access: Access) {
    switch self {
    case .authSignIn: (.post, "/auth/sign-in", .anyone)
    case .authRequestEmailCode: (.post, "/auth/email/code", .anyone)
    case .authVerifyEmailCode: (.post, "/auth/email/verify", .anyone)
    case .authSignUp: (.post, "/auth/sign-up", .anyone)
    case .authRefresh: (.post, "/auth/refresh", .anyone)
    case .authSignOut: (.post, "/auth/sign-out", .member)
    case .meMe: (.get, "/me", .member)
    case .meUpdateProfile: (.patch, "/me", .member)
    case .meWithdraw: (.delete, "/me", .member)
    case .meUploadAvatar: (.put, "/me/avatar", .member)
    case .meNicknameAvailability: (.get, "/nicknames/availability", .anyone)
    case .meUser: (.get, "/users/{user_id}", .member)
    case .meUserByNickname: (.get, "/users", .member)
    case .meMyAnswers: (.get, "/me/answers", .member)
    case .questionToday: (.get, "/questions/today", .member)
    case .questionList: (.get, "/questions", .member)
    case .questionQuestion: (.get, "/questions/{question_id}", .member)
    case .answerAnswers: (.get, "/questions/{question_id}/answers", .member)
    case .answerCreate: (.post, "/questions/{question_id}/answers", .member)
    case .answerDelete: (.delete, "/answers/{answer_id}", .member)
    case .boardPosts: (.get, "/posts", .member)
    case .boardCreate: (.post, "/posts", .member)
    case .boardSearch: (.get, "/posts/search", .member)
    case .boardPost: (.get, "/posts/{post_id}", .member)
    case .boardDelete: (.delete, "/posts/{post_id}", .member)
    case .boardLike: (.put, "/posts/{post_id}/like", .member)
    case .boardUnlike: (.delete, "/posts/{post_id}/like", .member)
    case .commentComments: (.get, "/posts/{post_id}/comments", .member)
    case .commentCreate: (.post, "/posts/{post_id}/comments", .member)
    case .commentDelete: (.delete, "/comments/{comment_id}", .member)
    case .commentLike: (.put, "/comments/{comment_id}/like", .member)
    case .commentUnlike: (.delete, "/comments/{comment_id}/like", .member)
    case .reportCreate: (.post, "/reports", .member)
    case .reportMine: (.get, "/me/reports", .member)
    case .notificationList: (.get, "/notifications", .member)
    case .notificationUnreadCount: (.get, "/notifications/unread-count", .member)
    case .notificationMarkRead: (.post, "/notifications/{notification_id}/read", .member)
    case .notificationMarkAllRead: (.post, "/notifications/read-all", .member)
    case .studyGroupGroups: (.get, "/groups", .member)
    case .studyGroupCreate: (.post, "/groups", .member)
    case .studyGroupGroup: (.get, "/groups/{group_id}", .member)
    case .studyGroupUpdate: (.patch, "/groups/{group_id}", .member)
    case .studyGroupDelete: (.delete, "/groups/{group_id}", .member)
    case .studyGroupJoin: (.put, "/groups/{group_id}/membership", .member)
    case .studyGroupLeave: (.delete, "/groups/{group_id}/membership", .member)
    case .studyGroupInvite: (.post, "/groups/{group_id}/invitations", .member)
    case .studyGroupMembers: (.get, "/groups/{group_id}/members", .member)
    case .chatRooms: (.get, "/chat/rooms", .member)
    case .chatOpenDirect: (.post, "/chat/rooms/direct", .member)
    case .chatMessages: (.get, "/chat/rooms/{room_id}/messages", .member)
    case .chatSend: (.post, "/chat/rooms/{room_id}/messages", .member)
    case .chatMarkRead: (.put, "/chat/rooms/{room_id}/read", .member)
    case .chatRealtime: (.get, "/realtime", .member)
    case .analyticsTrack: (.post, "/analytics/events", .member)
    case .adminQuestions: (.get, "/admin/questions", .admin)
    case .adminCreateQuestion: (.post, "/admin/questions", .admin)
    case .adminUpdateQuestion: (.patch, "/admin/questions/{question_id}", .admin)
    case .adminDeleteQuestion: (.delete, "/admin/questions/{question_id}", .admin)
    case .adminImportQuestions: (.post, "/admin/questions/import", .admin)
    case .adminReports: (.get, "/admin/reports", .admin)
    case .adminReport: (.get, "/admin/reports/{case_id}", .admin)
    case .adminResolveReport: (.post, "/admin/reports/{case_id}/resolve", .admin)
    case .adminUsers: (.get, "/admin/users", .admin)
    case .adminBanUser: (.put, "/admin/users/{user_id}/ban", .admin)
    case .adminUnbanUser: (.delete, "/admin/users/{user_id}/ban", .admin)
    case .adminStats: (.get, "/admin/stats", .admin)
    }
  }
}
