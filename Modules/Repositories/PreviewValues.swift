import Dependencies
import Domain
import Foundation

// `previewValue` of every repository: believable sample data (PreviewData.swift) in a small
// in-memory store, so a preview can like a post, answer the question or send a message and see
// the result. No network, no rules beyond what makes a preview behave plausibly; the stateful
// fakes that follow the server's rules are in `RepositoriesTesting`.

extension AuthRepository {
  /// Signed in as a sample member; sign-in and sign-up always succeed.
  public static let previewValue = AuthRepository(
    sessionStates: { PreviewStore.shared.sessionStates() },
    currentState: { PreviewStore.shared.sessionState },
    signIn: { _, _ in
      let user = PreviewStore.shared.read(\.me)
      PreviewStore.shared.setSessionState(.signedIn(user))
      return .signedIn(PreviewStore.session(for: user))
    },
    requestEmailCode: { _, _ in Date().addingTimeInterval(600) },
    verifyEmailCode: { _, _, _ in EmailVerificationToken(rawValue: "preview-verified") },
    checkNickname: { nickname in
      let taken = PreviewStore.shared.read { data in
        data.users.contains { $0.nickname.rawValue.lowercased() == nickname.rawValue.lowercased() }
      }
      return NicknameAvailability(
        nickname: nickname.rawValue, isAvailable: !taken,
        reason: taken ? DomainError.nicknameTaken.description : nil)
    },
    signUp: { form in
      let user = try PreviewStore.shared.update { data in
        data.me.nickname = form.nickname
        data.me.cohort = form.cohort
        return data.me
      }
      PreviewStore.shared.setSessionState(.signedIn(user))
      return user
    },
    signOut: { PreviewStore.shared.setSessionState(.signedOut) },
    withdraw: { PreviewStore.shared.setSessionState(.signedOut) })
}

extension ProfileRepository {
  /// A sample member's profile and answers.
  public static let previewValue = ProfileRepository(
    fetchMe: { PreviewStore.shared.read(\.me) },
    updateProfile: { update in
      try PreviewStore.shared.update { data in
        if let nickname = update.nickname {
          data.me.nickname = try Nickname(validating: nickname.rawValue)
        }
        if let cohort = update.cohort { data.me.cohort = cohort.isEmpty ? nil : cohort }
        return data.me
      }
    },
    uploadAvatar: { _, fileName, _ in
      try PreviewStore.shared.update { data in
        data.me.avatarURL = URL(string: "https://avatars.qapple.test/preview/\(fileName)")
        return data.me
      }
    },
    fetchUser: { id in
      guard let user = PreviewStore.shared.read({ $0.users.first { $0.id == id } }) else {
        throw DomainError.notFound
      }
      return user
    },
    fetchMyAnswers: { page in
      PreviewStore.shared.read { data in
        let mine = data.answers.values.flatMap { $0 }.filter(\.isMine)
        return PreviewStore.page(mine.sorted { $0.createdAt > $1.createdAt }, page)
      }
    })
}

extension QuestionRepository {
  /// Today's question (not answered yet) and three days of answers.
  public static let previewValue = QuestionRepository(
    fetchToday: {
      guard let today = PreviewStore.shared.read({ $0.questions.first }) else {
        throw DomainError.notFound
      }
      return today
    },
    fetchQuestions: { page in
      PreviewStore.shared.read { PreviewStore.page($0.questions, page) }
    },
    fetchQuestion: { id in
      guard let question = PreviewStore.shared.read({ $0.questions.first { $0.id == id } }) else {
        throw DomainError.notFound
      }
      return question
    },
    fetchAnswers: { id, page in
      try PreviewStore.shared.update { data in
        guard let question = data.questions.first(where: { $0.id == id }) else {
          throw DomainError.notFound
        }
        guard question.myAnswer != nil else { throw DomainError.answerRequired }
        return PreviewStore.page(data.answers[id] ?? [], page)
      }
    },
    submitAnswer: { id, content in
      try PreviewStore.shared.update { data in
        guard let index = data.questions.firstIndex(where: { $0.id == id }) else {
          throw DomainError.notFound
        }
        guard data.questions[index].myAnswer == nil else {
          throw DomainError.conflict("You already answered this question.")
        }
        let answer = Answer(
          id: Answer.ID("a_preview_\(UUID().uuidString)"), questionID: id,
          content: try Answer.validate(content: content),
          authorNickname: data.me.nickname.rawValue, isMine: true, createdAt: Date())
        data.questions[index].myAnswer = answer
        data.questions[index].answerCount += 1
        data.answers[id, default: []].insert(answer, at: 0)
        return answer
      }
    },
    deleteAnswer: { id in
      try PreviewStore.shared.update { data in
        guard let index = data.questions.firstIndex(where: { $0.myAnswer?.id == id }) else {
          throw DomainError.notFound
        }
        let questionID = data.questions[index].id
        data.questions[index].myAnswer = nil
        data.questions[index].answerCount -= 1
        data.answers[questionID]?.removeAll { $0.id == id }
      }
    })
}

