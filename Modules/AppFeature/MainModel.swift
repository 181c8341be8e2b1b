import BoardFeature
import ChatFeature
import Dependencies
import Domain
import Foundation
import GroupsFeature
import NotificationsFeature
import Observation
import ProfileFeature
import QuestionFeature
import Repositories

/// The signed-in app: four tabs, each with its own navigation stack of ``Route``s, and the
/// notification bell.
///
/// Screens ask for navigation with a ``Domain/DeepLink`` (their `onNavigate`), and this model
/// turns the link into state: inside the app the route is pushed on the tab the user is in;
/// from outside (``open(_:)``: a URL or a push) the link's own tab is selected and its stack is
/// replaced. Beyond that, only what a screen changed that a tab root lists is passed on (a
/// deleted post, a joined or left group).
@MainActor @Observable
public final class MainModel {
  /// The tabs, in display order.
  public enum Tab: String, CaseIterable, Hashable, Sendable {
    /// Today's question.
    case today
    /// The bulletin board.
    case board
    /// Study groups and chat.
    case groups
    /// The user's profile.
    case profile
  }

  /// The signed-in user (kept current by the session stream).
  public private(set) var user: User
  /// The selected tab.
  public var selectedTab: Tab = .today
  /// Today's question: the root of the today tab.
  public let today: TodayModel
  /// The board: the root of the board tab.
  public let board: BoardModel
  /// Groups and the chat room list: the root of the groups tab.
  public let groups: GroupsModel
  /// The profile: the root of the profile tab.
  public let profile: ProfileModel
  /// The notification inbox behind the bell; its unread count is the badge.
  public let notifications: NotificationsModel

  private var paths: [Tab: [Route]] = [:]

  /// Creates the tabs for `user`.
  public init(user: User) {
    self.user = user
    today = TodayModel()
    board = BoardModel()
    groups = GroupsModel()
    profile = ProfileModel()
    notifications = NotificationsModel()
    today.onNavigate = { [weak self] in self?.navigate(to: $0, from: .today) }
    board.onNavigate = { [weak self] in self?.navigate(to: $0, from: .board) }
    groups.onNavigate = { [weak self] in self?.navigate(to: $0, from: .groups) }
    profile.onNavigate = { [weak self] in self?.navigate(to: $0, from: .profile) }
    notifications.onNavigate = { [weak self] in
      guard let self else { return }
      self.navigate(to: $0, from: self.selectedTab)
    }
  }

  /// The navigation stack of a tab (bind it to the tab's `NavigationStack(path:)`).
  public subscript(path tab: Tab) -> [Route] {
    get { paths[tab] ?? [] }
    set { paths[tab] = newValue }
  }

  /// The badge on the bell.
  public var unreadCount: Int { notifications.unreadCount }

  /// The tab bar appeared: loads the badge.
  public func task() async {
    await notifications.refreshUnreadCount()
  }

  /// The bell was tapped: the inbox is pushed on the current tab.
  public func bellButtonTapped() {
    navigate(to: .notifications, from: selectedTab)
  }

  /// A tab was tapped; tapping the selected tab again pops it to its root.
  public func tabTapped(_ tab: Tab) {
    if tab == selectedTab { popToRoot(tab) }
    selectedTab = tab
  }

  /// Opens `link` from outside the screens (a URL or a push): selects the tab it belongs to
  /// and makes the link's screen that tab's only pushed screen.
  public func open(_ link: DeepLink) {
    let tab = Self.tab(of: link)
    selectedTab = tab
    popToRoot(tab)
    if let route = route(for: link, in: tab) { paths[tab] = [route] }
  }

  /// Pops `tab` to its root: its stack, and the screen its root pushes itself (today's past
  /// questions, the profile's reports). A sheet stays: it may hold unsent text.
  private func popToRoot(_ tab: Tab) {
    paths[tab] = []
    switch tab {
    case .today:
      if case .pastQuestions = today.destination { today.destinationDismissed() }
    case .profile:
      if case .myReports = profile.destination { profile.destinationDismissed() }
    case .board, .groups:
      break
    }
  }

