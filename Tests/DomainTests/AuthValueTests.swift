import Domain
import Foundation
import Testing

@Suite("EmailAddress")
struct EmailAddressTests {
  @Test(
    "Valid addresses are trimmed and lower-cased",
    arguments: [
      ("learner@academy.kr", "learner@academy.kr"),
      ("Name.Surname+tag@Mail.Example.COM", "name.surname+tag@mail.example.com"),
      ("  a@b.co \n", "a@b.co"),
      ("x_1@sub.domain.ac.kr", "x_1@sub.domain.ac.kr"),
    ])
  func valid(input: String, expected: String) throws {
    let email = try EmailAddress(validating: input)
    #expect(email.rawValue == expected)
    #expect(email.description == expected)
  }

  @Test(
    "An address is looked up by its valid form, or by its text lower-cased",
    arguments: [
      (" Name@Academy.KR ", "name@academy.kr"),
      ("Not An Address", "not an address"),
      ("", ""),
    ])
  func key(input: String, expected: String) {
    #expect(EmailAddress.key(input) == expected)
  }

  @Test("Empty input is empty", arguments: ["", "   ", "\n"])
  func empty(input: String) {
    #expect(throws: ValidationError.empty(field: "email")) {
      try EmailAddress(validating: input)
    }
  }

  @Test(
    "Malformed addresses are refused",
    arguments: [
      "plain", "@academy.kr", "a@", "a@b", "a@.com", "a@com.", "a@b..com", "a@@b.com",
      "a@b@c.com", "a b@c.com", "a,b@c.com", "a;b@c.com", "a@b.com;c@d.com", "a@b\t.com",
    ])
  func malformed(input: String) {
    let error = validationError { try EmailAddress(validating: input) }
    #expect(error?.caseName == "invalidFormat")
    #expect(error?.field == "email")
  }

  @Test("At most 254 characters")
  func maximumLength() throws {
    let domain = "@academy.kr"
    let fits = repeated("a", 254 - domain.count) + domain
    #expect(try EmailAddress(validating: fits).rawValue.count == 254)
    #expect(
      validationError { try EmailAddress(validating: "a" + fits) }?.caseName == "invalidFormat")
  }

  @Test("init?(rawValue:) validates")
  func rawValueInitializer() {
    #expect(EmailAddress(rawValue: "A@B.CO")?.rawValue == "a@b.co")
    #expect(EmailAddress(rawValue: "nope") == nil)
  }
}

@Suite("VerificationCode")
struct VerificationCodeTests {
  @Test(
    "Six ASCII digits pass; spaces are ignored",
    arguments: [
      ("123456", "123456"), ("000000", "000000"), ("123 456", "123456"),
      (" 1 2 3 4 5 6 ", "123456"), ("987\t654\n", "987654"),
    ])
  func valid(input: String, expected: String) throws {
    #expect(try VerificationCode(validating: input).rawValue == expected)
  }

  @Test("Empty input is empty", arguments: ["", "  ", "\t"])
  func empty(input: String) {
    #expect(throws: ValidationError.empty(field: "code")) {
      try VerificationCode(validating: input)
    }
  }

  @Test(
    "Anything but six ASCII digits is refused",
    arguments: [
      "12345", "1234567", "12345a", "12-456", "abcdef",
      "١٢٣٤٥٦",  // Arabic-Indic digits
      "۱۲۳۴۵۶",  // Extended Arabic-Indic digits
      "１２３４５６",  // full-width digits
      "12345６", "¹²³⁴⁵⁶", "一二三四五六",
    ])
  func refused(input: String) {
    #expect(throws: ValidationError.invalidFormat(field: "code", expected: "6 digits")) {
      try VerificationCode(validating: input)
    }
  }

  @Test("init?(rawValue:) validates")
  func rawValueInitializer() {
    #expect(VerificationCode(rawValue: "12 34 56")?.rawValue == "123456")
    #expect(VerificationCode(rawValue: "１２３４５６") == nil)
  }
}

@Suite("AvatarImageType")
struct AvatarImageTypeTests {
  @Test("the bytes tell the type; no bytes, or other bytes, are refused")
  func sniffing() throws {
    #expect(try AvatarImageType(of: Data([0xFF, 0xD8, 0xFF, 0xE0])) == .jpeg)
    let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0])
    #expect(try AvatarImageType(of: png).mimeType == "image/png")
    #expect(throws: ValidationError.empty(field: "image")) { try AvatarImageType(of: Data()) }
    for bytes in [Data([0x89, 0x50]), Data("GIF89a".utf8)] {
      #expect(
        throws: ValidationError.invalidFormat(field: "image", expected: "a JPEG or PNG picture")
      ) { try AvatarImageType(of: bytes) }
    }
  }
}
