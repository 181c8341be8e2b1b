import Domain
import Testing

@Suite("Nickname: 2-12 ASCII letters, digits or Hangul syllables")
struct NicknameTests {
  @Test(
    "Valid nicknames are kept as typed",
    arguments: [
      "ab", "Swift", "홍길동", "dev2026", "김a1", "42", "abcdefghijkl", "가나다라마바사아자차카타",
      "ZZ", "힣가",
    ])
  func valid(text: String) throws {
    let nickname = try Nickname(validating: text)
    #expect(nickname.rawValue == text)
    #expect(nickname.description == text)
  }

  @Test("Surrounding whitespace is ignored")
  func trimsWhitespace() throws {
    #expect(try Nickname(validating: "  큐애플러 \n").rawValue == "큐애플러")
  }

  @Test("Empty or whitespace-only is empty", arguments: ["", "   ", "\n\t", "\u{3000}"])
  func empty(text: String) {
    #expect(throws: ValidationError.empty(field: "nickname")) {
      try Nickname(validating: text)
    }
    #expect(throws: ValidationError.empty(field: "nickname")) {
      try Nickname.lookupText(text)
    }
  }

  @Test("A lookup text is trimmed, and kept otherwise (a name nobody can hold is not found)")
  func lookupText() throws {
    #expect(try Nickname.lookupText("  ALICE\n") == "ALICE")
    #expect(try Nickname.lookupText("a") == "a")
    // Decomposed Hangul (as some keyboards send it) finds the stored, precomposed name.
    #expect(try Nickname.lookupText("\u{1112}\u{1161}\u{11AB}") == "한")
  }

  @Test("Names that differ only in case are the same name: they share a key")
  func key() throws {
    #expect(try Nickname(validating: "Alice").key == Nickname(validating: "aLICE").key)
    #expect(try Nickname(validating: "alice").key != Nickname(validating: "alicia").key)
    #expect(try Nickname(validating: "사과러너").key == Nickname.key("사과러너"))
    // The reserved words are refused in any case.
    #expect(throws: ValidationError.reserved(field: "nickname", value: "AdMin")) {
      try Nickname(validating: "AdMin")
    }
  }

  @Test(
    "Too short, with the actual count",
    arguments: [("a", 1), ("가", 1), ("  z  ", 1), ("\u{1100}\u{1161}", 1)])
  func tooShort(text: String, actual: Int) {
    #expect(throws: ValidationError.tooShort(field: "nickname", minimum: 2, actual: actual)) {
      try Nickname(validating: text)
    }
  }

  @Test(
    "Too long, with the actual count",
    arguments: [
      ("abcdefghijklm", 13), (repeated("가", 13), 13), (repeated("a1", 10), 20),
      (repeated("\u{1112}\u{1161}\u{11AB}", 13), 13),
    ])
  func tooLong(text: String, actual: Int) {
    #expect(throws: ValidationError.tooLong(field: "nickname", maximum: 12, actual: actual)) {
      try Nickname(validating: text)
    }
  }

  @Test(
    "Characters outside letters, digits and Hangul syllables are refused and listed",
    arguments: [
      ("a b", " "),
      ("닉네임😀", "😀"),
      ("good👍🏽", "👍🏽"),
      ("hi!", "!"),
      ("a_b", "_"),
      ("a.b-c", ".-"),
      ("café", "é"),
      ("ｆｕｌｌ", "ｆｕｌｌ"),
      ("١٢٣", "١٢٣"),
      ("ㅋㅋ", "ㅋㅋ"),
      ("ㅏㅑ", "ㅏㅑ"),
      ("가ㅋ", "ㅋ"),
      ("\u{1100}\u{1100}", "\u{1100}\u{1100}"),
      ("漢字", "漢字"),
    ])
  func invalidCharacters(text: String, listed: String) {
    #expect(
      throws: ValidationError.invalidCharacters(field: "nickname", characters: listed)
    ) {
      try Nickname(validating: text)
    }
  }

  // Standalone jamo ("ㅋㅋ", "ㅗ") are refused on purpose: Korean services allow only complete
  // syllables in names, since lone jamo are filler or slang ("ㅗ" is an obscene gesture).
  @Test("Compatibility jamo are refused even mixed with syllables")
  func compatibilityJamoRefused() {
    for text in ["ㅋㅋ", "ㅗㅗ", "ㅎㅇ", "철수ㅋ", "ㄱㄴㄷ"] {
      #expect(validationError { try Nickname(validating: text) }?.caseName == "invalidCharacters")
    }
  }

  @Test("Decomposed (NFD) Hangul is stored composed (NFC)")
  func normalizesToNFC() throws {
    let nfd = "\u{1112}\u{1161}\u{11AB}\u{1100}\u{1173}\u{11AF}"  // 한글 as jamo
    let nickname = try Nickname(validating: nfd)
    #expect(nickname.rawValue == "한글")
    #expect(nickname.rawValue.unicodeScalars.map(\.value) == [0xD55C, 0xAE00])
    #expect(nickname == (try Nickname(validating: "한글")))
  }

  @Test("Twelve decomposed syllables fit")
  func twelveDecomposedSyllablesFit() throws {
    let nickname = try Nickname(validating: repeated("\u{1100}\u{1161}", 12))
    #expect(nickname.rawValue == repeated("가", 12))
    #expect(nickname.rawValue.unicodeScalars.count == 12)
  }

  @Test(
    "Reserved words are refused whatever their case",
    arguments: [
      "admin", "ADMIN", "Admin", "aDmIn", "Qapple", "QAPPLE", "anonymous", "Moderator",
      "운영자", "관리자", "익명",
    ])
  func reserved(text: String) {
    #expect(throws: ValidationError.reserved(field: "nickname", value: text)) {
      try Nickname(validating: text)
    }
  }

  @Test("A reserved word is recognised after trimming and NFC normalization")
  func reservedAfterNormalization() {
    #expect(throws: ValidationError.reserved(field: "nickname", value: "Admin")) {
      try Nickname(validating: "  Admin ")
    }
    let nfd = "\u{110B}\u{1175}\u{11A8}\u{1106}\u{1167}\u{11BC}"  // 익명 as jamo
    #expect(throws: ValidationError.reserved(field: "nickname", value: "익명")) {
      try Nickname(validating: nfd)
    }
  }

  @Test(
    "Names that merely contain a reserved word are allowed",
    arguments: ["admin1", "익명이", "qapple2"])
  func containingReservedWordIsAllowed(text: String) throws {
    #expect(try Nickname(validating: text).rawValue == text)
  }

  @Test("Every reserved word is refused: as reserved, or as too long (\"administrator\")")
  func everyReservedWordIsRefused() {
    for word in Nickname.reservedWords {
      let expected = word.count > Nickname.length.upperBound ? "tooLong" : "reserved"
      #expect(validationError { try Nickname(validating: word) }?.caseName == expected)
      #expect(Nickname(rawValue: word.uppercased()) == nil)
    }
  }

  @Test("init?(rawValue:) validates")
  func rawValueInitializer() {
    #expect(Nickname(rawValue: "홍길동")?.rawValue == "홍길동")
    #expect(Nickname(rawValue: "\u{1100}\u{1161}\u{1102}\u{1161}")?.rawValue == "가나")
    #expect(Nickname(rawValue: "a") == nil)
    #expect(Nickname(rawValue: "ㅋㅋ") == nil)
    #expect(Nickname(rawValue: "admin") == nil)
    #expect(Nickname(rawValue: "") == nil)
  }

  @Test("init(trusted:) keeps the server's text as is")
  func trustedInitializer() {
    #expect(Nickname(trusted: "ㅋ").rawValue == "ㅋ")
  }
}