extension BoardRepository {
  /// Three posts with likes and comments; likes toggle and new posts appear first.
  public static let previewValue = BoardRepository(
    fetchPosts: { page in PreviewStore.shared.read { PreviewStore.page($0.posts, page) } },
    searchPosts: { query, page in
      PreviewStore.shared.read { data in
        PreviewStore.page(
          data.posts.filter { $0.content.range(of: query, options: .caseInsensitive) != nil },
          page)
      }
    },
    fetchPost: { id in
      guard let post = PreviewStore.shared.read({ $0.posts.first { $0.id == id } }) else {
        throw DomainError.notFound
      }
      return post
    },
    createPost: { draft in
      try PreviewStore.shared.update { data in
        let valid = try draft.validated()
        let post = BoardPost(
          id: BoardPost.ID("p_preview_\(UUID().uuidString)"), content: valid.content,
          isAnonymous: valid.isAnonymous,
          authorName: valid.isAnonymous ? "Anonymous" : data.me.nickname.rawValue, isMine: true,
          createdAt: Date())
        data.posts.insert(post, at: 0)
        return post
      }
    },
    deletePost: { id in
      try PreviewStore.shared.update { data in
        guard let post = data.posts.first(where: { $0.id == id }) else {
          throw DomainError.notFound
        }
        guard post.isMine else { throw DomainError.forbidden }
        data.posts.removeAll { $0.id == id }
        data.comments[id] = nil
      }
    },
    setPostLike: { id, isLiked in
      try PreviewStore.shared.update { data in
        guard let index = data.posts.firstIndex(where: { $0.id == id }) else {
          throw DomainError.notFound
        }
        if data.posts[index].isLiked != isLiked {
          data.posts[index].likeState = data.posts[index].likeState.toggled()
        }
        return data.posts[index].likeState
      }
    },
    fetchComments: { id, page in
      PreviewStore.shared.read { PreviewStore.page($0.comments[id] ?? [], page) }
    },
    createComment: { id, draft in
      try PreviewStore.shared.update { data in
        guard let postIndex = data.posts.firstIndex(where: { $0.id == id }) else {
          throw DomainError.notFound
        }
        let valid = try draft.validated()
        let existing = data.comments[id] ?? []
        let name: String
        if valid.isAnonymous {
          let mine = existing.first { $0.isMine && $0.isAnonymous }?.authorName
          let labels = Set(existing.filter(\.isAnonymous).map(\.authorName))
          name = mine ?? Comment.anonymousLabel(ordinal: labels.count + 1)
        } else {
          name = data.me.nickname.rawValue
        }
        let comment = Comment(
          id: Comment.ID("c_preview_\(UUID().uuidString)"), postID: id, content: valid.content,
          isAnonymous: valid.isAnonymous, authorName: name, isMine: true, createdAt: Date())
        data.comments[id, default: []].append(comment)
        data.posts[postIndex].commentCount += 1
        return comment
      }
    },
    deleteComment: { id in
      try PreviewStore.shared.update { data in
        guard let postID = data.comments.first(where: { $0.value.contains { $0.id == id } })?.key,
          let comment = data.comments[postID]?.first(where: { $0.id == id })
        else { throw DomainError.notFound }
        guard comment.isMine else { throw DomainError.forbidden }
        data.comments[postID]?.removeAll { $0.id == id }
        if let index = data.posts.firstIndex(where: { $0.id == postID }) {
          data.posts[index].commentCount -= 1
        }
      }
    },
    setCommentLike: { id, isLiked in
      try PreviewStore.shared.update { data in
        for (postID, comments) in data.comments {
          guard let index = comments.firstIndex(where: { $0.id == id }) else { continue }
          var comment = comments[index]
          if comment.isLiked != isLiked { comment.likeState = comment.likeState.toggled() }
          data.comments[postID]?[index] = comment
          return comment.likeState
        }
        throw DomainError.notFound
      }
    })
}

