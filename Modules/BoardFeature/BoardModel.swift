import Dependencies
import Domain
import Foundation
import Observation
import Repositories

/// The Board tab's root: the posts, newest first, read page by page; pull to refresh; search
/// as the user types; likes; and the "new post" sheet.
///
/// - Paging: the row of the last loaded post appearing (``postAppeared(_:)``) loads the next
///   page. A refresh replaces the list from the first page; a failed refresh keeps what was
///   shown and shows the failure.
/// - Search: ``searchTextChanged(_:)`` waits ``searchDebounce`` on `@Dependency(\.continuousClock)`
///   and only then asks the server; a newer keystroke cancels the older wait, and the results
///   of an older search never replace those of a newer one. Clearing the text returns to the
///   list.
/// - Likes are optimistic: the row flips at once, the server's count wins, a failure puts the
///   old state back and is shown.
/// - Tapping a post leaves the feature through ``onNavigate`` with ``Domain/DeepLink/post(_:)``.
@MainActor @Observable
public final class BoardModel {
  /// What the board presents.
  public enum Destination {
    /// The "new post" sheet.
    case compose(ComposePostModel)
  }

  /// How long the search text must rest before the server is asked.
  public static let searchDebounce: Duration = LatestSearch.pause

  /// The search field's text as typed.
  public private(set) var searchText = ""
  /// The query of the search shown (trimmed), or `nil` when the list is shown.
  public private(set) var searchQuery: String?
  /// A search is waiting for the typing to rest or for the server.
  public private(set) var isSearching = false
  /// The last failure, shown until ``failureDismissed()``.
  public private(set) var failure: DomainError?
  /// What is presented, if anything.
  public var destination: Destination?

  /// Asks the app to open a place outside the board (a post's screen).
  @ObservationIgnored public var onNavigate: @MainActor (DeepLink) -> Void = { _ in }

  /// The list, the search results shown and a search on its way.
  private let lists: SearchableList<BoardPost>
  @ObservationIgnored private let likes = LikeRequests<BoardPost.ID>()

  @ObservationIgnored @Dependency(\.boardRepository) private var board
  @ObservationIgnored @Dependency(\.analyticsRepository) private var analytics
  @ObservationIgnored @Dependency(\.continuousClock) private var clock
  @ObservationIgnored @Dependency(\.date) private var date

  /// Creates the board; ``task()`` loads it.
  public init() {
    @Dependency(\.boardRepository) var board
    lists = SearchableList { [board] query, page in
      guard let query else { return try await board.fetchPosts(page) }
      return try await board.searchPosts(query, page)
    }
  }

  private var list: PagedList<BoardPost> { lists.list }
  private var results: PagedList<BoardPost>? { lists.results }

  // MARK: - What the screen shows

  /// The posts of the list (not of a search), newest first.
  public var posts: [BoardPost] { list.items }
  /// The results of the search shown, newest first (empty before the first results arrive).
  public var searchResults: [BoardPost] { results?.items ?? [] }
  /// Whether the search results are shown instead of the list.
  public var isSearchActive: Bool { searchQuery != nil }
  /// The rows on screen: the search results while searching, the list otherwise.
  public var visiblePosts: [BoardPost] { isSearchActive ? searchResults : posts }
  /// Whether more rows follow the visible ones (a spinner under the last row).
  public var hasMore: Bool { isSearchActive ? results?.hasMore ?? false : list.hasMore }
  /// The list's first page is loading (nothing to show yet).
  public var isLoading: Bool { list.isLoading && !list.hasLoaded }
  /// A pull-to-refresh is running over a shown list.
  public var isRefreshing: Bool { list.isLoading && list.hasLoaded }
  /// A further page of the visible rows is loading.
  public var isLoadingMore: Bool {
    isSearchActive ? results?.isLoadingMore ?? false : list.isLoadingMore
  }
  /// Whether the list (not a search) came back empty: "no posts yet".
  public var isEmpty: Bool { list.hasLoaded && list.items.isEmpty }

  // MARK: - User actions

  /// The screen appeared: loads the first page the first time, and runs the field's search
  /// again when it was given up before its results landed (a refresh cancelled with the screen).
  public func task() async {
    await analytics.screenViewed("board", at: date.now)
    if let query = searchQuery, !lists.answers(query), !isSearching, !lists.searches.isWaiting,
      lists.incoming == nil
    {
      await showResults(of: query, run: lists.searches.current, isSearch: true)
    }
    guard !list.hasLoaded, !list.isLoading else { return }
    await reloadList()
  }

