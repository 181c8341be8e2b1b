import Domain
import Foundation
import Logging
import NetworkKit
import Persistence

/// When buffered analytics events are uploaded without an explicit `flush()`.
public enum AnalyticsFlushPolicy: Hashable, Sendable {
  /// Only `flush()` uploads.
  case manual
  /// A full batch starts an upload in the background (failures are logged and the events kept;
  /// the next automatic attempt waits until another batch has been collected).
  case whenBatchIsFull
}

/// How analytics events are buffered and uploaded.
public struct AnalyticsOptions: Hashable, Sendable {
  /// Events per upload, `1...AnalyticsBatch.maximumSize`.
  public var batchSize: Int
  /// When uploads start on their own.
  public var flushPolicy: AnalyticsFlushPolicy
  /// The most events kept while uploads fail (e.g. offline for days); beyond it the oldest
  /// events are dropped, with a warning in the log.
  public var maximumBufferedEvents: Int

  /// Creates options; the batch size is clamped to what the server takes.
  public init(
    batchSize: Int = AnalyticsBatch.maximumSize,
    flushPolicy: AnalyticsFlushPolicy = .whenBatchIsFull,
    maximumBufferedEvents: Int = 10_000
  ) {
    self.batchSize = min(max(batchSize, 1), AnalyticsBatch.maximumSize)
    self.flushPolicy = flushPolicy
    self.maximumBufferedEvents = max(maximumBufferedEvents, self.batchSize)
  }
}

