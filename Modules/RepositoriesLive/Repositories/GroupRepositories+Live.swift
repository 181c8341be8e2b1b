import DTO
import Domain
import Endpoints
import Foundation
import Repositories

extension StudyGroupRepository {
  /// Study groups and members over `/groups`.
  static func live(client: APIClient) -> StudyGroupRepository {
    StudyGroupRepository(
      fetchGroups: { query, page in
        let query = try validate { () throws(ValidationError) in
          try TextRule.search.validate(optional: query)
        }
        return try await client.fetchPage(
          StudyGroupAPI.groups(query: query, page: page), of: StudyGroupDTO.self)
      },
      fetchGroup: { id in
        try id.requireNonEmpty(field: "group_id")
        return try await client.fetch(StudyGroupAPI.group(id), as: StudyGroupDTO.self)
      },
      createGroup: { draft in
        let draft = try validate { () throws(ValidationError) in try draft.validated() }
        return try await client.fetch(
          StudyGroupAPI.create(CreateGroupRequest(draft), idempotencyKey: newIdempotencyKey()),
          as: StudyGroupDTO.self)
      },
      updateGroup: { id, draft in
        try id.requireNonEmpty(field: "group_id")
        let draft = try validate { () throws(ValidationError) in try draft.validated() }
        return try await client.fetch(
          StudyGroupAPI.update(groupID: id, body: UpdateGroupRequest(draft)),
          as: StudyGroupDTO.self)
      },
      deleteGroup: { id in
        try id.requireNonEmpty(field: "group_id")
        try await client.send(StudyGroupAPI.delete(id))
      },
      joinGroup: { id in
        try id.requireNonEmpty(field: "group_id")
        return try await client.fetch(StudyGroupAPI.join(id), as: StudyGroupDTO.self)
      },
      leaveGroup: { id in
        try id.requireNonEmpty(field: "group_id")
        try await client.send(StudyGroupAPI.leave(id))
      },
      invite: { userID, groupID in
        try groupID.requireNonEmpty(field: "group_id")
        try userID.requireNonEmpty(field: "user_id")
        try await client.send(StudyGroupAPI.invite(groupID, InviteToGroupRequest(user: userID)))
      },
      fetchMembers: { id, page in
        try id.requireNonEmpty(field: "group_id")
        return try await client.fetchPage(
          StudyGroupAPI.members(groupID: id, page: page), of: GroupMemberDTO.self)
      })
  }
}

extension ChatRepository {
  /// The server calls of chat over `/chat/rooms` (rooms, history, sending, read cursors): the
  /// half of the live chat repository that `ChatRepository.synced(server:host:)` completes
  /// with the sync engine. Its sync endpoints are left unimplemented.
  static func live(client: APIClient) -> ChatRepository {
    var chat = ChatRepository()
    chat.fetchRooms = { page in
      try await client.fetchPage(ChatAPI.rooms(page: page), of: ChatRoomDTO.self)
    }
    chat.openDirectRoom = { userID in
      try userID.requireNonEmpty(field: "user_id")
      return try await client.fetch(
        ChatAPI.openDirect(OpenDirectRoomRequest(user: userID)), as: ChatRoomDTO.self)
    }
    chat.fetchMessages = { roomID, afterSeq, beforeSeq, limit in
      try roomID.requireNonEmpty(field: "room_id")
      try ChatMessage.requireSeq(afterSeq, field: "after_seq")
      try ChatMessage.requireSeq(beforeSeq, field: "before_seq")
      // `limit` is clamped to 1...100 by the route, like every page size.
      let page = try await client.fetchPage(
        ChatAPI.messages(roomID: roomID, afterSeq: afterSeq, beforeSeq: beforeSeq, limit: limit),
        of: ChatMessageDTO.self)
      return page.items
    }
    chat.sendMessage = { text, roomID, clientMessageID in
      try roomID.requireNonEmpty(field: "room_id")
      let text = try validate { () throws(ValidationError) in
        try ChatMessage.validate(text: text)
      }
      return try await client.fetch(
        ChatAPI.send(
          roomID: roomID, body: SendMessageRequest(clientMessageId: clientMessageID, text: text)),
        as: ChatMessageDTO.self)
    }
    chat.markRead = { roomID, seq in
      try roomID.requireNonEmpty(field: "room_id")
      try ChatMessage.requireSeq(seq, field: "seq")
      try await client.send(ChatAPI.markRead(roomID: roomID, body: MarkReadRequest(seq: seq)))
    }
    return chat
  }
}
