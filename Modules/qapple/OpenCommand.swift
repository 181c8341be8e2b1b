import AppFeature
import ArgumentParser
import BoardFeature
import ChatFeature
import Dependencies
import Domain
import Foundation
import GroupsFeature
import NotificationsFeature
import QuestionFeature
import Repositories
import ToolSupport

/// `qapple open URL`
struct Open: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Open a qapple:// link as the app would and print the screen it lands on.",
    discussion: """
      The link goes through the app's root model (AppFeature): it selects the tab, pushes the \
      screen, and the screen's model loads it; what is printed is that model's state. Links: \
      qapple://today, qapple://notifications, qapple://questions/ID, qapple://posts/ID, \
      qapple://posts/ID/comments/ID, qapple://groups/ID, qapple://chat/ID (also \
      https://qapple.app/...). A link the app refuses opens nothing and says why (exit 2).
      """)

  @Argument(help: "The link, e.g. qapple://board/posts/p_3.")
  var url: String

  @OptionGroup var server: ServerOptions
  @OptionGroup var output: OutputOptions

  func run() async throws {
    guard let url = URL(string: url) else {
      throw ToolError("not a link: \(self.url)", exitCode: .usage)
    }
    let output = self.output
    try await server.withConnection(tool: .member) { connection in
      try await LandedScreen.open(url, repositories: connection.repositories, output: output)
    }
  }
}

/// Runs the app's root model as a command-line "view": opens a link and prints the screen.
@MainActor
enum LandedScreen {
  /// The hosts whose `https` links are the app's universal links.
  static let universalLinkHosts: Set<String> = ["qapple.app"]
  /// How long a screen may take to load before the command gives up.
  static let loadTimeout: Duration = .seconds(20)

  static func open(
    _ url: URL, repositories: RepositorySet, output: OutputOptions
  ) async throws {
    let app = withDependencies {
      $0.install(repositories)
    } operation: {
      AppModel(
        configuration: AppModel.Configuration(
          termsVersion: QappleCommand.termsVersion, universalLinkHosts: universalLinkHosts))
    }
    let session = Task { await app.task() }
    defer { session.cancel() }
    try await waitUntil("the session") { if case .launching = app.phase { false } else { true } }
    guard let link = await app.open(url) else {
      throw ToolError(
        "refused link: \(app.linkFailure?.description ?? "not a link of the app")",
        exitCode: .usage)
    }
    // Signed out, the app keeps the link for after sign-in; a command has no sign-in screen.
    guard let main = app.main else { throw DomainError.signedOut }
    let tab = main.selectedTab
    let printer = ToolOutput(output)
    switch main[path: tab].last {
    case nil:
      await main.today.task()
      switch main.today.phase {
      case .loaded(let today):
        try emitQuestion(today, link: link, tab: tab, screen: "today", printer: printer)
      case .noQuestion:
        throw ToolError("not found: there is no question for today yet", exitCode: .notFound)
      case .failed(let error): throw error
      case .loading: throw ToolError("today's question did not load", exitCode: .failure)
      }
    case .question(let model):
      await model.task()
      try emitQuestion(model, link: link, tab: tab, screen: "question", printer: printer)
    case .post(let model):
      await model.task()
      switch model.phase {
      case .loaded: break
      case .notFound, .deleted: throw DomainError.notFound
      case .failed(let error): throw error
      case .loading: throw ToolError("the post did not load", exitCode: .failure)
      }
      guard let post = model.post else { throw DomainError.notFound }
      let detail = PostDetailOutput(
        post: PostOutput(post),
        comments: ListOutput(
          items: model.comments.map(CommentOutput.init),
          nextCursor: model.commentsCursor?.rawValue))
      try printer.emit(landed(link, tab, "post", detail)) {
        var text = Board.detailText(post, comments: model.comments)
        if model.hasMoreComments { text += "\n(more comments: `qapple board show \(post.id)`)" }
        if case .found(let comment) = model.commentFocus { text += "\n(focused: \(comment))" }
        if case .missing(let comment) = model.commentFocus {
          text += "\n(comment \(comment) is gone)"
        }
        return text
      }
    case .group(let model):
      await model.task()
      guard let group = model.group else {
        throw model.failure ?? DomainError.notFound
      }
      let members = model.members.map(GroupMemberOutput.init)
      try printer.emit(
        landed(
          link, tab, "group", GroupScreenOutput(group: GroupOutput(group), members: members))
      ) {
        var lines = [
          "\(group.name) (id \(group.id)) · owner \(group.owner.nickname) · "
            + "\(group.memberCount) member\(group.memberCount == 1 ? "" : "s")"
            + (group.isMember ? " · you are a member" : ""),
          group.description,
        ]
        if !members.isEmpty { lines += ["", Groups.membersTable(members).render()] }
        return lines.joined(separator: "\n")
      }
    case .chatRoom(let model):
      // The newest message the server has for the room (the local store may know the room
      // before its messages: a list saved it): the screen is caught up once it shows it.
      let newest = try await repositories.chat.fetchMessages(model.roomID, nil, nil, 1).last?.seq
      let live = Task { await model.task() }
      defer { live.cancel() }
      try await waitUntil("the room") {
        guard model.failure == nil else { return true }
        guard !model.isLoading, model.room != nil else { return false }
        guard let newest else { return true }
        return model.messages.contains { ($0.seq ?? 0) >= newest }
      }
      if let failure = model.failure { throw failure }
      let me = model.me ?? main.user.id
      try printer.emit(
        landed(
          link, tab, "chat_room",
          ChatScreenOutput(
            room: model.roomID.rawValue, title: model.room?.title,
            messages: model.messages.map { ChatSession.line($0, me: me) }))
      ) {
        let title = model.room?.title ?? model.roomID.rawValue
        let lines = model.messages.map { ChatSession.line($0, me: me) }
        return
          (["Chat: \(title) (id \(model.roomID))"] + (lines.isEmpty ? ["No messages yet."] : lines))
          .joined(separator: "\n")
      }
    case .notifications(let model):
      await model.task()
      if let failure = model.failure { throw failure }
      let items = model.notifications.map(NotificationOutput.init)
      let list = NotificationListOutput(
        items: items, nextCursor: model.nextCursor?.rawValue, unreadCount: model.unreadCount)
      try printer.emit(landed(link, tab, "notifications", list)) {
        items.isEmpty
          ? "No notifications."
          : Notifications.table(items).render() + "\n\(model.unreadCount) unread."
      }
    }
  }

