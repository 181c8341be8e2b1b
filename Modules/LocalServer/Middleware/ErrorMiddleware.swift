import DTO
import Domain
import Foundation
import Hummingbird
import Logging

/// The outermost middleware: whatever goes wrong below becomes the contract's error envelope.
/// Unknown paths answer 404 `not_found`, known paths with another method 405 (with `Allow`),
/// and unexpected errors 500 `internal` (logged, never shown in detail).
struct ErrorEnvelopeMiddleware: RouterMiddleware {
  typealias Context = QappleRequestContext

  let routes: RouteTable
  let maxBodySize: Int
  let logger: Logger

  func handle(
    _ request: Request, context: Context,
    next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    do {
      return try await next(request, context)
    } catch let error where APIError.of(error) != nil {
      return Reply.envelope(APIError.of(error)!).response
    } catch let error as DecodingError {
      return Reply.envelope(Call.apiError(for: DTODecoding.translate(error, data: Data()))).response
    } catch let error as any HTTPResponseError {
      return Reply.envelope(translate(error, request: request)).response
    } catch is CancellationError {
      throw CancellationError()
    } catch {
      logger.error(
        "Request failed",
        metadata: [
          "method": .string(request.method.rawValue), "path": .string(request.uri.path),
          "error": .string(String(describing: error)),
        ])
      return Reply.envelope(.serverFailed).response
    }
  }

  /// Maps Hummingbird's own errors (no route, body too large, ...) onto the envelope.
  private func translate(_ error: any HTTPResponseError, request: Request) -> APIError {
    let path = request.uri.path
    switch error.status {
    case .notFound:
      let allowed = routes.allowedMethods(for: path)
      if !allowed.isEmpty {
        return .methodNotAllowed(request.method.rawValue, path: path, allowed: allowed)
      }
      return .notFound("No route for \(request.method.rawValue) \(path).")
    case .contentTooLarge:
      return .payloadTooLarge(limit: maxBodySize)
    case .badRequest:
      return .malformed("The request could not be read.")
    default:
      return APIError(
        status: error.status, code: error.status.code >= 500 ? .internal : .malformedRequest,
        message: error.status.reasonPhrase)
    }
  }
}

/// Dev-mode fault injection: adds latency, fails or drops requests as the fault rules say.
/// `/_dev/*` is never faulted, so the faults can always be changed.
struct FaultMiddleware: RouterMiddleware {
  typealias Context = QappleRequestContext

  let routes: RouteTable
  let faults: FaultInjector

  func handle(
    _ request: Request, context: Context,
    next: (Request, Context) async throws -> Response
  ) async throws -> Response {
    let path = request.uri.path
    guard !path.hasPrefix("/_dev") else { return try await next(request, context) }
    // The operation the router picks (none when it answers 404 or 405).
    let operation = routes.resolve(path: path).first { $0.method == request.method }
    let (latency, decision) = faults.decide(path: path, operation: operation?.id)
    if latency > .zero {
      try await Task.sleep(for: latency)
    }
    switch decision {
    case .proceed:
      return try await next(request, context)
    case .fail(let status):
      throw APIError.injected(status: status)
    case .drop:
      context.closeConnection()
      throw APIError.internalError("Injected fault (dev mode): the connection was dropped.")
    }
  }
}
