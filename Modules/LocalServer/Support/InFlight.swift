import Domain
import Foundation
import Hummingbird
import ServiceEngine

/// Counts requests being handled, so a stop can wait for them to finish before the listener
/// and the database close (a graceful stop without cutting answers off).
final class InFlight: Sendable {
  private let state = Locked<(count: Int, waiters: [CheckedContinuation<Void, Never>])>(
    (0, []))

  func enter() {
    state.withLock { $0.count += 1 }
  }

  func leave() {
    let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      state.count -= 1
      guard state.count == 0 else { return [] }
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Returns once no request is in flight.
  func waitUntilIdle() async {
    await withCheckedContinuation { continuation in
      let idle = state.withLock { state -> Bool in
        if state.count == 0 { return true }
        state.waiters.append(continuation)
        return false
      }
      if idle { continuation.resume() }
    }
  }
}

/// Counts every request into and out of ``InFlight`` (outermost middleware).
struct InFlightMiddleware: RouterMiddleware {
  typealias Context = QappleRequestContext

  let inFlight: InFlight

  func handle(
    _ request: Request, context: Context,
    next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    inFlight.enter()
    defer { inFlight.leave() }
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
