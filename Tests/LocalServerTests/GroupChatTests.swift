import DTO
import Domain
import Foundation
import Hummingbird
import LocalServer
import Testing

@Suite("Study groups and chat")
struct GroupChatTests {
  @Test("groups: owner is a member, join is idempotent, the owner cannot leave, owner-only edits")
  func groups() async throws {
    try await withServer { h in
      let owner = try await h.member("Owner")
      let joiner = try await h.member("Joiner")
      try await h.expectError(
        .badRequest, "validation_failed", field: "name", .post, "/groups", token: owner,
        json: CreateGroupRequest(name: " ", description: ""))
      try await h.expectError(
        .badRequest, "validation_failed", field: "name", .post, "/groups", token: owner,
        json: CreateGroupRequest(name: String(repeating: "n", count: 31), description: ""))
      let group = try await h.expect(
        .created, StudyGroupDTO.self, .post, "/groups", token: owner,
        json: CreateGroupRequest(name: "Swift Concurrency", description: "Actors weekly"))
      #expect(group.memberCount == 1)
      #expect(group.isMember)
      #expect(group.owner.nickname == "Owner")

      var joined = try await h.expect(
        .ok, StudyGroupDTO.self, .put, "/groups/\(group.id)/membership", token: joiner)
      joined = try await h.expect(
        .ok, StudyGroupDTO.self, .put, "/groups/\(group.id)/membership", token: joiner)
      #expect(joined.memberCount == 2)
      #expect(joined.isMember)
      let members = try await h.expect(
        .ok, PageDTO<GroupMemberDTO>.self, .get, "/groups/\(group.id)/members", token: joiner)
      #expect(members.items.map(\.role) == [.owner, .member])

      try await h.expectError(
        .conflict, "conflict", .delete, "/groups/\(group.id)/membership", token: owner)
      try await h.expectError(
        .forbidden, "forbidden", .patch, "/groups/\(group.id)", token: joiner,
        json: UpdateGroupRequest(name: "Hijacked"))
      let renamed = try await h.expect(
        .ok, StudyGroupDTO.self, .patch, "/groups/\(group.id)", token: owner,
        json: UpdateGroupRequest(description: "Now on Thursdays"))
      #expect(renamed.name == "Swift Concurrency")
      #expect(renamed.description == "Now on Thursdays")

      let search = try await h.expect(
        .ok, PageDTO<StudyGroupDTO>.self, .get, "/groups?q=concurrency", token: joiner)
      #expect(search.items.map(\.id) == [group.id])
      let none = try await h.expect(
        .ok, PageDTO<StudyGroupDTO>.self, .get, "/groups?q=kotlin", token: joiner)
      #expect(none.items.isEmpty)

      #expect(
        try await h.send(.delete, "/groups/\(group.id)/membership", token: joiner).status
          == .noContent)
      #expect(
        try await h.send(.delete, "/groups/\(group.id)/membership", token: joiner).status
          == .noContent)
      try await h.expectError(
        .forbidden, "forbidden", .delete, "/groups/\(group.id)", token: joiner)
      #expect(try await h.send(.delete, "/groups/\(group.id)", token: owner).status == .noContent)
      try await h.expectError(.notFound, "not_found", .get, "/groups/\(group.id)", token: owner)
    }
  }

  @Test("group rooms: members only; sends are de-duplicated by client id; seq strictly increases")
  func groupChat() async throws {
    try await withServer { h in
      let owner = try await h.member("Host")
      let guest = try await h.member("Guest")
      let outsider = try await h.member("Outsider")
      let group = try await h.expect(
        .created, StudyGroupDTO.self, .post, "/groups", token: owner,
        json: CreateGroupRequest(name: "Algorithms", description: "BFS week"))
      _ = try await h.expect(
        .ok, StudyGroupDTO.self, .put, "/groups/\(group.id)/membership", token: guest)
      let rooms = try await h.expect(
        .ok, PageDTO<ChatRoomDTO>.self, .get, "/chat/rooms", token: guest)
      let room = try #require(rooms.items.first)
      #expect(room.kind == .group)
      #expect(room.groupId == group.id)
      #expect(room.title == "Algorithms")
      let path = "/chat/rooms/\(room.id)/messages"

      func send(_ text: String, id: UUID = UUID(), token: String) async throws -> HTTPResult {
        try await h.send(
          .post, path, token: token, json: SendMessageRequest(clientMessageId: id, text: text),
          headers: [.init("Idempotency-Key")!: id.uuidString])
      }
      let id = UUID()
      let first = try await send("Hello", id: id, token: owner)
      #expect(first.status == .created)
      let repeated = try await send("Hello", id: id, token: owner)
      #expect(repeated.status == .ok)
      let original = try first.decode(ChatMessageDTO.self)
      #expect(try repeated.decode(ChatMessageDTO.self) == original)
      #expect(original.seq == 1)
      #expect(original.clientMessageId == id.uuidString.lowercased())

      for index in 2...6 {
        let message = try await send(
          "Message \(index)", token: index.isMultiple(of: 2) ? guest : owner)
        #expect(try message.decode(ChatMessageDTO.self).seq == Int64(index))
      }
      let outsiderSend = try await send("Let me in", token: outsider)
      #expect(outsiderSend.status == .forbidden)
      #expect(outsiderSend.error?.code == "forbidden")
      try await h.expectError(.forbidden, "forbidden", .get, path, token: outsider)
      let missingKey = try await h.send(
        .post, path, token: owner, json: SendMessageRequest(clientMessageId: UUID(), text: "no key")
      )
      #expect(missingKey.status == .badRequest)
      #expect(missingKey.error?.field == "Idempotency-Key")
      let tooLong = try await send(String(repeating: "x", count: 1001), token: owner)
      #expect(tooLong.error?.field == "text")
      #expect(
        tooLong.error?.validation
          == ValidationDetailDTO(kind: .tooLong, maximum: 1000, actual: 1001))

      let newest = try await h.expect(
        .ok, PageDTO<ChatMessageDTO>.self, .get, "\(path)?limit=3", token: guest)
      #expect(newest.items.map(\.seq) == [4, 5, 6])
      #expect(newest.nextCursor == nil)
      let after = try await h.expect(
        .ok, PageDTO<ChatMessageDTO>.self, .get, "\(path)?after_seq=2&limit=2", token: guest)
      #expect(after.items.map(\.seq) == [3, 4])
      let before = try await h.expect(
        .ok, PageDTO<ChatMessageDTO>.self, .get, "\(path)?before_seq=4&limit=2", token: guest)
      #expect(before.items.map(\.seq) == [2, 3])
      try await h.expectError(
        .badRequest, "validation_failed", field: "before_seq", .get,
        "\(path)?after_seq=1&before_seq=3",
        token: guest)
      try await h.expectError(
        .badRequest, "validation_failed", field: "after_seq", .get, "\(path)?after_seq=-1",
        token: guest)

      // Unread counts others' messages after my read cursor.
      var guestRoom = try await h.expect(
        .ok, PageDTO<ChatRoomDTO>.self, .get, "/chat/rooms", token: guest
      ).items[0]
      #expect(guestRoom.lastReadSeq == 6)  // the guest sent seq 6
      #expect(guestRoom.unreadCount == 0)
      #expect(guestRoom.lastMessage?.seq == 6)
      var ownerRoom = try await h.expect(
        .ok, PageDTO<ChatRoomDTO>.self, .get, "/chat/rooms", token: owner
      ).items[0]
      #expect(ownerRoom.lastReadSeq == 5)
      #expect(ownerRoom.unreadCount == 1)
      #expect(
        try await h.send(
          .put, "/chat/rooms/\(room.id)/read", token: owner, json: MarkReadRequest(seq: 100)
        ).status == .noContent)
      ownerRoom = try await h.expect(
        .ok, PageDTO<ChatRoomDTO>.self, .get, "/chat/rooms", token: owner
      ).items[0]
      #expect(ownerRoom.lastReadSeq == 6)
      #expect(ownerRoom.unreadCount == 0)
      // The cursor never moves back.
      _ = try await h.send(
        .put, "/chat/rooms/\(room.id)/read", token: owner, json: MarkReadRequest(seq: 1))
      ownerRoom = try await h.expect(
        .ok, PageDTO<ChatRoomDTO>.self, .get, "/chat/rooms", token: owner
      ).items[0]
      #expect(ownerRoom.lastReadSeq == 6)
      guestRoom = try await h.expect(
        .ok, PageDTO<ChatRoomDTO>.self, .get, "/chat/rooms", token: guest
      ).items[0]
      #expect(guestRoom.id == room.id)

      // The same client id in another room is a conflict, not a repeat.
      let me = try await h.expect(.ok, UserDTO.self, .get, "/me", token: guest)
      let direct = try await h.expect(
        .ok, ChatRoomDTO.self, .post, "/chat/rooms/direct", token: owner,
        json: OpenDirectRoomRequest(userId: me.id))
      try await h.expectError(
        .conflict, "conflict", .post, "/chat/rooms/\(direct.id)/messages", token: owner,
        json: SendMessageRequest(clientMessageId: id, text: "Hello"),
        headers: [.init("Idempotency-Key")!: id.uuidString])
    }
  }

  @Test("concurrent sends get distinct, gap-free seqs")
  func concurrentSends() async throws {
    try await withServer { h in
      let owner = try await h.member("Busy")
      let room = try await h.groupWithRoom("Busy room", token: owner).room
      let seqs = try await withThrowingTaskGroup(of: [Int64].self) { tasks in
        for worker in 0..<4 {
          tasks.addTask {
            let client = h.newClient()
            defer { Task { try? await client.shutdown() } }
            var seqs: [Int64] = []
            for index in 0..<5 {
              let id = UUID()
              let result = try await h.send(
                .post, "/chat/rooms/\(room.id)/messages", token: owner,
                json: SendMessageRequest(clientMessageId: id, text: "w\(worker) #\(index)"),
                headers: [.init("Idempotency-Key")!: id.uuidString], using: client)
              seqs.append(try result.decode(ChatMessageDTO.self).seq)
            }
            return seqs
          }
        }
        return try await tasks.reduce(into: []) { $0 += $1 }
      }
      #expect(seqs.sorted() == Array(1...20))
    }
  }

  @Test("direct rooms: the same room every time, never with yourself")
  func directRooms() async throws {
    try await withServer { h in
      let alice = try await h.signUp("Alice")
      let bob = try await h.signUp("Bob")
      let first = try await h.expect(
        .ok, ChatRoomDTO.self, .post, "/chat/rooms/direct", token: alice.accessToken,
        json: OpenDirectRoomRequest(userId: bob.user.id))
      let second = try await h.expect(
        .ok, ChatRoomDTO.self, .post, "/chat/rooms/direct", token: bob.accessToken,
        json: OpenDirectRoomRequest(userId: alice.user.id))
      #expect(first.id == second.id)
      #expect(first.kind == .direct)
      #expect(first.peer?.id == bob.user.id)
      #expect(second.title == "Alice")
      try await h.expectError(
        .badRequest, "validation_failed", field: "user_id", .post, "/chat/rooms/direct",
        token: alice.accessToken, json: OpenDirectRoomRequest(userId: alice.user.id))
      try await h.expectError(
        .notFound, "not_found", .post, "/chat/rooms/direct", token: alice.accessToken,
        json: OpenDirectRoomRequest(userId: "u_999"))
      let carol = try await h.member("Carol")
      try await h.expectError(
        .forbidden, "forbidden", .get, "/chat/rooms/\(first.id)/messages", token: carol)
    }
  }
}
