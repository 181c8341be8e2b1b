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

  /// The groups shown (of the current search, if any).
  public private(set) var groups: [StudyGroup] = []
  /// The search field's text.
  public private(set) var searchText = ""
  /// The first page is loading.
  public private(set) var isLoading = false
  /// The next page is loading.
  public private(set) var isLoadingMore = false
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

  /// The cursor of the next page of ``groups``.
  @ObservationIgnored private var nextCursor: PageCursor?
  /// The search the shown list answers.
  @ObservationIgnored private var listedQuery: String?
  /// The running load (a newer search cancels it).
  @ObservationIgnored private var loading: Task<Void, Never>?

  /// Creates the tab.
  public init() {
    // Made in the dependency scope this model is made in: what `withDependencies(from: self)`
    // gives, which cannot be called before `self` is initialized.
    chats = ChatRoomsModel()
    chats.onNavigate = { [weak self] link in self?.onNavigate(link) }
  }

  /// Whether another page of groups follows.
  public var hasMore: Bool { nextCursor != nil }

  /// The screen appeared: loads the first page.
  public func task() async {
    await analytics.screenViewed("groups", at: date.now)
    await reload(after: nil)
  }

  /// The list was pulled down: loads the first page again.
  public func refreshPulled() async {
    await reload(after: nil)
  }

  /// The search text changed: searches once it rests for ``searchDebounce``; a newer change
  /// cancels this search (its results are never shown).
  public func searchTextChanged(_ text: String) async {
    searchText = text
    await reload(after: Self.searchDebounce)
  }

  /// The last row appeared (or "more" was tapped): loads the next page.
  public func loadMoreTapped() async {
    guard let cursor = nextCursor, !isLoadingMore, !isLoading else { return }
    isLoadingMore = true
    defer { isLoadingMore = false }
    let query = listedQuery
    do {
      let page = try await repository.fetchGroups(
        query, PageRequest(cursor: cursor, limit: Self.pageSize))
      // A search that started meanwhile owns the list now.
      guard query == listedQuery, cursor == nextCursor else { return }
      let shown = Set(groups.map(\.id))
      groups += page.items.filter { !shown.contains($0.id) }
      nextCursor = page.nextCursor
    } catch {
      failure = DomainError(error)
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
      groups.removeAll { $0.id == group.id }
      groups.insert(group, at: 0)
      onNavigate(.group(group.id))
    }
    destination = .createGroup(sheet)
  }

  /// A group changed elsewhere (its screen: the user joined or left it): its row shows it as
  /// it is now.
  public func groupChanged(_ group: StudyGroup) {
    guard let index = groups.firstIndex(where: { $0.id == group.id }) else { return }
    groups[index] = group
  }

  /// A group was deleted elsewhere (its owner deleted it on its screen): its row goes.
  public func groupDeleted(_ id: StudyGroup.ID) {
    groups.removeAll { $0.id == id }
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

  /// Loads the first page for the search text, after `delay` if any; cancels the load before.
  private func reload(after delay: Duration?) async {
    loading?.cancel()
    let text = searchText.trimmingCharacters(in: .whitespacesAndNewlines)
    let query = text.isEmpty ? nil : text
    let wait = delay.map { clock.deadline(after: $0) }
    let task = Task { [weak self] in
      if let wait {
        do {
          try await wait()
        } catch {
          return
        }
      }
      // Only a settled search is tracked, not the screen appearing or a refresh.
      await self?.loadFirstPage(query: query, isSearch: delay != nil)
    }
    loading = task
    await task.value
  }

  private func loadFirstPage(query: String?, isSearch: Bool) async {
    isLoading = true
    do {
      let page = try await repository.fetchGroups(query, PageRequest(limit: Self.pageSize))
      guard !Task.isCancelled else { return }
      groups = page.items
      nextCursor = page.nextCursor
      listedQuery = query
      failure = nil
      if query != nil, isSearch {
        await analytics.track(
          "groups_searched", ["result_count": String(page.items.count)], at: date.now)
      }
    } catch {
      guard !Task.isCancelled else { return }
      failure = DomainError(error)
    }
    isLoading = false
  }
}
