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
  public static let searchDebounce: Duration = .milliseconds(300)
  /// Groups per page.
  public static let pageSize = 20

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

  /// The groups of no search.
  private let list: PagedList<StudyGroup>
  /// The groups of the search shown instead of ``list``, if any.
  private var results: PagedList<StudyGroup>?
  /// The query ``results`` answer.
  @ObservationIgnored private var resultsQuery: String?
  /// The groups of a settled text change, loading; shown once they arrive unless a newer change
  /// came first.
  private var incoming: PagedList<StudyGroup>?
  /// The search field's text changes: a load whose change is no longer the latest was
  /// superseded.
  @ObservationIgnored private let searches = LatestSearch()

  /// Creates the tab.
  public init() {
    @Dependency(\.studyGroupRepository) var repository
    list = Self.groups(matching: nil, from: repository)
    // Made in the dependency scope this model is made in: what `withDependencies(from: self)`
    // gives, which cannot be called before `self` is initialized.
    chats = ChatRoomsModel()
    chats.onNavigate = { [weak self] link in self?.onNavigate(link) }
  }

  /// The groups shown (of the current search, if any).
  public var groups: [StudyGroup] { shown.items }
  /// Whether another page of groups follows.
  public var hasMore: Bool { shown.hasMore }
  /// The first page is loading (of the groups shown, or of a search about to replace them).
  public var isLoading: Bool { shown.isLoading || incoming?.isLoading == true }
  /// The next page is loading.
  public var isLoadingMore: Bool { shown.isLoadingMore }

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
    let generation = searches.supersede()
    incoming = nil
    let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
    let query = trimmed.isEmpty ? nil : trimmed
    // Empty text brings the whole list back, read again.
    await searches.afterPause(Self.searchDebounce, on: clock, run: generation) { [weak self] in
      await self?.search(query, generation: generation, isSearch: true)
    }
  }

  /// The last row appeared (or "more" was tapped): loads the next page.
  public func loadMoreTapped() async {
    // A search about to land replaces the rows.
    guard !isLoading else { return }
    do {
      try await shown.loadMore()
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
    sheet.onCreated = { [weak self] group in
      guard let self else { return }
      destination = nil
      // Listed first; search results keep what the server matched.
      list.prepend(group)
      onNavigate(.group(group.id))
    }
    destination = .createGroup(sheet)
  }

  /// A group changed elsewhere (its screen: the user joined or left it): its row shows it as
  /// that screen saw it, also when it arrives on a page that was on its way (`PagedList`
  /// applies the change to it).
  public func groupChanged(_ group: StudyGroup) {
    for target in lists { target.update(group.id) { $0 = group } }
  }

  /// A group was deleted elsewhere (its owner deleted it on its screen): its row goes, and a
  /// page that was on its way does not bring it back.
  public func groupDeleted(_ id: StudyGroup.ID) {
    for target in lists { target.remove(id) }
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

  /// The rows on screen: the search results while a search is shown, the list otherwise.
  private var shown: PagedList<StudyGroup> { results ?? list }

  /// Every list that holds or may soon show groups (a search still loading included).
  private var lists: [PagedList<StudyGroup>] { [list] + [results, incoming].compactMap { $0 } }

  /// The search field's text as a query (`nil`: the whole list).
  private var query: String? {
    let text = searchText.trimmingCharacters(in: .whitespacesAndNewlines)
    return text.isEmpty ? nil : text
  }

  /// Reloads the rows shown when they answer the search field's text; otherwise (its search is
  /// still waiting, or failed) runs that search now, in place of its pause. A refresh never
  /// shows rows of another text than the field's.
  private func refresh() async {
    if (results == nil ? nil : resultsQuery) == query {
      await load(shown, of: query, generation: searches.current, isSearch: false)
    } else {
      // The field's search runs now instead of after its pause (one load, tracked once).
      searches.skipPause()
      await search(query, generation: searches.current, isSearch: true)
    }
  }

  /// Loads the first page of `query`'s groups (the whole list for `nil`) into a new list, shown
  /// once it arrives unless a newer text change came first.
  private func search(_ query: String?, generation: Int, isSearch: Bool) async {
    let target = query.map { Self.groups(matching: $0, from: repository) } ?? list
    incoming = target
    await load(target, of: query, generation: generation, isSearch: isSearch)
  }

  /// Loads the first page of `target` and shows it, unless a newer text change came first (then
  /// its page and its failure are dropped); a settled search is tracked, not the screen
  /// appearing or a refresh.
  private func load(
    _ target: PagedList<StudyGroup>, of query: String?, generation: Int, isSearch: Bool
  ) async {
    do {
      guard try await target.reload() else { return }
      // A newer text change, or a newer load of the same text (a refresh that started another
      // search while this one ran), came first: its list is the one to show.
      guard searches.isCurrent(generation), target === shown || target === incoming else {
        return
      }
      results = target === list ? nil : target
      resultsQuery = target === list ? nil : query
      if incoming === target { incoming = nil }
      failure = nil
      guard isSearch, let results else { return }
      await analytics.track(
        "groups_searched", ["result_count": String(results.items.count)], at: date.now)
    } catch {
      guard searches.isCurrent(generation), target === shown || target === incoming else {
        return
      }
      if incoming === target { incoming = nil }
      failure = error
    }
  }

  /// The groups matching `query` (all of them for `nil`), page by page.
  private static func groups(
    matching query: String?, from repository: StudyGroupRepository
  ) -> PagedList<StudyGroup> {
    PagedList(pageSize: pageSize) { [repository] in try await repository.fetchGroups(query, $0) }
  }
}
