import Foundation
import HTTPTypes
import NetworkKit
import Testing

@Suite("Request encoding")
struct RequestEncodingTests {
  let base = URL(string: "https://api.example.com:8443/v1/")!

  @Test func appendsTheEncodedPathToTheBasePathWithoutReencoding() throws {
    let path = Path.make("posts", "a b/c", "..")
    let encoded = try TestTarget(.get, path, on: base).encodedRequest()
    #expect(encoded.request.scheme == "https")
    #expect(encoded.request.authority == "api.example.com:8443")
    #expect(encoded.request.path == "/v1/posts/a%20b%2Fc/%2E%2E")
    #expect(encoded.body == nil)
    #expect(encoded.request.headerFields[.accept] == "application/json")
  }

  @Test func encodesQueryItemsStrictly() throws {
    let target = TestTarget(
      .get, "/search", on: base,
      task: .query([
        URLQueryItem(name: "q", value: "a+b&c=d é/?"),
        URLQueryItem(name: "flag", value: nil),
        URLQueryItem(name: "sp ace", value: ""),
      ]))
    let encoded = try target.encodedRequest()
    #expect(
      encoded.request.path == "/v1/search?q=a%2Bb%26c%3Dd%20%C3%A9%2F%3F&flag&sp%20ace=")
  }

  @Test func encodesJSONBodiesWithTheGivenEncoderAndSetsContentType() throws {
    struct Body: Encodable, Sendable { var displayName: String }
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    let target = TestTarget(
      .post, "/users", on: base,
      task: .json(Body(displayName: "Kim"), query: [URLQueryItem(name: "dry_run", value: "1")]))
    let encoded = try target.encodedRequest(using: encoder)
    #expect(encoded.request.method == .post)
    #expect(encoded.request.path == "/v1/users?dry_run=1")
    #expect(encoded.request.headerFields[.contentType] == "application/json")
    #expect(encoded.body == Data(#"{"display_name":"Kim"}"#.utf8))
  }

  @Test func keepsTheTargetsContentTypeAndHeaders() throws {
    let target = TestTarget(
      .put, "/raw", on: base, task: .data(Data("a,b".utf8), contentType: "text/csv"),
      headers: [.contentType: "text/csv; charset=utf-8", .accept: "text/plain"])
    let encoded = try target.encodedRequest()
    #expect(encoded.request.headerFields[.contentType] == "text/csv; charset=utf-8")
    #expect(encoded.request.headerFields[.accept] == "text/plain")
    #expect(encoded.body == Data("a,b".utf8))
  }

  @Test func encodesMultipartBodiesWithTheirBoundary() throws {
    let form = MultipartFormData(
      parts: [.init(name: "caption", data: Data("hi".utf8))], boundary: "XYZ")
    let encoded = try TestTarget(.post, "/upload", on: base, task: .multipart(form))
      .encodedRequest()
    #expect(encoded.request.headerFields[.contentType] == "multipart/form-data; boundary=XYZ")
    #expect(encoded.body == form.encoded())
  }

  @Test func reportsBodiesThatFailToEncode() {
    struct Unencodable: Encodable, Sendable {
      func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(
          Double.nan, .init(codingPath: [], debugDescription: "NaN is not JSON"))
      }
    }
    let target = TestTarget(.post, "/x", on: base, task: .json(Unencodable()))
    #expect {
      try target.encodedRequest()
    } throws: { error in
      guard case .invalidRequest(let reason) = error as? NetworkError else { return false }
      return reason.contains("POST /x") && reason.contains("NaN is not JSON")
    }
  }

  @Test(arguments: ["/posts/", "/posts//like", "//", "posts/"])
  func refusesPathsWithAnEmptySegment(path: String) {
    #expect {
      try TestTarget(.delete, path, on: base).encodedRequest()
    } throws: { error in
      guard case .invalidRequest(let reason) = error as? NetworkError else { return false }
      return reason.contains("empty segment")
    }
  }

  @Test func anEmptyIDInARouterIsRefusedNotSentToTheList() {
    #expect(throws: NetworkError.self) {
      try TestTarget(.get, Path.make("posts", ""), on: base).encodedRequest()
    }
    #expect(throws: Never.self) {
      try TestTarget(.get, "/", on: base).encodedRequest()
    }
  }

  @Test func rejectsBaseURLsWithoutHost() {
    let target = TestTarget(.get, "/x", on: URL(string: "file:///tmp")!)
    #expect(throws: NetworkError.self) { try target.encodedRequest() }
  }

  @Test func joinsBaseURLsWithoutPathOrTrailingSlash() throws {
    let bare = try TestTarget(.get, "/ping", on: URL(string: "http://127.0.0.1:80")!)
      .encodedRequest()
    #expect(bare.request.path == "/ping")
    #expect(bare.request.authority == "127.0.0.1:80")
    let root = try TestTarget(.get, "", on: URL(string: "http://example.com")!).encodedRequest()
    #expect(root.request.path == "/")
  }
}
