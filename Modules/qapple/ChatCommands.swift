import ArgumentParser
import ChatCore
import Domain
import Foundation
import Persistence
import RepositoriesLive
import ToolSupport

/// `qapple chat ...`: rooms, a live room, sending through the outbox.
struct Chat: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Chat: your rooms, a live room (cached history first), sending.",
    discussion: """
      Messages are cached in the data directory and sent through an outbox: a message is \
      stored before it goes out, so one that could not be sent yet goes out with the next \
      chat command.
      """,
    subcommands: [Rooms.self, Open.self, Send.self],
    defaultSubcommand: Rooms.self)

  /// `qapple chat rooms`
  struct Rooms: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "List your chat rooms with unread counts.")

    @OptionGroup var page: PageOptions
    @OptionGroup var server: ServerOptions
    @OptionGroup var output: OutputOptions

    func run() async throws {
      try await server.withConnection(tool: .member) { connection in
        let user = try await connection.requireSignedIn()
        let rooms = try await connection.repositories.chat.fetchRooms(page.request)
        let store = try connection.chatStore(for: user.id)
        try store.saveRooms(rooms.items, continuing: page.request.cursor != nil)
        let list = ListOutput(rooms, ChatRoomOutput.init)
        try ToolOutput(output).emitList(list, empty: "No rooms.") {
          var table = TextTable([
            .whole("ID"), .init("KIND", maxWidth: 6), .init("TITLE", maxWidth: 24),
            .init("UNREAD", maxWidth: 6), .init("LAST MESSAGE", maxWidth: 50),
          ])
          for room in list.items {
            table.append([
              room.id, room.kind, room.title, "\(room.unreadCount)",
              room.lastMessage.map { "\($0.sender.nickname): \($0.text)" } ?? "",
            ])
          }
          return table
        }
      }
    }
  }

  /// `qapple chat send ROOM TEXT...`
  struct Send: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Send messages to a room (and whatever the outbox still holds).")

    @Argument(help: "The room id (see `qapple chat rooms`).")
    var room: String

    @Argument(help: "The messages, one per argument (\(TextRule.chatMessage.lengthText) each).")
    var texts: [String] = []

    @Option(help: "How long to wait for the server's answers, in seconds (1 or more).")
    var timeout = 20

    @OptionGroup var server: ServerOptions

    func validate() throws {
      // No wait at all would report every message as not sent, as if the server were down.
      guard timeout >= 1 else {
        throw ArgumentParser.ValidationError("--timeout takes 1 second or more.")
      }
    }

    func run() async throws {
      try await server.withConnection(tool: .member) { connection in
        // Every text is checked before any is queued: a refused one sends none of them.
        for text in texts { _ = try ChatMessage.validate(text: text) }
        try await ChatSession.run(connection, room: ChatRoom.ID(room)) { session in
          // Judged: what the outbox still had to send, and this command's texts.
          var sent = session.unsentAtStart
          for text in texts {
            sent.insert(try await session.sync.send(text, to: session.room).clientMessageID)
          }
          try await session.drainOutbox(judging: sent, timeout: .seconds(timeout))
        }
      }
    }
  }

  /// `qapple chat open ROOM`
  struct Open: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Open a room: cached history at once, then live messages; type lines to send.",
      discussion: "Ends at the end of standard input (Ctrl-D) once the outbox is empty.")

    @Argument(help: "The room id (see `qapple chat rooms`).")
    var room: String

    @OptionGroup var server: ServerOptions

    func run() async throws {
      try await server.withConnection(tool: .member) { connection in
        try await ChatSession.run(connection, room: ChatRoom.ID(room)) { session in
          try await session.live()
        }
      }
    }
  }
}

