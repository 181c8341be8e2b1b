import DTO
import Domain
import Endpoints
import Foundation
import HTTPTypes
import NetworkKit
import NetworkKitTesting
import Testing

@testable import RepositoriesLive

@Suite("Retried writes")
struct RetryTests {
  /// Two attempts without waiting, so the test needs no clock.
  static let immediateRetry = RetryPolicy(maxAttempts: 2, baseDelay: .zero, random: { _ in 0 })

  @Test func aRetriedCreateReusesItsIdempotencyKey() async throws {
    let harness = Harness(retryPolicy: Self.immediateRetry)
    try await harness.signIn()
    let attempts = Counter()
    harness.transport.stub(.post, "/posts") { _, _ in
      attempts.next() == 0
        ? .response(status: .serviceUnavailable, body: Data())
        : .response(
          status: .created,
          body: BoardAPI.create(CreatePostRequest(content: "x", isAnonymous: true))
            .sampleData)
    }

    let post = try await harness.repositories.board.createPost(PostDraft(content: "hello"))

    #expect(post.id == "p_0415")
    let keys = harness.sentRequests.map { $0.request.headerFields[RetryPolicy.idempotencyKey] }
    #expect(keys.count == 2)
    #expect(keys[0] != nil && keys[0] == keys[1])
  }

  @Test func twoCreatesUseDifferentKeys() async throws {
    let harness = Harness()
    try await harness.signIn()
    harness.stubSample(
      BoardAPI.create(CreatePostRequest(content: "x", isAnonymous: true)), status: .created)
    _ = try await harness.repositories.board.createPost(PostDraft(content: "one"))
    _ = try await harness.repositories.board.createPost(PostDraft(content: "two"))
    let keys = Set(
      harness.sentRequests.compactMap { $0.request.headerFields[RetryPolicy.idempotencyKey] })
    #expect(keys.count == 2)
  }

  @Test func aRetriedDeleteThatFindsThePostGoneSucceeds() async throws {
    // The first DELETE deleted the post but its answer was lost; the retry finds it gone.
    let harness = Harness(retryPolicy: Self.immediateRetry)
    try await harness.signIn()
    let attempts = Counter()
    let notFound = Data(Fixtures.error(code: "not_found", message: "no such post").utf8)
    harness.transport.stub(.delete, BoardAPI.delete("p_1").path) { _, _ in
      attempts.next() == 0
        ? .failure(.timeout) : .response(status: .notFound, body: notFound)
    }

    try await harness.repositories.board.deletePost("p_1")

    #expect(harness.sentRequests.count == 2)
  }

  @Test func aRetriedUnlikeThatFindsThePostGoneIsNotFound() async throws {
    // An unlike is a DELETE that answers a value: after a lost answer, 404 means the post is
    // gone (deleted or hidden), and no like state can come out of its error body.
    let harness = Harness(retryPolicy: Self.immediateRetry)
    try await harness.signIn()
    let attempts = Counter()
    let notFound = Data(Fixtures.error(code: "not_found", message: "no such post").utf8)
    harness.transport.stub(.delete, BoardAPI.unlike("p_1").path) { _, _ in
      attempts.next() == 0
        ? .failure(.timeout) : .response(status: .notFound, body: notFound)
    }
    let error = await domainError {
      _ = try await harness.repositories.board.setPostLike("p_1", false)
    }
    #expect(error == .notFound)
    #expect(harness.sentRequests.count == 2)
  }

  @Test func aDeleteOfAMissingPostStillFails() async throws {
    // Without an earlier attempt that may have deleted it, 404 means what it says.
    let harness = Harness(retryPolicy: Self.immediateRetry)
    try await harness.signIn()
    let attempts = Counter()
    harness.transport.stub(.delete, BoardAPI.delete("p_1").path) { _, _ in
      attempts.next() == 0
        ? .failure(.offline)
        : .response(
          status: .notFound,
          body: Data(Fixtures.error(code: "not_found", message: "no such post").utf8))
    }
    let error = await domainError { try await harness.repositories.board.deletePost("p_1") }
    #expect(error == .notFound)
    #expect(harness.sentRequests.count == 2)
  }

  @Test func aWithdrawalIsNeverRepeatedOnItsOwn() async throws {
    // A repeated withdrawal would find its tokens revoked and report a completed one as failed.
    let harness = Harness(retryPolicy: Self.immediateRetry)
    try await harness.signIn()
    harness.transport.stub(.delete, MeAPI.withdraw.path, with: .failure(.timeout))

    let error = await domainError { try await harness.repositories.auth.withdraw() }

    #expect(error == .timeout)
    #expect(harness.sentRequests.count == 1)
  }

  @Test func aFailedWriteWithoutAKeyIsNotRetried() async throws {
    let harness = Harness(retryPolicy: Self.immediateRetry)
    try await harness.signIn()
    harness.stubError(.patch, "/me", status: 503, code: "internal", message: "busy")
    let error = await domainError {
      try await harness.repositories.profile.updateProfile(ProfileUpdate(cohort: "2026"))
    }
    #expect(error == .server("MeAPI.updateProfile: HTTP 503 internal: busy"))
    #expect(harness.sentRequests.count == 1)
  }
}

/// Counts calls across concurrent stub handlers.
final class Counter: @unchecked Sendable {
  // Guarded by `lock`.
  private let lock = NSLock()
  private var value = 0

  /// The number of earlier calls.
  func next() -> Int {
    lock.withLock {
      defer { value += 1 }
      return value
    }
  }
}
