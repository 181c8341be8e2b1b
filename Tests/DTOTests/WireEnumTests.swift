import DTO
import Foundation
import Testing

@Suite("Open wire enums")
struct WireEnumTests {
  @Test("known values decode to their case, unknown values are kept")
  func decoding() throws {
    let decoder = QappleCoding.makeDecoder()
    let kinds = try decoder.decode(
      [NotificationKindDTO].self,
      from: Data(#"["like_on_my_post", "birthday_party", "group_message"]"#.utf8))
    #expect(kinds == [.likeOnMyPost, .unknown("birthday_party"), .groupMessage])
    #expect(kinds.map(\.isKnown) == [true, false, true])
  }

  @Test("raw values round-trip for every known case of every enum")
  func rawValues() {
    func check<E: OpenStringEnum>(_: E.Type) {
      for known in E.wireValues {
        #expect(known.value.rawValue == known.wire)
        #expect(E(rawValue: known.wire) == known.value)
        #expect(known.value.isKnown)
      }
      #expect(E(rawValue: "from_the_future") == .unknown("from_the_future"))
      #expect(E.unknown("from_the_future").rawValue == "from_the_future")
    }
    check(UserRoleDTO.self)
    check(SignInStatusDTO.self)
    check(ReportTargetTypeDTO.self)
    check(ReportReasonDTO.self)
    check(ReportStatusDTO.self)
    check(ReportResolutionDTO.self)
    check(NotificationKindDTO.self)
    check(ChatRoomKindDTO.self)
    check(GroupMemberRoleDTO.self)
    check(QuestionStatusDTO.self)
    check(ErrorCodeDTO.self)
    #expect(ReportTargetTypeDTO.chatMessage.rawValue == "chat_message")
    #expect(ReportResolutionDTO.hideContent.rawValue == "hide_content")
  }

  @Test("unknown values encode back unchanged")
  func encoding() throws {
    let data = try QappleCoding.makeEncoder().encode([UserRoleDTO.admin, .unknown("mentor")])
    #expect(String(decoding: data, as: UTF8.self) == #"["admin","mentor"]"#)
  }

  @Test("a non-string enum value is a wrong type, not an unknown case")
  func nonString() {
    #expect(throws: DTODecodingError.wrongType(path: "[0]", expected: "a string")) {
      try DTODecoding.decode([UserRoleDTO].self, from: Data("[1]".utf8))
    }
  }

  @Test("equality is by case, so an unknown value never equals a known one")
  func equality() {
    #expect(UserRoleDTO.admin != .unknown("admin_v2"))
    #expect(Set([UserRoleDTO.admin, .admin, .unknown("x"), .unknown("x")]).count == 2)
  }
}
