import Domain
import Foundation

extension ReportTargetRefDTO: DomainConvertible {
  /// The wire type as an enum; values this version does not know are `.unknown`.
  public var kind: ReportTargetTypeDTO { ReportTargetTypeDTO(rawValue: type) }

  /// The Domain target; an unknown `type` is refused because Domain has no case for it.
  public func toDomain() throws(MappingError) -> ReportTarget {
    let kind: ReportTarget.Kind
    switch self.kind {
    case .answer: kind = .answer
    case .post: kind = .post
    case .comment: kind = .comment
    case .chatMessage: kind = .chatMessage
    case .user: kind = .user
    case .unknown: throw self.kind.unknownError("type")
    }
    return ReportTarget(kind: kind, id: try id.nonEmpty("id"))
  }
}

extension ReportReasonDTO {
  /// The wire code of a Domain reason.
  public init(_ code: ReportReason.Code) { self.init(rawValue: code.rawValue) }

  /// The Domain code; `nil` for a value this version does not know.
  public var code: ReportReason.Code? {
    switch self {
    case .spam: .spam
    case .abuse: .abuse
    case .obscene: .obscene
    case .privacy: .privacy
    case .impersonation: .impersonation
    case .illegal: .illegal
    case .other: .other
    case .unknown: nil
    }
  }
}

extension ReportStatusDTO {
  /// The wire form of a Domain status.
  public init(_ status: ReportStatus) { self.init(rawValue: status.rawValue) }

  /// The Domain status, or an error at `field` for a value this version does not know.
  func toDomain(_ field: String) throws(MappingError) -> ReportStatus {
    switch self {
    case .open: .open
    case .resolved: .resolved
    case .unknown: throw unknownError(field)
    }
  }
}

/// `Report`: a report the signed-in user filed.
public struct ReportDTO: Codable, Hashable, Sendable, DomainConvertible {
  /// The report's identifier.
  public var id: String
  /// What was reported.
  public var target: ReportTargetRefDTO
  /// Why.
  public var reason: ReportReasonDTO
  /// The explanation; set when the reason is `other`.
  public var detail: String?
  /// `open` or `resolved`.
  public var status: ReportStatusDTO
  /// When it was filed.
  public var createdAt: Date

  /// Creates the DTO.
  public init(
    id: String, target: ReportTargetRefDTO, reason: ReportReasonDTO, detail: String? = nil,
    status: ReportStatusDTO, createdAt: Date
  ) {
    self.id = id
    self.target = target
    self.reason = reason
    self.detail = detail
    self.status = status
    self.createdAt = createdAt
  }

  /// The wire form of a Domain report.
  public init(_ report: Report) {
    self.init(
      id: report.id.rawValue, target: ReportTargetRefDTO(report.target),
      reason: ReportReasonDTO(report.reason.code), detail: report.reason.detail,
      status: ReportStatusDTO(report.status), createdAt: report.createdAt)
  }

  /// The Domain report; `other` needs a 1-500 character `detail`, unknown values are refused.
  public func toDomain() throws(MappingError) -> Report {
    let target: ReportTarget
    do { target = try self.target.toDomain() } catch { throw error.nested(in: "target") }
    return Report(
      id: try id.id("id"), target: target, reason: try reportReason(reason, detail: detail),
      status: try status.toDomain("status"), createdAt: createdAt)
  }

  /// Writes every key; absent values are sent as `null`, as the contract requires.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(id, forKey: .id)
    try container.encode(target, forKey: .target)
    try container.encode(reason, forKey: .reason)
    try container.encode(detail, forKey: .detail)
    try container.encode(status, forKey: .status)
    try container.encode(createdAt, forKey: .createdAt)
  }

  enum CodingKeys: String, CodingKey {
    case id
    case target
    case reason
    case detail
    case status
    case createdAt = "created_at"
  }
}

/// The Domain reason of a wire reason and detail.
private func reportReason(
  _ reason: ReportReasonDTO, detail: String?
) throws(MappingError)
  -> ReportReason
{
  guard let code = reason.code else { throw reason.unknownError("reason") }
  do {
    // A report is read as it was filed: text sent with another reason (a server that stored
    // it before refusing it) is not the report's and is left out, not a broken report.
    return try ReportReason(code: code, detail: code == .other ? detail : nil)
  } catch {
    throw MappingError(path: "detail", problem: .invalid(error))
  }
}
