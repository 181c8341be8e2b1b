import ChatCore
import Dependencies
import Domain
import Foundation
import Logging
import Repositories
import ServiceEngine

/// One app installation talking to a ``FakeBackend``: its repositories act as whoever it is
/// signed in as, and its auth repository drives its own session.
///
/// Read repositories straight off the client (`alice.board.createPost(...)`), or install them
/// all: `withDependencies { $0.install(alice.repositories) } operation: { ... }`; for a feature
/// model, `$0.install(alice)` also sets `\.date` to the backend's clock.
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
  public var sessionState: SessionState { backend.state(of: id) }

  /// The signed-in user's identifier; throws `DomainError.signedOut` when nobody is signed in.
  public var userID: User.ID {
    get throws(DomainError) {
      guard case .signedIn(let user) = sessionState else { throw .signedOut }
      return user.id
    }
  }
}

extension FakeClient {
  /// A screen model created as this client: `make` runs with the client's dependencies
  /// installed (`DependencyValues.install(_:)`: its repositories and
  /// the backend's clock as `\.date`), `clock` as `\.continuousClock` when given, and `update`
  /// applied last (to wrap or replace an endpoint).
  ///
  /// ```swift
  /// let board = bob.model(clock: testClock) { BoardModel() }
  /// ```
  public func model<Model>(
    clock: (any Clock<Duration>)? = nil, _ update: (inout DependencyValues) -> Void = { _ in },
    _ make: () -> Model
  ) -> Model {
    withDependencies {
      $0.install(self)
      if let clock { $0.continuousClock = clock }
      update(&$0)
    } operation: {
      make()
    }
  }

  /// Uploads what the client's analytics buffer holds, then returns every event its signed-in
  /// user uploaded so far, in order: what a feature test pins after a flow.
  public func uploadedEvents() async throws -> [AnalyticsEvent] {
    _ = try await repositories.analytics.flush()
    let id = try userID
    return backend.analyticsEvents.filter { $0.userID == id }.map(\.event)
  }
}

extension DependencyValues {
  /// Installs `client`'s repositories and makes `\.date` the backend's clock (``FakeBackend/now``),
  /// so a feature model run as `client` stamps its analytics events with the fake's time:
  /// `withDependencies { $0.install(alice) } operation: { BoardModel() }`.
  public mutating func install(_ client: FakeClient) {
    install(client.repositories)
    let backend = client.backend
    date = DateGenerator { backend.now() }
  }
}

extension RepositorySet {
  /// The chat calls of a fake client as `user` makes them (`nil`: whoever is signed in); a
  /// user's engine gets its own, so its calls are `signedOut` while anyone else is signed in
  /// (`FakeBackend.perform(_:as:write:adminOnly:_:)`), as the live engine's are.
  static func chatServer(
    fakeClient id: FakeClient.ID, of backend: FakeBackend, boundTo user: User.ID?
  ) -> ChatRepository {
    let engine = backend.engine
    @Sendable func read<T>(_ body: (Viewer) throws -> T) throws -> T {
      try backend.perform(id, as: user, body)
    }
    @Sendable func write<T>(_ body: (Viewer) throws -> T) throws -> T {
      try backend.perform(id, as: user, write: .writes, body)
    }
    var chatServer = ChatRepository()
    chatServer.fetchRooms = { page in try read { try engine.chatRooms(page, as: $0) } }
    chatServer.openDirectRoom = { peer in
      try write { try engine.openDirectRoom(with: peer, as: $0) }
    }
    chatServer.fetchMessages = { roomID, afterSeq, beforeSeq, limit in
      // The limit is clamped as the live client's request clamps it.
      let limit = PageRequest(limit: limit).limit
      return try read {
        try engine.messages(
          in: roomID, afterSeq: afterSeq, beforeSeq: beforeSeq, limit: limit, as: $0)
      }
    }
    chatServer.sendMessage = { text, roomID, clientMessageID in
      let send = { (viewer: Viewer) in
        try engine.sendMessage(text, to: roomID, clientMessageID: clientMessageID, as: viewer)
          .message
      }
      // A resend of a stored message (its answer was lost) is answered again, not counted as
      // a write, as on the server.
      if try read({ engine.hasSent(clientMessageID: clientMessageID, as: $0) }) {
        return try read(send)
      }
      return try write(send)
    }
    chatServer.markRead = { roomID, seq in
      try write { try engine.markRoomRead(roomID, seq: seq, as: $0) }
    }
    return chatServer
  }