extension ReportRepository {
  /// Accepts reports once per target and lists them.
  public static let previewValue = ReportRepository(
    report: { target, reason in
      try PreviewStore.shared.update { data in
        guard !data.reports.contains(where: { $0.target == target }) else {
          throw DomainError.alreadyReported
        }
        let report = Report(
          id: Report.ID("r_preview_\(UUID().uuidString)"), target: target,
          reason: try reason.validated(), status: .open, createdAt: Date())
        data.reports.insert(report, at: 0)
        return report
      }
    },
    fetchMyReports: { page in PreviewStore.shared.read { PreviewStore.page($0.reports, page) } })
}

extension NotificationRepository {
  /// Five notifications of several kinds, two of them read.
  public static let previewValue = NotificationRepository(
    fetchNotifications: { page in
      PreviewStore.shared.read { PreviewStore.page($0.notifications, page) }
    },
    fetchUnreadCount: {
      PreviewStore.shared.read { $0.notifications.count(where: { !$0.isRead }) }
    },
    markRead: { id in
      try PreviewStore.shared.update { data in
        guard let index = data.notifications.firstIndex(where: { $0.id == id }) else {
          throw DomainError.notFound
        }
        data.notifications[index].isRead = true
      }
    },
    markAllRead: {
      try PreviewStore.shared.update { data in
        for index in data.notifications.indices { data.notifications[index].isRead = true }
      }
    })
}

extension StudyGroupRepository {
  /// Three groups (member of two, owner of one).
  public static let previewValue = StudyGroupRepository(
    fetchGroups: { query, page in
      PreviewStore.shared.read { data in
        let text = query?.trimmingCharacters(in: .whitespaces) ?? ""
        let groups =
          text.isEmpty
          ? data.groups
          : data.groups.filter {
            $0.name.range(of: text, options: .caseInsensitive) != nil
              || $0.description.range(of: text, options: .caseInsensitive) != nil
          }
        return PreviewStore.page(groups, page)
      }
    },
    fetchGroup: { id in
      guard let group = PreviewStore.shared.read({ $0.groups.first { $0.id == id } }) else {
        throw DomainError.notFound
      }
      return group
    },
    createGroup: { draft in
      try PreviewStore.shared.update { data in
        let valid = try draft.validated()
        let id = StudyGroup.ID("g_preview_\(UUID().uuidString)")
        let group = StudyGroup(
          id: id, name: valid.name, description: valid.description, owner: data.me.summary,
          memberCount: 1, isMember: true, createdAt: Date())
        data.groups.insert(group, at: 0)
        data.members[id] = [GroupMember(user: data.me.summary, role: .owner, joinedAt: Date())]
        data.rooms.insert(
          ChatRoom(id: ChatRoom.ID("room_\(id.rawValue)"), kind: .group(id), title: valid.name),
          at: 0)
        return group
      }
    },
    updateGroup: { id, draft in
      try PreviewStore.shared.update { data in
        guard let index = data.groups.firstIndex(where: { $0.id == id }) else {
          throw DomainError.notFound
        }
        guard data.groups[index].isOwned(by: data.me.id) else { throw DomainError.forbidden }
        let valid = try draft.validated()
        data.groups[index].name = valid.name
        data.groups[index].description = valid.description
        return data.groups[index]
      }
    },
    deleteGroup: { id in
      try PreviewStore.shared.update { data in
        guard let group = data.groups.first(where: { $0.id == id }) else {
          throw DomainError.notFound
        }
        guard group.isOwned(by: data.me.id) else { throw DomainError.forbidden }
        data.groups.removeAll { $0.id == id }
        data.members[id] = nil
        data.rooms.removeAll { $0.kind == .group(id) }
      }
    },
    joinGroup: { id in
      try PreviewStore.shared.update { data in
        guard let index = data.groups.firstIndex(where: { $0.id == id }) else {
          throw DomainError.notFound
        }
        if !data.groups[index].isMember {
          data.groups[index].isMember = true
          data.groups[index].memberCount += 1
          data.members[id, default: []].append(
            GroupMember(user: data.me.summary, role: .member, joinedAt: Date()))
        }
        return data.groups[index]
      }
    },
    leaveGroup: { id in
      try PreviewStore.shared.update { data in
        guard let index = data.groups.firstIndex(where: { $0.id == id }) else {
          throw DomainError.notFound
        }
        guard !data.groups[index].isOwned(by: data.me.id) else {
          throw DomainError.conflict("The owner cannot leave the group. Delete it instead.")
        }
        if data.groups[index].isMember {
          data.groups[index].isMember = false
          data.groups[index].memberCount -= 1
          data.members[id]?.removeAll { $0.user.id == data.me.id }
        }
      }
    },
    fetchMembers: { id, page in
      PreviewStore.shared.read { PreviewStore.page($0.members[id] ?? [], page) }
    })
}

