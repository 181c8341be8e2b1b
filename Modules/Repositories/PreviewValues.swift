import Dependencies
import Domain
import Foundation

// `previewValue` of every repository: static sample data (PreviewData.swift). Reads answer
// the sample community; writes answer what the input would become, and nothing is stored: no
// rules, no locks. Interactive previews that keep state and follow the service's rules come
// from `RepositoriesTesting` (`FakeBackend.preview()`).

/// The sample community every preview reads.
private let sample = PreviewData()

/// One page of `items`; the cursor is the index to continue from.
private func page<Item: Sendable>(_ items: [Item], _ request: PageRequest) -> Page<Item> {
  let start = request.cursor.flatMap { Int($0.rawValue) } ?? 0
  let end = min(items.count, start + request.limit)
  guard start < end else { return Page(items: []) }
  return Page(
    items: Array(items[start..<end]),
    nextCursor: end < items.count ? PageCursor(rawValue: String(end)) : nil)
}

/// The sample element with `id`, or `DomainError.notFound`.
private func find<Item: Identifiable>(_ items: [Item], _ id: Item.ID) throws -> Item {
  guard let item = items.first(where: { $0.id == id }) else { throw DomainError.notFound }
  return item
}

extension AuthRepository {
  /// Signed in as the sample member; sign-in and sign-up succeed as that member.
  public static let previewValue = AuthRepository(
    sessionStates: { AsyncStream { $0.yield(.signedIn(sample.me)) } },
    currentState: { .signedIn(sample.me) },
    signIn: { _, _ in
      .signedIn(
        AuthSession(
          accessToken: "preview-access", refreshToken: "preview-refresh",
          expiresAt: sample.now.addingTimeInterval(900), user: sample.me))
    },
    requestEmailCode: { _, _ in sample.now.addingTimeInterval(600) },
    verifyEmailCode: { _, _, _ in EmailVerificationToken(rawValue: "preview-verified") },
    checkNickname: { nickname in
      let taken = sample.users.contains {
        $0.nickname.key == nickname.key
      }
      return NicknameAvailability(
        nickname: nickname.rawValue, isAvailable: !taken,
        reason: taken ? DomainError.nicknameTaken.description : nil)
    },
    signUp: { form in
      var user = sample.me
      user.nickname = form.nickname
      user.cohort = form.cohort
      return user
    },
    signOut: {},
    withdraw: {})
}

extension ProfileRepository {
  /// The sample member's profile and answers.
  public static let previewValue = ProfileRepository(
    fetchMe: { sample.me },
    updateProfile: { update in
      var user = sample.me
      if let nickname = update.nickname { user.nickname = nickname }
      if let cohort = update.cohort { user.cohort = cohort.trimmedOrNil }
      return user
    },
    uploadAvatar: { _, fileName, _ in
      var user = sample.me
      user.avatarURL = URL(string: "https://avatars.qapple.test/preview/\(fileName)")
      return user
    },
    fetchUser: { id in try find(sample.users, id) },
    findUser: { typed in
      let nickname: String
      do throws(ValidationError) {
        nickname = try Nickname.lookupText(typed)
      } catch {
        throw DomainError.validation(error)
      }
      guard
        let user = sample.users.first(where: {
          $0.nickname.key == Nickname.key(nickname)
        })
      else { throw DomainError.notFound }
      return user
    },
    fetchMyAnswers: { request in
      page(sample.answers.values.flatMap { $0 }.filter(\.isMine), request)
    })
}

extension QuestionRepository {
  /// Today's question (not answered yet) and three days of answers.
  public static let previewValue = QuestionRepository(
    fetchToday: {
      guard let today = sample.questions.first else { throw DomainError.notFound }
      return today
    },
    fetchQuestions: { request in page(sample.questions, request) },
    fetchQuestion: { id in try find(sample.questions, id) },
    fetchAnswers: { id, request in
      let question = try find(sample.questions, id)
      guard question.canSeeAnswers else { throw DomainError.answerRequired }
      return page(sample.answers[id] ?? [], request)
    },
    submitAnswer: { id, content in
      Answer(
        id: "a_preview_new", questionID: id, content: content,
        authorNickname: sample.me.nickname.rawValue, isMine: true, createdAt: sample.now)
    },
    deleteAnswer: { _ in })
}

