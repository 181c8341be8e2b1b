import BoardFeature
import Clocks
import Dependencies
import Domain
import Foundation
import Repositories
import RepositoriesTesting
import TestSupport
import Testing

/// The calls an overridden repository endpoint received, in order.
actor CallLog<Call: Sendable> {
  private(set) var calls: [Call] = []

  /// Records `call` and returns its number (from 1).
  @discardableResult
  func record(_ call: Call) -> Int {
    calls.append(call)
    return calls.count
  }

  /// Waits until `count` calls arrived: the model reached the endpoint. Throws when they did
  /// not, so the test stops instead of acting on a model that is not there yet.
  func waitForCalls(_ count: Int) async throws {
    try await waitUntil("the endpoint is called \(count) times") { calls.count >= count }
  }
}

extension FakeClient {
  /// Publishes `count` posts ("post 1" ... oldest first), returned oldest first.
  func publishPosts(_ count: Int, prefix: String = "post") async throws -> [BoardPost] {
    var posts: [BoardPost] = []
    for number in 1...count {
      posts.append(
        try await repositories.board.createPost(PostDraft(content: "\(prefix) \(number)")))
    }
    return posts
  }

  /// Writes `count` comments on `post` ("comment 1" ...), returned oldest first.
  func comment(_ count: Int, on post: BoardPost.ID) async throws -> [Domain.Comment] {
    var comments: [Domain.Comment] = []
    for number in 1...count {
      comments.append(
        try await repositories.board.createComment(post, CommentDraft(content: "comment \(number)"))
      )
    }
    return comments
  }
}

extension DependencyValues {
  /// Search queries are logged in `log` before the fake answers; `held` waits for `gate` first.
  mutating func logSearches(
    in log: CallLog<String>, holding held: String? = nil, until gate: Gate = Gate()
  ) {
    let search = boardRepository.searchPosts
    boardRepository.searchPosts = { query, page in
      await log.record(query)
      if query == held { await gate.wait() }
      return try await search(query, page)
    }
  }

  /// Searches are logged in `log`; each first runs `before` with its number (from 1) and
  /// query, which may wait or throw (as a request given up does).
  mutating func logSearches(
    in log: CallLog<String>, before: @escaping @Sendable (Int, String) async throws -> Void
  ) {
    let search = boardRepository.searchPosts
    boardRepository.searchPosts = { query, page in
      try await before(await log.record(query), query)
      return try await search(query, page)
    }
  }

  /// Post likes are logged in `log` (the wish sent) and held until `gate` opens.
  mutating func holdPostLikes(at gate: Gate, loggingIn log: CallLog<Bool>) {
    boardRepository.setPostLike = held(boardRepository.setPostLike, at: gate, loggingIn: log)
  }

  /// Comment likes are logged in `log` (the wish sent) and held until `gate` opens.
  mutating func holdCommentLikes(at gate: Gate, loggingIn log: CallLog<Bool>) {
    boardRepository.setCommentLike = held(
      boardRepository.setCommentLike, at: gate, loggingIn: log)
  }
}

/// `setLike` logging each wish in `log` and answering only once `gate` opens.
private func held<ID>(
  _ setLike: @escaping @Sendable (ID, Bool) async throws -> LikeState, at gate: Gate,
  loggingIn log: CallLog<Bool>
) -> @Sendable (ID, Bool) async throws -> LikeState {
  { id, isLiked in
    await log.record(isLiked)
    await gate.wait()
    return try await setLike(id, isLiked)
  }
}
