import DTO
import Domain
import Foundation
import NetworkKit

/// Study groups, membership and member lists.
public enum StudyGroupAPI: Sendable, Hashable {
  /// Groups, newest first; `query` filters by name or description when given.
  case groups(query: String? = nil, page: PageRequest = .first)
  /// One group.
  case group(StudyGroup.ID)
  /// Creates a group owned by the user, who becomes its first member. A retry with the same
  /// `idempotencyKey` answers the first result.
  case create(CreateGroupRequest, idempotencyKey: String? = nil)
  /// Edits a group (owner only).
  case update(groupID: StudyGroup.ID, body: UpdateGroupRequest)
  /// Deletes a group and its room (owner only).
  case delete(StudyGroup.ID)
  /// Joins a group; joining twice changes nothing.
  case join(StudyGroup.ID)
  /// Leaves a group; the owner cannot leave (`409 conflict`).
  case leave(StudyGroup.ID)
  /// Invites another user to a group the user belongs to (a `group_invite` notification).
  case invite(StudyGroup.ID, InviteToGroupRequest)
  /// The members of a group, owner first.
  case members(groupID: StudyGroup.ID, page: PageRequest = .first)
}

extension StudyGroupAPI: DeclaredRoute {
  var declaration: RouteDeclaration {
    switch self {
    case .groups(let query, let page):
      RouteDeclaration(
        .studyGroupGroups, task: .query(Query.optional("q", query) + page.queryItems),
        sample: SampleData.page)
    case .group(let id):
      RouteDeclaration(.studyGroupGroup, id.rawValue, sample: SampleData.group)
    case .create(let body, let key):
      RouteDeclaration(
        .studyGroupCreate, task: .json(body), headers: Header.idempotencyKey(key),
        sample: SampleData.createdGroup)
    case .update(let id, let body):
      RouteDeclaration(
        .studyGroupUpdate, id.rawValue, task: .json(body), sample: SampleData.updatedGroup)
    case .delete(let id):
      RouteDeclaration(.studyGroupDelete, id.rawValue)
    case .join(let id):
      RouteDeclaration(.studyGroupJoin, id.rawValue, sample: SampleData.joinedGroup)
    case .leave(let id):
      RouteDeclaration(.studyGroupLeave, id.rawValue)
    case .invite(let id, let body):
      RouteDeclaration(.studyGroupInvite, id.rawValue, task: .json(body))
    case .members(let id, let page):
      RouteDeclaration(
        .studyGroupMembers, id.rawValue, task: .query(page.queryItems), sample: SampleData.members)
    }
  }
}

extension StudyGroupAPI {
  /// Sample response bodies of the study group operations.
  enum SampleData {
    static let group = """
      {
        "id": "g_007",
        "name": "알고리즘 아침반",
        "description": "매일 아침 7시, 백준 한 문제씩. One problem every morning before class.",
        "owner": { "id": "u_02", "nickname": "swiftie" },
        "member_count": 6,
        "is_member": false,
        "created_at": "2026-09-01T22:00:00.000Z"
      }
      """

    static let joinedGroup = """
      {
        "id": "g_007",
        "name": "알고리즘 아침반",
        "description": "매일 아침 7시, 백준 한 문제씩. One problem every morning before class.",
        "owner": { "id": "u_02", "nickname": "swiftie" },
        "member_count": 7,
        "is_member": true,
        "created_at": "2026-09-01T22:00:00.000Z"
      }
      """

    static let createdGroup = """
      {
        "id": "g_012",
        "name": "SwiftUI Study",
        "description": "애니메이션과 레이아웃을 같이 파봐요. Animations and layout deep dives.",
        "owner": { "id": "u_01", "nickname": "사과러너" },
        "member_count": 1,
        "is_member": true,
        "created_at": "2026-11-21T05:10:00.123Z"
      }
      """

    static let updatedGroup = """
      {
        "id": "g_012",
        "name": "SwiftUI 심화 스터디",
        "description": "애니메이션과 레이아웃을 같이 파봐요. Animations and layout deep dives.",
        "owner": { "id": "u_01", "nickname": "사과러너" },
        "member_count": 3,
        "is_member": true,
        "created_at": "2026-11-21T05:10:00.123Z"
      }
      """

    static let page = """
      {
        "items": [
          \(updatedGroup),
          \(group)
        ],
        "next_cursor": "c_g_007"
      }
      """

    static let members = """
      {
        "items": [
          {
            "user": { "id": "u_02", "nickname": "swiftie" },
            "role": "owner",
            "joined_at": "2026-09-01T22:00:00.000Z"
          },
          {
            "user": { "id": "u_05", "nickname": "민지" },
            "role": "member",
            "joined_at": "2026-09-03T08:30:15.420Z"
          },
          {
            "user": { "id": "u_01", "nickname": "사과러너" },
            "role": "member",
            "joined_at": "2026-11-21T05:10:00.123Z"
          }
        ],
        "next_cursor": null
      }
      """
  }
}
