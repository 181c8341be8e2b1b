import DTO
import Domain
import Foundation
import Hummingbird
import LocalServer
import Testing

@Suite("Reports, moderation and bans")
struct ModerationTests {
  @Test("report rules: one per target, not your own, other needs detail, unknown target 404")
  func reportRules() async throws {
    try await withServer { h in
      let author = try await h.member("Author")
      let reporter = try await h.member("Reporter")
      let post = try await h.post("Buy cheap stuff here", token: author)
      let target = ReportTargetRefDTO(type: "post", id: post.id)
      let report = try await h.expect(
        .created, ReportDTO.self, .post, "/reports", token: reporter,
        json: CreateReportRequest(target: target, reason: "spam"))
      #expect(report.status == .open)
      #expect(report.detail == nil)
      try await h.expectError(
        .conflict, "already_reported", .post, "/reports", token: reporter,
        json: CreateReportRequest(target: target, reason: "abuse"))
      try await h.expectError(
        .badRequest, "validation_failed", field: "target", .post, "/reports", token: author,
        json: CreateReportRequest(target: target, reason: "spam"))
      let me = try await h.expect(.ok, UserDTO.self, .get, "/me", token: reporter)
      try await h.expectError(
        .badRequest, "validation_failed", field: "target", .post, "/reports", token: reporter,
        json: CreateReportRequest(
          target: ReportTargetRefDTO(type: "user", id: me.id), reason: "spam"))
      let third = try await h.member("Third")
      try await h.expectError(
        .badRequest, "validation_failed", field: "detail", .post, "/reports", token: third,
        json: CreateReportRequest(target: target, reason: "other", detail: "  "))
      // Text with another reason would be stored and never shown: refused, nothing filed.
      try await h.expectError(
        .badRequest, "validation_failed", field: "detail", .post, "/reports", token: third,
        json: CreateReportRequest(target: target, reason: "privacy", detail: "My phone number"))
      try await h.expectError(
        .badRequest, "validation_failed", field: "reason", .post, "/reports", token: third,
        json: CreateReportRequest(target: target, reason: "boring"))
      try await h.expectError(
        .badRequest, "validation_failed", field: "target.type", .post, "/reports", token: third,
        json: CreateReportRequest(
          target: ReportTargetRefDTO(type: "planet", id: "x"), reason: "spam"))
      try await h.expectError(
        .notFound, "not_found", .post, "/reports", token: third,
        json: CreateReportRequest(
          target: ReportTargetRefDTO(type: "comment", id: "c_404"), reason: "spam"))
      let other = try await h.expect(
        .created, ReportDTO.self, .post, "/reports", token: third,
        json: CreateReportRequest(target: target, reason: "other", detail: "Sells fake tickets"))
      #expect(other.detail == "Sells fake tickets")
      let mine = try await h.expect(.ok, PageDTO<ReportDTO>.self, .get, "/me/reports", token: third)
      #expect(mine.items.map(\.id) == [other.id])
    }
  }

