import Foundation
import HTTPTypes

/// Whether a ``NetworkProvider`` answers from its targets' sample data instead of the network.
public enum StubBehavior: Sendable, Hashable {
  /// No stubbing: requests go to the transport.
  case never
  /// Stubbed answers arrive at once.
  case immediate
  /// Stubbed answers arrive after the given delay on the provider's clock.
  case delayed(Duration)
}

/// What a stubbed target answers.
public enum StubResponse: Sendable, Hashable {
  /// A response with the given status, header fields and body.
  case response(status: HTTPResponse.Status, headerFields: HTTPFields = [:], body: Data)
  /// A transfer failure such as `.offline` or `.timeout`.
  case failure(NetworkError)

  /// The target's `sampleData` with status 200 and a JSON content type.
  public static func sample(_ target: some TargetType) -> StubResponse {
    .response(
      status: .ok, headerFields: [.contentType: "application/json"], body: target.sampleData)
  }
}
