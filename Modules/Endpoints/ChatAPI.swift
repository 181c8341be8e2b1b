import DTO
import Domain
import Foundation
import HTTPTypes
import NetworkKit

/// Chat rooms, direct conversations, message history, sending and read cursors.
public enum ChatAPI: Sendable, Hashable {
  /// The user's rooms, most recent activity first.
  case rooms(page: PageRequest = .first)
  /// Opens (or finds) the direct room with another user; the same room every time.
  case openDirect(OpenDirectRoomRequest)
  /// Messages of a room in ascending `seq`: after `afterSeq`, the newest `limit` before
  /// `beforeSeq`, or the newest `limit` when neither is given; pass at most one of the two.
  /// `limit` is clamped to 1...100.
  case messages(
    roomID: ChatRoom.ID, afterSeq: Int64? = nil, beforeSeq: Int64? = nil,
    limit: Int = PageRequest.defaultLimit)
  /// Sends a message. `Idempotency-Key` carries the client message id, so a retried send
  /// answers the first message instead of posting a duplicate.
  case send(roomID: ChatRoom.ID, body: SendMessageRequest)
  /// Moves the user's read cursor in a room to `seq`.
  case markRead(roomID: ChatRoom.ID, body: MarkReadRequest)
  /// The real-time socket (`Docs/Realtime.md`): a WebSocket transport opens this target's URL
  /// (`ws`/`wss` for `http`/`https`) with the bearer token; a plain request answers 426.
  case realtime
}

extension ChatAPI: DeclaredRoute {
  var declaration: RouteDeclaration {
    switch self {
    case .rooms(let page):
      RouteDeclaration(.chatRooms, task: .query(page.queryItems), sample: SampleData.rooms)
    case .openDirect(let body):
      RouteDeclaration(.chatOpenDirect, task: .json(body), sample: SampleData.directRoom)
    case .messages(let roomID, let afterSeq, let beforeSeq, let limit):
      RouteDeclaration(
        .chatMessages, roomID.rawValue,
        task: .query(
          Query.optional("after_seq", afterSeq.map(String.init))
            + Query.optional("before_seq", beforeSeq.map(String.init))
            + [URLQueryItem(name: "limit", value: String(PageRequest(limit: limit).limit))]),
        sample: SampleData.messages)
    case .send(let roomID, let body):
      RouteDeclaration(
        .chatSend, roomID.rawValue, task: .json(body),
        headers: Header.idempotencyKey(body.clientMessageId.lowercasedText),
        sample: SampleData.sentMessage)
    case .markRead(let roomID, let body):
      RouteDeclaration(.chatMarkRead, roomID.rawValue, task: .json(body))
    case .realtime:
      RouteDeclaration(.chatRealtime)
    }
  }
}

extension ChatAPI {
  /// 2xx, except the socket's handshake, whose success is 101 Switching Protocols.
  public var acceptedStatusCodes: ClosedRange<Int> {
    if case .realtime = self { 101...101 } else { 200...299 }
  }
}

extension ChatAPI {
  /// Sample response bodies of the chat operations.
  enum SampleData {
    static let sentMessage = """
      {
        "id": "m_5003",
        "room_id": "room_g_007",
        "seq": 1042,
        "client_message_id": "3F2504E0-4F89-41D3-9A0C-0305E82C3301",
        "sender": { "id": "u_01", "nickname": "사과러너" },
        "text": "좋아요, 내일 7시에 봬요! See you at 7.",
        "created_at": "2026-11-21T05:10:00.123Z"
      }
      """

    static let directRoom = """
      {
        "id": "room_dm_u_01_u_02",
        "kind": "direct",
        "group_id": null,
        "peer": { "id": "u_02", "nickname": "swiftie" },
        "title": "swiftie",
        "last_message": {
          "id": "m_4100",
          "room_id": "room_dm_u_01_u_02",
          "seq": 18,
          "client_message_id": "9B1DEB4D-3B7D-4BAD-9BDD-2B0D7B3DCB6D",
          "sender": { "id": "u_02", "nickname": "swiftie" },
          "text": "PR 리뷰 고마워요! Thanks for the review.",
          "created_at": "2026-11-20T23:48:19.007Z"
        },
        "unread_count": 1,
        "last_read_seq": 17
      }
      """

    static let rooms = """
      {
        "items": [
          {
            "id": "room_g_007",
            "kind": "group",
            "group_id": "g_007",
            "peer": null,
            "title": "알고리즘 아침반",
            "last_message": \(sentMessage),
            "unread_count": 0,
            "last_read_seq": 1042
          },
          \(directRoom),
          {
            "id": "room_g_012",
            "kind": "group",
            "group_id": "g_012",
            "peer": null,
            "title": "SwiftUI 심화 스터디",
            "last_message": null,
            "unread_count": 0,
            "last_read_seq": 0
          }
        ],
        "next_cursor": null
      }
      """

    static let messages = """
      {
        "items": [
          {
            "id": "m_5001",
            "room_id": "room_g_007",
            "seq": 1040,
            "client_message_id": "16FD2706-8BAF-433B-82EB-8C7FADA847DA",
            "sender": { "id": "u_02", "nickname": "swiftie" },
            "text": "내일은 그래프 탐색 문제 풀어요. Graph traversal tomorrow.",
            "created_at": "2026-11-21T05:02:11.310Z"
          },
          {
            "id": "m_5002",
            "room_id": "room_g_007",
            "seq": 1041,
            "client_message_id": "C73BCDCC-2669-4BF6-81D3-E4AE73FB11FD",
            "sender": { "id": "u_05", "nickname": "민지" },
            "text": "BFS로 풀 수 있는 걸로 골라주세요 🙏",
            "created_at": "2026-11-21T05:05:47.902Z"
          },
          \(sentMessage)
        ],
        "next_cursor": null
      }
      """
  }
}
