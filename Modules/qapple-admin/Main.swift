import ToolSupport

/// `qapple-admin`: the moderation tool.
@main
enum Main {
  static func main() async {
    await ToolRunner.main(AdminCommand.self, tool: .admin)
  }
}
