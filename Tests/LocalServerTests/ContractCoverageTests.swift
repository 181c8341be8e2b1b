import Foundation
import TestSupport
import Testing

@testable import LocalServer

@Suite("Contract coverage and parsers")
struct ContractCoverageTests {
  @Test("every operation of openapi.yaml is served with its method and path")
  func allOperationsImplemented() throws {
    let contract = Set(
      try OpenAPIDocument.load().operations.map {
        "\($0.method) \($0.pathTemplate) \($0.operationID)"
      })
    #expect(contract.count == 66)
    let served = Set(
      Routes.table(devMode: false).operations
        .filter { !$0.id.hasPrefix("Avatars.") }
        .map { "\($0.method.rawValue) \($0.path) \($0.id)" })
    #expect(contract.subtracting(served).isEmpty, "missing: \(contract.subtracting(served))")
    #expect(
      served.subtracting(contract).isEmpty, "not in the contract: \(served.subtracting(contract))")
  }

  @Test("dev endpoints exist only in dev mode")
  func devRoutes() {
    #expect(
      !Routes.table(devMode: false).operations.contains { $0.path.description.hasPrefix("/_dev") })
    #expect(Routes.table(devMode: true).operations.contains { $0.path == "/_dev/faults" })
  }

  @Test("multipart: finds named parts, their filename and type, bytes intact")
  func multipart() {
    let body =
      Data(
        ("--XyZ\r\nContent-Disposition: form-data; name=\"note\"\r\n\r\nhello\r\n"
          + "--XyZ\r\nContent-Disposition: form-data; name=\"image\"; filename=\"a.png\"\r\n"
          + "Content-Type: image/png\r\n\r\n").utf8) + Data([0x89, 0x50, 0x0D, 0x0A, 0x00])
      + Data("\r\n--XyZ--\r\n".utf8)
    #expect(Multipart.boundary(of: "multipart/form-data; boundary=\"XyZ\"") == "XyZ")
    let parts = Multipart.parts(of: body, boundary: "XyZ")
    #expect(parts.map(\.name) == ["note", "image"])
    #expect(parts[0].data == Data("hello".utf8))
    #expect(parts[1].filename == "a.png")
    #expect(parts[1].contentType == "image/png")
    #expect(parts[1].data == Data([0x89, 0x50, 0x0D, 0x0A, 0x00]))
  }
}
