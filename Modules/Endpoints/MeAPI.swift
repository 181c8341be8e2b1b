import DTO
import Domain
import Foundation
import NetworkKit

/// The signed-in user's profile and account, other users' profiles and nickname checks.
public enum MeAPI: Sendable, Hashable {
  /// The signed-in user.
  case me
  /// Changes nickname and/or cohort.
  case updateProfile(UpdateProfileRequest)
  /// Replaces the profile image (JPEG or PNG), sent as the multipart part `image`.
  case uploadAvatar(image: Data, fileName: String, mimeType: String)
  /// Deletes the account.
  case withdraw
  /// Whether a nickname can be taken. Public.
  case nicknameAvailability(nickname: String)
  /// Another user's public profile.
  case user(User.ID)
  /// The user who goes by a nickname (case-insensitively), e.g. to open a direct chat.
  case userByNickname(String)
  /// The signed-in user's answers, newest first.
  case myAnswers(page: PageRequest = .first)
}

extension MeAPI: DeclaredRoute {
  var declaration: RouteDeclaration {
    switch self {
    case .me:
      RouteDeclaration(.meMe, sample: SampleData.user)
    case .updateProfile(let body):
      RouteDeclaration(.meUpdateProfile, task: .json(body), sample: SampleData.user)
    case .uploadAvatar(let image, let fileName, let mimeType):
      RouteDeclaration(
        .meUploadAvatar,
        task: .multipart(
          MultipartFormData(parts: [
            .init(name: "image", fileName: fileName, contentType: mimeType, data: image)
          ])), sample: SampleData.userWithAvatar)
    case .withdraw:
      RouteDeclaration(.meWithdraw)
    case .nicknameAvailability(let nickname):
      RouteDeclaration(
        .meNicknameAvailability, task: .query([URLQueryItem(name: "nickname", value: nickname)]),
        sample: SampleData.nicknameAvailability)
    case .user(let id):
      RouteDeclaration(.meUser, id.rawValue, sample: SampleData.otherUser)
    case .userByNickname(let nickname):
      RouteDeclaration(
        .meUserByNickname, task: .query([URLQueryItem(name: "nickname", value: nickname)]),
        sample: SampleData.otherUser)
    case .myAnswers(let page):
      RouteDeclaration(.meMyAnswers, task: .query(page.queryItems), sample: SampleData.myAnswers)
    }
  }
}

extension MeAPI {
  /// Sample response bodies of the profile operations.
  enum SampleData {
    static let user = """
      {
        "id": "u_01",
        "nickname": "사과러너",
        "role": "member",
        "cohort": "2026 오전반",
        "joined_at": "2026-03-02T00:12:45.120Z",
        "answer_count": 42,
        "avatar_url": null,
        "is_banned": false
      }
      """

    static let userWithAvatar = """
      {
        "id": "u_01",
        "nickname": "사과러너",
        "role": "member",
        "cohort": "2026 오전반",
        "joined_at": "2026-03-02T00:12:45.120Z",
        "answer_count": 42,
        "avatar_url": "https://cdn.qapple.example/avatars/u_01/3f9a.jpg",
        "is_banned": false
      }
      """

    static let otherUser = """
      {
        "id": "u_02",
        "nickname": "swiftie",
        "role": "member",
        "cohort": "2026 Afternoon",
        "joined_at": "2026-03-03T09:41:00.000Z",
        "answer_count": 17,
        "avatar_url": "https://cdn.qapple.example/avatars/u_02/a1b2.png",
        "is_banned": false
      }
      """

    static let nicknameAvailability = """
      { "nickname": "코딩하는사과", "available": true, "reason": null }
      """

    static let myAnswers = """
      {
        "items": [
          \(AnswerAPI.SampleData.myAnswer),
          {
            "id": "a_0977",
            "question_id": "q_0320",
            "content": "Reading other people's PRs taught me more than lectures. 남의 코드 읽기 추천!",
            "author_nickname": "사과러너",
            "is_mine": true,
            "created_at": "2026-11-20T12:03:11.481Z"
          }
        ],
        "next_cursor": "c_a_0977"
      }
      """
  }
}
