import LocalServer
import ServiceEngine

/// The accounts the local server is seeded with, for hints and the demo (the tools reach
/// LocalServer only through ToolSupport).
public enum LocalCommunity {
  /// The dev sign-in token of the seeded admin.
  public static var adminToken: String { DemoSeed.adminToken }
  /// The dev sign-in tokens of the seeded members, `demo-1` ... `demo-10`.
  public static var memberTokens: [String] { DemoSeed.memberTokens }
}
