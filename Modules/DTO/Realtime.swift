import Foundation

// The frames of the real-time protocol on `/realtime` (Docs/Realtime.md): one JSON object per
// WebSocket text message, named by its `type`. Both sides use these types, so the protocol is
// written once.

/// Why a text message is not a frame of the protocol. The server answers it with an `error`
/// frame and keeps the connection; a client logs it and goes on.
public enum RealtimeFrameError: Error, Hashable, Sendable, CustomStringConvertible {
  /// Not a JSON object with the fields its `type` needs; says which field and why.
  case malformed(DTODecodingError)
  /// A `type` this side does not know.
  case unknownType(String)

  /// The wire path of the field at fault (`type`, `room_id`, ...), if one is.
  public var field: String? {
    switch self {
    case .malformed(let error): error.path.flatMap { $0.isEmpty ? nil : $0 }
    case .unknownType: "type"
    }
  }

  /// Says what is wrong.
  public var description: String {
    switch self {
    case .malformed(let error): "Malformed frame: \(error.description)"
    case .unknownType(let type): "Unknown frame type \"\(type)\"."
    }
  }
}

/// A frame a client sends to the server.
public enum ClientFrame: Hashable, Sendable {
  /// Start receiving a room's messages; with `afterSeq`, the server first replays what came
  /// after it (up to the service's replay limit, 200), then answers `subscribed`; the client
  /// fills anything beyond that over REST.
  case subscribe(roomID: String, afterSeq: Int64?)
  /// Stop receiving a room's messages.
  case unsubscribe(roomID: String)
  /// Send a message; a retry with the same `clientMessageID` is answered with the stored one.
  case send(roomID: String, clientMessageID: UUID, text: String)
  /// The user is typing in a room.
  case typing(roomID: String)
  /// Liveness check; answered with `pong`.
  case ping

  /// The frame's `type` on the wire.
  public var type: String {
    switch self {
    case .subscribe: "subscribe"
    case .unsubscribe: "unsubscribe"
    case .send: "send"
    case .typing: "typing"
    case .ping: "ping"
    }
  }

  /// Reads a frame from a text message.
  public init(text: String) throws(RealtimeFrameError) {
    self = try FrameHeader.decode(Self.self, text)
  }

  /// The frame `type` names, its body read from `decoder`; `nil` for an unknown type.
  fileprivate static func read(_ type: String, from decoder: any Decoder) throws -> Self? {
    switch type {
    case "subscribe":
      let body = try SubscribeBody(from: decoder)
      return .subscribe(roomID: body.roomId, afterSeq: body.afterSeq)
    case "unsubscribe":
      return .unsubscribe(roomID: try RoomBody(from: decoder).roomId)
    case "send":
      let body = try SendBody(from: decoder)
      return .send(roomID: body.roomId, clientMessageID: body.clientMessageId, text: body.text)
    case "typing":
      return .typing(roomID: try RoomBody(from: decoder).roomId)
    case "ping":
      return .ping
    default:
      return nil
    }
  }

  /// The frame as the text message to send.
  public var text: String {
    switch self {
    case .subscribe(let room, let afterSeq):
      FrameHeader.encode(type, SubscribeBody(roomId: room, afterSeq: afterSeq))
    case .unsubscribe(let room), .typing(let room):
      FrameHeader.encode(type, RoomBody(roomId: room))
    case .send(let room, let clientMessageID, let text):
      FrameHeader.encode(
        type, SendBody(roomId: room, clientMessageId: clientMessageID, text: text))
    case .ping:
      FrameHeader.encode(type, Empty())
    }
  }
}

/// An error the server reports on the socket; the connection stays up unless the frame that
/// follows is a close.
public struct RealtimeErrorDTO: Codable, Hashable, Sendable {
  /// The error code: a REST code (`forbidden`, `banned`, `validation_failed`, `not_found`,
  /// `rate_limited`, `conflict`, `malformed_request`, `unauthorized` for a withdrawn account)
  /// or a socket one (`unknown_frame`,
  /// `frame_too_large`, `too_many_frames`, `slow_consumer`).
  public var code: String
  /// A developer-facing explanation.
  public var message: String
  /// The frame field at fault, if one is.
  public var field: String?
  /// What a validation rule found wrong with ``field``, for `validation_failed`.
  public var validation: ValidationDetailDTO?
  /// The room the failed frame named.
  public var roomId: String?
  /// The `client_message_id` of a failed `send`, so the outbox can mark that message failed.
  public var clientMessageId: String?
  /// The `type` of the frame a rule refused (`subscribe`, `send`, `typing`); `nil` for any
  /// other error (a frame that could not be read, too many frames, a slow consumer). A client tells a refused subscription from a refused typing
  /// frame of the same room by it.
  public var frameType: String?

