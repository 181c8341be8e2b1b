import Domain
import Foundation
import Repositories

/// One app installation talking to a ``FakeBackend``: its repositories act as whoever it is
/// signed in as, and its auth repository drives its own session.
///
/// Read repositories straight off the client (`alice.board.createPost(...)`), or install them
/// all: `withDependencies { $0.install(alice.repositories) } operation: { ... }`.
@dynamicMemberLookup
public struct FakeClient: Sendable, Identifiable {
  /// Identifies a client within its backend.
  public struct ID: Hashable, Sendable, CustomStringConvertible {
    /// The client's number, counting from 1.
    public let rawValue: Int
    /// `client-N`.
    public var description: String { "client-\(rawValue)" }
  }

  /// The client's identifier.
  public let id: ID
  /// The backend it talks to.
  public let backend: FakeBackend
  /// Every repository, acting as this client's user.
  public let repositories: RepositorySet

  init(id: ID, backend: FakeBackend) {
    self.id = id
    self.backend = backend
    self.repositories = RepositorySet(fakeClient: id, of: backend)
  }

  /// A repository of the set, e.g. `client.board` or `client.admin`.
  public subscript<Value>(dynamicMember keyPath: KeyPath<RepositorySet, Value>) -> Value {
    repositories[keyPath: keyPath]
  }

  /// The client's session state now.
  public var sessionState: SessionState {
    backend.state.withLock { $0.clients[id]?.state ?? .signedOut }
  }

  /// The signed-in user's identifier; throws `DomainError.signedOut` when nobody is signed in.
  public var userID: User.ID {
    get throws(DomainError) {
      guard case .signedIn(let user) = sessionState else { throw .signedOut }
      return user.id
    }
  }
}

extension RepositorySet {
  /// The repositories of one fake client: every call runs against `backend` as the client.
  init(fakeClient id: FakeClient.ID, of backend: FakeBackend) {
    self.init(
      auth: .fake(id, backend), profile: .fake(id, backend), questions: .fake(id, backend),
      board: .fake(id, backend), reports: .fake(id, backend), notifications: .fake(id, backend),
      studyGroups: .fake(id, backend), chat: .fake(id, backend), analytics: .fake(id, backend),
      admin: .fake(id, backend))
  }
}

extension AuthRepository {
  static func fake(_ id: FakeClient.ID, _ backend: FakeBackend) -> Self {
    AuthRepository(
      sessionStates: {
        backend.state.withLock { state in
          state.hub.stream(for: id, current: state.clients[id]?.state ?? .signedOut)
        }
      },
      currentState: {
        backend.state.withLock { $0.clients[id]?.state ?? .signedOut }
      },
      signIn: { provider, token in
        try backend.performPublic(id) {
          try $0.signIn(client: id, provider: provider, token: token)
        }
      },
      requestEmailCode: { signUpToken, email in
        try backend.performPublic(id) {
          try $0.requestEmailCode(signUpToken: signUpToken, email: email)
        }
      },
      verifyEmailCode: { signUpToken, email, code in
        try backend.performPublic(id) {
          try $0.verifyEmailCode(signUpToken: signUpToken, email: email, code: code)
        }
      },
      checkNickname: { nickname in
        try backend.performPublic(id, isWrite: false) { $0.nicknameAvailability(nickname) }
      },
      signUp: { form in
        try backend.performPublic(id) { try $0.signUp(client: id, form: form) }
      },
      signOut: {
        try backend.performPublic(id) { $0.endSession(of: id) }
      },
      withdraw: {
        try backend.perform(id, .action) { $0.withdraw(client: id, userID: $1) }
      })
  }
}

extension ProfileRepository {
  static func fake(_ id: FakeClient.ID, _ backend: FakeBackend) -> Self {
    ProfileRepository(
      fetchMe: {
        try backend.perform(id, .read) { state, userID in
          let user = try state.fetchUser(userID)
          state.userUpdated(user, on: id)
          return user
        }
      },
      updateProfile: { update in
        try backend.perform(id, .write) {
          try $0.updateProfile(client: id, userID: $1, update: update)
        }
      },
      uploadAvatar: { data, fileName, mimeType in
        try backend.perform(id, .write) {
          try $0.uploadAvatar(
            client: id, userID: $1, data: data, fileName: fileName, mimeType: mimeType)
        }
      },
      fetchUser: { userID in
        try backend.perform(id, .read) { state, _ in try state.fetchUser(userID) }
      },
      fetchMyAnswers: { page in
        try backend.perform(id, .read) { try $0.fetchMyAnswers(viewer: $1, page: page) }
      })
  }
}

