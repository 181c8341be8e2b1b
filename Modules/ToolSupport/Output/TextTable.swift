import Foundation

/// A plain-text table for terminals: a header row, columns padded to their widest cell, cells
/// cut with `…` at their column's limit. Widths count terminal columns, so Hangul and other
/// wide characters line up.
public struct TextTable: Sendable {
  /// A column: its header and the most terminal columns a cell may take.
  public struct Column: Sendable {
    /// The header text.
    public var title: String
    /// The widest a cell may be before it is cut.
    public var maxWidth: Int

    /// Creates a column.
    public init(_ title: String, maxWidth: Int = 40) {
      self.title = title
      self.maxWidth = max(1, maxWidth)
    }

    /// A column whose cells are never cut: ids and values that later commands take, which
    /// must be copied whole.
    public static func whole(_ title: String) -> Column { Column(title, maxWidth: .max) }
  }

  /// The columns.
  public var columns: [Column]
  /// The rows; each has one cell per column.
  public var rows: [[String]] = []

  /// Creates an empty table.
  public init(_ columns: [Column]) {
    self.columns = columns
  }

  /// Adds a row (missing cells are empty, extra cells are dropped).
  public mutating func append(_ cells: [String]) {
    rows.append((0..<columns.count).map { $0 < cells.count ? cells[$0] : "" })
  }

  /// The table as lines of text.
  public func render() -> String {
    let cut = rows.map { row in
      row.enumerated().map { index, cell in
        Self.truncate(Self.singleLine(cell), to: columns[index].maxWidth)
      }
    }
    let widths = columns.enumerated().map { index, column in
      max(Self.width(of: column.title), cut.map { Self.width(of: $0[index]) }.max() ?? 0)
    }
    func line(_ cells: [String]) -> String {
      var text = ""
      for (index, cell) in cells.enumerated() {
        let isLast = index == cells.count - 1
        text += cell
        if !isLast {
          text += String(repeating: " ", count: widths[index] - Self.width(of: cell) + 2)
        }
      }
      return text
    }
    return ([line(columns.map(\.title))] + cut.map(line)).joined(separator: "\n")
  }

  /// Newlines and tabs become spaces, so one item is one row.
  static func singleLine(_ text: String) -> String {
    String(text.map { $0.isNewline || $0 == "\t" ? " " : $0 })
  }

  /// `text` cut to `limit` terminal columns, ending in `…` when cut.
  static func truncate(_ text: String, to limit: Int) -> String {
    guard width(of: text) > limit else { return text }
    var result = ""
    var used = 0
    for character in text {
      let next = width(of: character)
      if used + next > limit - 1 { break }
      result.append(character)
      used += next
    }
    return result + "…"
  }

  /// How many terminal columns `text` takes.
  public static func width(of text: String) -> Int {
    text.reduce(0) { $0 + width(of: $1) }
  }

  /// Two columns for East Asian wide and full-width characters (Hangul, CJK, full-width forms,
  /// most emoji), zero for combining marks, one otherwise.
  static func width(of character: Character) -> Int {
    guard let scalar = character.unicodeScalars.first else { return 0 }
    switch scalar.value {
    case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
      0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
      0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x3FFFD:
      return 2
    default:
      return scalar.properties.generalCategory == .nonspacingMark ? 0 : 1
    }
  }
}
