import Domain
import Foundation
import Logging
import NetworkKit

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

/// Buffers analytics events and uploads them in batches, losing none to a failed upload.
///
/// A batch that failed keeps its events and its `Idempotency-Key` and is sent first by the next
/// flush, so a batch the server did receive (but whose answer was lost) is not counted twice.
/// Batches are taken out of the buffer while they upload, so concurrent flushes never send the
/// same event twice. A batch the server refuses as invalid (`DomainError.validation`) would
/// fail forever: it is dropped, logged and its error thrown.
///
/// Events belong to the session they were tracked in and are only ever uploaded in it: once
/// that user signs out, withdraws or another user signs in, what is left of them is dropped
/// (logged), never sent under the next user. Events tracked while nobody is signed in belong to
/// nobody and go up with the next signed-in session (a batch is bound to the session of its
/// first upload attempt, so its retries stay there too).
actor AnalyticsUploader {
  /// Uploads one batch within `session` (`nil`: whoever is signed in); returns how many events
  /// the server accepted.
  typealias Upload =
    @Sendable (
      _ events: [AnalyticsEvent], _ idempotencyKey: String, _ session: SessionGeneration?
    ) async throws -> Int
  /// The session signed in now, `nil` when nobody is.
  typealias CurrentSession = @Sendable () async -> SessionGeneration?

  private struct Batch {
    var key: String
    var events: [AnalyticsEvent]
    /// The session the events belong to; `nil` for events tracked while signed out.
    var session: SessionGeneration?
  }

  private struct Tracked {
    var event: AnalyticsEvent
    var session: SessionGeneration?
  }

  private let options: AnalyticsOptions
  private let upload: Upload
  private let currentSession: CurrentSession
  private let logger: Logger
  private var buffer: [Tracked] = []
  private var failedBatches: [Batch] = []
  private var autoFlush: Task<Void, Never>?
  private var autoFlushThreshold: Int

  init(
    options: AnalyticsOptions, logger: Logger, currentSession: @escaping CurrentSession,
    upload: @escaping Upload
  ) {
    self.options = options
    self.upload = upload
    self.currentSession = currentSession
    self.logger = logger
    self.autoFlushThreshold = options.batchSize
  }

  /// Events waiting for upload (failed batches included).
  var pendingCount: Int { buffer.count + failedBatches.reduce(0) { $0 + $1.events.count } }

  /// Buffers `event`; under `.whenBatchIsFull` a full batch starts a background upload.
  func track(_ event: AnalyticsEvent) async {
    let session = await currentSession()
    dropEndedSessions(current: session)
    buffer.append(Tracked(event: event, session: session))
    dropOverflow()
    guard options.flushPolicy == .whenBatchIsFull, autoFlush == nil,
      pendingCount >= autoFlushThreshold
    else { return }
    autoFlush = Task { await self.runAutoFlush() }
  }

  /// Uploads everything buffered, failed batches first; returns the accepted count.
  func flush() async throws -> Int {
    var accepted = 0
    while true {
      let session = await currentSession()
      guard let batch = takeBatch(current: session) else { break }
      do {
        accepted += try await upload(batch.events, batch.key, batch.session)
      } catch DomainError.validation(let error) {
        logger.error(
          "The server refused an analytics batch as invalid; dropping its events.",
          metadata: ["events": "\(batch.events.count)", "error": "\(error)"])
        throw DomainError.validation(error)
      } catch {
        failedBatches.insert(batch, at: 0)
        throw error
      }
    }
    autoFlushThreshold = options.batchSize
    return accepted
  }

  /// Waits for a background upload started by `track`, if any.
  func waitForAutoFlush() async {
    await autoFlush?.value
  }

  /// The next batch to send in `current` (after dropping what belongs to ended sessions); a
  /// batch of events tracked while signed out is bound to `current` from now on.
  private func takeBatch(current: SessionGeneration?) -> Batch? {
    dropEndedSessions(current: current)
    if !failedBatches.isEmpty {
      var batch = failedBatches.removeFirst()
      batch.session = batch.session ?? current
      return batch
    }
    guard !buffer.isEmpty else { return nil }
    let count = min(options.batchSize, buffer.count)
    let events = buffer.prefix(count).map(\.event)
    buffer.removeFirst(count)
    return Batch(key: UUID().uuidString.lowercased(), events: events, session: current)
  }

  /// Drops the events and batches of sessions other than `current`: they belong to a user who
  /// is no longer signed in here and must not go up under anyone else.
  private func dropEndedSessions(current: SessionGeneration?) {
    func ended(_ session: SessionGeneration?) -> Bool { session != nil && session != current }
    let before = pendingCount
    buffer.removeAll { ended($0.session) }
    failedBatches.removeAll { ended($0.session) }
    let dropped = before - pendingCount
    guard dropped > 0 else { return }
    logger.notice(
      "Dropped analytics events of a session that ended before they were uploaded.",
      metadata: ["dropped": "\(dropped)"])
  }

  private func runAutoFlush() async {
    do {
      let accepted = try await flush()
      logger.debug("Uploaded analytics events.", metadata: ["accepted": "\(accepted)"])
    } catch {
      // The events stay buffered; try again once another batch has been collected, so a
      // device that is offline does not retry on every event.
      autoFlushThreshold = pendingCount + options.batchSize
      logger.warning(
        "Uploading analytics events failed; they stay buffered for the next flush.",
        metadata: ["pending": "\(pendingCount)", "error": "\(error)"])
    }
    autoFlush = nil
  }

  private func dropOverflow() {
    let overflow = pendingCount - options.maximumBufferedEvents
    guard overflow > 0 else { return }
    let dropped = min(overflow, buffer.count)
    buffer.removeFirst(dropped)
    logger.warning(
      "The analytics buffer is full; dropped the oldest events.",
      metadata: ["dropped": "\(dropped)", "limit": "\(options.maximumBufferedEvents)"])
  }
}
