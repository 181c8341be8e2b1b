import DTO
import Domain
import Endpoints
import Foundation
import Repositories

extension ProfileRepository {
  /// The image types the server takes for avatars.
  static let avatarMimeTypes: Set<String> = ["image/jpeg", "image/png"]
  /// The first bytes of each accepted image type.
  static let signatures: [String: [UInt8]] = [
    "image/jpeg": [0xFF, 0xD8, 0xFF],
    "image/png": [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A],
  ]

  /// Profiles over `/me` and `/users`; every fresh own profile updates the session state.
  static func live(client: APIClient, session: SessionController) -> ProfileRepository {
    ProfileRepository(
      fetchMe: {
        let user = try await client.fetch(MeAPI.me, as: UserDTO.self)
        await session.userUpdated(user)
        return user
      },
      updateProfile: { update in
        // "" clears the cohort, `nil` leaves it as it is: the rule checks only a given text.
        let cohort = try update.cohort.map { text throws(DomainError) in
          try validate { () throws(ValidationError) in try TextRule.cohort.validate(text) }
        }
        let request = UpdateProfileRequest(nickname: update.nickname?.rawValue, cohort: cohort)
        let user = try await client.fetch(MeAPI.updateProfile(request), as: UserDTO.self)
        await session.userUpdated(user)
        return user
      },
      uploadAvatar: { imageData, fileName, mimeType in
        let mimeType = mimeType.lowercased()
        guard Self.avatarMimeTypes.contains(mimeType) else {
          throw DomainError.validation(
            .invalidFormat(field: "image", expected: "a JPEG or PNG image"))
        }
        guard !imageData.isEmpty else { throw DomainError.validation(.empty(field: "image")) }
        // The server checks the bytes too; refusing here saves uploading a file that says it
        // is a picture but is not one.
        guard imageData.starts(with: Self.signatures[mimeType] ?? []) else {
          throw DomainError.validation(
            .invalidFormat(field: "image", expected: "a JPEG or PNG image"))
        }
        let name =
          fileName.isEmpty ? (mimeType == "image/png" ? "avatar.png" : "avatar.jpg") : fileName
        let user = try await client.fetch(
          MeAPI.uploadAvatar(image: imageData, fileName: name, mimeType: mimeType),
          as: UserDTO.self)
        await session.userUpdated(user)
        return user
      },
      fetchUser: { id in
        try requireID(id, field: "user_id")
        return try await client.fetch(MeAPI.user(id), as: UserDTO.self)
      },
      findUser: { nickname in
        let nickname = try validate { () throws(ValidationError) in
          try Nickname.lookupText(nickname)
        }
        return try await client.fetch(MeAPI.userByNickname(nickname), as: UserDTO.self)
      },
      fetchMyAnswers: { page in
        try await client.fetchPage(MeAPI.myAnswers(page: page), of: AnswerDTO.self)
      })
  }
}
