import Domain
import Foundation
import Testing

@testable import ToolSupport

@Suite("Output formatting")
struct OutputFormattingTests {
  @Test func wideCharactersTakeTwoColumns() {
    #expect(TextTable.width(of: "abc") == 3)
    #expect(TextTable.width(of: "사과나무") == 8)
    #expect(TextTable.width(of: "a사b") == 4)
  }

  @Test func tableColumnsLineUpWithHangul() {
    var table = TextTable([.init("ID"), .init("NAME")])
    table.append(["p_1", "사과나무"])
    table.append(["p_22", "swiftie"])
    let lines = table.render().split(separator: "\n").map(String.init)
    #expect(lines == ["ID    NAME", "p_1   사과나무", "p_22  swiftie"])
  }

  @Test func longCellsAreCutWithAnEllipsis() {
    var table = TextTable([.init("TEXT", maxWidth: 6)])
    table.append(["hello world"])
    table.append(["가나다라마바"])
    table.append(["two\nlines"])
    let lines = table.render().split(separator: "\n").map(String.init)
    #expect(lines[1] == "hello…")
    #expect(lines[2] == "가나…")
    #expect(lines[3] == "two l…")
  }

  @Test("a whole column (ids, statuses) is never cut: later commands take what it shows")
  func wholeColumnsKeepLongValues() {
    var table = TextTable([.whole("ID"), .whole("STATUS"), .init("TEXT", maxWidth: 4)])
    table.append(["case_12345678901234567890", "hide_content", "long text"])
    let lines = table.render().split(separator: "\n").map(String.init)
    #expect(lines[1] == "case_12345678901234567890  hide_content  lon…")
  }
}
