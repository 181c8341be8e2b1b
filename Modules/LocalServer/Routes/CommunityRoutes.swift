import DTO
import Domain
import Foundation
import GRDB
import Hummingbird

extension RouteTable {
  /// ReportAPI.
  mutating func addReportRoutes() {
    add("ReportAPI.create", .post, "/reports", blockedWhenBanned: true, idempotent: true) { call in
      let me = try call.me
      let body = try call.decode(CreateReportRequest.self)
      guard let kind = ReportTarget.Kind(rawValue: body.target.type) else {
        throw APIError.validation(
          field: "target.type",
          "target.type must be one of answer, post, comment, chat_message, user.")
      }
      guard let code = ReportReason.Code(rawValue: body.reason) else {
        throw APIError.validation(
          field: "reason",
          "reason must be one of spam, abuse, obscene, privacy, impersonation, illegal, other.")
      }
      // `other` needs its explanation; the other reasons may carry one, in the same limits.
      var detail: String?
      if code == .other {
        detail = try validate { () throws(ValidationError) in
          try TextRule.reportDetail.validate(body.detail ?? "")
        }
      } else if let text = body.detail?.trimmingCharacters(in: .whitespacesAndNewlines),
        !text.isEmpty
      {
        detail = try validate { () throws(ValidationError) in
          try TextRule.reportDetail.validate(text)
        }
      }
      let (now, note) = (call.now, detail)
      return try .json(
        try await call.core.write { db in
          try Moderation.report(
            db, kind: kind, id: body.target.id, reason: code, detail: note, viewer: me,
            now: now)
        }, status: .created)
    }
    add("ReportAPI.mine", .get, "/me/reports") { call in
      let (me, page) = (try call.me, try call.pageRequest())
      return try .json(try await call.core.read { db in try Moderation.mine(db, viewer: me, page) })
    }
  }

  /// StudyGroupAPI.
  mutating func addGroupRoutes() {
    add("StudyGroupAPI.groups", .get, "/groups") { call in
      let (me, page) = (try call.me, try call.pageRequest())
      let query = call.query("q")?.trimmingCharacters(in: .whitespacesAndNewlines)
      guard (query?.count ?? 0) <= 100 else {
        throw APIError.validation(.tooLong(field: "q", maximum: 100, actual: query?.count ?? 0))
      }
      let filter = query?.isEmpty == false ? query : nil
      return try .json(
        try await call.core.read { db in try Groups.list(db, viewer: me, query: filter, page) })
    }
    add("StudyGroupAPI.group", .get, "/groups/:group_id") { call in
      let me = try call.me
      let key = try call.key("group_id", .group, what: "group")
      return try .json(
        try await call.core.read { db in try Groups.dto(db, try Groups.group(db, key), viewer: me) }
      )
    }
    add("StudyGroupAPI.create", .post, "/groups", blockedWhenBanned: true, idempotent: true) {
      call in
      let me = try call.me
      let body = try call.decode(CreateGroupRequest.self)
      let draft = try validate { () throws(ValidationError) in
        try StudyGroupDraft(name: body.name, description: body.description).validated()
      }
      let now = call.now
      return try .json(
        try await call.core.write { db in try Groups.create(db, draft, viewer: me, now: now) },
        status: .created)
    }
    add("StudyGroupAPI.update", .patch, "/groups/:group_id", blockedWhenBanned: true) { call in
      let me = try call.me
      let key = try call.key("group_id", .group, what: "group")
      let body = try call.decode(UpdateGroupRequest.self)
      try call.rejectNulls(["name", "description"])
      let name = try body.name.map { text in
        try validate { () throws(ValidationError) in try TextRule.groupName.validate(text) }
      }
      let description = try body.description.map { text in
        try validate { () throws(ValidationError) in try TextRule.groupDescription.validate(text) }
      }
      return try .json(
        try await call.core.write { db in
          try Groups.update(db, key, name: name, description: description, viewer: me)
        })
    }
    add("StudyGroupAPI.delete", .delete, "/groups/:group_id", blockedWhenBanned: true) { call in
      let me = try call.me
      let key = try call.key("group_id", .group, what: "group")
      try await call.core.write { db in try Groups.delete(db, key, viewer: me) }
      return .noContent
    }
    add("StudyGroupAPI.join", .put, "/groups/:group_id/membership", blockedWhenBanned: true) {
      call in
      let me = try call.me
      let key = try call.key("group_id", .group, what: "group")
      let now = call.now
      return try .json(
        try await call.core.write { db in try Groups.join(db, key, viewer: me, now: now) })
    }
    add("StudyGroupAPI.leave", .delete, "/groups/:group_id/membership") { call in
      let me = try call.me
      let key = try call.key("group_id", .group, what: "group")
      try await call.core.write { db in try Groups.leave(db, key, viewer: me) }
      return .noContent
    }
    add("StudyGroupAPI.members", .get, "/groups/:group_id/members") { call in
      let page = try call.pageRequest()
      let key = try call.key("group_id", .group, what: "group")
      return try .json(try await call.core.read { db in try Groups.members(db, key, page) })
    }
  }

