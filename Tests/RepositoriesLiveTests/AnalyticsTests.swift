import ChatCore
import Domain
import Foundation
import GRDB
import HTTPTypes
import Logging
import NetworkKit
import NetworkKitTesting
import Persistence
import TestSupport
import Testing

@testable import RepositoriesLive

@Suite("Analytics batching")
struct AnalyticsTests {
  static func event(_ index: Int) throws -> AnalyticsEvent {
    try AnalyticsEvent(
      name: "screen_viewed", properties: ["index": "\(index)"],
      occurredAt: Date(timeIntervalSince1970: 1_784_000_000 + Double(index)), sessionID: "s_1")
  }

  /// Answers uploads with `accepted` = the number of events in the body, after `failures`
  /// (per call index) decide which uploads fail.
  static func stubUploads(
    _ harness: Harness, failing failures: Set<Int> = [], failure: StubResponse = .failure(.offline)
  ) -> UploadLog {
    let log = UploadLog()
    harness.transport.stub(.post, "/analytics/events") { request, body in
      let index = log.record(request: request, body: body)
      if failures.contains(index) { return failure }
      let count = log.eventCounts[index]
      return .response(
        status: .accepted, headerFields: [.contentType: "application/json"],
        body: Data(#"{"accepted": \#(count)}"#.utf8))
    }
    return log
  }

  @Test func twoHundredFiftyEventsGoUpAsHundredHundredFifty() async throws {
    let harness = Harness()
    try await harness.signIn()
    let log = Self.stubUploads(harness)
    for index in 0..<250 { await harness.repositories.analytics.track(try Self.event(index)) }

    let accepted = try await harness.repositories.analytics.flush()

    #expect(accepted == 250)
    #expect(log.eventCounts == [100, 100, 50])
    #expect(log.firstIndexes == [0, 100, 200])
    #expect(Set(log.keys).count == 3)
    #expect(await harness.backend.analytics.pendingCount() == 0)
    // Nothing left: a second flush sends nothing.
    #expect(try await harness.repositories.analytics.flush() == 0)
    #expect(log.eventCounts.count == 3)
  }

  @Test func aFailedUploadKeepsItsEventsForTheNextFlush() async throws {
    let harness = Harness()
    try await harness.signIn()
    let log = Self.stubUploads(harness, failing: [1])
    for index in 0..<250 { await harness.repositories.analytics.track(try Self.event(index)) }

    let error = await domainError { try await harness.repositories.analytics.flush() }

    #expect(error == .offline)
    #expect(await harness.backend.analytics.pendingCount() == 150)

    let accepted = try await harness.repositories.analytics.flush()

    #expect(accepted == 150)
    #expect(log.eventCounts == [100, 100, 100, 50])
    // The retried batch is the same batch, under the same Idempotency-Key.
    #expect(log.keys[2] == log.keys[1])
    #expect(log.firstIndexes[2] == 100)
    #expect(log.firstIndexes[3] == 200)
    #expect(await harness.backend.analytics.pendingCount() == 0)
  }

  @Test func eventsTrackedWhileSignedOutWaitForASession() async throws {
    let harness = Harness()
    await harness.repositories.analytics.track(try Self.event(0))
    let error = await domainError { try await harness.repositories.analytics.flush() }
    #expect(error == .signedOut)
    #expect(await harness.backend.analytics.pendingCount() == 1)

    try await harness.signIn()
    let log = Self.stubUploads(harness)
    #expect(try await harness.repositories.analytics.flush() == 1)
    #expect(log.eventCounts == [1])
  }

  @Test func aBatchTheServerRefusesAsInvalidIsDroppedAndReported() async throws {
    let harness = Harness()
    try await harness.signIn()
    let invalid = StubResponse.response(
      status: .badRequest,
      body: Data(Fixtures.error(code: "validation_failed", message: "bad", field: "events").utf8))
    _ = Self.stubUploads(harness, failing: [0], failure: invalid)
    await harness.repositories.analytics.track(try Self.event(0))

    let error = await domainError { try await harness.repositories.analytics.flush() }

    guard case .validation = error else {
      Issue.record("expected .validation, got \(String(describing: error))")
      return
    }
    #expect(await harness.backend.analytics.pendingCount() == 0)
  }

  @Test func aFullBatchUploadsOnItsOwn() async throws {
    let harness = Harness(analytics: AnalyticsOptions(batchSize: 10, flushPolicy: .whenBatchIsFull))
    try await harness.signIn()
    let log = Self.stubUploads(harness)
    for index in 0..<9 { await harness.repositories.analytics.track(try Self.event(index)) }
    await harness.backend.analytics.waitForAutoFlush()
    #expect(log.eventCounts.isEmpty)

    await harness.repositories.analytics.track(try Self.event(9))
    await harness.backend.analytics.waitForAutoFlush()

    #expect(log.eventCounts == [10])
    #expect(await harness.backend.analytics.pendingCount() == 0)
  }

  @Test func aFailedAutomaticUploadWaitsForAnotherBatch() async throws {
    let harness = Harness(analytics: AnalyticsOptions(batchSize: 5, flushPolicy: .whenBatchIsFull))
    try await harness.signIn()
    let log = Self.stubUploads(harness, failing: [0])
    for index in 0..<5 { await harness.repositories.analytics.track(try Self.event(index)) }
    await harness.backend.analytics.waitForAutoFlush()
    #expect(log.eventCounts == [5])
    #expect(await harness.backend.analytics.pendingCount() == 5)

    // Four more events do not trigger another attempt; the fifth does, and both batches go.
    for index in 5..<9 { await harness.repositories.analytics.track(try Self.event(index)) }
    await harness.backend.analytics.waitForAutoFlush()
    #expect(log.eventCounts == [5])
    await harness.repositories.analytics.track(try Self.event(9))
    await harness.backend.analytics.waitForAutoFlush()

    #expect(log.eventCounts == [5, 5, 5])
    #expect(log.keys[1] == log.keys[0])
    #expect(await harness.backend.analytics.pendingCount() == 0)
  }

  @Test func eventsOfAUserWhoSignedOutAreNeverUploadedUnderTheNextUser() async throws {
    let harness = Harness()
    try await harness.signIn(as: "u_a", accessToken: "access-a", refreshToken: "refresh-a")
    let log = Self.stubUploads(harness, failing: [0])
    // A's first batch fails (kept for a retry), a third event waits in the buffer.
    for index in 0..<2 { await harness.repositories.analytics.track(try Self.event(index)) }
    _ = await domainError { try await harness.repositories.analytics.flush() }
    await harness.repositories.analytics.track(try Self.event(2))
    #expect(await harness.backend.analytics.pendingCount() == 3)

    harness.stub(.post, "/auth/sign-out", status: .noContent, json: "")
    try await harness.repositories.auth.signOut()
    try await harness.signIn(as: "u_b", accessToken: "access-b", refreshToken: "refresh-b")
    await harness.repositories.analytics.track(try Self.event(3))

    #expect(try await harness.repositories.analytics.flush() == 1)
    #expect(log.eventCounts == [2, 1])
    #expect(log.firstIndexes == [0, 3])
    #expect(await harness.backend.analytics.pendingCount() == 0)

    // A's events waited in A's queue: they go up when A signs in again, under A, the failed
    // batch first with its key.
    try await harness.repositories.auth.signOut()
    try await harness.signIn(as: "u_a", accessToken: "access-a2", refreshToken: "refresh-a2")
    #expect(await harness.backend.analytics.pendingCount() == 3)
    #expect(try await harness.repositories.analytics.flush() == 3)
    #expect(log.eventCounts == [2, 1, 2, 1])
    #expect(log.firstIndexes == [0, 3, 0, 2])
    #expect(log.keys[2] == log.keys[0])
    let uploads = harness.sentRequests.filter { $0.request.path == "/analytics/events" }
    #expect(
      uploads.map { $0.request.headerFields[.authorization] } == [
        "Bearer access-a", "Bearer access-b", "Bearer access-a2", "Bearer access-a2",
      ])
  }

  @Test func queuedEventsAndAFailedBatchSurviveARelaunch() async throws {
    let folder = try TemporaryDirectory("analytics")
    defer { folder.remove() }
    let credentials = FileCredentialStore(
      fileURL: folder.url.appendingPathComponent("session.json"),
      logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
    let stores = ChatStorage.directory(folder.url.appendingPathComponent("stores"))
    var firstBody: Data?
    var firstKey: String?
    do {
      let harness = Harness(store: credentials, storage: stores)
      try await harness.signIn()
      let log = Self.stubUploads(harness, failing: [0])
      for index in 0..<3 { await harness.repositories.analytics.track(try Self.event(index)) }
      _ = await domainError { try await harness.repositories.analytics.flush() }
      await harness.repositories.analytics.track(try Self.event(3))
      #expect(log.eventCounts == [3])
      firstBody = harness.sentRequests.last?.body
      firstKey = log.keys.first
    }

    // The next launch restores the session and finds both the failed batch and the event after
    // it; the batch goes again under its key, with the same body.
    let relaunched = Harness(store: credentials, storage: stores)
    let log = Self.stubUploads(relaunched)
    #expect(await relaunched.backend.analytics.pendingCount() == 4)
    #expect(try await relaunched.repositories.analytics.flush() == 4)
    #expect(log.eventCounts == [3, 1])
    #expect(log.firstIndexes == [0, 3])
    let uploads = relaunched.sentRequests.filter { $0.request.path == "/analytics/events" }
    #expect(uploads.first?.body == firstBody)
    #expect(log.keys.first == firstKey)
    #expect(await relaunched.backend.analytics.pendingCount() == 0)
  }

  @Test func theBufferIsBounded() async throws {
    let harness = Harness(
      analytics: AnalyticsOptions(batchSize: 2, flushPolicy: .manual, maximumBufferedEvents: 3))
    for index in 0..<5 { await harness.repositories.analytics.track(try Self.event(index)) }
    #expect(await harness.backend.analytics.pendingCount() == 3)
    try await harness.signIn()
    let log = Self.stubUploads(harness)
    #expect(try await harness.repositories.analytics.flush() == 3)
    #expect(log.firstIndexes == [2, 4])
  }
}

/// What the stubbed analytics endpoint received.
final class UploadLog: @unchecked Sendable {
  // Guarded by `lock`.
  private let lock = NSLock()
  private var counts: [Int] = []
  private var firsts: [Int] = []
  private var idempotencyKeys: [String] = []

  var eventCounts: [Int] { lock.withLock { counts } }
  /// The `index` property of each upload's first event.
  var firstIndexes: [Int] { lock.withLock { firsts } }
  var keys: [String] { lock.withLock { idempotencyKeys } }

  /// Records one upload; returns its 0-based number.
  func record(request: HTTPRequest, body: Data?) -> Int {
    let object = body.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
    let events = object?["events"] as? [[String: Any]] ?? []
    let first = (events.first?["properties"] as? [String: String])?["index"].flatMap(Int.init)
    return lock.withLock {
      counts.append(events.count)
      firsts.append(first ?? -1)
      idempotencyKeys.append(request.headerFields[RetryPolicy.idempotencyKey] ?? "")
      return counts.count - 1
    }
  }
}

@Suite("Analytics queue: a store that refuses events")
struct AnalyticsStoreFailureTests {
  @Test("a store that fails during a flush throws a DomainError, as every endpoint does")
  func aStoreFailureDuringAFlushIsADomainError() async throws {
    let harness = Harness()
    try await harness.signIn(as: "u_a", accessToken: "access-a", refreshToken: "refresh-a")
    let session = await harness.backend.authenticator.currentSession
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let path = directory.url.appendingPathComponent("u_a.sqlite").path
    let uploader = AnalyticsUploader(
      options: AnalyticsOptions(flushPolicy: .manual),
      logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() },
      currentAccount: { ("u_a", session) },
      openStore: { user throws(Persistence.PersistenceError) in
        try ChatStore(at: .file(path: path), owner: user)
      }
    ) { events, _, _ in events.count }
    await uploader.track(try AnalyticsEvent(name: "kept", occurredAt: Date()))
    // Another connection takes the queue's table away: the store's reads fail.
    let other = try DatabaseQueue(path: path)
    try await other.write {
      try $0.execute(sql: "ALTER TABLE analytics_event RENAME TO analytics_event_away")
    }
    await #expect(throws: DomainError.self) { try await uploader.flush() }
  }

  @Test func eventsAUsersStoreRefusedNeverJoinTheNextUsersQueue() async throws {
    let harness = Harness()
    try await harness.signIn(as: "u_a", accessToken: "access-a", refreshToken: "refresh-a")
    let sessionA = await harness.backend.authenticator.currentSession
    try await harness.signIn(as: "u_b", accessToken: "access-b", refreshToken: "refresh-b")
    let sessionB = await harness.backend.authenticator.currentSession

    let account = Locked<(user: User.ID, session: SessionGeneration)?>(("u_a", sessionA))
    // A's store refuses every write (it is closed) until A's disk has room again.
    let aRefuses = Locked(true)
    let uploads = Locked<[(names: [String], session: SessionGeneration)]>([])
    let uploader = AnalyticsUploader(
      options: AnalyticsOptions(flushPolicy: .manual),
      logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() },
      currentAccount: { account.withLock { $0 } },
      openStore: { user throws(Persistence.PersistenceError) in
        let store = try ChatStore(at: .inMemory, owner: user)
        if user == "u_a", aRefuses.withLock({ $0 }) { try store.close() }
        return store
      }
    ) { events, _, session in
      uploads.withLock { $0.append((events.map(\.name), session)) }
      return events.count
    }

    for name in ["a_one", "a_two"] {
      await uploader.track(try AnalyticsEvent(name: name, occurredAt: Date()))
    }
    #expect(await uploader.pendingCount() == 2)

    // B signs in: B's queue holds B's event only.
    account.withLock { $0 = ("u_b", sessionB) }
    await uploader.track(try AnalyticsEvent(name: "b_one", occurredAt: Date()))
    #expect(await uploader.pendingCount() == 1)
    #expect(try await uploader.flush() == 1)
    #expect(uploads.withLock { $0.map(\.names) } == [["b_one"]])

    // A is back and A's store works again: A's events go up, in A's session.
    aRefuses.withLock { $0 = false }
    account.withLock { $0 = ("u_a", sessionA) }
    #expect(try await uploader.flush() == 2)
    let last = try #require(uploads.withLock { $0.last })
    #expect(last.names == ["a_one", "a_two"])
    #expect(last.session == sessionA)
  }
}
