import Domain
import Foundation

// Reports, report cases, automatic hiding and moderators' decisions.

extension BackendState {
  /// What a reported target is: its text and its author.
  struct TargetInfo {
    var excerpt: String?
    var authorID: User.ID?
  }

  /// The target as its reporter may see it; hidden, deleted or unreachable targets are
  /// `notFound`, like the server.
  func reportableTarget(_ target: ReportTarget, reporter: User.ID) throws(DomainError) -> TargetInfo
  {
    switch target {
    case .answer(let id):
      guard let answer = answers[id], !answer.isHidden,
        let question = questions[answer.questionID], isPublished(question)
      else { throw .notFound }
      return TargetInfo(excerpt: answer.content, authorID: answer.authorID)
    case .post(let id):
      let post = try visiblePost(id)
      return TargetInfo(excerpt: post.content, authorID: post.authorID)
    case .comment(let id):
      let comment = try visibleComment(id)
      return TargetInfo(excerpt: comment.content, authorID: comment.authorID)
    case .chatMessage(let id):
      guard let message = message(id), !message.isHidden,
        let room = rooms[message.roomID], canAccess(room, reporter)
      else { throw .notFound }
      return TargetInfo(excerpt: message.text, authorID: message.senderID)
    case .user(let id):
      guard let user = users[id] else { throw .notFound }
      return TargetInfo(excerpt: user.nickname, authorID: id)
    }
  }

  /// The current text and author of a target, falling back to what the case remembered.
  func targetInfo(_ reportCase: CaseRecord) -> TargetInfo {
    switch reportCase.target {
    case .answer(let id):
      if let answer = answers[id] {
        return TargetInfo(excerpt: answer.content, authorID: answer.authorID)
      }
    case .post(let id):
      if let post = posts[id] { return TargetInfo(excerpt: post.content, authorID: post.authorID) }
    case .comment(let id):
      if let comment = comments[id] {
        return TargetInfo(excerpt: comment.content, authorID: comment.authorID)
      }
    case .chatMessage(let id):
      if let message = message(id) {
        return TargetInfo(excerpt: message.text, authorID: message.senderID)
      }
    case .user(let id):
      if let user = users[id] { return TargetInfo(excerpt: user.nickname, authorID: id) }
    }
    return TargetInfo(excerpt: reportCase.excerpt, authorID: reportCase.authorID)
  }

  /// Whether moderation hid the target (`false` for users and deleted content).
  func isHidden(_ target: ReportTarget) -> Bool {
    switch target {
    case .answer(let id): answers[id]?.isHidden ?? false
    case .post(let id): posts[id]?.isHidden ?? false
    case .comment(let id): comments[id]?.isHidden ?? false
    case .chatMessage(let id): message(id)?.isHidden ?? false
    case .user: false
    }
  }

  /// Hides or shows a target; users cannot be hidden.
  mutating func setHidden(_ target: ReportTarget, _ hidden: Bool) {
    switch target {
    case .answer(let id): answers[id]?.isHidden = hidden
    case .post(let id): posts[id]?.isHidden = hidden
    case .comment(let id): comments[id]?.isHidden = hidden
    case .chatMessage(let id):
      for roomID in rooms.keys {
        guard let index = rooms[roomID]?.messages.firstIndex(where: { $0.id == id }) else {
          continue
        }
        rooms[roomID]?.messages[index].isHidden = hidden
      }
    case .user: break
    }
  }

  func reportView(_ report: ReportRecord) -> Report {
    Report(
      id: report.id, target: report.target, reason: report.reason, status: report.status,
      createdAt: report.createdAt)
  }

  func caseView(_ reportCase: CaseRecord) -> ReportCase {
    let caseReports = reports.values.filter { $0.caseID == reportCase.id }
    var reasonCounts: [ReportReason.Code: Int] = [:]
    for report in caseReports { reasonCounts[report.reason.code, default: 0] += 1 }
    let info = targetInfo(reportCase)
    return ReportCase(
      id: reportCase.id, target: reportCase.target, excerpt: info.excerpt,
      author: info.authorID.map(summary(of:)),
      reportCount: Set(caseReports.map(\.reporterID)).count,
      reasonCounts: reasonCounts, status: reportCase.status, resolution: reportCase.resolution,
      isHidden: isHidden(reportCase.target), firstReportedAt: reportCase.firstReportedAt,
      lastReportedAt: reportCase.lastReportedAt)
  }

  // MARK: - Member endpoints

