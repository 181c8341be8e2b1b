import Domain
import Foundation
import Hummingbird
import ServiceEngine

/// What a stop waits for before the listener and the database close: the requests being
/// handled, the open `/realtime` sockets (with the function that closes each); and the stop
/// itself, which later stops and `run` wait for. Each is added once and removed once it ended.
final class InProgress<Value: Sendable>: Sendable {
  private struct State {
    var next = 0
    var all: [Int: Value] = [:]
    var waiters: [ResumeOnce] = []
    var ending: (@Sendable (Value) -> Void)?
  }

  private let state = Locked(State())

  /// Adds one; returns its key for ``remove(_:)``. Once ``end(each:)`` ran, the new one is
  /// ended at once.
  func add(_ value: Value) -> Int {
    let (key, ending) = state.withLock { state in
      state.next += 1
      state.all[state.next] = value
      return (state.next, state.ending)
    }
    ending?(value)
    return key
  }

  /// Runs `body` on every one in progress, and on every one added from now on: each exactly
  /// once (a socket that finishes connecting while the server stops is closed too).
  func end(each body: @escaping @Sendable (Value) -> Void) {
    let current = state.withLock { state in
      state.ending = body
      return Array(state.all.values)
    }
    for value in current { body(value) }
  }

  /// Whether none is in progress.
  var isEmpty: Bool { state.withLock { $0.all.isEmpty } }

  /// Forgets one that has ended.
  func remove(_ key: Int) {
    let waiters = state.withLock { state -> [ResumeOnce] in
      state.all.removeValue(forKey: key)
      guard state.all.isEmpty else { return [] }
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Returns once none is left, or after `timeout` when one is given.
  func waitUntilEmpty(timeout: Duration? = nil) async {
    await withCheckedContinuation { continuation in
      let waiter = ResumeOnce(continuation)
      let empty = state.withLock { state in
        if !state.all.isEmpty { state.waiters.append(waiter) }
        return state.all.isEmpty
      }
      guard !empty else { return waiter.resume() }
      guard let timeout else { return }
      Task {
        try? await Task.sleep(for: timeout)
        waiter.resume()
      }
    }
  }
}

/// A continuation resumed once, by whichever of its events comes first (the last one in
/// progress ending or a timeout; the first of ``QappleServer``'s events).
final class ResumeOnce: Sendable {
  private let continuation: Locked<CheckedContinuation<Void, Never>?>

  init(_ continuation: CheckedContinuation<Void, Never>) {
    self.continuation = Locked(continuation)
  }

  /// Resumes the continuation the first time; later calls do nothing.
  func resume() {
    continuation.withLock { continuation in
      continuation?.resume()
      continuation = nil
    }
  }
}

/// Counts every request into and out of the requests ``InProgress`` (outermost middleware).
struct InFlightMiddleware: RouterMiddleware {
  typealias Context = QappleRequestContext

  let requests: InProgress<Void>

  func handle(
    _ request: Request, context: Context,
    next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    let key = requests.add(())
    defer { requests.remove(key) }
    return try await next(request, context)
  }
}

/// Runs one body at a time per key; callers with a key that is taken wait their turn, in order
/// (`IdempotencyMiddleware`: requests sent with the same `Idempotency-Key`).
final class KeyedTurns: Sendable {
  private let waiting = Locked<[String: [CheckedContinuation<Void, Never>]]>([:])

  /// Runs `body` once no earlier caller with `key` is still running its own.
  func take<T>(_ key: String, _ body: () async throws -> T) async throws -> T {
    await withCheckedContinuation { continuation in
      let free = waiting.withLock { waiting -> Bool in
        guard waiting[key] != nil else {
          waiting[key] = []
          return true
        }
        waiting[key]?.append(continuation)
        return false
      }
      if free { continuation.resume() }
    }
    defer {
      // Hands the key to the next caller, or frees it.
      let next = waiting.withLock { waiting -> CheckedContinuation<Void, Never>? in
        guard let queue = waiting[key], let first = queue.first else {
          waiting[key] = nil
          return nil
        }
        waiting[key] = Array(queue.dropFirst())
        return first
      }
      next?.resume()
    }
    return try await body()
  }
}
