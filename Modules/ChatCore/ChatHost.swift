import Domain
import Foundation
import Logging
import Persistence
import Repositories

/// Where each user's local store lives: the chat cache and outbox the chat engine keeps, and
/// the analytics events waiting for upload.
public enum ChatStorage: Sendable, Hashable {
  /// A throwaway store per ``open(for:logger:)`` (tests, previews, a tool that keeps nothing).
  case inMemory
  /// `<directory>/<user id>.sqlite`, kept across launches. A damaged file is moved aside and
  /// the engine starts over with a new store: the server still has every sent message, and the
  /// unsent messages and analytics events not yet uploaded are carried over as far as SQLite
  /// can still read them (`ChatStore.startOver`).
  case directory(URL)

  /// The files opened so far: one store per file in the process (the chat engine and the
  /// analytics queue of a user share it, as SQLite wants one connection pool per file).
  private static let openFiles = Locked<[String: ChatStore]>([:])

  /// Opens the store of `user` (each call for `.inMemory`; once per process for a file, shared
  /// by the chat engine and the analytics queue, so a caller does not close it; unless
  /// that store was closed, or found its file ``Persistence/ChatStore/damaged``: then the file
  /// is moved aside and an empty store takes its place).
  public func open(for user: User.ID, logger: Logger) throws(PersistenceError) -> ChatStore {
    switch self {
    case .inMemory:
      return try ChatStore(at: .inMemory, owner: user)
    case .directory(let directory):
      let file = Self.file(of: user, in: directory)
      return try Self.openFiles.withLock { files -> Result<ChatStore, PersistenceError> in
        let damaged = files[file]?.damaged
        if let store = files[file], damaged == nil, !store.isClosed { return .success(store) }
        do throws(PersistenceError) {
          let (store, discarded): (ChatStore, PersistenceError?)
          if let damaged {
            try? files[file]?.close()
            (store, discarded) = (try ChatStore.startOver(at: file, owner: user), damaged)
          } else {
            (store, discarded) = try ChatStore.openOrStartOver(at: file, owner: user)
          }
          if let discarded {
            let carried = store.salvaged ?? ChatStore.Salvage(messages: 0, events: 0)
            logger.error(
              "Started the store at \(file) over (\(discarded)); carried over \(carried.messages) unsent messages and \(carried.events) queued events"
            )
          }
          files[file] = store
          return .success(store)
        } catch {
          return .failure(error)
        }
      }.get()
    }
  }
}

extension ChatStorage {
  /// Deletes the store of `user` (an account withdrawn on this device): the open store is
  /// closed, and with `.directory` its file, the damaged copies moved aside, and their `-wal`
  /// and `-shm` files are removed (`ChatStore.existingFiles(at:)`). A file that cannot be
  /// removed is logged.
  public func remove(for user: User.ID, logger: Logger) {
    guard case .directory(let directory) = self else { return }
    let file = Self.file(of: user, in: directory)
    let open = Self.openFiles.withLock { $0.removeValue(forKey: file) }
    try? open?.close()
    let manager = FileManager.default
    for name in ChatStore.existingFiles(at: file) {
      do {
        try manager.removeItem(atPath: name)
      } catch {
        logger.error("Could not delete the local store \(name): \(error)")
      }
    }
  }

  /// `<directory>/<user id>.sqlite`.
  private static func file(of user: User.ID, in directory: URL) -> String {
    directory.appendingPathComponent("\(user.rawValue).sqlite").path
  }
}

