import DTO
import Domain
import Foundation
import Hummingbird
import ServiceEngine

extension RouteTable {
  /// ReportAPI.
  mutating func addReportRoutes() {
    add(.reportCreate, idempotent: true) { call in
      let body = try call.decode(CreateReportRequest.self)
      let kind = try call.value(body.target.type, field: "target.type", as: ReportTarget.Kind.self)
      let code = try call.value(body.reason, field: "reason", as: ReportReason.Code.self)
      let report = try call.engine.report(
        ReportTarget(kind: kind, id: body.target.id), reason: code, detail: body.detail,
        as: try call.me)
      return try .json(ReportDTO(report), status: .created)
    }
    addPage(.reportMine, ReportDTO.init) { try $0.engine.myReports($1, as: $2) }
  }

  /// StudyGroupAPI.
  mutating func addGroupRoutes() {
    addPage(.studyGroupGroups, StudyGroupDTO.init) {
      try $0.engine.groups(matching: $0.query("q"), $1, as: $2)
    }
    add(.studyGroupGroup) { call in
      try .json(StudyGroupDTO(try call.engine.group(call.id("group_id"), as: try call.me)))
    }
    add(.studyGroupCreate, idempotent: true) { call in
      let body = try call.decode(CreateGroupRequest.self)
      let group = try call.engine.createGroup(
        StudyGroupDraft(name: body.name, description: body.description), as: try call.me)
      return try .json(StudyGroupDTO(group), status: .created)
    }
    add(.studyGroupUpdate) { call in
      let body = try call.decode(UpdateGroupRequest.self)
      try call.rejectNulls(["name", "description"])
      let group = try call.engine.updateGroup(
        call.id("group_id"), name: body.name, description: body.description, as: try call.me)
      return try .json(StudyGroupDTO(group))
    }
    addNoContent(.studyGroupDelete) { try $0.engine.deleteGroup($0.id("group_id"), as: try $0.me) }
    add(.studyGroupJoin) { call in
      try .json(StudyGroupDTO(try call.engine.joinGroup(call.id("group_id"), as: try call.me)))
    }
    addNoContent(.studyGroupLeave) { try $0.engine.leaveGroup($0.id("group_id"), as: try $0.me) }
    addNoContent(.studyGroupInvite) { call in
      let body = try call.decode(InviteToGroupRequest.self)
      try call.engine.inviteToGroup(
        call.id("group_id"), user: User.ID(rawValue: body.userId), as: try call.me)
    }
    addPage(.studyGroupMembers, GroupMemberDTO.init) { call, page, _ in
      try call.engine.groupMembers(of: call.id("group_id"), page)
    }
  }

  /// ChatAPI.
  mutating func addChatRoutes() {
    // A valid WebSocket handshake never reaches the router (`Realtime/RealtimeEndpoint.swift`):
    // what arrives here is a plain request, after authentication.
    add(.chatRealtime) { call in throw APIError.upgradeRequired(call.request.uri.path) }
    addPage(.chatRooms, { ChatRoomDTO($0) }) { try $0.engine.chatRooms($1, as: $2) }
    add(.chatOpenDirect) { call in
      let body = try call.decode(OpenDirectRoomRequest.self)
      let room = try call.engine.openDirectRoom(with: User.ID(rawValue: body.userId), as: call.me)
      return try .json(ChatRoomDTO(room))
    }
    add(.chatMessages) { call in
      let messages = try call.engine.messages(
        in: call.id("room_id"), afterSeq: try call.integerQuery("after_seq"),
        beforeSeq: try call.integerQuery("before_seq"), limit: try call.pageRequest().limit,
        as: try call.me)
      return try .json(PageDTO(items: messages.map(ChatMessageDTO.init), nextCursor: nil))
    }
    // A resend of a stored message (its answer was lost) answers it again: not a new write.
    add(
      .chatSend,
      isRepeat: { request, caller, engine in
        guard let caller, let key = request.headers[HeaderName.idempotencyKey],
          let id = UUID(uuidString: key)
        else { return false }
        return engine.hasSent(clientMessageID: id, as: caller)
      }
    ) { call in
      let body = try call.decode(SendMessageRequest.self)
      // The client message id is the idempotency key of a send: the engine de-duplicates by it.
      guard let header = call.request.headers[HeaderName.idempotencyKey] else {
        let field = HeaderName.idempotencyKey.rawName
        throw APIError.validation(
          field: field, "Send the client_message_id as the \(field) header.")
      }
      guard header.lowercased() == body.clientMessageId.lowercasedText else {
        throw APIError.validation(
          field: "client_message_id", "client_message_id must equal the Idempotency-Key header.")
      }
      let sent = try call.engine.sendMessage(
        body.text, to: call.id("room_id"), clientMessageID: body.clientMessageId, as: try call.me)
      return try .json(ChatMessageDTO(sent.message), status: sent.isNew ? .created : .ok)
    }
    addNoContent(.chatMarkRead) { call in
      let body = try call.decode(MarkReadRequest.self)
      try call.engine.markRoomRead(call.id("room_id"), seq: body.seq, as: try call.me)
    }
  }

  /// AnalyticsAPI.
  mutating func addAnalyticsRoutes() {
    add(.analyticsTrack, idempotent: true, rateBucket: .analytics) { call in
      let body = try call.decode(AnalyticsBatchRequest.self)
      let accepted = try call.engine.recordAnalytics(
        body.events.map {
          UploadedEvent(
            name: $0.name, properties: $0.properties, occurredAt: $0.occurredAt,
            sessionID: $0.sessionId)
        }, as: try call.me)
      return try .json(AnalyticsBatchResultDTO(accepted: accepted), status: .accepted)
    }
  }
}