  /// Creates the error.
  public init(
    code: String, message: String, field: String? = nil,
    validation: ValidationDetailDTO? = nil, roomId: String? = nil,
    clientMessageId: String? = nil, frameType: String? = nil
  ) {
    self.code = code
    self.message = message
    self.field = field
    self.validation = validation
    self.roomId = roomId
    self.clientMessageId = clientMessageId
    self.frameType = frameType
  }

  enum CodingKeys: String, CodingKey {
    case code, message, field, validation
    case roomId = "room_id"
    case clientMessageId = "client_message_id"
    case frameType = "frame_type"
  }
}

/// A frame the server sends to a client.
public enum ServerFrame: Hashable, Sendable {
  /// The subscription is live: every message after `lastSeq` arrives as `message`; what is
  /// older and not yet stored is fetched over REST.
  case subscribed(roomID: String, lastSeq: Int64)
  /// The subscription ended (asked for, or the user left the room).
  case unsubscribed(roomID: String)
  /// A message of a subscribed room, in `seq` order per room.
  case message(ChatMessageDTO)
  /// The answer to a `send`: the stored message with its `seq`.
  case ack(clientMessageID: String, message: ChatMessageDTO)
  /// Someone else is typing in a subscribed room.
  case typing(roomID: String, user: UserSummaryDTO)
  /// Moderation hid a message of a subscribed room: remove it from the stored history.
  case messageHidden(roomID: String, messageID: String, seq: Int64)
  /// Moderators restored a hidden message of a subscribed room: put it back at its `seq`
  /// (it comes out of `seq` order).
  case messageRestored(ChatMessageDTO)
  /// The answer to `ping`.
  case pong
  /// A frame was refused; see ``RealtimeErrorDTO``.
  case error(RealtimeErrorDTO)

  /// The frame's `type` on the wire.
  public var type: String {
    switch self {
    case .subscribed: "subscribed"
    case .unsubscribed: "unsubscribed"
    case .message: "message"
    case .ack: "ack"
    case .typing: "typing"
    case .messageHidden: "message_hidden"
    case .messageRestored: "message_restored"
    case .pong: "pong"
    case .error: "error"
    }
  }

  /// Reads a frame from a text message.
  public init(text: String) throws(RealtimeFrameError) {
    self = try FrameHeader.decode(Self.self, text)
  }

  /// The frame `type` names, its body read from `decoder`; `nil` for an unknown type.
  fileprivate static func read(_ type: String, from decoder: any Decoder) throws -> Self? {
    switch type {
    case "subscribed":
      let body = try SubscribedBody(from: decoder)
      return .subscribed(roomID: body.roomId, lastSeq: body.lastSeq)
    case "unsubscribed":
      return .unsubscribed(roomID: try RoomBody(from: decoder).roomId)
    case "message":
      return .message(try MessageBody.message(from: decoder))
    case "message_restored":
      return .messageRestored(try MessageBody.message(from: decoder))
    case "message_hidden":
      let body = try HiddenBody(from: decoder)
      return .messageHidden(roomID: body.roomId, messageID: body.messageId, seq: body.seq)
    case "ack":
      let body = try AckBody(from: decoder)
      return .ack(clientMessageID: body.clientMessageId, message: body.message)
    case "typing":
      let body = try TypingBody(from: decoder)
      return .typing(roomID: body.roomId, user: body.user)
    case "pong":
      return .pong
    case "error":
      return .error(try ErrorBody(from: decoder).error)
    default:
      return nil
    }
  }

  /// The frame as the text message to send.
  public var text: String {
    switch self {
    case .subscribed(let room, let lastSeq):
      FrameHeader.encode(type, SubscribedBody(roomId: room, lastSeq: lastSeq))
    case .unsubscribed(let room):
      FrameHeader.encode(type, RoomBody(roomId: room))
    case .message(let message), .messageRestored(let message):
      FrameHeader.encode(type, MessageBody(roomId: message.roomId, message: message))
    case .messageHidden(let room, let message, let seq):
      FrameHeader.encode(type, HiddenBody(roomId: room, messageId: message, seq: seq))
    case .ack(let clientMessageID, let message):
      FrameHeader.encode(type, AckBody(clientMessageId: clientMessageID, message: message))
    case .typing(let room, let user):
      FrameHeader.encode(type, TypingBody(roomId: room, user: user))
    case .pong:
      FrameHeader.encode(type, Empty())
    case .error(let error):
      FrameHeader.encode(type, ErrorBody(error: error))
    }
  }
}

