import Dependencies
import Domain
import Foundation
import Observation
import Repositories

/// Users and bans: the accounts, newest first, searched by nickname as the admin types
/// (debounced; a search the admin typed past is dropped), ban with a reason and an optional
/// end, unban after a confirmation.
@MainActor @Observable
public final class UsersModel {
  /// What the list presents on top of itself.
  public enum Destination {
    /// The ban form for a user.
    case ban(BanModel)
    /// "Lift the ban of …?" with unban and cancel.
    case confirmUnban(AdminUser)
  }

  /// How long typing must pause before the search runs.
  public static let searchDebounce: Duration = LatestSearch.pause

  /// The search field (a nickname or part of one).
  public private(set) var searchText = ""
  /// What is presented on top, if anything.
  public var destination: Destination?
  /// The users whose ban is being lifted.
  public private(set) var unbanning: Set<User.ID> = []
  /// A ban is being lifted.
  public var isUnbanning: Bool { !unbanning.isEmpty }
  /// The last failure of an action (an unban, the next page), shown until
  /// ``failureDismissed()``.
  public private(set) var failure: DomainError?

  private let pager: Pager<AdminUser>
  /// The search field's text changes and the pause before each search.
  @ObservationIgnored private let searches = LatestSearch()
  @ObservationIgnored @Dependency(\.adminRepository) private var admin
  @ObservationIgnored @Dependency(\.analyticsRepository) private var analytics
  @ObservationIgnored @Dependency(\.continuousClock) private var clock
  @ObservationIgnored @Dependency(\.date) private var date

  /// Creates the list, `firstPage.limit` users a page.
  public init(firstPage: PageRequest = .first) {
    pager = Pager(firstPage: firstPage)
  }

  /// The users loaded so far.
  public var users: [AdminUser] { pager.items }
  /// Where the next page starts, `nil` on the last page.
  public var nextCursor: PageCursor? { pager.nextCursor }
  /// Whether the list is loading, shown, failed or refused (members).
  public var state: ScreenState { pager.state }
  /// The next page is loading.
  public var isLoadingMore: Bool { pager.isLoadingMore }

  /// The screen appeared: loads the first page (of the current search).
  public func task() async {
    await analytics.screenViewed("admin_users", at: date.now)
    await reload()
  }

  /// Pull to refresh: the first page again.
  public func refreshPulled() async {
    searches.skipPause()
    await reload()
  }

  /// The admin typed in the search field: the search runs once typing pauses for
  /// ``searchDebounce``; a search still waiting or running for older text is cancelled.
  /// Returns the search task (a view need not keep it).
  @discardableResult
  public func searchTextChanged(_ text: String) -> Task<Void, Never> {
    searchText = text
    return searches.schedule(Self.searchDebounce, on: clock, run: searches.supersede()) {
      [weak self] in await self?.reload()
    }
  }

  /// The end of the list came into view: loads the next page of the search the list shows
  /// (not of text typed since, whose search has not landed).
  public func loadMoreReached() async {
    failure = await pager.loadMore()
  }

  /// "Ban" was tapped on a user: the ban form opens.
  public func banButtonTapped(_ user: AdminUser) {
    failure = nil
    let form = withDependencies(from: self) { BanModel(user: user) }
    form.onFinish = { [weak self, weak form] outcome in
      guard let self else { return }
      // Closed only if it is still the sheet shown (it may have been swiped away and another
      // opened while its request ran); what it did still lands.
      if case .ban(let shown) = destination, shown === form { destination = nil }
      if case .banned(let banned) = outcome { replace(banned) }
    }
    destination = .ban(form)
  }

  /// "Unban" was tapped on a user: asks for confirmation.
  public func unbanButtonTapped(_ user: AdminUser) {
    failure = nil
    destination = .confirmUnban(user)
  }

  /// The unban was confirmed: lifts the ban (also while another user's unban is on its way; a
  /// second confirmation for the same user while the first is on its way leaves it to that
  /// one).
  public func unbanConfirmed() async {
    guard case .confirmUnban(let user) = destination else { return }
    destination = nil
    guard unbanning.insert(user.id).inserted else { return }
    defer { unbanning.remove(user.id) }
    do {
      replace(try await admin.unbanUser(user.id))
      await analytics.track("user_unbanned", at: date.now)
    } catch {
      failure = pager.shown(error)
    }
  }

  /// The form or the confirmation was dismissed without finishing.
  public func destinationDismissed() {
    destination = nil
  }

  /// The failure was read.
  public func failureDismissed() {
    failure = nil
  }

  private var query: String? { searchText.trimmedOrNil }

  private func replace(_ user: AdminUser) {
    pager.list.update(user.id) { $0 = user }
  }

  private func reload() async {
    let query = self.query
    await pager.reload { [admin] in try await admin.fetchUsers(query, $0) }
  }
}

/// The ban form: a reason (1-200 characters, the user sees it) and an optional end.
@MainActor @Observable
public final class BanModel: Identifiable {
  /// How the form ended, for the presenting model.
  public enum Outcome: Hashable, Sendable {
    /// The user is banned, as shown.
    case banned(AdminUser)
    /// The admin left without banning.
    case cancelled
  }

  /// Who is banned.
  public let user: AdminUser
  /// Why (the user sees it).
  public var reason = ""
  /// When the ban ends; `nil` bans indefinitely.
  public var until: Date?
  /// The ban is being sent.
  public private(set) var isSubmitting = false
  /// The last failure (bad reason or end `.validation`, an admin `.conflict`), shown until
  /// ``failureDismissed()``.
  public private(set) var failure: DomainError?

  /// Called once when the form ends.
  @ObservationIgnored public var onFinish: @MainActor (Outcome) -> Void = { _ in }
  @ObservationIgnored @Dependency(\.adminRepository) private var admin
  @ObservationIgnored @Dependency(\.analyticsRepository) private var analytics
  @ObservationIgnored @Dependency(\.date) private var date

  /// Creates the form for `user`.
  public init(user: AdminUser) {
    self.user = user
  }

  /// The identity of the form: the user.
  public nonisolated var id: User.ID { user.id }

  /// Whether the reason passes the rule and nothing is being sent.
  public var canSubmit: Bool {
    !isSubmitting && (try? TextRule.banReason.validate(reason)) != nil
  }

  /// The form appeared.
  public func task() async {
    await analytics.screenViewed("admin_ban", at: date.now)
  }

  /// "Ban" was tapped: checks the reason, then bans.
  public func banButtonTapped() async {
    guard !isSubmitting else { return }
    let reason: String
    do {
      reason = try TextRule.banReason.validate(self.reason)
    } catch {
      failure = .validation(error)
      return
    }
    isSubmitting = true
    failure = nil
    defer { isSubmitting = false }
    do {
      let banned = try await admin.banUser(user.id, reason, until)
      await analytics.track(
        "user_banned", ["duration": until == nil ? "indefinite" : "until_date"], at: date.now)
      onFinish(.banned(banned))
    } catch {
      failure = DomainError(error)
    }
  }

  /// "Cancel" was tapped. Ignored while the ban is being sent (it may land).
  public func cancelButtonTapped() {
    guard !isSubmitting else { return }
    onFinish(.cancelled)
  }

  /// The failure was read.
  public func failureDismissed() {
    failure = nil
  }
}