  /// The user pulled to refresh: the list starts again from the first page (the search
  /// results, while searching). A search whose text has not landed yet runs at once instead of
  /// after its pause.
  public func refreshPulled() async {
    guard let query = searchQuery else { return await reloadList() }
    if lists.answers(query) {
      await showResults(of: query, run: lists.searches.current, isSearch: false)
    } else {
      lists.searches.skipPause()
      await showResults(of: query, run: lists.searches.current, isSearch: true)
    }
  }

  /// The row of `post` appeared; the last one loads the next page.
  public func postAppeared(_ post: BoardPost.ID) async {
    do {
      guard let rows = searchQuery == nil ? list : results, rows.isLast(post) else { return }
      try await rows.loadMore()
    } catch {
      failure = error
    }
  }

  /// The user tapped a post: its screen opens.
  public func postTapped(_ post: BoardPost.ID) {
    onNavigate(.post(post))
  }

  /// The search text changed. After ``searchDebounce`` without further typing the server is
  /// asked; returns when this search finished or a newer change or clearing superseded it.
  /// Empty text (or only spaces) returns to the list at once.
  public func searchTextChanged(_ text: String) async {
    searchText = text
    let run = lists.textChanged()
    guard let query = text.trimmedOrNil else {
      searchQuery = nil
      lists.showList()
      isSearching = false
      return
    }
    searchQuery = query
    isSearching = true
    await lists.searches.afterPause(Self.searchDebounce, on: clock, run: run) { [weak self] in
      await self?.showResults(of: query, run: run, isSearch: true)
    }
  }

  /// The user tapped "cancel" on the search field: back to the list.
  public func searchCancelButtonTapped() async {
    await searchTextChanged("")
  }

  /// The user tapped like (or unlike) on a row.
  public func likeButtonTapped(_ post: BoardPost.ID) async {
    do {
      let confirmed = try await likes.toggle(
        post, read: { likeState(of: post) }, write: { setLikeState($0, of: post) },
        send: { [board] isLiked in try await board.setPostLike(post, isLiked) })
      if let confirmed {
        await analytics.track(
          "post_liked", ["is_liked": String(confirmed.isLiked), "screen": "board"], at: date.now)
      }
    } catch {
      failure = error
    }
  }

  /// The user tapped "write": the "new post" sheet opens.
  public func composeButtonTapped() {
    let compose = withDependencies(from: self) { ComposePostModel() }
    compose.onFinish = { [weak self, weak compose] outcome in
      guard let self else { return }
      // Closed only if it is still the sheet shown (it may have been swiped away and another
      // opened while its request ran); what it did still lands.
      if case .compose(let shown) = destination, shown === compose { destination = nil }
      if case .posted(let post) = outcome {
        self.lists.list.prepend(post)
      }
    }
    destination = .compose(compose)
  }

  /// The sheet was dismissed without finishing (swiped away).
  public func destinationDismissed() {
    destination = nil
  }

  /// A post changed elsewhere (its screen: liked, commented, reloaded): its row, in the list
  /// and in the search results (also those on their way), shows it as that screen saw it.
  public func postChanged(_ post: BoardPost) {
    lists.update(post.id) { $0 = post }
  }

  /// A post was deleted elsewhere (its screen): its row goes, also from a page on its way.
  public func postDeleted(_ post: BoardPost.ID) {
    lists.remove(post)
  }

  /// The failure was read.
  public func failureDismissed() {
    failure = nil
  }

  // MARK: - Loading

  private func reloadList() async {
    do {
      try await list.reload()
    } catch {
      failure = error
    }
  }

  /// Searches `query` for the text change `run` (or, for a refresh, reloads the results shown,
  /// which answer it) and ends ``isSearching`` once they land or fail; a superseded load changes
  /// nothing. A settled search (not a refresh) is tracked.
  private func showResults(of query: String, run: Int, isSearch: Bool) async {
    isSearching = true
    do {
      let shown =
        isSearch
        ? try await lists.search(query, run: run) : try await lists.reloadShown(run: run)
      guard shown else {
        // Given up (the screen went away) while still the field's search, with no other search
        // of the field waiting or loading (a refresh's): nothing will land, so the spinner
        // ends; ``task()`` runs it again.
        if Task.isCancelled, lists.searches.isCurrent(run), !lists.searches.isWaiting,
          lists.incoming == nil
        {
          isSearching = false
        }
        return
      }
      isSearching = false
      guard isSearch, let results else { return }
      await analytics.track(
        "board_searched", ["result_count": String(results.items.count)], at: date.now)
    } catch {
      isSearching = false
      failure = error
    }
  }

  private func likeState(of post: BoardPost.ID) -> LikeState? {
    lists.item(post)?.likeState
  }

  private func setLikeState(_ state: LikeState, of post: BoardPost.ID) {
    lists.update(post) { $0.likeState = state }
  }
}
