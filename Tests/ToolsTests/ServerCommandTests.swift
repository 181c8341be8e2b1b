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
    "bad option values exit 64 naming the option (a URL with a host, whole seconds or off)",
    arguments: [
      ("--public-url", "ftp://x.example"), ("--public-url", "x.example"),
      ("--public-url", "http://x.example/?a=1"), ("--realtime-idle-timeout", "0"),
      ("--realtime-idle-timeout", "1.5"), ("--realtime-idle-timeout", "soon"),
    ])
  func badValuesAreRefused(option: String, text: String) async throws {
    let refusal = [
      "--public-url": "--public-url must be an http or https URL",
      "--realtime-idle-timeout": "--realtime-idle-timeout must be whole seconds",
    ]
    let run = try await ToolProcess(home: ToolProcess.temporaryHome())
      .run("qapple-server", option, text)
    #expect(run.status == 64, "\(run)")
    #expect(run.stderr.contains(refusal[option] ?? "?"), "\(run)")
  }
}
