import Domain
import Testing

@Suite("TextRule counts what users see as characters")
struct TextRuleTests {
  @Test("An answer of 250 Hangul syllables passes unchanged")
  func answerAtLimit() throws {
    let text = repeated("가", 250)
    #expect(try TextRule.answer.validate(text) == text)
  }

  @Test("An answer of 251 Hangul syllables is too long")
  func answerOverLimit() {
    #expect(throws: ValidationError.tooLong(field: "content", maximum: 250, actual: 251)) {
      try TextRule.answer.validate(repeated("가", 251))
    }
  }

  @Test(
    "Each of these counts as one character",
    arguments: [
      ("thumbs up, medium skin tone", "👍🏽"),
      ("family, ZWJ sequence", "👨‍👩‍👧‍👦"),
      ("flag of Korea", "🇰🇷"),
      ("rainbow flag, ZWJ with variation selector", "🏳️‍🌈"),
      ("NFD Hangul 가 (L V)", "\u{1100}\u{1161}"),
      ("NFD Hangul 한 (L V T)", "\u{1112}\u{1161}\u{11AB}"),
      ("e with combining acute", "e\u{301}"),
    ])
  func graphemeClusters(name: String, piece: String) throws {
    #expect(piece.count == 1)
    #expect(try TextRule.answer.validate(repeated(piece, 250)) == repeated(piece, 250))
    #expect(TextRule.answer.remaining(in: repeated(piece, 250)) == 0)
    #expect(throws: ValidationError.tooLong(field: "content", maximum: 250, actual: 251)) {
      try TextRule.answer.validate(repeated(piece, 251))
    }
  }

  @Test("An optional text: absent or blank is nil, anything else is validated and trimmed")
  func optionalText() throws {
    #expect(try TextRule.search.validate(optional: nil) == nil)
    #expect(try TextRule.search.validate(optional: " \n\t ") == nil)
    #expect(try TextRule.search.validate(optional: "  알고리즘 ") == "알고리즘")
    #expect(try TextRule.cohort.validate(optional: "") == nil)
    #expect(" \u{3000}\n".trimmedOrNil == nil)  // an ideographic space is whitespace too
    #expect("  Swift 스터디\n".trimmedOrNil == "Swift 스터디")
    #expect(throws: ValidationError.tooLong(field: "q", maximum: 100, actual: 101)) {
      try TextRule.search.validate(optional: repeated("a", 101))
    }
  }

  @Test(
    "A required text: blank is empty on its field, any length passes trimmed; the dev token is 1-200"
  )
  func requiredText() throws {
    #expect(throws: ValidationError.empty(field: "sign_up_token")) {
      try TextRule.required("sign_up_token").validate(" \u{3000}\n")
    }
    #expect(try TextRule.required("agreed_terms_version").validate(" 2026-03\n") == "2026-03")
    #expect(try TextRule.required("t").validate(repeated("x", 10_000)).count == 10_000)
    #expect(throws: ValidationError.empty(field: "token")) { try TextRule.signInToken.validate("") }
    #expect(try TextRule.signInToken.validate(repeated("k", 200)) == repeated("k", 200))
    #expect(throws: ValidationError.tooLong(field: "token", maximum: 200, actual: 201)) {
      try TextRule.signInToken.validate(repeated("k", 201))
    }
  }

  @Test("A CRLF line break inside the text counts as one character")
  func crlfCountsAsOne() throws {
    let text = "a" + repeated("\r\n", 248) + "b"
    #expect(try TextRule.answer.validate(text) == text)
    #expect(throws: ValidationError.tooLong(field: "content", maximum: 250, actual: 251)) {
      try TextRule.answer.validate("a" + repeated("\r\n", 249) + "b")
    }
  }

  @Test("Decomposed Hangul counts one per syllable, not per jamo")
  func decomposedHangulCountsPerSyllable() {
    let nfd = "\u{1112}\u{1161}\u{11AB}\u{1100}\u{116E}\u{11A8}\u{110B}\u{1165}"  // 한국어
    #expect(nfd.unicodeScalars.count == 8)
    #expect(TextRule.answer.remaining(in: nfd) == 247)
    let limit = repeated("\u{1112}\u{1161}\u{11AB}", 250)
    #expect(throws: Never.self) { try TextRule.answer.validate(limit) }
  }

  @Test(
    "Whitespace-only text is empty",
    arguments: ["", " ", "\n\t ", "\u{3000}", "  \r\n  ", "\u{00A0}"])
  func whitespaceOnlyIsEmpty(text: String) {
    #expect(throws: ValidationError.empty(field: "content")) {
      try TextRule.answer.validate(text)
    }
    #expect(throws: ValidationError.empty(field: "text")) {
      try TextRule.chatMessage.validate(text)
    }
  }

  @Test(
    "Surrounding whitespace is trimmed, inner whitespace kept",
    arguments: [
      ("  안녕하세요  ", "안녕하세요"),
      ("\n\thello\n", "hello"),
      ("\u{3000}전각 공백\u{3000}", "전각 공백"),
      (" a  b \n c ", "a  b \n c"),
      ("👍🏽 ", "👍🏽"),
    ])
  func trimsSurroundingWhitespace(input: String, expected: String) throws {
    #expect(try TextRule.comment.validate(input) == expected)
  }

  @Test("Trimmed whitespace does not count towards the limit")
  func trimmedWhitespaceIsNotCounted() throws {
    let text = "   " + repeated("가", 250) + "\n\n"
    #expect(try TextRule.answer.validate(text) == repeated("가", 250))
    #expect(TextRule.answer.remaining(in: text) == 0)
  }

  @Test(
    "Boundaries of every rule",
    arguments: [
      (TextRule.answer, "content", 1, 250),
      (TextRule.post, "content", 1, 1000),
      (TextRule.comment, "content", 1, 300),
      (TextRule.chatMessage, "text", 1, 1000),
      (TextRule.groupName, "name", 1, 30),
      (TextRule.groupDescription, "description", 0, 500),
      (TextRule.reportDetail, "detail", 1, 500),
      (TextRule.question, "content", 5, 200),
      (TextRule.banReason, "reason", 1, 200),
      (TextRule.search, "q", 1, 100),
      (TextRule.cohort, "cohort", 0, 30),
      (TextRule.moderatorNote, "note", 0, 500),
    ])
  func boundaries(rule: TextRule, field: String, minimum: Int, maximum: Int) throws {
    #expect(rule.field == field)
    #expect(rule.length == minimum...maximum)
    // Hangul and emoji mixed, so counting bytes or UTF-16 units would break the limit.
    let text = { (count: Int) in String(repeated("가👍🏽", count).prefix(count)) }
    #expect(try rule.validate(text(maximum)) == text(maximum))
    #expect(try rule.validate(text(max(minimum, 1))) == text(max(minimum, 1)))
    #expect(throws: ValidationError.tooLong(field: field, maximum: maximum, actual: maximum + 1)) {
      try rule.validate(text(maximum + 1))
    }
    if minimum > 1 {
      #expect(
        throws: ValidationError.tooShort(field: field, minimum: minimum, actual: minimum - 1)
      ) {
        try rule.validate(text(minimum - 1))
      }
    }
    if minimum == 0 {
      #expect(try rule.validate("   ") == "")
    } else {
      #expect(throws: ValidationError.empty(field: field)) { try rule.validate(" \n ") }
    }
  }

  @Test("A group description may be empty")
  func descriptionMayBeEmpty() throws {
    #expect(try TextRule.groupDescription.validate("") == "")
    #expect(try TextRule.groupDescription.validate(" \n ") == "")
  }

  @Test("A question needs five characters after trimming")
  func questionMinimum() throws {
    #expect(throws: ValidationError.empty(field: "content")) {
      try TextRule.question.validate("  ")
    }
    #expect(throws: ValidationError.tooShort(field: "content", minimum: 5, actual: 4)) {
      try TextRule.question.validate("  오늘은?  ")
    }
    #expect(try TextRule.question.validate(" 오늘 뭐 배웠나요? ") == "오늘 뭐 배웠나요?")
  }

  @Test(
    "remaining(in:) counts down from the maximum after trimming",
    arguments: [
      ("", 250),
      ("hello", 245),
      ("  hi  ", 248),
      ("👨‍👩‍👧‍👦🇰🇷", 248),
      ("\u{1100}\u{1161}", 249),
      (repeated("가", 250), 0),
      (repeated("가", 251), -1),
      (repeated("a", 300), -50),
    ])
  func remaining(text: String, expected: Int) {
    #expect(TextRule.answer.remaining(in: text) == expected)
  }

  @Test("The entities' validate functions use their rules")
  func entityEntryPoints() throws {
    #expect(try Answer.validate(content: " 답변 ") == "답변")
    #expect(try BoardPost.validate(content: repeated("a", 1000)).count == 1000)
    #expect(try Comment.validate(content: " c ") == "c")
    #expect(try ChatMessage.validate(text: " hi ") == "hi")
    #expect(throws: ValidationError.tooLong(field: "content", maximum: 250, actual: 251)) {
      try Answer.validate(content: repeated("a", 251))
    }
    #expect(throws: ValidationError.tooLong(field: "content", maximum: 1000, actual: 1001)) {
      try BoardPost.validate(content: repeated("a", 1001))
    }
    #expect(throws: ValidationError.tooLong(field: "content", maximum: 300, actual: 301)) {
      try Comment.validate(content: repeated("a", 301))
    }
    #expect(throws: ValidationError.tooLong(field: "text", maximum: 1000, actual: 1001)) {
      try ChatMessage.validate(text: repeated("a", 1001))
    }
  }

  @Test("A custom rule keeps its field and length")
  func customRule() throws {
    let rule = TextRule(field: "title", length: 3...4)
    #expect(rule.field == "title")
    #expect(rule.length == 3...4)
    #expect(try rule.validate("abc") == "abc")
    #expect(throws: ValidationError.tooShort(field: "title", minimum: 3, actual: 2)) {
      try rule.validate("ab")
    }
    #expect(throws: ValidationError.tooLong(field: "title", maximum: 4, actual: 5)) {
      try rule.validate("abcde")
    }
    #expect(rule.remaining(in: "ab") == 2)
  }
}

@Suite("TextRule.lengthText")
struct TextRuleLengthTextTests {
  @Test("the rule in words, as the tools' help says it")
  func words() {
    #expect(TextRule.post.lengthText == "1-1000 characters")
    #expect(TextRule.question.lengthText == "5-200 characters")
    #expect(TextRule.groupDescription.lengthText == "up to 500 characters")
  }
}
