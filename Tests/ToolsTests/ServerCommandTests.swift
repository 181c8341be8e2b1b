import Foundation
import LocalServer
import Testing

/// `qapple-server`'s options start from the server's own defaults (`ServerConfiguration()`).
@Suite("qapple-server options")
struct ServerCommandTests {
  @Test("--help shows the server's defaults")
  func helpShowsDefaults() async throws {
    let run = try await ToolProcess(home: ToolProcess.temporaryHome())
      .run("qapple-server", "--help")
    #expect(run.status == 0, "\(run)")
    let help = run.stdout.replacingOccurrences(of: "\n", with: " ")
      .split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    for option in [
      "--access-token-lifetime <access-token-lifetime> Access-token lifetime in seconds. (default: 900)",
      "(e.g. 30/10), or \"off\". (default: 30/10)",
      "The largest request body in bytes. (default: 1048576)",
      "or \"off\". (default: 200/10)",
      "sent nothing for this many seconds, or \"off\". (default: 60)",
      "(default: 24301)",
      "critical. (default: info)",
    ] {
      #expect(help.contains(option), "\(option)\n\(help)")
    }
  }

  @Test(
    "--public-url must be an http(s) URL with a host",
    arguments: ["ftp://x.example", "x.example", "http://x.example/?a=1"])
  func publicURLIsChecked(_ text: String) async throws {
    let run = try await ToolProcess(home: ToolProcess.temporaryHome())
      .run("qapple-server", "--public-url", text)
    #expect(run.status == 64, "\(run)")
    #expect(run.stderr.contains("--public-url must be an http or https URL"), "\(run)")
  }

  @Test(
    "--realtime-idle-timeout takes whole seconds above zero or off",
    arguments: ["0", "1.5", "soon"])
  func idleTimeoutIsChecked(_ text: String) async throws {
    let run = try await ToolProcess(home: ToolProcess.temporaryHome())
      .run("qapple-server", "--realtime-idle-timeout", text)
    #expect(run.status == 64, "\(run)")
    #expect(run.stderr.contains("--realtime-idle-timeout must be whole seconds"), "\(run)")
  }
}
