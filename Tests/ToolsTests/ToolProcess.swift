import Foundation
import LocalServer
import Testing

@testable import ToolSupport

/// What a finished tool process left behind.
struct ToolRun: Sendable, CustomStringConvertible {
  let arguments: [String]
  let status: Int32
  let stdout: String
  let stderr: String

  /// The non-empty lines of stderr.
  var errorLines: [String] {
    stderr.split(whereSeparator: \.isNewline).map(String.init).filter { !$0.isEmpty }
  }

  /// Decodes stdout as `--json` output.
  func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
    try ToolJSON.makeDecoder().decode(type, from: Data(stdout.utf8))
  }

  var description: String {
    "`\(arguments.joined(separator: " "))` exited \(status)\nstdout:\n\(stdout)\nstderr:\n\(stderr)"
  }
}

/// Runs the built `qapple` and `qapple-admin` executables with their own data directory.
struct ToolProcess: Sendable {
  /// The data directory (`QAPPLE_HOME`) the tools use.
  let home: URL

  /// A fresh temporary data directory (the tools create it on first use).
  static func temporaryHome() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent(
      "qapple-tools-tests-\(UUID().uuidString)", isDirectory: true)
  }

  /// The directory of the built products: the test bundle sits next to the executables.
  static func productsDirectory() -> URL {
    #if os(macOS)
    if let bundle = Bundle.allBundles.first(where: { $0.bundlePath.hasSuffix(".xctest") }) {
      return bundle.bundleURL.deletingLastPathComponent()
    }
    #endif
    return URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
      .deletingLastPathComponent()
  }

  /// Runs `tool` with `arguments` and waits for it to exit.
  func run(_ tool: String, _ arguments: String...) async throws -> ToolRun {
    try await run(tool, arguments: arguments)
  }

  /// Runs `tool` with `arguments` (and `input` on its stdin, else an empty one) and waits for
  /// it to exit; sends it SIGKILL after `killAfter` (three minutes when not given) if it is
  /// still running.
  func run(
    _ tool: String, arguments: [String], input: String? = nil, killAfter: Duration? = nil
  ) async throws -> ToolRun {
    let (process, output) = try Self.prepare(tool, arguments: arguments)
    defer { try? FileManager.default.removeItem(at: output) }
    if let input {
      let inputURL = output.appendingPathComponent("stdin")
      try Data(input.utf8).write(to: inputURL)
      process.standardInput = try FileHandle(forReadingFrom: inputURL)
    }
    let stdoutURL = output.appendingPathComponent("stdout")
    let stderrURL = output.appendingPathComponent("stderr")
    var environment = ProcessInfo.processInfo.environment
    environment[DataDirectory.environmentKey] = home.path
    environment[ServerSelection.environmentKey] = nil
    environment[ToolLogging.environmentKey] = nil
    process.environment = environment

    try process.run()
    let status = await Self.waitForExit(process, killAfter: killAfter ?? .seconds(180))
    return ToolRun(
      arguments: [tool] + arguments, status: status,
      stdout: String(decoding: try Data(contentsOf: stdoutURL), as: UTF8.self),
      stderr: String(decoding: try Data(contentsOf: stderrURL), as: UTF8.self))
  }
}

/// A `qapple-server` process started by ``ToolProcess/startServer(_:)``; ``stop()`` ends it
/// with SIGTERM (the way an operator stops it) and waits for it to exit.
final class ServerProcess: @unchecked Sendable {
  /// Where the server listens (`http://127.0.0.1:PORT`).
  let url: URL
  // Only `stop()` touches the process after start-up, once.
  private let process: Process
  private let output: URL

  fileprivate init(url: URL, process: Process, output: URL) {
    self.url = url
    self.process = process
    self.output = output
  }

  /// What the server wrote to stderr so far (its log).
  var log: String {
    (try? String(contentsOf: output.appendingPathComponent("stderr"), encoding: .utf8)) ?? ""
  }

  /// Sends `signal` (e.g. `SIGINT`, as Ctrl-C does) and returns at once.
  func send(_ signal: Int32) {
    kill(process.processIdentifier, signal)
  }

  /// Stops the server and waits (up to 10 s, then SIGKILL) until it has exited.
  func stop() {
    if process.isRunning { process.terminate() }
    let deadline = Date().addingTimeInterval(10)
    while process.isRunning, Date() < deadline { usleep(20_000) }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    try? FileManager.default.removeItem(at: output)
  }
}