/// Runs one ``ChatSync`` for whoever is signed in: created and started on first use, stopped
/// when the user signs out or another user signs in (the next use starts the new user's own
/// engine and store). The sync endpoints of a `ChatRepository` made by
/// `ChatRepository.synced(server:host:)` all go through it.
public actor ChatHost {
  /// What the host needs from the implementation it runs in (live or fake).
  public struct Environment: Sendable {
    /// The session state now and on every change (the first value is the current one).
    public var sessionStates: @Sendable () -> AsyncStream<SessionState>
    /// Where each user's store lives.
    public var storage: ChatStorage
    /// Makes the real-time link of the signed-in user.
    public var makeChannel: @Sendable (_ user: User.ID) -> any ChatChannel
    /// The server calls of the implementation (the repository's own, e.g. `fetchRooms`).
    public var server: ChatRepository
    /// The server calls the engine of `user` makes: `server`, or, where the implementation can,
    /// the same calls bound to that user's session, so an engine that outlives its user's
    /// session (until the host stops it) never calls as the next user.
    public var makeServer: @Sendable (_ user: User.ID) -> ChatRepository
    /// Clock, logger and backoff of the engines.
    public var options: ChatSyncOptions

    /// Creates an environment; `makeServer` defaults to `server` for every user.
    public init(
      sessionStates: @escaping @Sendable () -> AsyncStream<SessionState>, storage: ChatStorage,
      makeChannel: @escaping @Sendable (_ user: User.ID) -> any ChatChannel,
      server: ChatRepository, options: ChatSyncOptions,
      makeServer: (@Sendable (_ user: User.ID) -> ChatRepository)? = nil
    ) {
      self.sessionStates = sessionStates
      self.storage = storage
      self.makeChannel = makeChannel
      self.server = server
      self.makeServer = makeServer ?? { _ in server }
      self.options = options
    }
  }

  private let environment: Environment
  private var running: ChatSync?
  private var watcher: Task<Void, Never>?
  /// How many watchers were started: a watcher acts only while it is the latest.
  private var watchers = 0

  /// Creates a host; nothing runs until the first ``engine()``.
  public init(_ environment: Environment) {
    self.environment = environment
  }

  /// The started engine of the signed-in user; throws `DomainError.signedOut` when nobody is
  /// signed in, and the store's error when it cannot be opened.
  public func engine() async throws -> ChatSync {
    var user = try await signedInUser()
    // Stopping the last user's engine awaits, and another call may start the new user's
    // engine meanwhile: look again after every wait, so one user never gets two engines.
    while let running {
      // A store found damaged (or closed by someone) keeps failing: its engine stops and the
      // next one opens the store again (starting a damaged one over).
      if running.me.id == user.id, running.store.damaged == nil, !running.store.isClosed {
        return running
      }
      await stop()
      user = try await signedInUser()
    }
    let store = try environment.storage.open(for: user.id, logger: environment.options.logger)
    let sync = ChatSync(
      store: store, me: user.summary, channel: environment.makeChannel(user.id),
      server: environment.makeServer(user.id), options: environment.options)
    running = sync
    watchSession()
    await sync.start()
    return sync
  }

  /// Forgets `user` on this device (their account was withdrawn): stops their engine if it
  /// runs and deletes their store (``ChatStorage/remove(for:logger:)``).
  public func removeStore(of user: User.ID) async {
    if running?.me.id == user { await stop() }
    environment.storage.remove(for: user, logger: environment.options.logger)
  }

  /// The engine if one runs for the signed-in user (nothing is started; an engine of a user
  /// who is no longer signed in, not stopped yet, is not handed out).
  public var runningEngine: ChatSync? {
    get async {
      guard let running, (try? await signedInUser())?.id == running.me.id else { return nil }
      return running
    }
  }

  /// Stops the running engine (its streams end; its store stays on disk).
  public func stop() async {
    guard let sync = running else { return }
    running = nil
    await sync.stop()
  }

  private func signedInUser() async throws(DomainError) -> User {
    for await state in environment.sessionStates() {
      guard case .signedIn(let user) = state else { throw .signedOut }
      return user
    }
    throw .signedOut
  }

  /// Stops the engine as soon as its user is no longer the signed-in one. Each engine gets a
  /// watcher of its own, which starts from the session as it is when the engine starts: the
  /// last engine's watcher may still hold states from before (a sign-out, then this user's
  /// sign-in), which must not stop an engine started after them.
  private func watchSession() {
    watcher?.cancel()
    watchers += 1
    let number = watchers
    let states = environment.sessionStates()
    watcher = Task { [weak self] in
      for await state in states {
        guard let self else { return }
        await self.sessionChanged(to: state, seenBy: number)
      }
    }
  }

  private func sessionChanged(to state: SessionState, seenBy watcher: Int) async {
    guard watcher == watchers, let running else { return }
    if case .signedIn(let user) = state, user.id == running.me.id { return }
    await stop()
  }

  deinit {
    watcher?.cancel()
  }
}

extension ChatRepository {
  /// The chat repository of an implementation: its server calls as they are, and every sync
  /// endpoint on the engine `host` runs for the signed-in user.
  public static func synced(server: ChatRepository, host: ChatHost) -> ChatRepository {
    var chat = server
    chat.markRead = { room, seq in
      if let engine = await host.runningEngine {
        try await engine.markRead(room, upTo: seq)
      } else {
        try await server.markRead(room, seq)
      }
    }
    chat.messages = { room, limit in
      forwarding(host) { $0.messages(in: room, limit: limit) }
    }
    chat.rooms = { forwarding(host) { $0.rooms() } }
    chat.room = { id in forwarding(host) { $0.room(id) } }
    chat.connectionStates = {
      AsyncStream { continuation in
        let task = Task {
          guard let engine = try? await host.engine() else {
            continuation.yield(.offline)
            continuation.finish()
            return
          }
          for await state in engine.connectionStates() { continuation.yield(state) }
          continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
      }
    }
    chat.typing = { room in
      AsyncStream { continuation in
        let task = Task {
          guard let engine = try? await host.engine() else { return continuation.finish() }
          for await typing in engine.typing(in: room) { continuation.yield(typing) }
          continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
      }
    }
    chat.userIsTyping = { room in await (try? await host.engine())?.userIsTyping(in: room) }
    chat.send = { text, room in try await host.engine().send(text, to: room) }
    chat.retry = { clientMessageID in try await host.engine().retry(clientMessageID) }
    chat.deleteUnsent = { clientMessageID in try await host.engine().delete(clientMessageID) }
    chat.loadOlder = { room, limit in
      try await host.engine().loadOlder(in: room, limit: limit).count
    }
    return chat
  }
}

/// A stream that starts the engine, then forwards what `body` makes of it (errors included).
private func forwarding<Element: Sendable>(
  _ host: ChatHost,
  _ body: @escaping @Sendable (ChatSync) -> AsyncThrowingStream<Element, any Error>
) -> AsyncThrowingStream<Element, any Error> {
  AsyncThrowingStream { continuation in
    let task = Task {
      do {
        for try await element in body(try await host.engine()) { continuation.yield(element) }
        continuation.finish()
      } catch {
        continuation.finish(throwing: error)
      }
    }
    continuation.onTermination = { _ in task.cancel() }
  }
}
