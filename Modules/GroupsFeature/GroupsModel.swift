import ChatFeature
import Dependencies
import Domain
import Foundation
import Observation
import Repositories

/// The Groups tab's root: study groups with paging and search (debounced, stale searches
/// cancelled), creating a group, and the user's chat rooms (``chats``).
///
/// Opening a group or a room leaves the feature: it is asked for through ``onNavigate``
/// (`.group(id)`, `.chatRoom(id)`), which the app turns into a pushed screen.
@MainActor @Observable
public final class GroupsModel {
  /// What the tab presents on top of itself.
  public enum Destination {
    /// The "new group" sheet.
    case createGroup(CreateGroupModel)
  }

  /// How long the search text must rest before it is searched.
  public static let searchDebounce: Duration = LatestSearch.pause
  /// Groups per page.
  public static let pageSize = PageRequest.defaultLimit

  /// The search field's text.
  public private(set) var searchText = ""
  /// The last failure, shown until ``failureDismissed()``.
  public private(set) var failure: DomainError?
  /// What is presented on top, if anything.
  public var destination: Destination?
  /// The user's chat rooms; a view runs `chats.task()` while it shows them.
  public let chats: ChatRoomsModel

  /// Asks the app to open a place outside this feature (`.group(id)`, and the chat list's
  /// `.chatRoom(id)`).
  @ObservationIgnored public var onNavigate: @MainActor (DeepLink) -> Void = { _ in }

  @ObservationIgnored @Dependency(\.studyGroupRepository) private var repository
  @ObservationIgnored @Dependency(\.analyticsRepository) private var analytics
  @ObservationIgnored @Dependency(\.date) private var date
  @ObservationIgnored @Dependency(\.continuousClock) private var clock

  /// The groups of no search, those of the search shown and of a search on its way.
  private let lists: SearchableList<StudyGroup>

  /// Creates the tab.
  public init() {
    @Dependency(\.studyGroupRepository) var repository
    lists = SearchableList(pageSize: Self.pageSize) { [repository] query, page in
      try await repository.fetchGroups(query, page)
    }
    // Made in the dependency scope this model is made in: what `withDependencies(from: self)`
    // gives, which cannot be called before `self` is initialized.
    chats = ChatRoomsModel()
    chats.onNavigate = { [weak self] link in self?.onNavigate(link) }
  }

  /// The groups shown (of the current search, if any).
  public var groups: [StudyGroup] { lists.shown.items }
  /// Whether another page of groups follows.
  public var hasMore: Bool { lists.shown.hasMore }
  /// The first page is loading (of the groups shown, or of a search about to replace them).
  public var isLoading: Bool { lists.isLoading }
  /// The next page is loading.
  public var isLoadingMore: Bool { lists.shown.isLoadingMore }

  /// The screen appeared: loads the first page.
  public func task() async {
    await analytics.screenViewed("groups", at: date.now)
    await refresh()
  }

  /// The list was pulled down: loads the first page again, of the text in the search field.
  public func refreshPulled() async {
    await refresh()
  }

  /// The search text changed: searches once it rests for ``searchDebounce``; a newer change
  /// cancels this search (its results are never shown).
  public func searchTextChanged(_ text: String) async {
    searchText = text
    let run = lists.textChanged()
    let query = text.trimmedOrNil
    // Empty text brings the whole list back, read again.
    await lists.searches.afterPause(Self.searchDebounce, on: clock, run: run) { [weak self] in
      await self?.show(query, run: run, isSearch: true)
    }
  }

  /// The last row appeared (or "more" was tapped): loads the next page.
  public func loadMoreTapped() async {
    // A search about to land replaces the rows.
    guard !isLoading else { return }
    do {
      try await lists.shown.loadMore()
    } catch {
      failure = error
    }
  }

  /// A group was tapped: the app opens it.
  public func groupTapped(_ id: StudyGroup.ID) {
    onNavigate(.group(id))
  }

  /// "New group" was tapped: the sheet opens; once created, the group is listed and opened.
  public func createGroupButtonTapped() {
    let sheet = withDependencies(from: self) { CreateGroupModel() }
    sheet.onCreated = { [weak self, weak sheet] group in
      guard let self else { return }
      // Closed only if it is still the sheet shown (it may have been swiped away and another
      // opened while its request ran); what it did still lands.
      if case .createGroup(let shown) = destination, shown === sheet { destination = nil }
      // Listed first; search results keep what the server matched.
      lists.list.prepend(group)
      onNavigate(.group(group.id))
    }
    destination = .createGroup(sheet)
  }

  /// A group changed elsewhere (its screen: the user joined or left it): its row shows it as
  /// that screen saw it, also when it arrives on a page that was on its way (`PagedList`
  /// applies the change to it).
  public func groupChanged(_ group: StudyGroup) {
    lists.update(group.id) { $0 = group }
  }

  /// A group was deleted elsewhere (its owner deleted it on its screen): its row goes, and a
  /// page that was on its way does not bring it back.
  public func groupDeleted(_ id: StudyGroup.ID) {
    lists.remove(id)
  }

  /// The sheet was dismissed.
  public func destinationDismissed() {
    destination = nil
  }

  /// The failure was read.
  public func failureDismissed() {
    failure = nil
  }

  // MARK: Loading

  /// The search field's text as a query (`nil`: the whole list).
  private var query: String? { searchText.trimmedOrNil }

  /// Reloads the rows shown when they answer the search field's text; otherwise (its search is
  /// still waiting, or failed) runs that search now, in place of its pause. A refresh never
  /// shows rows of another text than the field's.
  private func refresh() async {
    if lists.answers(query) {
      await show(query, run: lists.searches.current, isSearch: false)
    } else {
      // The field's search runs now instead of after its pause (one load, tracked once).
      lists.searches.skipPause()
      await show(query, run: lists.searches.current, isSearch: true)
    }
  }

  /// Searches `query` (the whole list for `nil`) for the text change `run`, or for a refresh
  /// reloads the rows shown (which answer it); a superseded load shows neither its page nor its
  /// failure. A settled search is tracked, not the screen appearing or a refresh.
  private func show(_ query: String?, run: Int, isSearch: Bool) async {
    do {
      let shown =
        isSearch
        ? try await lists.search(query, run: run) : try await lists.reloadShown(run: run)
      guard shown else { return }
      failure = nil
      guard isSearch, let results = lists.results else { return }
      await analytics.track(
        "groups_searched", ["result_count": String(results.items.count)], at: date.now)
    } catch {
      failure = error
    }
  }
}
