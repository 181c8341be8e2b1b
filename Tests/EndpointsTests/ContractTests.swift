import DTO
import Domain
import Endpoints
import Foundation
import HTTPTypes
import NetworkKit
import TestSupport
import Testing

/// Compares every router case with `Docs/openapi.yaml`, in both directions.
@Suite("Routers match Docs/openapi.yaml")
struct ContractTests {
  let document: OpenAPIDocument

  init() throws {
    document = try OpenAPIDocument.load()
  }

  private func documented(_ route: any APITarget) -> OpenAPIDocument.Operation? {
    document.operations.first {
      $0.method == route.method.rawValue && $0.pathTemplate == route.operation.pathTemplate
    }
  }

  @Test("every documented operation has a router case, and every case is documented")
  func operationsMatchBothWays() {
    let documentedKeys = Set(document.operations.map { "\($0.method) \($0.pathTemplate)" })
    let routedKeys = Set(
      RouteExamples.all.map { "\($0.route.method.rawValue) \($0.route.operation.pathTemplate)" })
    #expect(
      documentedKeys.subtracting(routedKeys).sorted() == [],
      "documented but no router case has an example")
    #expect(
      routedKeys.subtracting(documentedKeys).sorted() == [], "router cases missing from openapi")
    #expect(Set(RouteExamples.all.map(\.route.operation.id)).count == document.operations.count)
  }

  @Test("APIOperation, the one route table, equals the document in both directions")
  func operationTableMatchesTheDocument() throws {
    let table = Set(
      APIOperation.allCases.map {
        "\($0.id) \($0.method.rawValue) \($0.pathTemplate) public=\($0.access == .anyone)"
      })
    let documented = Set(
      document.operations.map {
        "\($0.operationID) \($0.method) \($0.pathTemplate) public=\($0.isPublic)"
      })
    #expect(table.subtracting(documented).sorted() == [], "in APIOperation, not in openapi")
    #expect(documented.subtracting(table).sorted() == [], "in openapi, not in APIOperation")
    for operation in APIOperation.allCases where operation.pathTemplate.hasPrefix("/admin") {
      #expect(operation.access == .admin, "\(operation.id)")
    }
  }

  @Test("every router case names an APIOperation, and every APIOperation has a router case")
  func routersCoverTheTable() {
    let routed = Set(RouteExamples.all.map(\.route.operation))
    #expect(Set(APIOperation.allCases).subtracting(routed).map(\.id).sorted() == [])
    for example in RouteExamples.all {
      #expect(example.route.operation.id == example.expectedOperationID, "\(example)")
    }
  }

  @Test("operation ids: router case name, document and method+path agree")
  func operationIDs() {
    var seen: [String: String] = [:]
    for example in RouteExamples.all {
      let route = example.route
      #expect(route.operation.id == example.expectedOperationID, "\(example)")
      let key = "\(route.method.rawValue) \(route.operation.pathTemplate)"
      if let earlier = seen[route.operation.id] {
        #expect(earlier == key, "\(route.operation.id) is used for two method+path pairs")
      }
      seen[route.operation.id] = key
      #expect(documented(route)?.operationID == route.operation.id, "\(example)")
    }
  }

  @Test("authorization is .none exactly for operations with `security: []`")
  func authorization() throws {
    for example in RouteExamples.all {
      let operation = try #require(documented(example.route), "\(example)")
      #expect(
        (example.route.authorization == .none) == operation.isPublic,
        "\(operation): documented public=\(operation.isPublic)")
    }
    let publicIDs = Set(document.operations.filter(\.isPublic).map(\.operationID))
    #expect(
      publicIDs == [
        "AuthAPI.signIn", "AuthAPI.requestEmailCode", "AuthAPI.verifyEmailCode", "AuthAPI.signUp",
        "AuthAPI.refresh", "MeAPI.nicknameAvailability",
      ])
  }

  @Test("the concrete path is the template with each parameter percent-encoded")
  func pathsFollowTemplates() throws {
    for example in RouteExamples.all {
      let route = example.route
      let operation = try #require(documented(route), "\(example)")
      var expected = route.operation.pathTemplate
      for name in operation.pathParameters {
        let value = try #require(FixtureID.values[name], "no fixture for {\(name)}")
        expected = expected.replacingOccurrences(
          of: "{\(name)}", with: Path.encode(segment: value))
      }
      #expect(!expected.contains("{"), "\(operation): undocumented parameter in the template")
      #expect(route.path == expected, "\(example)")
    }
  }

  @Test("query items are documented parameters, required ones are present, limit is 1...100")
  func queryParameters() throws {
    for example in RouteExamples.all {
      let operation = try #require(documented(example.route), "\(example)")
      let items = queryItems(of: example.route.task)
      let names = items.map(\.name)
      #expect(Set(names).count == names.count, "\(example): repeated query items \(names)")
      for name in names {
        #expect(operation.queryParameters[name] != nil, "\(example): `\(name)` is not documented")
      }
      for (name, required) in operation.queryParameters where required {
        #expect(names.contains(name), "\(example): required `\(name)` missing")
      }
      if operation.queryParameters["limit"] != nil {
        let limit = items.first { $0.name == "limit" }?.value.flatMap { Int($0) }
        #expect(limit.map { (1...100).contains($0) } == true, "\(example): limit is always sent")
      }
      for item in items {
        #expect(item.value?.isEmpty == false, "\(example): `\(item.name)` has no value")
      }
    }
  }

  @Test("headers: Idempotency-Key only where documented, and always where required")
  func headers() throws {
    for example in RouteExamples.all {
      let operation = try #require(documented(example.route), "\(example)")
      let documentedHeaders = Dictionary(
        uniqueKeysWithValues: operation.headerParameters.map { ($0.key.lowercased(), $0.value) })
      for field in example.route.headers {
        #expect(
          documentedHeaders[field.name.canonicalName] != nil,
          "\(example): header \(field.name) is not documented")
      }
      for (name, required) in documentedHeaders where required {
        let fieldName = try #require(HTTPField.Name(name))
        #expect(example.route.headers[fieldName] != nil, "\(example): required \(name) missing")
      }
    }
    let idempotent = Set(
      document.operations.filter { $0.headerParameters["Idempotency-Key"] != nil }
        .map(\.operationID))
    let routedWithKey = Set(
      RouteExamples.all.filter { $0.route.headers[HTTPField.Name("Idempotency-Key")!] != nil }
        .map(\.route.operation.id))
    #expect(routedWithKey == idempotent, "every documented Idempotency-Key can be sent")
  }

  @Test("request bodies have the documented media type")
  func requestBodies() throws {
    for example in RouteExamples.all {
      let operation = try #require(documented(example.route), "\(example)")
      switch example.route.task {
      case .plain, .query:
        #expect(operation.requestMediaTypes.isEmpty, "\(example): documented body not sent")
      case .json:
        #expect(operation.requestMediaTypes == ["application/json"], "\(example)")
      case .multipart:
        #expect(operation.requestMediaTypes == ["multipart/form-data"], "\(example)")
      case .data(_, let contentType):
        #expect(operation.requestMediaTypes == [contentType], "\(example)")
      }
    }
  }

  @Test("sample data is empty exactly for operations that answer without a body")
  func sampleDataPresence() throws {
    for example in RouteExamples.all {
      let operation = try #require(documented(example.route), "\(example)")
      #expect(!operation.successResponses.isEmpty, "\(operation): no success response")
      let answersBody = operation.successSchema != nil
      #expect(example.route.sampleData.isEmpty == !answersBody, "\(example)")
      if answersBody {
        #expect(
          (try? JSONSerialization.jsonObject(with: example.route.sampleData)) != nil,
          "\(example): sample data is not JSON")
      }
      for status in operation.successResponses.keys {
        #expect(example.route.acceptedStatusCodes.contains(status), "\(example): \(status)")
      }
    }
  }

}

/// The query items a task carries.
func queryItems(of task: HTTPTask) -> [URLQueryItem] {
  switch task {
  case .query(let items): items
  case .json(_, let query): query
  case .plain, .data, .multipart: []
  }
}