/// `qapple dm NICKNAME`
struct DirectMessage: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "dm",
    abstract:
      "Open the direct room with a user (by nickname, or u_N id) and chat live, like `chat open`.")

  @Argument(help: "The other user's nickname (any case), or their id such as u_3.")
  var user: String

  @OptionGroup var server: ServerOptions

  func run() async throws {
    try await server.withConnection(tool: .member) { connection in
      let repositories = connection.repositories
      // A nickname is looked up; `u_<digits>` is an id (nicknames cannot contain "_").
      let isID = user.hasPrefix("u_") && user.dropFirst(2).allSatisfy(\.isNumber)
      let peer = isID ? User.ID(user) : try await repositories.profile.findUser(user).id
      let room = try await repositories.chat.openDirectRoom(peer)
      StandardStreams.write("Direct room \(room.id) with \(room.title).")
      try await ChatSession.run(connection, room: room.id) { session in
        try await session.live()
      }
    }
  }
}

/// One command's chat engine: the user's cache, a started `ChatSync` with the room open, and
/// the printing of messages as they change.
struct ChatSession: Sendable {
  let sync: ChatSync
  let store: ChatStore
  let room: ChatRoom.ID
  let me: User.ID
  /// The connection the command runs on (its session ends the wait for the outbox).
  let connection: ToolConnection
  /// The messages the outbox still had to send when the command began (not the failed ones):
  /// the command sends them too and answers for them.
  let unsentAtStart: Set<UUID>

  /// Opens the cache and the engine, runs `body`, then stops the engine (also when `body`
  /// throws).
  static func run(
    _ connection: ToolConnection, room: ChatRoom.ID,
    _ body: (ChatSession) async throws -> Void
  ) async throws {
    let user = try await connection.requireSignedIn()
    let store = try connection.chatStore(for: user.id)
    let sync = ChatSync(
      backend: connection.backend, store: store,
      me: UserSummary(id: user.id, nickname: user.nickname.rawValue))
    // Read before the engine starts sending them.
    let unsent = Set(
      try store.outbox().filter { !$0.deliveryState.isFailed }.map(\.clientMessageID))
    await sync.start()
    await sync.open(room)
    let session = ChatSession(
      sync: sync, store: store, room: room, me: user.id, connection: connection,
      unsentAtStart: unsent)
    // The store stays open: it is the backend's, for the life of the process.
    do {
      try await body(session)
    } catch {
      await sync.stop()
      throw error
    }
    await sync.stop()
  }

  /// Waits until the outbox holds no pending or sending message (or `timeout` passes), then
  /// reports what is sent, what failed and what is still waiting of the messages `judging`
  /// names (this command's): an earlier command's failed message, kept in the cache, does
  /// not make this one fail.
  func drainOutbox(judging ids: Set<UUID>, timeout: Duration) async throws {
    let store = store
    let auth = connection.repositories.auth
    // Whichever comes first: an outbox with nothing pending or sending, the end of the session
    // (nothing goes out without one), or the timeout.
    try await withThrowingTaskGroup(of: Void.self) { group in
      group.addTask {
        for try await outbox in store.observeOutbox()
        where !outbox.contains(where: {
          $0.deliveryState == .pending || $0.deliveryState == .sending
        }) {
          return
        }
      }
      group.addTask {
        for await state in auth.sessionStates() {
          if case .signedIn = state { continue }
          return
        }
        try await Task.sleep(for: timeout)
      }
      group.addTask { try await Task.sleep(for: timeout) }
      try await group.next()
      group.cancelAll()
    }
    let outbox = try store.outbox().filter { ids.contains($0.clientMessageID) }
    let failed = outbox.filter(\.deliveryState.isFailed)
    let waiting = outbox.count - failed.count
    for message in failed { StandardStreams.writeError(Self.line(message, me: me)) }
    if waiting > 0 {
      // The session ended (its refresh was refused): signing in again is what sends them.
      guard case .signedIn = await auth.currentState() else {
        var ended = ToolError(.signedOut, tool: connection.tool, server: connection.server)
        ended.message +=
          "; \(waiting) message(s) not sent are kept and go out with the next chat command after it"
        throw ended
      }
      throw ToolError(
        "\(waiting) message(s) not sent yet; they are kept and go out with the next chat command.",
        exitCode: .unreachable)
    }
    if !failed.isEmpty {
      throw ToolError(
        "\(failed.count) message(s) failed; fix and send again (they stay in the cache).",
        exitCode: .failure)
    }
    // The newest sent one: unsent and failed messages (no seq) are listed after them.
    let latest = try store.latestMessages(in: room, limit: 1)
    let newest = latest.last(where: { $0.seq != nil })?.seq ?? 0
    StandardStreams.write(
      (ids.isEmpty ? "Nothing to send." : "Sent.") + " Last message in \(room): #\(newest).")
  }

