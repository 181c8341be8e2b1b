import ArgumentParser
import Domain
import Foundation
import ToolSupport

/// `qapple report TARGET --reason R [--detail D]`
struct ReportCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "report",
    abstract: "Report an answer, post, comment, chat message or user to the moderators.",
    discussion: """
      TARGET is KIND:ID as the listings print ids: post:p_12, comment:c_3, answer:a_7, \
      chat_message:m_9, user:u_4. Content reported by \(ModerationPolicy.autoHideThreshold) different members is hidden until a \
      moderator decides.
      """)

  @Argument(help: "What to report, KIND:ID.")
  var target: String

  @Option(help: "spam, abuse, obscene, privacy, impersonation, illegal or other.")
  var reason: String

  @Option(help: "What is wrong, \(TextRule.reportDetail.lengthText) (needed with --reason other).")
  var detail: String?

  @OptionGroup var server: ServerOptions
  @OptionGroup var output: OutputOptions

  func run() async throws {
    let reportTarget = try ArgumentParsing.reportTarget(target)
    let reportReason = try ArgumentParsing.reportReason(code: reason, detail: detail)
    try await server.withConnection(tool: .member) { connection in
      let report = try await connection.repositories.reports.report(reportTarget, reportReason)
      try ToolOutput(output).emit(ReportOutput(report)) {
        "Reported \(report.target) as \(report.reason.code.rawValue) (report \(report.id)). "
          + "The moderators will review it."
      }
    }
  }
}

/// `qapple notifications [--read-all]`
struct Notifications: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "List your notifications, newest first; --read-all marks them all read.")

  @Flag(help: "Mark every notification read after listing them.")
  var readAll = false

  @OptionGroup var page: PageOptions
  @OptionGroup var server: ServerOptions
  @OptionGroup var output: OutputOptions

  func run() async throws {
    try await server.withConnection(tool: .member) { connection in
      let inbox = connection.repositories.notifications
      var notifications = try await inbox.fetchNotifications(page.request)
      if readAll {
        try await inbox.markAllRead()
        // Listed before the mark: printed as they are now.
        for index in notifications.items.indices { notifications.items[index].isRead = true }
      }
      let unread = try await inbox.fetchUnreadCount()
      let list = NotificationListOutput(
        items: notifications.items.map(NotificationOutput.init),
        nextCursor: notifications.nextCursor?.rawValue, unreadCount: unread)
      let printer = ToolOutput(output)
      try printer.emit(list) {
        guard !notifications.items.isEmpty else { return "No notifications." }
        let table = Notifications.table(list.items)
        let summary =
          readAll ? "All marked read." : "\(unread) unread. Mark them read with --read-all."
        return table.render() + "\n" + summary
      }
      if let cursor = list.nextCursor { printer.note("(more: add --cursor \(cursor))") }
    }
  }
}

extension Notifications {
  /// The table of notifications.
  static func table(_ items: [NotificationOutput]) -> TextTable {
    var table = TextTable([
      .whole("ID"), .init("NEW", maxWidth: 3), .init("KIND", maxWidth: 20),
      .init("WHEN", maxWidth: 16), .init("MESSAGE", maxWidth: 50), .init("LINK", maxWidth: 40),
    ])
    for item in items {
      table.append([
        item.id, TextFormat.mark(!item.isRead, "*"), item.kind,
        TextFormat.dateTime(item.createdAt), item.message, item.link ?? "",
      ])
    }
    return table
  }
}

/// `qapple groups ...`
struct Groups: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Study groups: list, create, join, leave, members.",
    subcommands: [List.self, Create.self, Join.self, Leave.self, Members.self],
    defaultSubcommand: List.self)

  /// `qapple groups list [--search Q]`
  struct List: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List study groups.")

    @Option(help: "Only groups whose name or description contains this text.")
    var search: String?

    @OptionGroup var page: PageOptions
    @OptionGroup var server: ServerOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
      try await server.withConnection(tool: .member) { connection in
        let groups = try await connection.repositories.studyGroups.fetchGroups(
          search, page.request)
        try ToolOutput(output).emitList(ListOutput(groups, GroupOutput.init), empty: "No groups.") {
          var table = TextTable([
            .whole("ID"), .init("NAME", maxWidth: 30), .init("OWNER", maxWidth: 14),
            .init("MEMBERS", maxWidth: 7), .init("JOINED", maxWidth: 6),
            .init("DESCRIPTION", maxWidth: 50),
          ])
          for group in groups.items {
            table.append([
              group.id.rawValue, group.name, group.owner.nickname, "\(group.memberCount)",
              TextFormat.mark(group.isMember), group.description,
            ])
          }
          return table
        }
      }
    }
  }

  /// `qapple groups create NAME [--description D]`
  struct Create: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Create a group (you own it and are its first member).")

    @Argument(help: "The name, \(TextRule.groupName.lengthText).")
    var name: String

    @Option(help: "What the group studies, \(TextRule.groupDescription.lengthText).")
    var description = ""

    @OptionGroup var server: ServerOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
      let draft: StudyGroupDraft
      do {
        draft = try StudyGroupDraft(name: name, description: description).validated()
      } catch {
        throw ToolError("invalid group: \(error.description)", exitCode: .usage)
      }
      try await server.withConnection(tool: .member) { connection in
        let group = try await connection.repositories.studyGroups.createGroup(draft)
        try ToolOutput(output).emit(GroupOutput(group)) {
          "Created the group \"\(group.name)\" (group \(group.id))."
        }
      }
    }
  }

  /// `qapple groups join ID`
  struct Join: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Join a group.")

    @Argument(help: "The group id.")
    var id: String

    @OptionGroup var server: ServerOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
      try await server.withConnection(tool: .member) { connection in
        let group = try await connection.repositories.studyGroups.joinGroup(StudyGroup.ID(id))
        try ToolOutput(output).emit(GroupOutput(group)) {
          "Joined \"\(group.name)\" (\(group.memberCount) members)."
        }
      }
    }
  }

  /// `qapple groups leave ID`
  struct Leave: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Leave a group (owners cannot leave their own group).")

    @Argument(help: "The group id.")
    var id: String

    @OptionGroup var server: ServerOptions

    func run() async throws {
      try await server.withConnection(tool: .member) { connection in
        try await connection.repositories.studyGroups.leaveGroup(StudyGroup.ID(id))
        StandardStreams.write("Left group \(id).")
      }
    }
  }

  /// `qapple groups members ID`
  struct Members: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List the members of a group.")

    @Argument(help: "The group id.")
    var id: String

    @OptionGroup var page: PageOptions
    @OptionGroup var server: ServerOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
      try await server.withConnection(tool: .member) { connection in
        let members = try await connection.repositories.studyGroups.fetchMembers(
          StudyGroup.ID(id), page.request)
        let list = ListOutput(members) { member in
          GroupMemberOutput(member)
        }
        try ToolOutput(output).emitList(list, empty: "No members.") {
          Groups.membersTable(list.items)
        }
      }
    }
  }
}

extension Groups {
  /// The table of a group's members.
  static func membersTable(_ members: [GroupMemberOutput]) -> TextTable {
    var table = TextTable([
      .init("USER", maxWidth: 12), .init("NICKNAME", maxWidth: 14),
      .init("ROLE", maxWidth: 8), .init("JOINED", maxWidth: 16),
    ])
    for member in members {
      table.append([
        member.user.id, member.user.nickname, member.role, TextFormat.dateTime(member.joinedAt),
      ])
    }
    return table
  }
}