extension QuestionRepository {
  static func fake(_ id: FakeClient.ID, _ backend: FakeBackend) -> Self {
    QuestionRepository(
      fetchToday: {
        try backend.perform(id, .read) { try $0.fetchToday(viewer: $1) }
      },
      fetchQuestions: { page in
        try backend.perform(id, .read) { try $0.fetchQuestions(viewer: $1, page: page) }
      },
      fetchQuestion: { questionID in
        try backend.perform(id, .read) { try $0.fetchQuestion(questionID, viewer: $1) }
      },
      fetchAnswers: { questionID, page in
        try backend.perform(id, .read) {
          try $0.fetchAnswers(of: questionID, viewer: $1, page: page)
        }
      },
      submitAnswer: { questionID, content in
        try backend.perform(id, .write) {
          try $0.submitAnswer(to: questionID, content: content, author: $1)
        }
      },
      deleteAnswer: { answerID in
        try backend.perform(id, .write) { try $0.deleteAnswer(answerID, by: $1) }
      })
  }
}

extension BoardRepository {
  static func fake(_ id: FakeClient.ID, _ backend: FakeBackend) -> Self {
    BoardRepository(
      fetchPosts: { page in
        try backend.perform(id, .read) { try $0.fetchPosts(viewer: $1, page: page) }
      },
      searchPosts: { query, page in
        try backend.perform(id, .read) { try $0.searchPosts(query, viewer: $1, page: page) }
      },
      fetchPost: { postID in
        try backend.perform(id, .read) { try $0.fetchPost(postID, viewer: $1) }
      },
      createPost: { draft in
        try backend.perform(id, .write) { try $0.createPost(draft, author: $1) }
      },
      deletePost: { postID in
        try backend.perform(id, .write) { try $0.deletePost(postID, by: $1) }
      },
      setPostLike: { postID, isLiked in
        try backend.perform(id, .write) { try $0.setPostLike(postID, isLiked: isLiked, by: $1) }
      },
      fetchComments: { postID, page in
        try backend.perform(id, .read) { try $0.fetchComments(of: postID, viewer: $1, page: page) }
      },
      createComment: { postID, draft in
        try backend.perform(id, .write) {
          try $0.createComment(on: postID, draft: draft, author: $1)
        }
      },
      deleteComment: { commentID in
        try backend.perform(id, .write) { try $0.deleteComment(commentID, by: $1) }
      },
      setCommentLike: { commentID, isLiked in
        try backend.perform(id, .write) {
          try $0.setCommentLike(commentID, isLiked: isLiked, by: $1)
        }
      })
  }
}

extension ReportRepository {
  static func fake(_ id: FakeClient.ID, _ backend: FakeBackend) -> Self {
    ReportRepository(
      report: { target, reason in
        try backend.perform(id, .write) { try $0.report(target, reason: reason, reporter: $1) }
      },
      fetchMyReports: { page in
        try backend.perform(id, .read) { try $0.fetchMyReports(of: $1, page: page) }
      })
  }
}

extension NotificationRepository {
  static func fake(_ id: FakeClient.ID, _ backend: FakeBackend) -> Self {
    NotificationRepository(
      fetchNotifications: { page in
        try backend.perform(id, .read) { try $0.fetchNotifications(of: $1, page: page) }
      },
      fetchUnreadCount: {
        try backend.perform(id, .read) { $0.unreadCount(of: $1) }
      },
      markRead: { notificationID in
        try backend.perform(id, .action) { try $0.markNotificationRead(notificationID, by: $1) }
      },
      markAllRead: {
        try backend.perform(id, .action) { $0.markAllNotificationsRead(of: $1) }
      })
  }
}