extension ToolProcess {
  /// Waits until `process` has exited and returns its status (the signal number when a signal
  /// ended it); sends SIGKILL once it has run for `killAfter`.
  ///
  /// It polls rather than waiting on `terminationHandler` alone: on Linux a child whose exit
  /// Foundation did not notice would leave the test suspended forever (a full CI run once hung
  /// with no tool process left). A child that stays a zombie for ten seconds (far longer than a loaded machine takes to notice) is reaped here.
  static func waitForExit(_ process: Process, killAfter: Duration) async -> Int32 {
    let pid = process.processIdentifier
    let clock = ContinuousClock()
    let killAt = clock.now.advanced(by: killAfter)
    var zombieSince: ContinuousClock.Instant?
    var killed = false
    while process.isRunning {
      if isZombie(pid) {
        let since = zombieSince ?? clock.now
        zombieSince = since
        var status: Int32 = 0
        if clock.now - since > .seconds(10), waitpid(pid, &status, WNOHANG) == pid {
          Issue.record("Foundation did not notice that process \(pid) exited; reaped it here")
          return status & 0x7f == 0 ? (status >> 8) & 0xff : status & 0x7f
        }
      }
      if !killed, clock.now >= killAt {
        killed = true
        kill(pid, SIGKILL)
      }
      try? await Task.sleep(for: .milliseconds(10))
    }
    return process.terminationStatus
  }

  /// Whether `pid` has exited but has not been reaped (state `Z` in `/proc/PID/stat`).
  static func isZombie(_ pid: Int32) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = stat.lastIndex(of: ")")
    else { return false }
    return stat[close...].dropFirst(2).first == "Z"
  }

  /// A process for the built executable `tool` with `arguments`, its stdout and stderr going to
  /// the files `stdout` and `stderr` of a new temporary folder (files, not pipes: a full pipe
  /// buffer would block the child), its stdin empty; the caller removes the folder.
  static func prepare(_ tool: String, arguments: [String]) throws -> (Process, output: URL) {
    let executable = productsDirectory().appendingPathComponent(tool)
    try #require(
      FileManager.default.isExecutableFile(atPath: executable.path),
      "\(executable.path) is missing: build with `swift build --build-tests` first")
    let output = FileManager.default.temporaryDirectory.appendingPathComponent(
      "qapple-\(tool)-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
    let stdoutURL = output.appendingPathComponent("stdout")
    let stderrURL = output.appendingPathComponent("stderr")
    try #require(FileManager.default.createFile(atPath: stdoutURL.path, contents: nil))
    try #require(FileManager.default.createFile(atPath: stderrURL.path, contents: nil))
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.standardOutput = try FileHandle(forWritingTo: stdoutURL)
    process.standardError = try FileHandle(forWritingTo: stderrURL)
    process.standardInput = FileHandle.nullDevice
    return (process, output)
  }

  /// Starts the built `qapple-server` with `arguments` plus `--port 0` and waits (up to 30 s)
  /// until it prints the URL it listens on.
  static func startServer(_ arguments: [String]) async throws -> ServerProcess {
    let (process, output) = try prepare("qapple-server", arguments: arguments + ["--port", "0"])
    let stdoutURL = output.appendingPathComponent("stdout")
    try process.run()
    let prefix = "Qapple server running at "
    let deadline = ContinuousClock.now + .seconds(30)
    while ContinuousClock.now < deadline, process.isRunning {
      let printed = String(decoding: try Data(contentsOf: stdoutURL), as: UTF8.self)
      if let line = printed.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }),
        let url = URL(string: String(line.dropFirst(prefix.count)))
      {
        return ServerProcess(url: url, process: process, output: output)
      }
      try await Task.sleep(for: .milliseconds(50))
    }
    let server = ServerProcess(
      url: URL(string: "http://127.0.0.1")!, process: process, output: output)
    let log = server.log
    server.stop()
    throw ServerStartFailure(description: "qapple-server did not start: \(log)")
  }
}

/// `qapple-server` exited or said nothing before its deadline.
struct ServerStartFailure: Error, CustomStringConvertible {
  var description: String
}

/// Deletes a directory once the suite (or test) it is attached to has finished.
struct RemovesDirectoryAfterwards: SuiteTrait, TestTrait, TestScoping {
  let directory: URL

  func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    try await function()
    if FileManager.default.fileExists(atPath: directory.path) {
      try FileManager.default.removeItem(at: directory)
    }
  }
}

extension Trait where Self == RemovesDirectoryAfterwards {
  /// Deletes `directory` after the suite or test.
  static func removesDirectoryAfterwards(_ directory: URL) -> Self {
    RemovesDirectoryAfterwards(directory: directory)
  }
}

/// A demo-seeded server on loopback (no rate limits) and a tool home where `qapple` is signed
/// in with the dev token `token`; remove `tools.home` when done.
func demoServer(
  signedIn token: String
) async throws -> (server: QappleServer, url: URL, tools: ToolProcess) {
  let server = try QappleServer(
    configuration: ServerConfiguration(
      seed: .demo, rateLimit: nil, logLevel: .critical, realtimeFrameLimit: nil))
  let url = try await server.start()
  let tools = ToolProcess(home: ToolProcess.temporaryHome())
  let signIn = try await tools.run(
    "qapple", arguments: ["signin", "--token", token, "--server", url.absoluteString])
  #expect(signIn.status == 0, "\(signIn)")
  return (server, url, tools)
}