extension BoardRepository {
  /// Posts in Korean and English with comments and likes.
  public static let previewValue = BoardRepository(
    fetchPosts: { request in page(sample.posts, request) },
    searchPosts: { query, request in
      page(sample.posts.filter { $0.content.localizedCaseInsensitiveContains(query) }, request)
    },
    fetchPost: { id in try find(sample.posts, id) },
    createPost: { draft in
      BoardPost(
        id: "p_preview_new", content: draft.content, isAnonymous: draft.isAnonymous,
        authorName: draft.isAnonymous ? BoardPost.anonymousAuthorName : sample.me.nickname.rawValue,
        isMine: true,
        likeCount: 0, isLiked: false, commentCount: 0, createdAt: sample.now)
    },
    deletePost: { _ in },
    setPostLike: { id, isLiked in
      let state = try find(sample.posts, id).likeState
      return state.isLiked == isLiked ? state : state.toggled()
    },
    fetchComments: { id, request in page(sample.comments[id] ?? [], request) },
    createComment: { postID, draft in
      Comment(
        id: "c_preview_new", postID: postID, content: draft.content,
        isAnonymous: draft.isAnonymous,
        authorName: draft.isAnonymous
          ? Comment.anonymousLabel(ordinal: 1)
          : sample.me.nickname
            .rawValue,
        isMine: true, likeCount: 0, isLiked: false, createdAt: sample.now)
    },
    deleteComment: { _ in },
    setCommentLike: { id, isLiked in
      let comment = try find(sample.comments.values.flatMap { $0 }, id)
      return comment.likeState.isLiked == isLiked ? comment.likeState : comment.likeState.toggled()
    })
}

extension ReportRepository {
  /// The sample member's reports; a new report is accepted as open.
  public static let previewValue = ReportRepository(
    report: { target, reason in
      Report(
        id: "r_preview_new", target: target, reason: reason, status: .open, createdAt: sample.now)
    },
    fetchMyReports: { request in page(sample.reports, request) })
}

extension NotificationRepository {
  /// Several kinds of notifications, some unread.
  public static let previewValue = NotificationRepository(
    fetchNotifications: { request in page(sample.notifications, request) },
    fetchUnreadCount: { sample.notifications.filter { !$0.isRead }.count },
    markRead: { _ in },
    markAllRead: {})
}

extension StudyGroupRepository {
  /// Joined and open groups with their members.
  public static let previewValue = StudyGroupRepository(
    fetchGroups: { query, request in
      let groups =
        query?.trimmedOrNil.map { text in
          sample.groups.filter {
            $0.name.localizedCaseInsensitiveContains(text)
              || $0.description.localizedCaseInsensitiveContains(text)
          }
        } ?? sample.groups
      return page(groups, request)
    },
    fetchGroup: { id in try find(sample.groups, id) },
    createGroup: { draft in
      StudyGroup(
        id: "g_preview_new", name: draft.name, description: draft.description,
        owner: sample.me.summary, memberCount: 1, isMember: true, createdAt: sample.now)
    },
    updateGroup: { id, draft in
      var group = try find(sample.groups, id)
      group.name = draft.name
      group.description = draft.description
      return group
    },
    deleteGroup: { _ in },
    joinGroup: { id in
      var group = try find(sample.groups, id)
      if !group.isMember {
        group.isMember = true
        group.memberCount += 1
      }
      return group
    },
    leaveGroup: { _ in },
    invite: { _, _ in },
    fetchMembers: { id, request in page(sample.members[id] ?? [], request) })
}

