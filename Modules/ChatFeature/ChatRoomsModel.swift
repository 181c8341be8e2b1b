import Dependencies
import Domain
import Foundation
import Observation
import Repositories

/// The user's chat rooms: each with its newest message and unread count, live from the sync
/// engine's store, and the state of the real-time link ("Connecting...", "Offline").
///
/// The list is read while ``task()`` runs (a view runs it while it is shown): the store's rooms
/// at once, refreshed from the server, then every change (messages sent, received or read in
/// an open room or one of the first 20 listed, which the engine keeps in sync while the list
/// is read; the read cursor moved). Where a room has not caught up (further down the list,
/// offline) the newest message the server listed for it fills in where the store's is older or
/// missing.
/// Tapping a room asks the app to open it through ``onNavigate``.
@MainActor @Observable
public final class ChatRoomsModel {
  /// The rooms, in the store's order (newest activity first).
  public private(set) var rooms: [ChatRoom] = []
  /// Nothing has been read from the store yet.
  public private(set) var isLoading = true
  /// The real-time link's state.
  public private(set) var connection: ChatConnectionState = .connecting
  /// The last failure (signed out, the store could not be read), shown until
  /// ``failureDismissed()``.
  public private(set) var failure: DomainError?

  /// Asks the app to open a place outside this feature (a room: `.chatRoom(id)`).
  @ObservationIgnored public var onNavigate: @MainActor (DeepLink) -> Void = { _ in }

  @ObservationIgnored @Dependency(\.chatRepository) private var chat
  @ObservationIgnored @Dependency(\.authRepository) private var auth
  @ObservationIgnored @Dependency(\.analyticsRepository) private var analytics
  @ObservationIgnored @Dependency(\.date) private var date

  /// The rooms as the store lists them.
  @ObservationIgnored private var stored: [ChatRoom] = []
  /// The newest message of each room as the server listed it when the screen appeared.
  @ObservationIgnored private var newestOnServer: [ChatRoom.ID: ChatMessage] = [:]
  /// The highest `seq` the store showed as each room's newest message while the screen is up.
  @ObservationIgnored private var newestStored: [ChatRoom.ID: Int64] = [:]

  /// Creates the room list.
  public init() {}

  /// What the screen says about the link, or `nil` while it is live.
  public var connectionBanner: ChatConnectionBanner? { ChatConnectionBanner(connection) }

  /// Unread messages over all rooms (a tab badge).
  public var unreadCount: Int { rooms.reduce(0) { $0 + $1.unreadCount } }

  /// The screen appeared: reads the rooms and the link's state until the screen goes away (the
  /// task is cancelled) or the user signs out (then ``failure`` is `.signedOut`).
  public func task() async {
    await analytics.screenViewed("chat_rooms", at: date.now)
    await withTaskGroup(of: Void.self) { group in
      group.addTask { await self.followRooms() }
      group.addTask { await self.readNewestOnServer() }
      group.addTask { await self.followConnection() }
    }
  }

  /// A room was tapped: the app opens it.
  public func roomTapped(_ id: ChatRoom.ID) {
    onNavigate(.chatRoom(id))
  }

  /// The failure was read.
  public func failureDismissed() {
    failure = nil
  }

  private func followRooms() async {
    do {
      for try await rooms in chat.rooms() {
        stored = rooms
        for room in rooms {
          guard let seq = room.lastMessage?.seq else { continue }
          newestStored[room.id] = max(newestStored[room.id] ?? seq, seq)
        }
        merge()
        isLoading = false
      }
      // Ended by itself: the engine stopped because the user signed out.
      if !Task.isCancelled, await auth.hasSessionEnded() { failure = .signedOut }
    } catch is CancellationError {
      // The screen went away.
    } catch {
      failure = DomainError(error)
    }
    isLoading = false
  }

  /// Reads the server's room list once for each room's newest message.
  private func readNewestOnServer() async {
    do {
      for room in try await Page.all(in: { try await chat.fetchRooms($0) }) {
        if let message = room.lastMessage { newestOnServer[room.id] = message }
      }
      merge()
    } catch is CancellationError {
      // The screen went away.
    } catch {
      switch DomainError(error) {
      case .offline, .timeout:
        // The connection banner says so; the stored list is shown as it is.
        break
      case let failure:
        if self.failure == nil { self.failure = failure }
      }
    }
  }

  /// The stored rooms, each with the newer of its stored and its server-listed newest message
  /// (a message still being sent is the newest). Once the store has caught up with a listed
  /// message, now or earlier (the list's answer can come after the store had that message and
  /// moderation took it out again), the store alone speaks for the room: a listed message
  /// moderation hides must not come back.
  private func merge() {
    rooms = stored.map { room in
      guard let listed = newestOnServer[room.id], let listedSeq = listed.seq else { return room }
      let caughtUp = newestStored[room.id].map { $0 >= listedSeq } ?? false
      if caughtUp || room.lastMessage.map({ ($0.seq ?? .max) >= listedSeq }) == true {
        newestOnServer[room.id] = nil
        return room
      }
      var room = room
      room.lastMessage = listed
      return room
    }
  }

  private func followConnection() async {
    for await state in chat.connectionStates() {
      connection = state
    }
  }
}