  /// A loaded question screen (today's, or one a link opened) with its answers.
  static func emitQuestion(
    _ model: QuestionDetailModel, link: DeepLink, tab: MainModel.Tab, screen: String,
    printer: ToolOutput
  ) throws {
    let question: Question
    switch model.phase {
    case .loaded(let loaded): question = loaded
    case .failed(let error): throw error
    case .loading: throw ToolError("the question did not load", exitCode: .failure)
    }
    let answers = model.answers
    if let failure = answers.failure { throw failure }
    try printer.emit(
      landed(
        link, tab, screen,
        QuestionScreenOutput(
          question: QuestionOutput(question), answers: answers.answers.map(AnswerOutput.init),
          locked: answers.isLocked))
    ) {
      var text = Today.text(question, title: screen == "today" ? "Today's question" : "Question")
      if answers.isLocked {
        text += "\nThe answers stay hidden until you answer."
      } else if !answers.answers.isEmpty {
        text += "\n\n" + Answers.table(answers.answers).render()
      }
      return text
    }
  }

  /// The `--json` of the screen `screen` of `tab`, reached by `link`.
  static func landed<Content>(
    _ link: DeepLink, _ tab: MainModel.Tab, _ screen: String, _ content: Content
  ) -> OpenOutput<Content> {
    OpenOutput(link: link.url.absoluteString, tab: tab.rawValue, screen: screen, content: content)
  }

  /// Waits (polling, bounded by ``loadTimeout``) until `condition` holds.
  static func waitUntil(_ what: String, _ condition: () -> Bool) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: loadTimeout)
    while !condition() {
      guard clock.now < deadline else {
        throw ToolError("timed out waiting for \(what)", exitCode: .unreachable)
      }
      try await Task.sleep(for: .milliseconds(10))
    }
  }
}
