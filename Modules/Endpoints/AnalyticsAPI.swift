import DTO
import Foundation
import NetworkKit

/// Product analytics events, uploaded in batches.
public enum AnalyticsAPI: Sendable, Hashable {
  /// Uploads 1...100 events. A retried batch with the same `idempotencyKey` is counted once.
  case track(AnalyticsBatchRequest, idempotencyKey: String? = nil)
}

extension AnalyticsAPI: DeclaredRoute {
  var declaration: RouteDeclaration {
    switch self {
    case .track(let body, let key):
      RouteDeclaration(
        .analyticsTrack, task: .json(body), headers: Header.idempotencyKey(key),
        sample: SampleData.batchResult)
    }
  }
}

extension AnalyticsAPI {
  /// Sample response bodies of the analytics operations.
  enum SampleData {
    static let batchResult = """
      { "accepted": 3 }
      """
  }
}
