import Foundation
import HTTPTypes

/// A raw HTTP answer: the request that was sent, the response head and the body bytes.
public struct NetworkResponse: Sendable, Hashable {
  /// The request as it went over the wire (after plugins and authentication).
  public var request: HTTPRequest
  /// The response status and header fields.
  public var response: HTTPResponse
  /// The response body.
  public var body: Data

  /// Creates a response.
  public init(request: HTTPRequest, response: HTTPResponse, body: Data) {
    self.request = request
    self.response = response
    self.body = body
  }

  /// The response status.
  public var status: HTTPResponse.Status { response.status }
  /// The response header fields.
  public var headerFields: HTTPFields { response.headerFields }
}
