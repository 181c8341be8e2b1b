import BoardFeature
import ChatFeature
import Domain
import GroupsFeature
import NotificationsFeature
import QuestionFeature

/// One screen pushed on a tab's navigation stack: the one enum of places the app can push,
/// each carrying its model. A ``Domain/DeepLink`` (from a URL, a push or a tap inside the app)
/// becomes a route, so following a link is building this state.
///
/// Routes are equal when they hold the same model object (what a `NavigationStack` path
/// needs).
public enum Route: Hashable, Identifiable {
  /// A daily question and its answers (`qapple://questions/ID`).
  case question(QuestionDetailModel)
  /// A post with its comments (`qapple://posts/ID`, `.../comments/ID`).
  case post(PostDetailModel)
  /// A study group (`qapple://groups/ID`).
  case group(GroupDetailModel)
  /// A chat room (`qapple://chat/ID`).
  case chatRoom(ChatRoomModel)
  /// The notification inbox (`qapple://notifications`).
  case notifications(NotificationsModel)

  /// The model's identity.
  public var id: ObjectIdentifier {
    switch self {
    case .question(let model): ObjectIdentifier(model)
    case .post(let model): ObjectIdentifier(model)
    case .group(let model): ObjectIdentifier(model)
    case .chatRoom(let model): ObjectIdentifier(model)
    case .notifications(let model): ObjectIdentifier(model)
    }
  }

  /// The link that shows this screen.
  @MainActor public var link: DeepLink {
    switch self {
    case .question(let model): .question(model.questionID)
    case .post(let model):
      model.focusedCommentID.map { .comment(post: model.postID, comment: $0) }
        ?? .post(model.postID)
    case .group(let model): .group(model.groupID)
    case .chatRoom(let model): .chatRoom(model.roomID)
    case .notifications: .notifications
    }
  }

  /// The kind of screen, as analytics and logs name it.
  public var name: String {
    switch self {
    case .question: "question"
    case .post: "post"
    case .group: "group"
    case .chatRoom: "chat_room"
    case .notifications: "notifications"
    }
  }

  /// Whether both routes hold the same model object.
  public static func == (lhs: Route, rhs: Route) -> Bool { lhs.id == rhs.id }
  /// Hashes the model object's identity.
  public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}
