import Foundation
import Testing

@testable import NetworkKit

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("Network errors")
struct NetworkErrorTests {
  static let allCases: [NetworkError] = [
    .offline, .transport("reset"), .timeout, .cancelled,
    .status(
      code: 409, error: ServerError(code: "conflict", message: "Taken", field: "nickname"),
      body: Data()),
    .status(code: 502, error: nil, body: Data("<html>".utf8)),
    .decoding(type: "Page", codingPath: "items[0].id", description: "expected Int"),
    .unauthorized, .notSignedIn, .sessionRevoked, .sessionEnded, .refreshRateLimited,
    .credentialStorage("keychain locked"), .invalidRequest("bad body"),
    .notStubbed(method: "GET", path: "/x"),
  ]

  @Test(arguments: allCases)
  func everyErrorSaysWhatHappenedAndWhatToDo(error: NetworkError) {
    let text = error.description
    #expect(text.count > 20)
    #expect(text.hasSuffix("."))
    #expect(error.errorDescription == text)
    #expect((error as any Error).localizedDescription == text)
  }

  @Test func statusErrorsCarryTheResponseAndTheConfiguredServerError() {
    // NetworkKit knows no envelope: the API's decoder reads its own shape.
    let decoder = ErrorBodyDecoder { body in
      String(decoding: body, as: UTF8.self).hasPrefix("E:")
        ? ServerError(code: "banned", message: "Banned until May") : nil
    }
    let body = Data("E:banned".utf8)
    let error = NetworkError.status(
      HTTPFailure(
        status: 403, headers: [.retryAfter: "7"], body: body,
        serverError: decoder.serverError(in: body)))
    #expect(error.statusCode == 403)
    #expect(error.serverError == ServerError(code: "banned", message: "Banned until May"))
    #expect(error.description.contains("banned: Banned until May"))
    guard case .status(let failure) = error else { return }
    #expect(failure.retryAfter(now: Date()) == .seconds(7))
    #expect(decoder.serverError(in: Data("oops".utf8)) == nil)
    #expect(ErrorBodyDecoder.none.serverError(in: body) == nil)
    #expect(NetworkError.timeout.statusCode == nil)
  }

  @Test func urlErrorsMapToTheProviderVocabulary() {
    let cases: [(URLError.Code, NetworkError)] = [
      (.notConnectedToInternet, .offline), (.cannotConnectToHost, .offline),
      (.cannotFindHost, .offline), (.dnsLookupFailed, .offline), (.timedOut, .timeout),
      (.cancelled, .cancelled),
    ]
    for (code, expected) in cases {
      #expect(URLSessionTransport.networkError(from: URLError(code)) == expected)
    }
    guard case .transport = URLSessionTransport.networkError(from: URLError(.networkConnectionLost))
    else {
      Issue.record("a lost connection is a transport failure")
      return
    }
  }
}