  /// The session stream reported the signed-in user again (after a profile change).
  func userChanged(_ user: User) {
    self.user = user
  }

  /// Follows a link a screen of `tab` asked for: pushes its route on the current tab (today's
  /// question pops the today tab to its root instead; a screen already on the stack, like the
  /// one inbox, is popped back to instead of pushed again; the link of the screen on top, a
  /// double tap, pushes nothing).
  func navigate(to link: DeepLink, from tab: Tab) {
    if paths[tab]?.last?.link == link {
      selectedTab = tab
      return
    }
    guard let route = route(for: link, in: tab) else {
      selectedTab = Self.tab(of: link)
      popToRoot(selectedTab)
      return
    }
    selectedTab = tab
    if let index = paths[tab]?.firstIndex(of: route) {
      paths[tab]?.removeSubrange((index + 1)...)
    } else {
      paths[tab, default: []].append(route)
    }
  }

  /// The tab a link belongs to when it is opened from outside.
  public static func tab(of link: DeepLink) -> Tab {
    switch link {
    case .today, .question, .notifications: .today
    case .post, .comment: .board
    case .group, .chatRoom: .groups
    }
  }

  /// The screen for `link`, wired to navigate within `tab`; `nil` for a tab's root.
  private func route(for link: DeepLink, in tab: Tab) -> Route? {
    // What a pushed screen asks for counts only while the screen is on its stack: one popped
    // while its request ran (a slow "open chat") opens nothing.
    func navigate(from screen: AnyObject) -> @MainActor (DeepLink) -> Void {
      let screen = ObjectIdentifier(screen)
      return { [weak self] link in
        guard let self, self.paths[tab]?.contains(where: { $0.id == screen }) == true else {
          return
        }
        self.navigate(to: link, from: tab)
      }
    }
    switch link {
    case .today:
      return nil
    case .notifications:
      return .notifications(notifications)
    case .question(let id):
      let model = withDependencies(from: self) { QuestionDetailModel(questionID: id) }
      model.onNavigate = navigate(from: model)
      return .question(model)
    case .post(let id), .comment(post: let id, comment: _):
      var focused: Comment.ID?
      if case .comment(_, let comment) = link { focused = comment }
      let model = withDependencies(from: self) {
        PostDetailModel(postID: id, focusedCommentID: focused)
      }
      model.onDismiss = { [weak self, weak model] in
        guard let self, let model else { return }
        // The post was deleted: off the stack, and out of the board's list.
        self.pop(.post(model), from: tab)
        self.board.postDeleted(id)
      }
      // Liked, commented or reloaded there: the board's row follows; gone there, it goes.
      model.onPostChanged = { [weak self] in self?.board.postChanged($0) }
      model.onPostGone = { [weak self] in self?.board.postDeleted(id) }
      return .post(model)
    case .group(let id):
      let model = withDependencies(from: self) { GroupDetailModel(groupID: id) }
      model.onNavigate = navigate(from: model)
      model.onDismiss = { [weak self, weak model] in
        guard let self, let model else { return }
        // The group was deleted: off the stack, and out of the groups list.
        self.pop(.group(model), from: tab)
        self.groups.groupDeleted(id)
      }
      // Joined or left: the groups list shows the new membership; gone, it leaves the list.
      model.onGroupChanged = { [weak self] in self?.groups.groupChanged($0) }
      model.onGroupGone = { [weak self] in self?.groups.groupDeleted(id) }
      return .group(model)
    case .chatRoom(let id):
      return .chatRoom(withDependencies(from: self) { ChatRoomModel(roomID: id) })
    }
  }

  /// Removes `route` and everything pushed above it from `tab`'s stack.
  private func pop(_ route: Route, from tab: Tab) {
    guard let index = paths[tab]?.firstIndex(of: route) else { return }
    paths[tab]?.removeSubrange(index...)
  }
}
