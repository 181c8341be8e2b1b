import Foundation
import NetworkKit

extension NetworkProvider {
  /// A provider that answers every target from its sample data (or `response`), for previews
  /// and tests; nothing goes over the wire. `errorBody` reads the server's error out of stubbed
  /// refusals.
  public static func stubbed(
    _ behavior: StubBehavior = .immediate,
    baseURL: URL = URL(string: "https://stubbed.invalid")!,
    errorBody: ErrorBodyDecoder = .none,
    authenticator: Authenticator? = nil,
    plugins: [any NetworkPlugin] = [],
    decoder: JSONDecoder = JSONDecoder(),
    clock: any Clock<Duration> = ContinuousClock(),
    response: @escaping StubResponseProvider = { StubResponse.sample($0) }
  ) -> NetworkProvider {
    NetworkProvider(
      baseURL: baseURL, errorBody: errorBody, transport: StubTransport(),
      authenticator: authenticator,
      plugins: plugins, retryPolicy: .never, decoder: decoder, clock: clock,
      stubBehavior: behavior, stubResponse: response)
  }
}