/// The numbers of the protocol both sides rely on.
public enum RealtimeLimits {
  /// The largest text message the server reads (64 KiB); a larger one is answered with
  /// `frame_too_large` and close code 1009.
  public static let maxMessageBytes = 64 * 1024
  /// The path of the socket: the route table's (`APIOperation.chatRealtime`).
  public static var path: String { APIOperation.chatRealtime.pathTemplate }
}

// MARK: - Wire bodies

/// A frame type that, once the frame's `type` is read, reads its body from the same decoder.
private protocol WireFrame {
  static func read(_ type: String, from decoder: any Decoder) throws -> Self?
}

extension ClientFrame: WireFrame {}
extension ServerFrame: WireFrame {}

/// Decodes frames in one pass (the `type`, then the body of that type from the same parse)
/// and encodes them, with the Qapple coders.
private enum FrameHeader {
  static func decode<Frame: WireFrame>(
    _ frame: Frame.Type, _ text: String
  ) throws(RealtimeFrameError) -> Frame {
    let wire: Wire<Frame>
    do {
      wire = try DTODecoding.decode(Wire<Frame>.self, from: Data(text.utf8))
    } catch {
      throw .malformed(error)
    }
    guard let frame = wire.frame else { throw .unknownType(wire.type) }
    return frame
  }

  /// A whole frame: its `type` and, for a known type, the frame its body makes.
  private struct Wire<Frame: WireFrame>: Decodable {
    var type: String
    var frame: Frame?

    init(from decoder: any Decoder) throws {
      type = try decoder.container(keyedBy: TypeKey.self).decode(String.self, forKey: .type)
      frame = try Frame.read(type, from: decoder)
    }
  }

  /// `{"type": type, ...body}`; the bodies are plain structs, so encoding cannot fail.
  static func encode<Body: Encodable>(_ type: String, _ body: Body) -> String {
    let encoder = QappleCoding.makeEncoder()
    guard let data = try? encoder.encode(Typed(type: type, body: body)) else {
      preconditionFailure("A realtime frame body failed to encode.")
    }
    return String(decoding: data, as: UTF8.self)
  }
}

/// A body with its `type` beside its own keys.
private struct Typed<Body: Encodable>: Encodable {
  var type: String
  var body: Body

  func encode(to encoder: any Encoder) throws {
    try body.encode(to: encoder)
    var container = encoder.container(keyedBy: TypeKey.self)
    try container.encode(type, forKey: .type)
  }

}

private enum TypeKey: String, CodingKey { case type }

private struct Empty: Codable {}

private struct RoomBody: Codable {
  var roomId: String
  enum CodingKeys: String, CodingKey { case roomId = "room_id" }
}

private struct SubscribeBody: Codable {
  var roomId: String
  var afterSeq: Int64?
  enum CodingKeys: String, CodingKey {
    case roomId = "room_id"
    case afterSeq = "after_seq"
  }
}

private struct SendBody: Codable {
  var roomId: String
  var clientMessageId: UUID
  var text: String
  enum CodingKeys: String, CodingKey {
    case roomId = "room_id"
    case clientMessageId = "client_message_id"
    case text
  }

  /// The id in lower case (`UUID.lowercasedText`), as the REST send writes it.
  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(roomId, forKey: .roomId)
    try container.encode(clientMessageId.lowercasedText, forKey: .clientMessageId)
    try container.encode(text, forKey: .text)
  }
}

private struct SubscribedBody: Codable {
  var roomId: String
  var lastSeq: Int64
  enum CodingKeys: String, CodingKey {
    case roomId = "room_id"
    case lastSeq = "last_seq"
  }
}

private struct MessageBody: Codable {
  var roomId: String
  var message: ChatMessageDTO
  enum CodingKeys: String, CodingKey {
    case roomId = "room_id"
    case message
  }

  /// The message of a body whose `room_id` agrees with the message's own.
  static func message(from decoder: any Decoder) throws -> ChatMessageDTO {
    let body = try Self(from: decoder)
    guard body.roomId == body.message.roomId else {
      throw DecodingError.dataCorrupted(
        .init(codingPath: [CodingKeys.roomId], debugDescription: "differs from message.room_id"))
    }
    return body.message
  }
}

private struct HiddenBody: Codable {
  var roomId: String
  var messageId: String
  var seq: Int64
  enum CodingKeys: String, CodingKey {
    case roomId = "room_id"
    case messageId = "message_id"
    case seq
  }
}

private struct AckBody: Codable {
  var clientMessageId: String
  var message: ChatMessageDTO
  enum CodingKeys: String, CodingKey {
    case clientMessageId = "client_message_id"
    case message
  }
}

private struct TypingBody: Codable {
  var roomId: String
  var user: UserSummaryDTO
  enum CodingKeys: String, CodingKey {
    case roomId = "room_id"
    case user
  }
}

private struct ErrorBody: Codable {
  var error: RealtimeErrorDTO
}
