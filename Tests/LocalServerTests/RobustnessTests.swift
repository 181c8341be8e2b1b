import DTO
import Domain
import Foundation
import Hummingbird
import HummingbirdTesting
import LocalServer
import Testing

@Suite("Robustness: every failure is the error envelope")
struct RobustnessTests {
  @Test("malformed JSON, HTML, empty bodies, wrong types, nulls and missing fields are 400")
  func badBodies() async throws {
    try await withServer { h in
      let token = try await h.member("Prober")
      let cases: [(raw: String?, type: String?, code: String, field: String?)] = [
        (#"{"content": "x", "#, "application/json", "malformed_request", nil),
        ("<html><body>502 Bad Gateway</body></html>", "text/html", "malformed_request", nil),
        (nil, nil, "malformed_request", nil),
        ("", "application/json", "malformed_request", nil),
        ("[1, 2, 3]", "application/json", "malformed_request", nil),
        (#""just a string""#, "application/json", "malformed_request", nil),
        (
          #"{"content": 42, "is_anonymous": false}"#, "application/json", "validation_failed",
          "content"
        ),
        (
          #"{"content": "hi", "is_anonymous": "yes"}"#, "application/json", "validation_failed",
          "is_anonymous"
        ),
        (
          #"{"content": null, "is_anonymous": true}"#, "application/json", "validation_failed",
          "content"
        ),
        (#"{"is_anonymous": true}"#, "application/json", "validation_failed", "content"),
        (
          #"{"content": "   ", "is_anonymous": true}"#, "application/json", "validation_failed",
          "content"
        ),
        (
          #"{"content": "\#(String(repeating: "가", count: 1001))", "is_anonymous": true}"#,
          "application/json", "validation_failed", "content"
        ),
      ]
      for item in cases {
        try await h.expectError(
          .badRequest, item.code, field: item.field, .post, "/posts", token: token,
          raw: item.raw.map { Data($0.utf8) }, contentType: item.type)
      }
      // Nested paths are named the way they appear on the wire.
      try await h.expectError(
        .badRequest, "validation_failed", field: "events[1].name", .post, "/analytics/events",
        token: token,
        raw: Data(
          #"{"events":[{"name":"a","properties":{},"occurred_at":"2026-11-21T03:00:00Z","session_id":null},{"properties":{},"occurred_at":"2026-11-21T03:00:00Z","session_id":null}]}"#
            .utf8), contentType: "application/json")
      try await h.expectError(
        .badRequest, "validation_failed", field: "events[0].occurred_at", .post,
        "/analytics/events", token: token,
        raw: Data(
          #"{"events":[{"name":"a","properties":{},"occurred_at":"yesterday","session_id":null}]}"#
            .utf8),
        contentType: "application/json")
      // The server is still fine after all that.
      _ = try await h.post("Still alive", token: token)
    }
  }

  @Test("unknown routes are 404, known paths with another method 405 with Allow")
  func routing() async throws {
    try await withServer { h in
      let token = try await h.member("Router")
      try await h.expectError(.notFound, "not_found", .get, "/nowhere")
      try await h.expectError(.notFound, "not_found", .get, "/posts/p_1/nowhere", token: token)
      let wrong = try await h.expectError(
        .methodNotAllowed, "malformed_request", .patch, "/posts", token: token)
      #expect(wrong.headers[.allow]?.contains("GET") == true)
      #expect(wrong.headers[.allow]?.contains("POST") == true)
      // The literal route wins, as in the router: /posts/search is GET only.
      let search = try await h.expectError(
        .methodNotAllowed, "malformed_request", .delete, "/posts/search", token: token)
      #expect(search.headers[.allow] == "GET")
      // PATCH fields may be left out, not nulled.
      try await h.expectError(
        .badRequest, "validation_failed", field: "nickname", .patch, "/me", token: token,
        raw: Data(#"{"nickname": null}"#.utf8), contentType: "application/json")
      // Ids that are not ours are 404, never 500.
      try await h.expectError(.notFound, "not_found", .get, "/posts/12", token: token)
      try await h.expectError(
        .notFound, "not_found", .get, "/posts/p_99999999999999999999", token: token)
      try await h.expectError(.notFound, "not_found", .get, "/posts/p_-1", token: token)
      try await h.expectError(.notFound, "not_found", .get, "/users/u_999", token: token)
      // A nickname is looked up trimmed, as the SDK sends it; blank is a validation error.
      let found = try await h.expect(
        .ok, UserDTO.self, .get, "/users?nickname=%20%20ROUTER%0A", token: token)
      #expect(found.nickname == "Router")
      try await h.expectError(
        .badRequest, "validation_failed", field: "nickname", .get, "/users?nickname=%20",
        token: token)
    }
  }

  @Test("bodies over the limit are 413 payload_too_large")
  func bodyLimit() async throws {
    try await withServer(.testing(maxBodySize: 1024)) { h in
      let token = try await h.member("Big")
      let big = Data(("{\"content\": \"" + String(repeating: "a", count: 4096) + "\"}").utf8)
      let client = h.newClient()
      defer { Task { try? await client.shutdown() } }
      let result = try await h.send(
        .post, "/posts", token: token, raw: big, contentType: "application/json", using: client)
      #expect(result.status == .contentTooLarge)
      #expect(result.error?.code == "payload_too_large")
      _ = try await h.post("small", token: token)

      // A chunked body says no length up front: it is refused while it is read, the same way.
      let chunk = "{\"content\": \"" + String(repeating: "a", count: 4096) + "\"}"
      let head =
        "POST /posts HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n"
        + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
      let chunked = head + String(chunk.utf8.count, radix: 16) + "\r\n" + chunk + "\r\n0\r\n\r\n"
      let port = h.port
      let answer = try await rawHTTP(Array(chunked.utf8), port: port)
      #expect(answer.hasPrefix("HTTP/1.1 413"), "\(answer)")
      #expect(answer.contains("\"payload_too_large\""), "\(answer)")
    }
  }

  @Test("a write without a valid token is refused at its head: its body is never waited for")
  func unauthenticatedBodyIsNotRead() async throws {
    try await withServer { h in
      // The head promises a body that never comes: only a server that reads bodies before it
      // checks the caller waits for it (until this client gives up).
      let head =
        "POST /posts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        + "Content-Length: 1000\r\n\r\n"
      let answer = try await rawHTTP(Array(head.utf8), port: h.port, timeout: 10)
      #expect(answer.hasPrefix("HTTP/1.1 401"), "\(answer)")
      #expect(answer.contains("\"unauthorized\""), "\(answer)")
    }
  }

  @Test("limit and cursor are checked: 1...100, and only cursors this server issued")
  func pagingParameters() async throws {
    try await withServer { h in
      let token = try await h.member("Pager")
      try await h.expectError(
        .badRequest, "validation_failed", field: "limit", .get, "/posts?limit=101", token: token)
      try await h.expectError(
        .badRequest, "validation_failed", field: "limit", .get, "/posts?limit=0", token: token)
      try await h.expectError(
        .badRequest, "validation_failed", field: "limit", .get, "/posts?limit=ten", token: token)
      try await h.expectError(
        .badRequest, "validation_failed", field: "cursor", .get, "/posts?cursor=garbage!",
        token: token)
      let page = try await h.expect(
        .ok, PageDTO<PostDTO>.self, .get, "/posts?limit=100", token: token)
      #expect(page.items.isEmpty)
      #expect(page.nextCursor == nil)
    }
  }

  @Test("nullable fields are sent as explicit nulls")
  func explicitNulls() async throws {
    try await withServer { h in
      let session = try await h.signUp("Nully")
      let me = try await h.send(.get, "/me", token: session.accessToken)
      #expect(me.object?["avatar_url"] is NSNull)
      #expect(me.object?["cohort"] is NSNull)
      let page = try await h.send(.get, "/posts", token: session.accessToken)
      #expect(page.object?["next_cursor"] is NSNull)
      let error = try await h.send(.get, "/nowhere")
      let body = try #require(error.object?["error"] as? [String: Any])
      #expect(body["field"] is NSNull)
      #expect(
        error.headers[.contentType]?.hasPrefix("application/json") == true)
    }
  }
}