  @Test("five distinct reporters hide content automatically; admins decide; reporters hear back")
  func autoHideAndResolution() async throws {
    try await withServer { h in
      let admin = try await h.admin()
      let author = try await h.member("Spammer")
      let post = try await h.post("Visit my shop!!!", token: author)
      var reporters: [String] = []
      for index in 1...5 {
        reporters.append(try await h.member("Rep\(index)"))
      }
      let target = ReportTargetRefDTO(type: "post", id: post.id)
      for (index, reporter) in reporters.prefix(4).enumerated() {
        _ = try await h.expect(
          .created, ReportDTO.self, .post, "/reports", token: reporter,
          json: CreateReportRequest(target: target, reason: index < 2 ? "spam" : "abuse"))
      }
      // Four reports: still visible.
      _ = try await h.expect(.ok, PostDTO.self, .get, "/posts/\(post.id)", token: author)
      _ = try await h.expect(
        .created, ReportDTO.self, .post, "/reports", token: reporters[4],
        json: CreateReportRequest(target: target, reason: "spam"))
      // Five: hidden for everyone, its author included, and gone from lists.
      try await h.expectError(.notFound, "not_found", .get, "/posts/\(post.id)", token: author)
      let list = try await h.expect(.ok, PageDTO<PostDTO>.self, .get, "/posts", token: reporters[0])
      #expect(list.items.isEmpty)

      try await h.expectError(.forbidden, "forbidden", .get, "/admin/reports", token: author)
      let inbox = try await h.expect(
        .ok, PageDTO<ReportCaseDTO>.self, .get, "/admin/reports?status=open", token: admin)
      let reportCase = try #require(inbox.items.first)
      #expect(reportCase.target == target)
      #expect(reportCase.reportCount == 5)
      #expect(reportCase.reasonCounts == ["spam": 3, "abuse": 2])
      #expect(reportCase.isHidden)
      #expect(reportCase.excerpt == "Visit my shop!!!")
      #expect(reportCase.author?.nickname == "Spammer")
      let detail = try await h.expect(
        .ok, ReportCaseDetailDTO.self, .get, "/admin/reports/\(reportCase.id)", token: admin)
      #expect(detail.reports.count == 5)

      let dismissed = try await h.expect(
        .ok, ReportCaseDTO.self, .post, "/admin/reports/\(reportCase.id)/resolve", token: admin,
        json: ResolveReportRequest(action: "dismiss", note: "Allowed promotion day"))
      #expect(dismissed.status == .resolved)
      #expect(dismissed.resolution == .dismiss)
      #expect(!dismissed.isHidden)
      _ = try await h.expect(.ok, PostDTO.self, .get, "/posts/\(post.id)", token: author)
      try await h.expectError(
        .conflict, "conflict", .post, "/admin/reports/\(reportCase.id)/resolve", token: admin,
        json: ResolveReportRequest(action: "hide_content"))
      let notes = try await h.expect(
        .ok, PageDTO<NotificationDTO>.self, .get, "/notifications", token: reporters[0])
      #expect(notes.items.map(\.kind) == [.reportResolved])
      let myReports = try await h.expect(
        .ok, PageDTO<ReportDTO>.self, .get, "/me/reports", token: reporters[0])
      #expect(myReports.items.first?.status == .resolved)

      // A new report reopens the same case; the admin bans the author this time.
      let late = try await h.member("LateReporter")
      _ = try await h.expect(
        .created, ReportDTO.self, .post, "/reports", token: late,
        json: CreateReportRequest(target: target, reason: "spam"))
      let reopened = try await h.expect(
        .ok, ReportCaseDetailDTO.self, .get, "/admin/reports/\(reportCase.id)", token: admin)
      #expect(reopened.reportCase.status == .open)
      #expect(reopened.reportCase.resolution == nil)
      #expect(reopened.reportCase.reportCount == 6)
      #expect(!reopened.reportCase.isHidden)
      let banned = try await h.expect(
        .ok, ReportCaseDTO.self, .post, "/admin/reports/\(reportCase.id)/resolve", token: admin,
        json: ResolveReportRequest(action: "ban_author"))
      #expect(banned.isHidden)
      try await h.expectError(.notFound, "not_found", .get, "/posts/\(post.id)", token: late)

      // Banned: every write is 403 banned, in the Domain's words; reads still work.
      let refused = try await h.expectError(
        .forbidden, "banned", .post, "/posts", token: author,
        json: CreatePostRequest(content: "Let me back in", isAnonymous: true))
      #expect(refused.error?.message == DomainError.banned.description)
      try await h.expectError(
        .forbidden, "banned", .patch, "/me", token: author, json: UpdateProfileRequest(cohort: "x"))
      let me = try await h.expect(.ok, UserDTO.self, .get, "/me", token: author)
      #expect(me.isBanned)
      let stats = try await h.expect(.ok, AdminStatsDTO.self, .get, "/admin/stats", token: admin)
      #expect(stats.bannedUsers == 1)
      #expect(stats.hiddenContents == 1)
      #expect(stats.openReports == 0)
      #expect(stats.posts == 1)
    }
  }

