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
  /// The path is appended to `baseURL`'s path (the provider's server) as is (it is already
  /// percent-encoded, see ``Path``); a path with an empty segment (`/posts/`, what an empty ID
  /// fills in) throws ``NetworkError/invalidRequest(_:)`` instead of reaching another route;
  /// query items are percent-encoded so only unreserved characters stay literal, JSON bodies use
  /// `encoder`, and `Content-Type` is set for bodies unless the target's headers set it.
  public func encodedRequest(
    baseURL: URL, using encoder: JSONEncoder = JSONEncoder()
  ) throws(NetworkError)
    -> EncodedRequest
  {
    // Routers compute `path` on every read (percent-encoding each segment): read it once.
    let path = self.path
    guard let components = URLComponents(url: baseURL, resolvingAgainstBaseURL: true),
      let scheme = components.scheme, let host = components.host, !host.isEmpty
    else {
      throw .invalidRequest("the base URL \(baseURL) needs a scheme and a host")
    }
    // An empty segment (`/posts/`, `/posts//like`) is what an empty ID fills in: refused, so it
    // cannot reach a neighbouring route such as the list at `/posts`.
    let segments = path.hasPrefix("/") ? path.dropFirst() : Substring(path)
    if !segments.isEmpty,
      segments.split(separator: "/", omittingEmptySubsequences: false).contains(where: \.isEmpty)
    {
      throw .invalidRequest("the path \(path) has an empty segment (an empty ID?)")
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
    PercentEncoding.keepingUnreserved(component)
  }
}

/// Percent-encodes the UTF-8 bytes of everything but RFC 3986 unreserved characters
/// (`A-Z a-z 0-9 - . _ ~`), with upper-case hex digits, as
/// `addingPercentEncoding(withAllowedCharacters:)` does with that set. Hand-written because on
/// Linux Foundation's version goes through NSString and cost about 1 µs per call, several calls
/// per request (see Benchmarks/README.md).
enum PercentEncoding {
  /// `string` with every byte outside the unreserved set written as `%XX`.
  static func keepingUnreserved(_ string: String) -> String {
    // Most segments and query values (ids, numbers, cursors) need no encoding at all.
    if string.utf8.allSatisfy(isUnreserved) { return string }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(string.utf8.count * 3)
    for byte in string.utf8 {
      if isUnreserved(byte) {
        bytes.append(byte)
      } else {
        bytes.append(UInt8(ascii: "%"))
        bytes.append(hexDigit(byte >> 4))
        bytes.append(hexDigit(byte & 0x0F))
      }
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  private static func isUnreserved(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
      UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
      UInt8(ascii: "_"), UInt8(ascii: "~"):
      true
    default:
      false
    }
  }

  private static func hexDigit(_ value: UInt8) -> UInt8 {
    value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "A") + value - 10
  }
}
