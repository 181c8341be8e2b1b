/// Why a value was refused: names the field and says what a valid value looks like.
public enum ValidationError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The field is empty or only whitespace.
  case empty(field: String)
  /// Shorter than the minimum, counted in user-perceived characters.
  case tooShort(field: String, minimum: Int, actual: Int)
  /// Longer than the maximum, counted in user-perceived characters.
  case tooLong(field: String, maximum: Int, actual: Int)
  /// Contains characters the field does not allow; lists them.
  case invalidCharacters(field: String, characters: String)
  /// Does not match the expected format (e.g. an email address, a date).
  case invalidFormat(field: String, expected: String)
  /// A reserved word that nobody may use.
  case reserved(field: String, value: String)
  /// A value outside the allowed range.
  case outOfRange(field: String, range: ClosedRange<Int>, actual: Int)

  /// The field the error is about, as named on the wire (snake_case).
  public var field: String {
    switch self {
    case .empty(let field), .tooShort(let field, _, _), .tooLong(let field, _, _),
      .invalidCharacters(let field, _), .invalidFormat(let field, _), .reserved(let field, _),
      .outOfRange(let field, _, _):
      return field
    }
  }

  /// A sentence that says what is wrong and what to do.
  public var description: String {
    switch self {
    case .empty(let field):
      return "\(field) must not be empty."
    case .tooShort(let field, let minimum, let actual):
      return "\(field) needs at least \(minimum) characters (it has \(actual))."
    case .tooLong(let field, let maximum, let actual):
      return "\(field) allows at most \(maximum) characters (it has \(actual))."
    case .invalidCharacters(let field, let characters):
      return "\(field) contains characters that are not allowed: \(characters)"
    case .invalidFormat(let field, let expected):
      return "\(field) must be \(expected)."
    case .reserved(let field, let value):
      return "\(field) \"\(value)\" is reserved; choose another."
    case .outOfRange(let field, let range, let actual):
      return "\(field) must be between \(range.lowerBound) and \(range.upperBound) (got \(actual))."
    }
  }
}

/// The length rules of every free-text field, counted as users see characters: a Hangul
/// syllable or an emoji with modifiers counts as one (Swift `Character`s, grapheme clusters).
public struct TextRule: Hashable, Sendable {
  /// The wire name of the field, used in errors.
  public let field: String
  /// Allowed length after trimming surrounding whitespace.
  public let length: ClosedRange<Int>

  /// Creates a rule.
  public init(field: String, length: ClosedRange<Int>) {
    self.field = field
    self.length = length
  }

  /// An answer to today's question: 1-250 characters.
  public static let answer = TextRule(field: "content", length: 1...250)
  /// A bulletin-board post: 1-1000 characters.
  public static let post = TextRule(field: "content", length: 1...1000)
  /// A comment: 1-300 characters.
  public static let comment = TextRule(field: "content", length: 1...300)
  /// A daily question written by an admin: 5-200 characters.
  public static let question = TextRule(field: "content", length: 5...200)
  /// A study-group name: 1-30 characters.
  public static let groupName = TextRule(field: "name", length: 1...30)
  /// A study-group description: up to 500 characters, may be empty.
  public static let groupDescription = TextRule(field: "description", length: 0...500)
  /// A chat message: 1-1000 characters.
  public static let chatMessage = TextRule(field: "text", length: 1...1000)
  /// The free text of a report (required for "other"): 1-500 characters.
  public static let reportDetail = TextRule(field: "detail", length: 1...500)
  /// The reason an admin gives for a ban: 1-200 characters.
  public static let banReason = TextRule(field: "reason", length: 1...200)
  /// A search text (posts, groups, the admin's users): 1-100 characters.
  public static let search = TextRule(field: "q", length: 1...100)
  /// A member's cohort: up to 30 characters; empty means none.
  public static let cohort = TextRule(field: "cohort", length: 0...30)
  /// A moderator's note on a decision: up to 500 characters; empty means none.
  public static let moderatorNote = TextRule(field: "note", length: 0...500)

  /// The note a moderator may give with `resolution`: ``moderatorNote``, except that a decision
  /// that bans the author makes the note the ban's reason, so it takes no more than a
  /// ``banReason`` does (200 characters).
  public static func moderatorNote(for resolution: ReportResolution) -> TextRule {
    guard resolution == .banAuthor else { return moderatorNote }
    return TextRule(field: moderatorNote.field, length: 0...banReason.length.upperBound)
  }
  /// The dev provider's sign-in token (the account key typed in the tools): 1-200 characters.
  public static let signInToken = TextRule(field: "token", length: 1...200)

  /// A text that must be given, of any length: a sign-up or verification token, the version
  /// of the terms agreed to. Trimmed; blank is `.empty(field:)`. The live client checks it
  /// before a request goes out and the service engine checks the same, so a blank token
  /// fails alike on every backend.
  public static func required(_ field: String) -> TextRule {
    TextRule(field: field, length: 1...Int.max)
  }

  /// The length rule in words, for help texts: "1-500 characters", or "up to 500 characters"
  /// when the text may be empty.
  public var lengthText: String {
    length.lowerBound == 0
      ? "up to \(length.upperBound) characters"
      : "\(length.lowerBound)-\(length.upperBound) characters"
  }

  /// Trims surrounding whitespace and checks the length; returns the text to send.
  public func validate(_ text: String) throws(ValidationError) -> String {
    let trimmed = text.trimmingWhitespace()
    let count = trimmed.count
    if count == 0 {
      if length.lowerBound == 0 { return trimmed }
      throw .empty(field: field)
    }
    if count < length.lowerBound {
      throw .tooShort(field: field, minimum: length.lowerBound, actual: count)
    }
    if count > length.upperBound {
      throw .tooLong(field: field, maximum: length.upperBound, actual: count)
    }
    return trimmed
  }

  /// A text that may be left out: `nil` when absent or only whitespace (a list unfiltered, a
  /// note or cohort left out), otherwise ``validate(_:)``'s text.
  public func validate(optional text: String?) throws(ValidationError) -> String? {
    guard let text = text?.trimmedOrNil else { return nil }
    return try validate(text)
  }

  /// How many more characters fit, for a live counter (negative when over the limit).
  public func remaining(in text: String) -> Int {
    length.upperBound - text.trimmingWhitespace().count
  }
}

extension String {
  /// The string without leading and trailing whitespace and newlines (no Foundation needed).
  func trimmingWhitespace() -> String {
    var scalars = Substring(self)
    while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
    while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
    return String(scalars)
  }

  /// The string without surrounding whitespace, or `nil` when nothing is left: a search
  /// field's query (blank lists everything), a note or cohort left out.
  public var trimmedOrNil: String? {
    let trimmed = trimmingWhitespace()
    return trimmed.isEmpty ? nil : trimmed
  }
}