  /// `POST /reports`: one report per reporter and target; the fifth distinct reporter hides
  /// the content; a report of a resolved target reopens its case.
  mutating func report(
    _ target: ReportTarget, reason: ReportReason, reporter: User.ID
  ) throws(DomainError) -> Report {
    let reason = try validating { () throws(ValidationError) in try reason.validated() }
    let info = try reportableTarget(target, reporter: reporter)
    guard info.authorID != reporter else {
      throw .validation(
        .invalidFormat(field: "target", expected: "content or a user other than yourself"))
    }
    guard !reports.values.contains(where: { $0.target == target && $0.reporterID == reporter })
    else { throw .alreadyReported }

    var reportCase: CaseRecord
    if let id = caseByTarget[target], let existing = cases[id] {
      reportCase = existing
      if reportCase.status == .resolved {
        reportCase.status = .open
        reportCase.resolution = nil
      }
      reportCase.lastReportedAt = now
    } else {
      reportCase = CaseRecord(
        id: makeID("case"), target: target, firstReportedAt: now, lastReportedAt: now,
        excerpt: info.excerpt, authorID: info.authorID, order: nextOrder())
      caseByTarget[target] = reportCase.id
    }
    cases[reportCase.id] = reportCase
    let record = ReportRecord(
      id: makeID("r"), reporterID: reporter, target: target, reason: reason, status: .open,
      createdAt: now, caseID: reportCase.id, order: nextOrder())
    reports[record.id] = record
    // Only reports since the case was last resolved count: a dismissed target needs five new
    // reporters to be hidden again.
    let openReporters = Set(
      reports.values.filter { $0.caseID == reportCase.id && $0.status == .open }.map(\.reporterID))
    if openReporters.count >= ModerationPolicy.autoHideThreshold { setHidden(target, true) }
    return reportView(record)
  }

  func fetchMyReports(of userID: User.ID, page: PageRequest) throws(DomainError) -> Page<Report> {
    try paginate(
      reports.values.filter { $0.reporterID == userID }, by: { .date($0.createdAt, $0.order) },
      .descending, page
    ).map(reportView)
  }

  // MARK: - Admin endpoints

  func fetchReportCases(
    status: ReportStatus?, page: PageRequest
  ) throws(DomainError) -> Page<ReportCase> {
    try paginate(
      cases.values.filter { status == nil || $0.status == status },
      by: { .date($0.firstReportedAt, $0.order) }, .descending, page
    ).map(caseView)
  }

  func fetchReportCase(_ id: ReportCase.ID) throws(DomainError) -> ReportCaseDetail {
    guard let reportCase = cases[id] else { throw .notFound }
    let caseReports = reports.values.filter { $0.caseID == id }.sorted { $0.order < $1.order }
    return ReportCaseDetail(reportCase: caseView(reportCase), reports: caseReports.map(reportView))
  }

  /// Decides a case: dismiss shows the content again, hide keeps it hidden, ban also bans the
  /// author; every reporter of the case hears about it.
  mutating func resolveReportCase(
    _ id: ReportCase.ID, resolution: ReportResolution, note: String?, admin: User.ID
  ) throws(DomainError) -> ReportCase {
    guard var reportCase = cases[id] else { throw .notFound }
    guard reportCase.status == .open else {
      throw .conflict("This case is already resolved. Refresh the inbox.")
    }
    let info = targetInfo(reportCase)
    switch resolution {
    case .dismiss:
      setHidden(reportCase.target, false)
    case .hideContent:
      setHidden(reportCase.target, true)
    case .banAuthor:
      if let authorID = info.authorID, let author = users[authorID] {
        guard !author.role.isAdmin else {
          throw .conflict("The author is an admin; admins cannot be banned. Hide the content.")
        }
        guard authorID != admin else {
          throw .validation(
            .invalidFormat(field: "user_id", expected: "someone other than yourself"))
        }
        let reason = note.flatMap(Self.trimmedOrNil).map { String($0.prefix(200)) }
        users[authorID]?.ban = UserRecord.Ban(reason: reason ?? "Reported content", until: nil)
      }
      setHidden(reportCase.target, true)
    }
    reportCase.status = .resolved
    reportCase.resolution = resolution
    cases[id] = reportCase
    var reporters: [User.ID] = []
    for (reportID, report) in reports.sorted(by: { $0.value.order < $1.value.order })
    where report.caseID == id && report.status == .open {
      reports[reportID]?.status = .resolved
      if !reporters.contains(report.reporterID) { reporters.append(report.reporterID) }
    }
    for reporter in reporters where reporter != admin {
      notify(
        reporter, .reportResolved,
        message: "A moderator reviewed your report. Thank you for keeping Qapple kind.")
    }
    return caseView(reportCase)
  }
}
