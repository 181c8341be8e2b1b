import DTO
import Domain
import Foundation
import NetworkKit

/// Reports of answers, posts, comments, chat messages and users.
public enum ReportAPI: Sendable, Hashable {
  /// Files a report; a second report of the same target is `409 already_reported`, while a retry
  /// with the same `idempotencyKey` answers the first result.
  case create(CreateReportRequest, idempotencyKey: String? = nil)
  /// The reports the user filed, newest first.
  case mine(page: PageRequest = .first)
}

extension ReportAPI: DeclaredRoute {
  var declaration: RouteDeclaration {
    switch self {
    case .create(let body, let key):
      RouteDeclaration(
        .reportCreate, task: .json(body), headers: Header.idempotencyKey(key),
        sample: SampleData.report)
    case .mine(let page):
      RouteDeclaration(.reportMine, task: .query(page.queryItems), sample: SampleData.page)
    }
  }
}

extension ReportAPI {
  /// Sample response bodies of the report operations.
  enum SampleData {
    static let report = """
      {
        "id": "r_0088",
        "target": { "type": "comment", "id": "c_2201" },
        "reason": "abuse",
        "detail": null,
        "status": "open",
        "created_at": "2026-11-21T05:10:00.123Z"
      }
      """

    static let page = """
      {
        "items": [
          \(report),
          {
            "id": "r_0061",
            "target": { "type": "post", "id": "p_0388" },
            "reason": "other",
            "detail": "다른 러너의 실명이 적혀 있어요. It names a learner without consent.",
            "status": "resolved",
            "created_at": "2026-11-18T11:24:36.900Z"
          }
        ],
        "next_cursor": null
      }
      """
  }
}
