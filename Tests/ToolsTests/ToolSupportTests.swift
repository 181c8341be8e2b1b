import Domain
import Foundation
import Testing

@testable import ToolSupport

@Suite("ToolSupport")
struct ToolSupportTests {
  @Test func dataDirectoryHonoursQappleHomeThenXDG() {
    #expect(
      DataDirectory.resolve(environment: ["QAPPLE_HOME": "/tmp/q"]).url.path == "/tmp/q")
    #if !canImport(Darwin)
    #expect(
      DataDirectory.resolve(environment: ["XDG_DATA_HOME": "/data"]).url.path == "/data/qapple")
    // A relative XDG_DATA_HOME is invalid and ignored.
    #expect(
      DataDirectory.resolve(environment: ["XDG_DATA_HOME": "data"]).url.path.hasSuffix(
        "/.local/share/qapple"))
    #endif
  }

  @Test func sessionFilesArePerToolAndServer() throws {
    let data = DataDirectory(url: URL(fileURLWithPath: "/q"))
    let remote = try ServerSelection(argument: "https://api.example.com/v1", environment: [:])
    #expect(
      data.sessionFile(tool: .member, server: .embedded).path
        == "/q/sessions/qapple/local.session.json")
    #expect(
      data.sessionFile(tool: .admin, server: remote).path
        == "/q/sessions/qapple-admin/https-api.example.com-443-v1.session.json")
    #expect(
      try ServerSelection(argument: "http://127.0.0.1:8080", environment: [:]).identity
        == "http-127.0.0.1-8080")
  }

  @Test func serverSelectionReadsTheOptionThenTheEnvironment() throws {
    #expect(try ServerSelection(argument: nil, environment: [:]) == .embedded)
    #expect(
      try ServerSelection(argument: nil, environment: ["QAPPLE_SERVER": "http://h:1"])
        == .remote(URL(string: "http://h:1")!))
    #expect(
      try ServerSelection(argument: "http://a:2", environment: ["QAPPLE_SERVER": "http://h:1"])
        == .remote(URL(string: "http://a:2")!))
    for bad in ["ftp://example.com", "example.com", "http://"] {
      #expect(throws: ToolError.self) { try ServerSelection(argument: bad, environment: [:]) }
    }
  }

  @Test func reportTargetsReadKindColonID() throws {
    #expect(try ArgumentParsing.reportTarget("post:p_12") == .post("p_12"))
    #expect(try ArgumentParsing.reportTarget("chat_message:m_1") == .chatMessage("m_1"))
    #expect(try ArgumentParsing.reportTarget("USER:u_4") == .user("u_4"))
    for bad in ["p_12", "post:", "thread:t_1", ":x"] {
      #expect(throws: ToolError.self) { try ArgumentParsing.reportTarget(bad) }
    }
  }

  @Test func reportReasonsNeedADetailOnlyForOther() throws {
    #expect(try ArgumentParsing.reportReason(code: "spam", detail: nil) == .spam)
    #expect(
      try ArgumentParsing.reportReason(code: "other", detail: "rude") == .other("rude"))
    #expect(throws: ToolError.self) { try ArgumentParsing.reportReason(code: "other", detail: nil) }
    #expect(throws: ToolError.self) { try ArgumentParsing.reportReason(code: "spam", detail: "x") }
    #expect(throws: ToolError.self) { try ArgumentParsing.reportReason(code: "meh", detail: nil) }
  }

  @Test func daysAcceptISODatesAndTodayTomorrow() throws {
    let now = Date(timeIntervalSince1970: 1_790_000_000)
    let today = CalendarDay(containing: now)
    #expect(try ArgumentParsing.day("today", now: now) == today)
    #expect(try ArgumentParsing.day("tomorrow", now: now) == today.next)
    #expect(try ArgumentParsing.day("2026-03-01") == CalendarDay(year: 2026, month: 3, day: 1))
    #expect(throws: ToolError.self) { try ArgumentParsing.day("2026-02-30") }
  }

  @Test(arguments: [
    (DomainError.validation(.empty(field: "content")), ToolExitCode.usage),
    (.signedOut, .unauthorized), (.forbidden, .unauthorized), (.banned, .unauthorized),
    (.answerRequired, .unauthorized), (.notFound, .notFound), (.conflict("taken"), .conflict),
    (.alreadyReported, .conflict), (.nicknameTaken, .conflict), (.offline, .unreachable),
    (.timeout, .unreachable), (.rateLimited(retryAfter: .seconds(3)), .rateLimited),
    (.server("boom"), .failure),
    // A server's own text may hold newlines; the tools' `error:` stays one line.
    (.conflict("first\nsecond"), .conflict), (.server("HTTP 500 internal: a\r\nb"), .failure),
  ])
  func domainErrorsMapToExitCodes(error: DomainError, code: ToolExitCode) {
    let mapped = ToolError(error, tool: .member, server: .embedded)
    #expect(mapped.exitCode == code)
    #expect(!mapped.message.contains("\n"))
  }

  @Test func offlineNamesTheServer() throws {
    let server = try ServerSelection(argument: "http://127.0.0.1:1", environment: [:])
    let error = ToolError(.offline, tool: .member, server: server)
    #expect(error.message == "cannot reach the server at http://127.0.0.1:1 (offline)")
  }

  @Test func otherErrorsBecomeOneLine() {
    struct Multiline: Error, CustomStringConvertible {
      var description: String { "first\n  second\n" }
    }
    let error = ToolError.from(Multiline(), tool: .admin, server: nil)
    #expect(error.message == "first second")
    #expect(error.exitCode == .failure)
  }

  @Test("a tool waits for another one setting up the database, and says so when it waits too long")
  func theSetupLockIsWaitedForWithALimit() async throws {
    let folder = FileManager.default.temporaryDirectory
      .appendingPathComponent("setup-lock-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let path = folder.appendingPathComponent("server.sqlite").path
    // Another tool is setting the file up.
    let held = try #require(
      try await FileLock.acquire(at: path + ".lock", waitingAtMost: .seconds(5)))
    let error = await #expect(throws: ToolError.self) {
      try await EmbeddedServer.start(
        database: .file(path: path), echoesEmailCodes: false, setupLockWait: .milliseconds(100))
    }
    #expect(error?.message.contains("\(path).lock") == true)
    #expect(!FileManager.default.fileExists(atPath: path))
    // Released while the next tool waits: that one starts.
    let starting = Task {
      try await EmbeddedServer.start(
        database: .file(path: path), echoesEmailCodes: false, setupLockWait: .seconds(30))
    }
    try await Task.sleep(for: .milliseconds(100))
    held.unlock()
    let server = try await starting.value
    await server.stop()
    #expect(FileManager.default.fileExists(atPath: path))
  }

  @Test func jsonWritesAbsentValuesAsNull() throws {
    let list = ListOutput<PostOutput>(items: [], nextCursor: nil)
    let text = try ToolJSON.string(list)
    #expect(text.contains(#""next_cursor" : null"#))
    let question = QuestionOutput(
      Question(id: "q_1", content: "Why?", publishDate: try CalendarDay(iso8601: "2026-03-01")))
    let decoded = try ToolJSON.makeDecoder().decode(
      QuestionOutput.self, from: Data(try ToolJSON.string(question).utf8))
    #expect(decoded == question)
    #expect(try ToolJSON.string(question).contains(#""my_answer" : null"#))
  }
}