extension ChatRepository {
  /// Two group rooms and a direct conversation; sent messages get the next `seq`.
  public static let previewValue = ChatRepository(
    fetchRooms: { page in PreviewStore.shared.read { PreviewStore.page($0.rooms, page) } },
    openDirectRoom: { userID in
      try PreviewStore.shared.update { data in
        if let room = data.rooms.first(where: { $0.kind == .direct(userID) }) { return room }
        guard let peer = data.users.first(where: { $0.id == userID }), peer.id != data.me.id
        else { throw DomainError.notFound }
        let room = ChatRoom(
          id: ChatRoom.ID("room_dm_preview_\(userID.rawValue)"), kind: .direct(userID),
          title: peer.nickname.rawValue)
        data.rooms.insert(room, at: 0)
        return room
      }
    },
    fetchMessages: { roomID, afterSeq, beforeSeq, limit in
      PreviewStore.shared.read { data in
        let all = (data.messages[roomID] ?? []).filter { message in
          let seq = message.seq ?? 0
          return (afterSeq.map { seq > $0 } ?? true) && (beforeSeq.map { seq < $0 } ?? true)
        }
        let count = min(max(limit, 1), PageRequest.maximumLimit)
        return Array(afterSeq != nil && beforeSeq == nil ? all.prefix(count) : all.suffix(count))
      }
    },
    sendMessage: { text, roomID, clientMessageID in
      try PreviewStore.shared.update { data in
        if let sent = data.messages[roomID]?.first(where: { $0.clientMessageID == clientMessageID })
        {
          return sent
        }
        guard let roomIndex = data.rooms.firstIndex(where: { $0.id == roomID }) else {
          throw DomainError.notFound
        }
        let seq = (data.messages[roomID]?.last?.seq ?? 0) + 1
        let message = ChatMessage(
          id: ChatMessage.ID("m_preview_\(clientMessageID.uuidString)"), roomID: roomID, seq: seq,
          clientMessageID: clientMessageID, sender: data.me.summary,
          text: try ChatMessage.validate(text: text), createdAt: Date())
        data.messages[roomID, default: []].append(message)
        data.rooms[roomIndex].lastMessage = message
        return message
      }
    },
    markRead: { roomID, seq in
      try PreviewStore.shared.update { data in
        guard let index = data.rooms.firstIndex(where: { $0.id == roomID }) else {
          throw DomainError.notFound
        }
        let readSeq = max(data.rooms[index].lastReadSeq, seq)
        data.rooms[index].lastReadSeq = readSeq
        data.rooms[index].unreadCount = (data.messages[roomID] ?? []).count(where: {
          ($0.seq ?? 0) > readSeq && $0.sender.id != data.me.id
        })
      }
    })
}

extension AnalyticsRepository {
  /// Buffers events in memory; a flush "uploads" and clears them.
  public static let previewValue = AnalyticsRepository(
    track: { event in PreviewStore.shared.track(event) },
    flush: { PreviewStore.shared.flushAnalytics() })
}

