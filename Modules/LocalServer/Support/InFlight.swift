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
