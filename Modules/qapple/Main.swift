import ToolSupport

/// `qapple`: the member client.
@main
enum Main {
  static func main() async {
    await ToolRunner.main(QappleCommand.self, tool: .member)
  }
}