  /// The repositories of one fake client: every call runs on the backend's engine as the
  /// client's user.
  init(fakeClient id: FakeClient.ID, of backend: FakeBackend) {
    let engine = backend.engine
    /// A read as the client's user.
    @Sendable func read<T>(_ body: (Viewer) throws -> T) throws -> T {
      try backend.perform(id, body)
    }
    /// A write as the client's user (counted by the write limit).
    @Sendable func write<T>(_ body: (Viewer) throws -> T) throws -> T {
      try backend.perform(id, write: .writes, body)
    }
    /// An admin's write: a member is refused before the write limit counts it, as the server's
    /// admin routes do.
    @Sendable func adminWrite<T>(_ body: (Viewer) throws -> T) throws -> T {
      try backend.perform(id, write: .writes, adminOnly: true, body)
    }
    let chatServer = Self.chatServer(fakeClient: id, of: backend, boundTo: nil)
    self.init(
      auth: AuthRepository(
        sessionStates: { backend.sessionStates(of: id) },
        currentState: { backend.state(of: id) },
        signIn: { provider, token in
          let result = try backend.performPublic(id) {
            try engine.signIn(provider: provider.rawValue, token: token)
          }
          switch result {
          case .signedIn(let session): backend.signedIn(id, session)
          case .needsSignUp(let token): backend.signOut(id, to: .needsSignUp(token))
          }
          return result
        },
        requestEmailCode: { signUpToken, email in
          try backend.performPublic(id) {
            try engine.requestEmailCode(signUpToken: signUpToken.rawValue, email: email.rawValue)
              .expiresAt
          }
        },
        verifyEmailCode: { signUpToken, email, code in
          try backend.performPublic(id) {
            try engine.verifyEmailCode(
              signUpToken: signUpToken.rawValue, email: email.rawValue, code: code.rawValue)
          }
        },
        checkNickname: { nickname in
          try backend.performPublic(id, write: false) {
            try engine.nicknameAvailability(nickname.rawValue)
          }
        },
        signUp: { form in
          let session = try backend.performPublic(id) {
            try engine.signUp(
              signUpToken: form.signUpToken.rawValue,
              verificationToken: form.verificationToken.rawValue,
              nickname: form.nickname.rawValue, cohort: form.cohort,
              agreedTermsVersion: form.agreedTermsVersion)
          }
          backend.signedIn(id, session)
          return session.user
        },
        signOut: {
          // Like the live client, the session ends on this device whatever happens; offline or
          // over the write limit the server is not told (its refresh token stays valid there),
          // and the caller learns it from the error.
          defer { backend.signOut(id) }
          try backend.performPublic(id) {
            let refresh = backend.clients.withLock { $0[id]?.refreshToken }
            if let refresh, let viewer = try? backend.perform(id, { $0 }) {
              try? engine.signOut(refreshToken: refresh, as: viewer)
            }
          }
        },
        withdraw: {
          try backend.perform(id, write: .writes) { viewer in
            try engine.withdraw(as: viewer)
            // The account's events that were not uploaded are forgotten with it.
            backend.clients.withLock { $0[id]?.analyticsBuffers[viewer.id] = nil }
          }
          backend.signOut(id)
        }),
      profile: ProfileRepository(
        fetchMe: { backend.userUpdated(try read { try engine.me(as: $0) }, on: id) },
        updateProfile: { update in
          let change = ProfileChange(
            nickname: update.nickname?.rawValue, cohort: update.cohort.map { .some($0) })
          return backend.userUpdated(try write { try engine.updateProfile(change, as: $0) }, on: id)
        },
        uploadAvatar: { data, _, _ in
          let user = try write {
            try engine.uploadAvatar(try AvatarImage(validating: data), as: $0)
          }
          return backend.userUpdated(user, on: id)
        },
        fetchUser: { userID in try read { _ in try engine.user(userID) } },
        findUser: { nickname in try read { _ in try engine.user(nickname: nickname) } },
        fetchMyAnswers: { page in try read { try engine.myAnswers(page, as: $0) } }),
      questions: QuestionRepository(
        fetchToday: { try read { try engine.todaysQuestion(as: $0) } },
        fetchQuestions: { page in try read { try engine.questions(page, as: $0) } },
        fetchQuestion: { questionID in try read { try engine.question(questionID, as: $0) } },
        fetchAnswers: { questionID, page in
          try read { try engine.answers(of: questionID, page, as: $0) }
        },
        submitAnswer: { questionID, content in
          try write { try engine.submitAnswer(to: questionID, content: content, as: $0) }
        },
        deleteAnswer: { answerID in try write { try engine.deleteAnswer(answerID, as: $0) } }),
      board: BoardRepository(
        fetchPosts: { page in try read { try engine.posts(page, as: $0) } },
        searchPosts: { query, page in
          try read { try engine.posts(matching: query, page, as: $0) }
        },
        fetchPost: { postID in try read { try engine.post(postID, as: $0) } },
        createPost: { draft in try write { try engine.createPost(draft, as: $0) } },
        deletePost: { postID in try write { try engine.deletePost(postID, as: $0) } },
        setPostLike: { postID, isLiked in
          try write { try engine.setPostLike(postID, isLiked: isLiked, as: $0) }
        },
        fetchComments: { postID, page in
          try read { try engine.comments(on: postID, page, as: $0) }
        },
        createComment: { postID, draft in
          try write { try engine.createComment(on: postID, draft, as: $0) }
        },
        deleteComment: { commentID in try write { try engine.deleteComment(commentID, as: $0) } },
        setCommentLike: { commentID, isLiked in
          try write { try engine.setCommentLike(commentID, isLiked: isLiked, as: $0) }
        }),
      reports: ReportRepository(
        report: { target, reason in
          try write {
            try engine.report(target, reason: reason.code, detail: reason.detail, as: $0)
          }
        },
        fetchMyReports: { page in try read { try engine.myReports(page, as: $0) } }),
      notifications: NotificationRepository(
        fetchNotifications: { page in try read { try engine.notifications(page, as: $0) } },
        fetchUnreadCount: { try read { try engine.unreadNotificationCount(as: $0) } },
        markRead: { notificationID in
          try write { try engine.markNotificationRead(notificationID, as: $0) }
        },
        markAllRead: { try write { try engine.markAllNotificationsRead(as: $0) } }),
      studyGroups: StudyGroupRepository(
        fetchGroups: { query, page in
          try read { try engine.groups(matching: query, page, as: $0) }
        },
        fetchGroup: { groupID in try read { try engine.group(groupID, as: $0) } },
        createGroup: { draft in try write { try engine.createGroup(draft, as: $0) } },
        updateGroup: { groupID, draft in
          try write {
            try engine.updateGroup(
              groupID, name: draft.name, description: draft.description, as: $0)
          }
        },
        deleteGroup: { groupID in try write { try engine.deleteGroup(groupID, as: $0) } },
        joinGroup: { groupID in try write { try engine.joinGroup(groupID, as: $0) } },
        leaveGroup: { groupID in try write { try engine.leaveGroup(groupID, as: $0) } },
        invite: { userID, groupID in
          try write { try engine.inviteToGroup(groupID, user: userID, as: $0) }
        },
        fetchMembers: { groupID, page in
          try read { _ in try engine.groupMembers(of: groupID, page) }
        }),
      chat: .synced(
        server: chatServer,
        host: ChatHost(
          .init(
            sessionStates: { backend.sessionStates(of: id) }, storage: .inMemory,
            makeChannel: { user in EngineChatChannel(backend: backend, client: id, user: user) },
            server: chatServer,
            options: ChatSyncOptions(
              now: { backend.now() }, logger: FakeBackend.chatLogger,
              // No jitter: a fake's retries are deterministic; 10 ms doubling, at most 1 s.
              retryDelay: { .milliseconds(10 << min($0, 7)) }),
            makeServer: { user in Self.chatServer(fakeClient: id, of: backend, boundTo: user) }))),
      // Like the live uploader: an event waits under the user signed in when it was tracked
      // (one tracked while nobody was joins the next user's) and only ever goes up as that
      // user; a user who signs out keeps theirs for their next sign-in here.
      analytics: AnalyticsRepository(
        track: { event in
          backend.clients.withLock { clients in
            var client = clients[id, default: .init()]
            if case .signedIn(let user) = client.state {
              let anonymous = client.analyticsBuffers.removeValue(forKey: nil) ?? []
              client.analyticsBuffers[user.id, default: []] += anonymous + [event]
            } else {
              client.analyticsBuffers[nil, default: []].append(event)
            }
            clients[id] = client
          }
        },
        flush: {
          guard case .signedIn = backend.state(of: id) else {
            let waiting = backend.clients.withLock { $0[id]?.analyticsBuffers[nil] ?? [] }
            if waiting.isEmpty { return 0 }
            throw DomainError.signedOut
          }
          // Uploads count against a limit of their own, as on the server.
          return try backend.perform(id, write: .analytics) { viewer in
            let buffer = backend.clients.withLock { clients in
              let buffers = clients[id]?.analyticsBuffers ?? [:]
              clients[id]?.analyticsBuffers[viewer.id] = nil
              clients[id]?.analyticsBuffers[nil] = nil
              return (buffers[viewer.id] ?? []) + (buffers[nil] ?? [])
            }
            var accepted = 0
            var start = 0
            // As the live uploader: a batch the server refused for now stays, with every later
            // one, ahead of what was tracked since; one refused as invalid is dropped.
            defer {
              let kept = Array(buffer[start...])
              if !kept.isEmpty {
                backend.clients.withLock { clients in
                  let since = clients[id]?.analyticsBuffers[viewer.id] ?? []
                  clients[id]?.analyticsBuffers[viewer.id] = kept + since
                }
              }
            }
            while start < buffer.count {
              let end = min(start + AnalyticsBatch.maximumSize, buffer.count)
              do {
                accepted += try engine.recordAnalytics(
                  buffer[start..<end].map(UploadedEvent.init), as: viewer)
              } catch DomainError.validation(let error) {
                start = end
                throw DomainError.validation(error)
              }
              start = end
            }
            return accepted
          }
        }),
      admin: AdminRepository(
        fetchQuestions: { status, page in
          try read { try engine.scheduledQuestions(status: status, page, as: $0) }
        },
        createQuestion: { draft in try adminWrite { try engine.createQuestion(draft, as: $0) } },
        updateQuestion: { questionID, draft in
          try adminWrite {
            try engine.updateQuestion(
              questionID, content: draft.content, publishDate: draft.publishDate, as: $0)
          }
        },
        deleteQuestion: { questionID in
          try adminWrite { try engine.deleteQuestion(questionID, as: $0) }
        },
        importQuestions: { csv in try adminWrite { try engine.importQuestions(csv, as: $0) } },
        fetchReportCases: { status, page in
          try read { try engine.reportCases(status: status, page, as: $0) }
        },
        fetchReportCase: { caseID in try read { try engine.reportCase(caseID, as: $0) } },
        resolveReportCase: { caseID, resolution, note in
          try adminWrite { try engine.resolveReportCase(caseID, resolution, note: note, as: $0) }
        },
        fetchUsers: { query, page in
          try read { try engine.adminUsers(matching: query, page, as: $0) }
        },
        banUser: { userID, reason, until in
          try adminWrite { try engine.banUser(userID, reason: reason, until: until, as: $0) }
        },
        unbanUser: { userID in try adminWrite { try engine.unbanUser(userID, as: $0) } },
        fetchStats: { try read { try engine.adminStats(as: $0) } }))
  }
}

extension FakeBackend {
  /// The fake chat engines' log: quiet unless something is wrong.
  static let chatLogger: Logger = {
    var logger = Logger(label: "Qapple.FakeChat")
    logger.logLevel = .error
    return logger
  }()
}