extension AdminRepository {
  /// A moderator's view: scheduled questions, three report cases, five users, stats.
  public static let previewValue = AdminRepository(
    fetchQuestions: { status, page in
      PreviewStore.shared.read { data in
        let questions = data.scheduledQuestions
          .filter { status == nil || $0.status == status }
          .sorted { $0.publishDate > $1.publishDate }
        return PreviewStore.page(questions, page)
      }
    },
    createQuestion: { draft in
      try PreviewStore.shared.update { data in
        let valid = try draft.validated()
        guard !data.scheduledQuestions.contains(where: { $0.publishDate == valid.publishDate })
        else { throw DomainError.conflict("There is already a question for \(valid.publishDate).") }
        let question = ScheduledQuestion(
          id: Question.ID("q_preview_\(UUID().uuidString)"), content: valid.content,
          publishDate: valid.publishDate, createdAt: Date(),
          status: valid.publishDate > data.today ? .scheduled : .published)
        data.scheduledQuestions.append(question)
        return question
      }
    },
    updateQuestion: { id, draft in
      try PreviewStore.shared.update { data in
        guard let index = data.scheduledQuestions.firstIndex(where: { $0.id == id }) else {
          throw DomainError.notFound
        }
        let valid = try draft.validated()
        data.scheduledQuestions[index].content = valid.content
        data.scheduledQuestions[index].publishDate = valid.publishDate
        data.scheduledQuestions[index].status =
          valid.publishDate > data.today ? .scheduled : .published
        return data.scheduledQuestions[index]
      }
    },
    deleteQuestion: { id in
      try PreviewStore.shared.update { data in
        guard data.scheduledQuestions.contains(where: { $0.id == id }) else {
          throw DomainError.notFound
        }
        data.scheduledQuestions.removeAll { $0.id == id }
      }
    },
    importQuestions: { csv in
      try PreviewStore.shared.update { data in
        try PreviewStore.importQuestions(csv, into: &data)
      }
    },
    fetchReportCases: { status, page in
      PreviewStore.shared.read { data in
        PreviewStore.page(
          data.reportCases.map(\.reportCase).filter { status == nil || $0.status == status },
          page)
      }
    },
    fetchReportCase: { id in
      guard
        let detail = PreviewStore.shared.read({
          $0.reportCases.first { $0.reportCase.id == id }
        })
      else { throw DomainError.notFound }
      return detail
    },
    resolveReportCase: { id, resolution, _ in
      try PreviewStore.shared.update { data in
        guard let index = data.reportCases.firstIndex(where: { $0.reportCase.id == id }) else {
          throw DomainError.notFound
        }
        guard data.reportCases[index].reportCase.status == .open else {
          throw DomainError.conflict("This case is already resolved.")
        }
        data.reportCases[index].reportCase.status = .resolved
        data.reportCases[index].reportCase.resolution = resolution
        data.reportCases[index].reportCase.isHidden = resolution != .dismiss
        return data.reportCases[index].reportCase
      }
    },
    fetchUsers: { query, page in
      PreviewStore.shared.read { data in
        let text = query?.trimmingCharacters(in: .whitespaces) ?? ""
        let users =
          text.isEmpty
          ? data.adminUsers
          : data.adminUsers.filter {
            $0.user.nickname.rawValue.range(of: text, options: .caseInsensitive) != nil
          }
        return PreviewStore.page(users, page)
      }
    },
    banUser: { id, reason, until in
      try PreviewStore.shared.update { data in
        guard let index = data.adminUsers.firstIndex(where: { $0.id == id }) else {
          throw DomainError.notFound
        }
        guard !data.adminUsers[index].user.role.isAdmin else {
          throw DomainError.conflict("Admins cannot be banned.")
        }
        data.adminUsers[index].user.isBanned = true
        data.adminUsers[index].banReason = try TextRule.banReason.validate(reason)
        data.adminUsers[index].bannedUntil = until
        return data.adminUsers[index]
      }
    },
    unbanUser: { id in
      try PreviewStore.shared.update { data in
        guard let index = data.adminUsers.firstIndex(where: { $0.id == id }) else {
          throw DomainError.notFound
        }
        data.adminUsers[index].user.isBanned = false
        data.adminUsers[index].banReason = nil
        data.adminUsers[index].bannedUntil = nil
        return data.adminUsers[index]
      }
    },
    fetchStats: {
      PreviewStore.shared.read { data in
        AdminStats(
          users: data.adminUsers.count,
          admins: data.adminUsers.count(where: { $0.user.role.isAdmin }),
          bannedUsers: data.adminUsers.count(where: { $0.user.isBanned }),
          questions: data.scheduledQuestions.count,
          answers: data.answers.values.reduce(0) { $0 + $1.count }, posts: data.posts.count,
          comments: data.comments.values.reduce(0) { $0 + $1.count },
          openReports: data.reportCases.count(where: { $0.reportCase.status == .open }),
          hiddenContents: data.reportCases.count(where: { $0.reportCase.isHidden }),
          groups: data.groups.count,
          messages: data.messages.values.reduce(0) { $0 + $1.count })
      }
    })
}

// MARK: - The preview store

/// The shared state of every `previewValue`: one sample community per preview process.
final class PreviewStore: Sendable {
  /// The store all preview repositories share.
  static let shared = PreviewStore()

  private let data = PreviewLock(PreviewData())
  private let session = PreviewLock(
    (state: SessionState.signedIn(PreviewData().me), subscribers: [UUID: Subscriber]()))
  private let analytics = PreviewLock([AnalyticsEvent]())

  typealias Subscriber = AsyncStream<SessionState>.Continuation

