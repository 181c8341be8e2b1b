import Foundation
import HTTPTypes

/// A request head and its body, as built from a ``TargetType`` before plugins and authentication.
public struct EncodedRequest: Sendable, Hashable {
  /// The request head: method, scheme, authority, path with query, header fields.
  public var request: HTTPRequest
  /// The body bytes, `nil` for requests without a body.
  public var body: Data?

  /// Creates an encoded request.
  public init(request: HTTPRequest, body: Data?) {
    self.request = request
    self.body = body
  }
}

extension TargetType {
  /// Builds the HTTP request this target describes.
  ///
  /// The path is appended to `baseURL`'s path as is (it is already percent-encoded, see ``Path``),
  /// query items are percent-encoded so only unreserved characters stay literal, JSON bodies use
  /// `encoder`, and `Content-Type` is set for bodies unless the target's headers set it.
  public func encodedRequest(
    using encoder: JSONEncoder = JSONEncoder()
  ) throws(NetworkError)
    -> EncodedRequest
  {
    guard let components = URLComponents(url: baseURL, resolvingAgainstBaseURL: true),
      let scheme = components.scheme, let host = components.host, !host.isEmpty
    else {
      throw .invalidRequest("the base URL \(baseURL) needs a scheme and a host")
    }

    var body: Data?
    var contentType: String?
    var queryItems: [URLQueryItem] = []
    switch task {
    case .plain:
      break
    case .query(let items):
      queryItems = items
    case .json(let value, let query):
      queryItems = query
      do {
        body = try encoder.encode(value)
      } catch {
        throw .invalidRequest(
          "the JSON body of \(method.rawValue) \(path) failed to encode (\(error))")
      }
      contentType = "application/json"
    case .data(let data, let type):
      body = data
      contentType = type
    case .multipart(let form):
      body = form.encoded()
      contentType = form.contentType
    }

    var fullPath = components.percentEncodedPath
    if fullPath.hasSuffix("/") { fullPath.removeLast() }
    if !path.isEmpty {
      fullPath += path.hasPrefix("/") ? path : "/" + path
    }
    if fullPath.isEmpty { fullPath = "/" }
    let query = [components.percentEncodedQuery, QueryEncoding.encode(queryItems)]
      .compactMap { $0 }
      .filter { !$0.isEmpty }
      .joined(separator: "&")
    if !query.isEmpty { fullPath += "?" + query }

    // URLComponents drops the brackets around IPv6 literals on some platforms.
    let hostPart = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    let authority = components.port.map { "\(hostPart):\($0)" } ?? hostPart

    var fields = headers
    if let contentType, fields[.contentType] == nil {
      fields[.contentType] = contentType
    }
    if fields[.accept] == nil {
      fields[.accept] = "application/json"
    }
    let request = HTTPRequest(
      method: method, scheme: scheme, authority: authority, path: fullPath, headerFields: fields)
    return EncodedRequest(request: request, body: body)
  }
}

/// Percent-encodes query strings strictly: only RFC 3986 unreserved characters stay literal, so
/// `+`, `&`, `=`, `/`, `?` and spaces in names or values reach the server intact.
public enum QueryEncoding {
  /// Encodes `items` as `name=value` pairs joined by `&`; a `nil` value yields just the name.
  public static func encode(_ items: [URLQueryItem]) -> String {
    items.map { item in
      let name = encode(component: item.name)
      guard let value = item.value else { return name }
      return name + "=" + encode(component: value)
    }
    .joined(separator: "&")
  }

  /// Percent-encodes one query name or value.
  public static func encode(component: String) -> String {
    component.addingPercentEncoding(withAllowedCharacters: unreserved) ?? component
  }

  private static let unreserved: CharacterSet = {
    var set = CharacterSet()
    set.insert(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
    return set
  }()
}
