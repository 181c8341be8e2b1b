import DTO
import Domain
import Endpoints
import Foundation
import Repositories

extension ProfileRepository {

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
      uploadAvatar: { imageData, fileName, _ in
        // The service's rule (`AvatarImageType`): the bytes tell the type, whatever the caller
        // declared, as the service reads them; refusing here saves uploading a file that is not
        // a picture.
        let type = try validate { () throws(ValidationError) in try AvatarImageType(of: imageData) }
        let name = fileName.isEmpty ? (type == .png ? "avatar.png" : "avatar.jpg") : fileName
        let user = try await client.fetch(
          MeAPI.uploadAvatar(image: imageData, fileName: name, mimeType: type.mimeType),
          as: UserDTO.self)
        await session.userUpdated(user)
        return user
      },
      fetchUser: { id in
        try id.requireNonEmpty(field: "user_id")
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
