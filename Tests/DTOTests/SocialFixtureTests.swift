import DTO
import Domain
import Foundation
import Testing

@Suite("Fixtures: notifications, groups, chat, analytics")
struct SocialFixtureTests {
  @Test("notification_page.json maps every kind with its ids and keeps birthday_party")
  func notifications() throws {
    let dto = try Fixture.decode(PageDTO<NotificationDTO>.self, "notification_page")
    #expect(dto.items.count == 9)
    #expect(dto.items[8].kind == .unknown("birthday_party"))
    #expect(dto.items[8].kind.isKnown == false)
    let page = try dto.toDomain()
    #expect(page.nextCursor == "c_n_9")
    let kinds = page.items.map(\.kind)
    #expect(
      kinds == [
        .commentOnMyPost(post: "p_12", comment: "c_1"),
        .replyToMyComment(post: "p_12", comment: "c_2"),
        .likeOnMyPost(post: "p_12"),
        .likeOnMyComment(post: "p_10", comment: "c_9"),
        .newQuestion("q_01"),
        .groupInvite("g_3"),
        .groupMessage("room_g_3"),
        .reportResolved,
        .unknown("birthday_party"),
      ])
    #expect(
      page.items.map(\.isRead) == [false, false, true, true, false, false, false, true, false])
    #expect(page.items[0].message == "Anonymous 1님이 댓글을 남겼어요: 저요! 👋")
    #expect(page.items[0].deepLink == .comment(post: "p_12", comment: "c_1"))
    #expect(page.items[6].deepLink == .chatRoom("room_g_3"))
    #expect(page.items[8].deepLink == nil)
    #expect(page.items[8].message == "🎂 Happy birthday from the Qapple team!")
  }

  @Test("unread_count.json")
  func unreadCount() throws {
    #expect(try Fixture.decode(UnreadCountDTO.self, "unread_count").toDomain() == 5)
  }

  @Test("study_group.json maps the owner and counts")
  func studyGroup() throws {
    let group = try Fixture.decode(StudyGroupDTO.self, "study_group").toDomain()
    #expect(group.id == "g_3")
    #expect(group.name == "알고리즘 스터디")
    #expect(group.description.hasSuffix("Weekly problem solving, Swift only."))
    #expect(group.owner == UserSummary(id: "u_7f3c", nickname: "사과나무"))
    #expect(group.isOwned(by: "u_7f3c"))
    #expect(group.memberCount == 6)
    #expect(group.isMember)
    #expect(group.createdAt == utc(2026, 9, 1, 10))
  }

  @Test("group_member_page.json keeps an unknown role")
  func members() throws {
    let page = try Fixture.decode(PageDTO<GroupMemberDTO>.self, "group_member_page").toDomain()
    #expect(page.items.map(\.role) == [.owner, .member, .unknown("moderator")])
    #expect(page.items.map(\.id) == ["u_7f3c", "u_11", "u_12"])
    #expect(page.items[1].joinedAt == utc(2026, 9, 2, 8, 30))
  }

  @Test("chat_room_page.json maps a group room and a direct room")
  func rooms() throws {
    let page = try Fixture.decode(PageDTO<ChatRoomDTO>.self, "chat_room_page").toDomain()
    let group = page.items[0]
    #expect(group.kind == .group("g_3"))
    #expect(group.title == "알고리즘 스터디")
    #expect(group.unreadCount == 3)
    #expect(group.lastReadSeq == 117)
    let last = try #require(group.lastMessage)
    #expect(last.seq == 120)
    #expect(last.clientMessageID == UUID(uuidString: "6F1C2B1E-8D4A-4C1E-9A57-3E2F1B0C9D8E"))
    #expect(last.deliveryState == .sent)
    let direct = page.items[1]
    #expect(direct.kind == .direct("u_12"))
    #expect(direct.title == "바나나")
    #expect(direct.lastMessage == nil)
    #expect(direct.lastReadSeq == 0)
  }

  @Test("chat_message_page.json maps seq, UUIDs of either case and senders")
  func messages() throws {
    let page = try Fixture.decode(PageDTO<ChatMessageDTO>.self, "chat_message_page").toDomain()
    #expect(page.items.map(\.seq) == [118, 119, 120])
    #expect(page.items.map(\.sender.nickname) == ["사과나무", "바나나", "SwiftLover"])
    #expect(
      page.items[0].clientMessageID == UUID(uuidString: "0e4b1e5a-2c55-4a7b-8f33-1d2c3b4a5f60"))
    #expect(page.items[1].text == "Almost done — DP is hard 😅")
    #expect(page.items.allSatisfy { $0.roomID == "room_g_3" && $0.deliveryState == .sent })
    #expect(page.items[1].createdAt == utc(2026, 11, 21, 6, 59, 30))
  }

  @Test("analytics_batch_result.json")
  func analytics() throws {
    #expect(
      try Fixture.decode(AnalyticsBatchResultDTO.self, "analytics_batch_result").toDomain() == 42)
  }
}
