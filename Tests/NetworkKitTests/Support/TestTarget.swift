import Foundation
import HTTPTypes
import NetworkKit
import Testing

/// A target whose every property is a stored value, so each test describes exactly what it sends.
struct TestTarget: TargetType {
  var baseURL: URL?
  var path: String
  var method: HTTPRequest.Method = .get
  var task: HTTPTask = .plain
  var headers: HTTPFields = [:]
  var authorization: AuthorizationRequirement = .none
  var sampleData: Data = Data()
  var timeout: Duration?

  init(
    _ method: HTTPRequest.Method = .get,
    _ path: String,
    on baseURL: URL = URL(string: "http://127.0.0.1:9")!,
    task: HTTPTask = .plain,
    headers: HTTPFields = [:],
    authorization: AuthorizationRequirement = .none,
    sampleData: Data = Data(),
    timeout: Duration? = nil
  ) {
    self.baseURL = baseURL
    self.path = path
    self.method = method
    self.task = task
    self.headers = headers
    self.authorization = authorization
    self.sampleData = sampleData
    self.timeout = timeout
  }
}

extension TestTarget {
  /// The request this target describes, sent to its own server.
  func encodedRequest(
    using encoder: JSONEncoder = JSONEncoder()
  ) throws(NetworkError)
    -> EncodedRequest
  {
    try encodedRequest(baseURL: baseURL ?? URL(string: "http://127.0.0.1:9")!, using: encoder)
  }
}

/// A transport under test, named for parameterized test output.
struct NamedTransport: Sendable, CustomTestStringConvertible {
  let name: String
  let transport: any HTTPTransport

  var testDescription: String { name }

  /// Every transport available on this platform: URLSession everywhere, AsyncHTTPClient on Linux.
  static let all: [NamedTransport] = {
    var all = [NamedTransport(name: "URLSession", transport: URLSessionTransport.shared)]
    #if os(Linux)
    all.append(NamedTransport(name: "AsyncHTTPClient", transport: AsyncHTTPClientTransport.shared))
    #endif
    return all
  }()
}

/// A unique id for paths and tokens so parallel tests never share server state.
func uniqueID(_ prefix: String = "t") -> String {
  "\(prefix)-\(UUID().uuidString.prefix(8).lowercased())"
}

/// A decoder/encoder-agnostic JSON value for quick body assertions.
func jsonObject(_ data: Data) -> [String: Any]? {
  (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
}

extension ErrorBodyDecoder {
  /// The envelope the test server answers with, `{ "error": { "code", "message", "field" } }`:
  /// NetworkKit knows no shape of its own, so its tests configure one like an SDK would.
  static let testEnvelope = ErrorBodyDecoder { body in
    struct Envelope: Decodable { var error: ServerError }
    return try? JSONDecoder().decode(Envelope.self, from: body).error
  }
}