  @Test("bans with an end lift themselves; admins cannot be banned; nor can you ban yourself")
  func bans() async throws {
    try await withServer { h in
      let admin = try await h.admin()
      let session = try await h.signUp("Troll")
      let user = session.user.id
      try await h.expectError(
        .forbidden, "forbidden", .put, "/admin/users/\(user)/ban", token: session.accessToken,
        json: BanUserRequest(reason: "x"))
      try await h.expectError(
        .badRequest, "validation_failed", field: "until", .put, "/admin/users/\(user)/ban",
        token: admin,
        json: BanUserRequest(reason: "Spam", until: testEpoch.addingTimeInterval(-60)))
      try await h.expectError(
        .badRequest, "validation_failed", field: "reason", .put, "/admin/users/\(user)/ban",
        token: admin,
        json: BanUserRequest(reason: " "))
      let until = testEpoch.addingTimeInterval(3600)
      let banned = try await h.expect(
        .ok, AdminUserDTO.self, .put, "/admin/users/\(user)/ban", token: admin,
        json: BanUserRequest(reason: "Cooling off", until: until))
      #expect(banned.user.isBanned)
      #expect(banned.bannedUntil == until)
      #expect(banned.banReason == "Cooling off")
      let refused = try await h.expectError(
        .forbidden, "banned", .post, "/posts", token: session.accessToken,
        json: CreatePostRequest(content: "hi", isAnonymous: true))
      #expect(
        refused.error?.message
          == DomainError.banned.description
          + " The ban ends at \(QappleCoding.string(from: until)).")
      let adminPost = try await h.post("Rules of the board", token: admin)
      try await h.expectError(
        .forbidden, "banned", .post, "/reports", token: session.accessToken,
        json: CreateReportRequest(
          target: ReportTargetRefDTO(type: "post", id: adminPost.id), reason: "spam"))
      h.clock.advance(by: .seconds(3601))
      _ = try await h.post("I am back", token: session.accessToken)

      let me = try await h.expect(.ok, UserDTO.self, .get, "/me", token: admin)
      try await h.expectError(
        .badRequest, "validation_failed", field: "user_id", .put, "/admin/users/\(me.id)/ban",
        token: admin, json: BanUserRequest(reason: "x"))
      _ = try await h.admin("Moderator2")
      let users = try await h.expect(
        .ok, PageDTO<AdminUserDTO>.self, .get, "/admin/users?q=moderator2", token: admin)
      let other = try #require(users.items.first)
      // A search text is 1-100 characters, as for posts and groups; a blank one lists all.
      try await h.expectError(
        .badRequest, "validation_failed", field: "q", .get,
        "/admin/users?q=\(String(repeating: "a", count: 101))", token: admin)
      let all = try await h.expect(
        .ok, PageDTO<AdminUserDTO>.self, .get, "/admin/users?q=%20", token: admin)
      #expect(all.items.count > users.items.count)
      try await h.expectError(
        .conflict, "conflict", .put, "/admin/users/\(other.user.id)/ban", token: admin,
        json: BanUserRequest(reason: "x"))

      _ = try await h.expect(
        .ok, AdminUserDTO.self, .put, "/admin/users/\(user)/ban", token: admin,
        json: BanUserRequest(reason: "Again"))
      let lifted = try await h.expect(
        .ok, AdminUserDTO.self, .delete, "/admin/users/\(user)/ban", token: admin)
      #expect(!lifted.user.isBanned)
      #expect(lifted.bannedUntil == nil)
    }
  }

  @Test("chat messages are reported by room members only; users by anyone but themselves")
  func reportMessagesAndUsers() async throws {
    try await withServer { h in
      let admin = try await h.admin()
      let sender = try await h.signUp("Shouter")
      let member = try await h.member("Listener")
      let outsider = try await h.member("Stranger")
      let group = try await h.expect(
        .created, StudyGroupDTO.self, .post, "/groups", token: sender.accessToken,
        json: CreateGroupRequest(name: "Loud room", description: ""))
      _ = try await h.expect(
        .ok, StudyGroupDTO.self, .put, "/groups/\(group.id)/membership", token: member)
      let rooms = try await h.expect(
        .ok, PageDTO<ChatRoomDTO>.self, .get, "/chat/rooms", token: member)
      let room = try #require(rooms.items.first)
      let id = UUID()
      let message = try await h.send(
        .post, "/chat/rooms/\(room.id)/messages", token: sender.accessToken,
        json: SendMessageRequest(clientMessageId: id, text: "Call me at 010-1234-5678"),
        headers: [.init("Idempotency-Key")!: id.uuidString]
      ).decode(ChatMessageDTO.self)
      let target = ReportTargetRefDTO(type: "chat_message", id: message.id)
      try await h.expectError(
        .notFound, "not_found", .post, "/reports", token: outsider,
        json: CreateReportRequest(target: target, reason: "privacy"))
      _ = try await h.expect(
        .created, ReportDTO.self, .post, "/reports", token: member,
        json: CreateReportRequest(target: target, reason: "privacy"))
      _ = try await h.expect(
        .created, ReportDTO.self, .post, "/reports", token: outsider,
        json: CreateReportRequest(
          target: ReportTargetRefDTO(type: "user", id: sender.user.id), reason: "abuse"))

      let inbox = try await h.expect(
        .ok, PageDTO<ReportCaseDTO>.self, .get, "/admin/reports", token: admin)
      #expect(Set(inbox.items.map(\.target.type)) == ["chat_message", "user"])
      let messageCase = try #require(inbox.items.first { $0.target.type == "chat_message" })
      #expect(messageCase.excerpt == "Call me at 010-1234-5678")
      #expect(messageCase.author?.id == sender.user.id)
      _ = try await h.expect(
        .ok, ReportCaseDTO.self, .post, "/admin/reports/\(messageCase.id)/resolve", token: admin,
        json: ResolveReportRequest(action: "hide_content", note: "Phone number"))
      let history = try await h.expect(
        .ok, PageDTO<ChatMessageDTO>.self, .get, "/chat/rooms/\(room.id)/messages",
        token: member)
      #expect(history.items.isEmpty)
      let users = try await h.expect(
        .ok, PageDTO<AdminUserDTO>.self, .get, "/admin/users?q=shout", token: admin)
      #expect(users.items.first?.reportCount == 2)
    }
  }
}