  /// ChatAPI (REST).
  mutating func addChatRoutes() {
    add("ChatAPI.rooms", .get, "/chat/rooms") { call in
      let (me, page) = (try call.me, try call.pageRequest())
      return try .json(try await call.core.read { db in try Chat.rooms(db, viewer: me, page) })
    }
    add("ChatAPI.openDirect", .post, "/chat/rooms/direct", blockedWhenBanned: true) { call in
      let me = try call.me
      let body = try call.decode(OpenDirectRoomRequest.self)
      guard let key = PublicID.user.key(body.userId) else {
        throw APIError.notFound("No user with id \(body.userId).")
      }
      let now = call.now
      return try .json(
        try await call.core.write { db in try Chat.openDirect(db, with: key, viewer: me, now: now) }
      )
    }
    add("ChatAPI.messages", .get, "/chat/rooms/:room_id/messages") { call in
      let me = try call.me
      let key = try call.key("room_id", .room, what: "chat room")
      let page = try call.pageRequest()
      let after = try call.integerQuery("after_seq")
      let before = try call.integerQuery("before_seq")
      guard after == nil || before == nil else {
        throw APIError.validation(field: "before_seq", "Pass after_seq or before_seq, not both.")
      }
      return try .json(
        try await call.core.read { db in
          try Chat.messages(
            db, roomKey: key, afterSeq: after, beforeSeq: before, limit: page.limit, viewer: me)
        })
    }
    add("ChatAPI.send", .post, "/chat/rooms/:room_id/messages", blockedWhenBanned: true) { call in
      let me = try call.me
      let key = try call.key("room_id", .room, what: "chat room")
      let body = try call.decode(SendMessageRequest.self)
      let clientID = body.clientMessageId.uuidString.lowercased()
      guard let header = call.request.headers[HeaderName.idempotencyKey] else {
        throw APIError.validation(
          field: "Idempotency-Key", "Send the client_message_id as the Idempotency-Key header.")
      }
      guard header.lowercased() == clientID else {
        throw APIError.validation(
          field: "client_message_id", "client_message_id must equal the Idempotency-Key header.")
      }
      let text = try validate { () throws(ValidationError) in
        try TextRule.chatMessage.validate(body.text)
      }
      let now = call.now
      let outcome = try await call.core.write { db in
        try Chat.send(
          db, roomKey: key, clientMessageID: clientID, text: text, viewer: me, now: now)
      }
      switch outcome {
      case .created(let message): return try .json(message, status: .created)
      case .repeated(let message): return try .json(message)
      }
    }
    add("ChatAPI.markRead", .put, "/chat/rooms/:room_id/read") { call in
      let me = try call.me
      let key = try call.key("room_id", .room, what: "chat room")
      let body = try call.decode(MarkReadRequest.self)
      guard body.seq >= 0 else {
        throw APIError.validation(field: "seq", "seq must be 0 or more.")
      }
      try await call.core.write { db in
        try Chat.markRead(db, roomKey: key, seq: body.seq, viewer: me)
      }
      return .noContent
    }
  }

  /// AnalyticsAPI.
  mutating func addAnalyticsRoutes() {
    add("AnalyticsAPI.track", .post, "/analytics/events", idempotent: true) { call in
      let me = try call.me
      let body = try call.decode(AnalyticsBatchRequest.self)
      guard (1...100).contains(body.events.count) else {
        throw APIError.validation(
          field: "events", "events takes 1-100 events (got \(body.events.count)).")
      }
      for (index, event) in body.events.enumerated()
      where event.name.trimmingCharacters(in: .whitespaces).isEmpty {
        throw APIError.validation(field: "events[\(index)].name", "Every event needs a name.")
      }
      let now = Millis.from(call.now)
      let encoder = JSONEncoder()
      encoder.outputFormatting = .sortedKeys
      let rows = try body.events.map { event in
        (event, String(decoding: try encoder.encode(event.properties), as: UTF8.self))
      }
      try await call.core.write { db in
        for (event, properties) in rows {
          try db.execute(
            sql: """
              INSERT INTO analytics_event (user_id, name, properties, occurred_at, session_id,
                received_at) VALUES (?, ?, ?, ?, ?, ?)
              """,
            arguments: [
              me.id, event.name, properties, Millis.from(event.occurredAt), event.sessionId, now,
            ])
        }
      }
      return try .json(AnalyticsBatchResultDTO(accepted: rows.count), status: .accepted)
    }
  }
}