extension ChatRepository {
  /// Group and direct rooms with messages in `seq` order.
  public static let previewValue = ChatRepository(
    fetchRooms: { request in page(sample.rooms, request) },
    openDirectRoom: { userID in
      if let room = sample.rooms.first(where: { $0.kind == .direct(userID) }) { return room }
      let peer = try find(sample.users, userID)
      return ChatRoom(id: "room_preview_new", kind: .direct(userID), title: peer.nickname.rawValue)
    },
    fetchMessages: { roomID, afterSeq, beforeSeq, limit in
      let messages = (sample.messages[roomID] ?? []).filter { message in
        let seq = message.seq ?? 0
        return seq > (afterSeq ?? .min) && seq < (beforeSeq ?? .max)
      }
      return afterSeq == nil ? Array(messages.suffix(limit)) : Array(messages.prefix(limit))
    },
    sendMessage: { text, roomID, clientMessageID in
      let last = sample.messages[roomID]?.last?.seq ?? 0
      return ChatMessage(
        id: "m_preview_new", roomID: roomID, seq: last + 1, clientMessageID: clientMessageID,
        sender: sample.me.summary, text: text, createdAt: sample.now)
    },
    markRead: { _, _ in },
    // The sync endpoints show the sample as a connected cache would: one value each, and the
    // streams stay open (nothing changes) until the preview ends.
    messages: { roomID, limit in
      AsyncThrowingStream { $0.yield(Array((sample.messages[roomID] ?? []).suffix(limit))) }
    },
    rooms: { AsyncThrowingStream { $0.yield(sample.rooms) } },
    room: { id in AsyncThrowingStream { $0.yield(sample.rooms.first { $0.id == id }) } },
    connectionStates: { AsyncStream { $0.yield(.connected) } },
    typing: { _ in AsyncStream { _ in } },
    userIsTyping: { _ in },
    send: { text, roomID in
      let clientMessageID = UUID()
      return ChatMessage(
        id: ChatMessage.ID(rawValue: clientMessageID.lowercasedText), roomID: roomID,
        seq: nil, clientMessageID: clientMessageID, sender: sample.me.summary,
        text: try ChatMessage.validate(text: text), createdAt: sample.now,
        deliveryState: .pending)
    },
    retry: { _ in },
    deleteUnsent: { _ in },
    loadOlder: { _, _ in 0 })
}

extension AnalyticsRepository {
  /// Accepts events and uploads nothing.
  public static let previewValue = AnalyticsRepository(track: { _ in }, flush: { 0 })
}

extension AdminRepository {
  /// Scheduled questions, report cases, users and stats of the sample community.
  public static let previewValue = AdminRepository(
    fetchQuestions: { status, request in
      page(sample.scheduledQuestions.filter { status == nil || $0.status == status }, request)
    },
    createQuestion: { draft in
      ScheduledQuestion(
        id: "q_preview_new", content: draft.content, publishDate: draft.publishDate,
        createdAt: sample.now, status: draft.publishDate > sample.today ? .scheduled : .published)
    },
    updateQuestion: { id, draft in
      var question = try find(sample.scheduledQuestions, id)
      question.content = draft.content
      question.publishDate = draft.publishDate
      return question
    },
    deleteQuestion: { _ in },
    importQuestions: { _ in QuestionImportResult(imported: 0, errors: []) },
    fetchReportCases: { status, request in
      page(
        sample.reportCases.map(\.reportCase).filter { status == nil || $0.status == status },
        request)
    },
    fetchReportCase: { id in
      guard let detail = sample.reportCases.first(where: { $0.reportCase.id == id }) else {
        throw DomainError.notFound
      }
      return detail
    },
    resolveReportCase: { id, resolution, _ in
      var reportCase = try find(sample.reportCases.map(\.reportCase), id)
      reportCase.status = .resolved
      reportCase.resolution = resolution
      return reportCase
    },
    fetchUsers: { query, request in
      let text = query ?? ""
      return page(
        sample.adminUsers.filter {
          text.isEmpty || $0.user.nickname.rawValue.localizedCaseInsensitiveContains(text)
        }, request)
    },
    banUser: { id, reason, until in
      var user = try find(sample.adminUsers, id)
      user.user.isBanned = true
      user.banReason = reason
      user.bannedUntil = until
      return user
    },
    unbanUser: { id in
      var user = try find(sample.adminUsers, id)
      user.user.isBanned = false
      user.banReason = nil
      user.bannedUntil = nil
      return user
    },
    fetchStats: {
      AdminStats(
        users: sample.users.count, admins: sample.users.filter(\.role.isAdmin).count,
        bannedUsers: sample.users.filter(\.isBanned).count, questions: sample.questions.count,
        answers: sample.answers.values.map(\.count).reduce(0, +), posts: sample.posts.count,
        comments: sample.comments.values.map(\.count).reduce(0, +),
        openReports: sample.reportCases.filter { $0.reportCase.status == .open }.count,
        hiddenContents: sample.reportCases.filter(\.reportCase.isHidden).count,
        groups: sample.groups.count, messages: sample.messages.values.map(\.count).reduce(0, +))
    })
}