  /// Waits (at most `timeout`) until the cache holds the room's newest message as the server
  /// has it now, so the history printed first is the room's, also when standard input is
  /// already at its end (a script). Without one (an empty room, the server out of reach or the
  /// session ended), or past `timeout`, what the cache holds is printed. A room that does not
  /// exist (`notFound`) or is not the user's (`forbidden`) fails here, with the server's reason,
  /// before anything is typed or sent.
  func caughtUp(timeout: Duration) async throws {
    let newest: Int64
    do {
      let latest = try await connection.repositories.chat.fetchMessages(room, nil, nil, 1)
      guard let seq = latest.last?.seq else { return }
      newest = seq
    } catch DomainError.offline, DomainError.timeout, DomainError.signedOut {
      return
    }
    _ = try await store.messages(in: room, within: timeout) { messages in
      messages.contains { ($0.seq ?? 0) >= newest }
    }
  }

  /// Prints the history once the cache caught up with the room (``caughtUp(timeout:)``), then
  /// every new or changed message; sends each line typed on standard input; returns at its end
  /// once the outbox is empty.
  func live() async throws {
    var tail = ChatTail(store: store, room: room)
    func show(_ window: [ChatMessage]) throws {
      for message in try tail.messages(toPrint: window) {
        StandardStreams.write(Self.line(message, me: me))
      }
    }
    try await caughtUp(timeout: .seconds(20))
    try show(try store.latestMessages(in: room, limit: 50))
    let input = Task {
      var sent = unsentAtStart
      var refused = 0
      for await line in StandardInput.lines() where !line.isEmpty {
        do {
          sent.insert(try await sync.send(line, to: room).clientMessageID)
        } catch {
          refused += 1
          StandardStreams.writeError("not sent: \(error)")
        }
      }
      try await drainOutbox(judging: sent, timeout: .seconds(20))
      if refused > 0 {
        throw ToolError("\(refused) line(s) refused and not sent (see above).", exitCode: .usage)
      }
    }
    let printer = Task {
      for try await messages in store.observeMessages(in: room, limit: 50) { try show(messages) }
    }
    defer { printer.cancel() }
    // What was typed and not sent (or failed) makes the command fail, as `chat send` does.
    try await input.value
  }

  /// `[#12 09:41] Jisoo: 안녕`, `[pending] me: ...`, `[failed: reason] me: ...`.
  static func line(_ message: ChatMessage, me: User.ID) -> String {
    let who = message.sender.id == me ? "me" : message.sender.nickname
    let state: String =
      switch message.deliveryState {
      case .sent: "#\(message.seq ?? 0) \(TextFormat.dateTime(message.createdAt))"
      case .pending: "pending"
      case .sending: "sending"
      case .failed(let reason): "failed: \(reason)"
      }
    return "[\(state)] \(who): \(message.text)"
  }
}

/// Lines of standard input as an async sequence (read on a thread of their own: `readLine`
/// blocks).
enum StandardInput {
  static func lines() -> AsyncStream<String> {
    AsyncStream { continuation in
      let thread = Thread {
        while let line = readLine() { continuation.yield(line) }
        continuation.finish()
      }
      thread.start()
    }
  }
}

extension ChatStore {
  /// Whether `room`'s newest 50 messages in the cache meet `condition` within `timeout` (now or
  /// after a change); `false` once `timeout` passed first.
  func messages(
    in room: ChatRoom.ID, within timeout: Duration,
    satisfy condition: @escaping @Sendable ([ChatMessage]) -> Bool
  ) async throws -> Bool {
    try await withThrowingTaskGroup(of: Bool.self) { group in
      group.addTask {
        for try await messages in self.observeMessages(in: room) where condition(messages) {
          return true
        }
        return false
      }
      group.addTask {
        try await Task.sleep(for: timeout)
        return false
      }
      defer { group.cancelAll() }
      return try await group.next() ?? false
    }
  }
}