extension StudyGroupRepository {
  static func fake(_ id: FakeClient.ID, _ backend: FakeBackend) -> Self {
    StudyGroupRepository(
      fetchGroups: { query, page in
        try backend.perform(id, .read) { try $0.fetchGroups(query: query, viewer: $1, page: page) }
      },
      fetchGroup: { groupID in
        try backend.perform(id, .read) { try $0.fetchGroup(groupID, viewer: $1) }
      },
      createGroup: { draft in
        try backend.perform(id, .write) { try $0.createGroup(draft, owner: $1) }
      },
      updateGroup: { groupID, draft in
        try backend.perform(id, .write) { try $0.updateGroup(groupID, draft: draft, by: $1) }
      },
      deleteGroup: { groupID in
        try backend.perform(id, .write) { try $0.deleteGroup(groupID, by: $1) }
      },
      joinGroup: { groupID in
        try backend.perform(id, .write) { try $0.joinGroup(groupID, by: $1) }
      },
      leaveGroup: { groupID in
        try backend.perform(id, .action) { try $0.leaveGroup(groupID, by: $1) }
      },
      fetchMembers: { groupID, page in
        try backend.perform(id, .read) { state, _ in try state.fetchMembers(of: groupID, page: page)
        }
      })
  }
}

extension ChatRepository {
  static func fake(_ id: FakeClient.ID, _ backend: FakeBackend) -> Self {
    ChatRepository(
      fetchRooms: { page in
        try backend.perform(id, .read) { try $0.fetchRooms(viewer: $1, page: page) }
      },
      openDirectRoom: { peer in
        try backend.perform(id, .write) { try $0.openDirectRoom(with: peer, viewer: $1) }
      },
      fetchMessages: { roomID, afterSeq, beforeSeq, limit in
        try backend.perform(id, .read) {
          try $0.fetchMessages(
            in: roomID, afterSeq: afterSeq, beforeSeq: beforeSeq, limit: limit, viewer: $1)
        }
      },
      sendMessage: { text, roomID, clientMessageID in
        try backend.perform(id, .write) {
          try $0.sendMessage(text, to: roomID, clientMessageID: clientMessageID, sender: $1)
        }
      },
      markRead: { roomID, seq in
        try backend.perform(id, .action) { try $0.markRoomRead(roomID, seq: seq, viewer: $1) }
      })
  }
}

extension AnalyticsRepository {
  static func fake(_ id: FakeClient.ID, _ backend: FakeBackend) -> Self {
    AnalyticsRepository(
      track: { event in
        backend.state.withLock { $0.track(event, on: id) }
      },
      flush: {
        try backend.perform(id, .action) { $0.flushAnalytics(of: id, userID: $1) }
      })
  }
}

extension AdminRepository {
  static func fake(_ id: FakeClient.ID, _ backend: FakeBackend) -> Self {
    AdminRepository(
      fetchQuestions: { status, page in
        try backend.perform(id, .adminRead) { state, _ in
          try state.fetchAdminQuestions(status: status, page: page)
        }
      },
      createQuestion: { draft in
        try backend.perform(id, .adminWrite) { try $0.createQuestion(draft, admin: $1) }
      },
      updateQuestion: { questionID, draft in
        try backend.perform(id, .adminWrite) {
          try $0.updateQuestion(questionID, draft: draft, admin: $1)
        }
      },
      deleteQuestion: { questionID in
        try backend.perform(id, .adminWrite) { state, _ in try state.deleteQuestion(questionID) }
      },
      importQuestions: { csv in
        try backend.perform(id, .adminWrite) { try $0.importQuestions(csv, admin: $1) }
      },
      fetchReportCases: { status, page in
        try backend.perform(id, .adminRead) { state, _ in
          try state.fetchReportCases(status: status, page: page)
        }
      },
      fetchReportCase: { caseID in
        try backend.perform(id, .adminRead) { state, _ in try state.fetchReportCase(caseID) }
      },
      resolveReportCase: { caseID, resolution, note in
        try backend.perform(id, .adminWrite) {
          try $0.resolveReportCase(caseID, resolution: resolution, note: note, admin: $1)
        }
      },
      fetchUsers: { query, page in
        try backend.perform(id, .adminRead) { state, _ in
          try state.fetchUsers(query: query, page: page)
        }
      },
      banUser: { userID, reason, until in
        try backend.perform(id, .adminWrite) {
          try $0.banUser(userID, reason: reason, until: until, admin: $1)
        }
      },
      unbanUser: { userID in
        try backend.perform(id, .adminWrite) { state, _ in try state.unbanUser(userID) }
      },
      fetchStats: {
        try backend.perform(id, .adminRead) { state, _ in state.stats() }
      })
  }
}