/// Queues analytics events and uploads them in batches, losing none to a failed upload or a
/// relaunch.
///
/// An event tracked while a user is signed in waits in that user's store (`Persistence`'s
/// analytics queue, in the ``ChatOptions/storage`` the chat cache uses: on disk with
/// `.directory`, so events survive a relaunch). It is only ever uploaded while that user is
/// signed in, never under another user: a user who signs out keeps their events, which go up
/// at their next sign-in on this device. Events tracked while nobody is signed in wait in
/// memory and join the store of the next user who signs in.
///
/// A batch keeps its `Idempotency-Key` from its first attempt until the server accepted it,
/// even across a relaunch, and a failed batch is sent first by the next flush, so a batch the
/// server did receive (but whose answer was lost) is not counted twice. Batches being uploaded
/// are not taken again, so concurrent flushes never send the same event twice. A batch the
/// server refuses as invalid (`DomainError.validation`) would fail forever: it is dropped,
/// logged and its error thrown.
actor AnalyticsUploader {
  /// Uploads one batch within `session`; returns how many events the server accepted.
  typealias Upload =
    @Sendable (
      _ events: [AnalyticsEvent], _ idempotencyKey: String, _ session: SessionGeneration
    ) async throws -> Int
  /// The signed-in user and the session their calls run in; `nil` when nobody is signed in.
  typealias CurrentAccount = @Sendable () async -> (user: User.ID, session: SessionGeneration)?
  /// Opens the store of a user.
  typealias OpenStore = @Sendable (User.ID) throws(PersistenceError) -> ChatStore

  private let options: AnalyticsOptions
  private let upload: Upload
  private let currentAccount: CurrentAccount
  private let openStore: OpenStore
  private let logger: Logger
  /// Events not in a store: under `nil` those tracked while nobody was signed in, under a
  /// user those their store refused (a full disk): they never join another user's queue.
  private var unstored: [User.ID?: [AnalyticsEvent]] = [:]
  /// The opened queue of each user (a store that could not be opened is replaced by one in
  /// memory, so tracking goes on for this run).
  private var stores: [User.ID: ChatStore] = [:]
  /// Keys of the batches being uploaded now.
  private var inFlight: Set<String> = []
  private var autoFlush: Task<Void, Never>?
  private var autoFlushThreshold: Int
  private let newKey: @Sendable () -> String

  init(
    options: AnalyticsOptions, logger: Logger, currentAccount: @escaping CurrentAccount,
    openStore: @escaping OpenStore,
    newKey: @escaping @Sendable () -> String = newIdempotencyKey,
    upload: @escaping Upload
  ) {
    self.options = options
    self.upload = upload
    self.currentAccount = currentAccount
    self.openStore = openStore
    self.newKey = newKey
    self.logger = logger
    self.autoFlushThreshold = options.batchSize
  }

  /// Events waiting for upload: the signed-in user's (failed batches included) and those
  /// tracked while nobody was signed in.
  func pendingCount() async -> Int {
    let anonymous = unstored[nil]?.count ?? 0
    guard let account = await currentAccount() else { return anonymous }
    return anonymous + (unstored[account.user]?.count ?? 0)
      + ((try? store(of: account.user).queuedEventCount()) ?? 0)
  }

  /// Queues `event`; under `.whenBatchIsFull` a full batch starts a background upload.
  func track(_ event: AnalyticsEvent) async {
    let account = await currentAccount()
    keep([event], for: account?.user)
    guard let account, let pending = storeUnstored(of: account.user) else { return }
    guard options.flushPolicy == .whenBatchIsFull, autoFlush == nil,
      pending >= autoFlushThreshold
    else { return }
    autoFlush = Task { await self.runAutoFlush() }
  }

  /// Uploads everything the signed-in user's store holds (events it refused wait in memory for
  /// a later flush), failed batches first; returns the accepted count. Throws `DomainError.signedOut` when events wait and nobody is signed in,
  /// and `DomainError.server` when the store on this device fails (a batch the server accepted
  /// but the store could not remove goes again with its key, which the server knows).
  func flush() async throws -> Int {
    do {
      return try await flushStored()
    } catch let error as PersistenceError {
      throw DomainError.server("The analytics queue on this device failed: \(error)")
    }
  }

  private func flushStored() async throws -> Int {
    guard let account = await currentAccount() else {
      if unstored[nil, default: []].isEmpty { return 0 }
      throw DomainError.signedOut
    }
    _ = storeUnstored(of: account.user)
    let store = store(of: account.user)
    var accepted = 0
    while let batch = try store.nextEventBatch(
      size: options.batchSize, newKey: newKey(), excluding: inFlight)
    {
      inFlight.insert(batch.key)
      defer { inFlight.remove(batch.key) }
      do {
        accepted += try await upload(batch.events, batch.key, account.session)
      } catch DomainError.validation(let error) {
        logger.error(
          "The server refused an analytics batch as invalid; dropping its events.",
          metadata: ["events": "\(batch.events.count)", "error": "\(error)"])
        try store.removeEventBatch(batch.key)
        throw DomainError.validation(error)
      }
      try store.removeEventBatch(batch.key)
    }
    autoFlushThreshold = options.batchSize
    return accepted
  }

  /// Forgets `user`'s events (their account was withdrawn): those in memory go, and their
  /// store is no longer used (the caller deletes it).
  func forget(_ user: User.ID) {
    unstored[user] = nil
    stores[user] = nil
  }

  /// Waits for a background upload started by `track`, if any.
  func waitForAutoFlush() async {
    await autoFlush?.value
  }

  /// Keeps `events` in memory for `user` (`nil`: nobody signed in), the oldest dropped beyond
  /// ``AnalyticsOptions/maximumBufferedEvents``.
  private func keep(_ events: [AnalyticsEvent], for user: User.ID?) {
    unstored[user, default: []].append(contentsOf: events)
    let overflow = unstored[user, default: []].count - options.maximumBufferedEvents
    guard overflow > 0 else { return }
    unstored[user]?.removeFirst(overflow)
    logDropped(overflow)
  }

  /// Moves the events tracked while nobody was signed in, and those `user`'s store refused
  /// before, into `user`'s queue and bounds it; returns how many events it holds, `nil` when the
  /// store failed (the events wait in memory, as `user`'s).
  private func storeUnstored(of user: User.ID) -> Int? {
    if let anonymous = unstored.removeValue(forKey: nil) { keep(anonymous, for: user) }
    let events = unstored.removeValue(forKey: user) ?? []
    let store = store(of: user)
    do {
      if !events.isEmpty { try store.enqueue(events: events) }
    } catch {
      // Not stored: they wait in memory, as `user`'s. (Once stored they never come back here,
      // or they would be stored, and counted, twice.)
      keep(events, for: user)
      logger.error(
        "Queueing analytics events failed; they wait in memory.",
        metadata: ["events": "\(events.count)", "error": "\(error)"])
      return nil
    }
    do {
      let dropped = try store.dropOldestEvents(keeping: options.maximumBufferedEvents)
      if dropped > 0 { logDropped(dropped) }
      return try store.queuedEventCount()
    } catch {
      logger.error("Bounding the analytics queue failed.", metadata: ["error": "\(error)"])
      return nil
    }
  }

  private func store(of user: User.ID) -> ChatStore {
    // A store that found its file damaged, or was closed, is opened again (which starts a
    // damaged one over).
    if let store = stores[user], store.damaged == nil, !store.isClosed { return store }
    let store: ChatStore
    do {
      store = try openStore(user)
    } catch {
      logger.error(
        "The analytics queue cannot be opened; events are kept in memory for this run.",
        metadata: ["error": "\(error)"])
      // An in-memory store opens unless memory is exhausted.
      store = try! ChatStore(at: .inMemory, owner: user)
    }
    stores[user] = store
    return store
  }

  private func logDropped(_ count: Int) {
    logger.warning(
      "The analytics queue is full; dropped the oldest events.",
      metadata: ["dropped": "\(count)", "limit": "\(options.maximumBufferedEvents)"])
  }

  private func runAutoFlush() async {
    do {
      let accepted = try await flush()
      logger.debug("Uploaded analytics events.", metadata: ["accepted": "\(accepted)"])
    } catch {
      // The events stay queued; try again once another batch has been collected, so a device
      // that is offline does not retry on every event.
      let pending = await pendingCount()
      autoFlushThreshold = pending + options.batchSize
      logger.warning(
        "Uploading analytics events failed; they stay queued for the next flush.",
        metadata: ["pending": "\(pending)", "error": "\(error)"])
    }
    autoFlush = nil
  }
}
