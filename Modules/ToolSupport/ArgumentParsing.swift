import Domain
import Foundation

/// Reading the tools' argument formats into Domain values, with errors that show the format.
public enum ArgumentParsing {
  /// `kind:id` as ``Domain/ReportTarget/description`` prints it: `post:p_12`, `comment:c_3`,
  /// `answer:a_7`, `chat_message:m_9`, `user:u_4`.
  public static func reportTarget(_ text: String) throws(ToolError) -> ReportTarget {
    let kinds = ReportTarget.Kind.allCases.map(\.rawValue).joined(separator: ", ")
    let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
    guard parts.count == 2, !parts[1].trimmingCharacters(in: .whitespaces).isEmpty else {
      throw ToolError(
        "target must be KIND:ID such as post:p_12 (KIND is one of \(kinds)); got \"\(text)\"",
        exitCode: .usage)
    }
    guard let kind = ReportTarget.Kind(rawValue: parts[0].lowercased()) else {
      throw ToolError(
        "unknown target kind \"\(parts[0])\"; use one of \(kinds)", exitCode: .usage)
    }
    return ReportTarget(kind: kind, id: parts[1].trimmingCharacters(in: .whitespaces))
  }

  /// A report reason from its code and, for `other`, the detail text.
  public static func reportReason(code: String, detail: String?) throws(ToolError) -> ReportReason {
    guard let code = ReportReason.Code(rawValue: code.lowercased()) else {
      let codes = ReportReason.Code.allCases.map(\.rawValue).joined(separator: ", ")
      throw ToolError("--reason must be one of \(codes) (got \"\(code)\")", exitCode: .usage)
    }
    do {
      return try ReportReason(code: code, detail: detail)
    } catch {
      throw ToolError(
        error.field == "detail" && code == .other
          ? "--reason other needs --detail \"...\" (\(TextRule.reportDetail.lengthText)): \(error.description)"
          : error.description,
        exitCode: .usage)
    }
  }

  /// A day as `YYYY-MM-DD`, or `today` / `tomorrow` (Seoul time, like the service).
  public static func day(_ text: String, now: Date = Date()) throws(ToolError) -> CalendarDay {
    let today = CalendarDay(containing: now)
    switch text.lowercased() {
    case "today": return today
    case "tomorrow": return today.next
    default:
      do {
        return try CalendarDay(iso8601: text, field: "date")
      } catch {
        throw ToolError(error)
      }
    }
  }
}
