import Foundation
import HTTPTypes

/// A description of one API operation: where it goes, how it is sent and what it may answer.
///
/// Routers are enums whose cases conform to `TargetType`, so each operation declares its method,
/// path, query, body and sample data in one place and callers never pick the verb themselves.
public protocol TargetType: Sendable {
  /// The server of this target, when the target knows it; `nil` (the default) sends it to the
  /// provider's base URL, which is how API routers work: they describe operations, the
  /// provider knows the server.
  var baseURL: URL? { get }
  /// The path below the provider's base URL, made of already percent-encoded segments (see
  /// `Path`).
  var path: String { get }
  /// The HTTP method.
  var method: HTTPRequest.Method { get }
  /// What the request carries: query items, a body, or nothing.
  var task: HTTPTask { get }
  /// Extra header fields for this operation (e.g. `Idempotency-Key`).
  var headers: HTTPFields { get }
  /// Whether the access token must be attached.
  var authorization: AuthorizationRequirement { get }
  /// A believable response body for stubs, previews and tests.
  var sampleData: Data { get }
  /// The status codes that count as success; others become `NetworkError.status`.
  var acceptedStatusCodes: ClosedRange<Int> { get }
  /// How long this operation may take, overriding the provider's timeout (e.g. for uploads).
  var timeout: Duration? { get }
}

extension TargetType {
  /// No server of its own: the provider's.
  public var baseURL: URL? { nil }
  /// No extra headers by default.
  public var headers: HTTPFields { [:] }
  /// Operations need a token unless they say otherwise.
  public var authorization: AuthorizationRequirement { .bearer }
  /// An empty body by default.
  public var sampleData: Data { Data() }
  /// Any 2xx answer is a success by default.
  public var acceptedStatusCodes: ClosedRange<Int> { 200...299 }
  /// The provider's timeout applies by default.
  public var timeout: Duration? { nil }
}

/// Whether a target needs the signed-in user's access token.
public enum AuthorizationRequirement: Sendable, Hashable {
  /// No token: sign-in, refresh, public lookups.
  case none
  /// `Authorization: Bearer <access token>`; a 401 triggers one shared refresh and one retry.
  case bearer
}

/// What a request carries besides its path and headers.
public enum HTTPTask: Sendable {
  /// Nothing.
  case plain
  /// URL query items only (percent-encoded by the provider).
  case query([URLQueryItem])
  /// A JSON body encoded with the provider's encoder, plus optional query items.
  case json(any Encodable & Sendable, query: [URLQueryItem] = [])
  /// Raw bytes with their content type (e.g. `text/csv`).
  case data(Data, contentType: String)
  /// A `multipart/form-data` body (e.g. an image upload).
  case multipart(MultipartFormData)
}

/// Builds request paths from segments, percent-encoding each so an ID such as `../admin` or
/// `a?b` can never change the path or add a query.
public enum Path {
  /// Joins `segments` with `/`, percent-encoding each one as a single path segment.
  public static func make(_ segments: String...) -> String {
    make(segments)
  }

  /// Joins `segments` with `/`, percent-encoding each one as a single path segment.
  public static func make(_ segments: [String]) -> String {
    "/" + segments.map(encode(segment:)).joined(separator: "/")
  }

  /// Percent-encodes one path segment: only unreserved characters are left as they are, so
  /// `/`, `?`, `#`, `%` and `.` sequences such as `..` cannot escape the segment.
  public static func encode(segment: String) -> String {
    if segment == "." || segment == ".." {
      return segment.replacingOccurrences(of: ".", with: "%2E")
    }
    return PercentEncoding.keepingUnreserved(segment)
  }
}