  /// Reads the sample data.
  func read<Value>(_ body: (PreviewData) -> Value) -> Value {
    data.withLock { body($0) }
  }

  /// Reads one value of the sample data.
  func read<Value>(_ keyPath: KeyPath<PreviewData, Value>) -> Value {
    data.withLock { $0[keyPath: keyPath] }
  }

  /// Changes the sample data; validation errors become `DomainError.validation`.
  func update<Value>(_ body: (inout PreviewData) throws -> Value) throws -> Value {
    do {
      return try data.withLock { try body(&$0) }
    } catch let error as ValidationError {
      throw DomainError.validation(error)
    }
  }

  /// The session state now.
  var sessionState: SessionState { session.withLock { $0.state } }

  /// Yields the current state first, then every change.
  func sessionStates() -> AsyncStream<SessionState> {
    let (stream, continuation) = AsyncStream.makeStream(of: SessionState.self)
    let key = UUID()
    session.withLock {
      continuation.yield($0.state)
      $0.subscribers[key] = continuation
    }
    continuation.onTermination = { [session] _ in
      session.withLock { _ = $0.subscribers.removeValue(forKey: key) }
    }
    return stream
  }

  /// Changes the session state and tells every subscriber.
  func setSessionState(_ state: SessionState) {
    let subscribers = session.withLock {
      $0.state = state
      return Array($0.subscribers.values)
    }
    for subscriber in subscribers { subscriber.yield(state) }
  }

  /// Buffers an analytics event.
  func track(_ event: AnalyticsEvent) {
    analytics.withLock { $0.append(event) }
  }

  /// Empties the buffer and returns how many events it held.
  func flushAnalytics() -> Int {
    analytics.withLock { events in
      defer { events.removeAll() }
      return events.count
    }
  }

  /// A session for previews of sign-in.
  static func session(for user: User) -> AuthSession {
    AuthSession(
      accessToken: "preview-access", refreshToken: "preview-refresh",
      expiresAt: Date().addingTimeInterval(900), user: user)
  }

  /// Offset pagination (previews never change under a paging list).
  static func page<Item: Sendable>(_ items: [Item], _ request: PageRequest) -> Page<Item> {
    let start = request.cursor.flatMap { Int($0.rawValue) } ?? 0
    let end = min(items.count, start + request.limit)
    guard start < end else { return Page(items: []) }
    return Page(
      items: Array(items[start..<end]),
      nextCursor: end < items.count ? PageCursor(rawValue: String(end)) : nil)
  }

  /// A light CSV import for previews: one `date,content` row per line, the content optionally
  /// in quotes; bad rows are reported with their line numbers.
  static func importQuestions(
    _ csv: Data, into data: inout PreviewData
  ) throws -> QuestionImportResult {
    let text = String(decoding: csv, as: UTF8.self)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map {
      $0.trimmingCharacters(in: .whitespacesAndNewlines)
    }
    guard lines.contains(where: { !$0.isEmpty }) else {
      throw DomainError.validation(.empty(field: "file"))
    }
    var imported = 0
    var errors: [QuestionImportResult.LineError] = []
    for (index, line) in lines.enumerated().dropFirst() where !line.isEmpty {
      let parts = line.split(separator: ",", maxSplits: 1).map(String.init)
      do {
        guard parts.count == 2 else {
          throw ValidationError.invalidFormat(field: "content", expected: "date,content")
        }
        var content = parts[1]
        if content.hasPrefix("\""), content.hasSuffix("\""), content.count >= 2 {
          content = String(content.dropFirst().dropLast()).replacingOccurrences(
            of: "\"\"", with: "\"")
        }
        let draft = try QuestionDraft(
          content: content, publishDate: try CalendarDay(iso8601: parts[0])
        ).validated()
        data.scheduledQuestions.append(
          ScheduledQuestion(
            id: Question.ID("q_preview_\(UUID().uuidString)"), content: draft.content,
            publishDate: draft.publishDate, createdAt: Date(),
            status: draft.publishDate > data.today ? .scheduled : .published))
        imported += 1
      } catch let error as ValidationError {
        errors.append(.init(line: index + 1, message: error.description))
      }
    }
    return QuestionImportResult(imported: imported, errors: errors)
  }
}

/// A value behind a lock, for the preview store.
final class PreviewLock<Value: Sendable>: @unchecked Sendable {
  private let lock = NSLock()
  private var value: Value

  init(_ value: Value) { self.value = value }

  func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}
