import Dependencies
import Domain
import Foundation
import Observation
import ReportFeature
import Repositories

/// A post's screen: the post, its comments page by page (oldest first), likes, writing a
/// comment, and the see-more sheet (delete one's own post or comment, report someone else's).
///
/// What `qapple://posts/ID` and `qapple://posts/ID/comments/ID` open. With a focused comment
/// the screen loads comment pages until that comment is among them (or the last page came),
/// and says so in ``commentFocus`` so a view can scroll to it. A post that was deleted or
/// hidden is ``Phase/notFound``.
@MainActor @Observable
public final class PostDetailModel {
  /// Where loading the post stands.
  public enum Phase: Hashable, Sendable {
    /// The post is loading (first appearance or retry).
    case loading
    /// The post is shown.
    case loaded
    /// The post was deleted or hidden by moderation: "this post no longer exists".
    case notFound
    /// Loading failed; ``retryButtonTapped()`` tries again.
    case failed(DomainError)
    /// The user deleted the post from here (the app pops the screen, see ``onDismiss``).
    case deleted
  }

  /// Where the comment a link pointed at stands.
  public enum CommentFocus: Hashable, Sendable {
    /// Loading pages until it appears.
    case searching(Comment.ID)
    /// Loaded: a view scrolls to it and highlights it.
    case found(Comment.ID)
    /// Every page was read and it is not there (deleted or hidden).
    case missing(Comment.ID)
  }

  /// What the screen presents.
  public enum Destination {
    /// The see-more sheet of the post or of one comment.
    case seeMore(SeeMoreModel)
  }

  /// The post shown.
  public let postID: BoardPost.ID
  /// The comment the screen was opened for, if any.
  public let focusedCommentID: Comment.ID?
  /// Where loading the post stands.
  public private(set) var phase: Phase = .loading
  /// The post, once loaded (its counts and like follow the user's actions).
  public private(set) var post: BoardPost?
  /// Where the focused comment stands (`nil` without one).
  public private(set) var commentFocus: CommentFocus?
  /// The text of the comment being written.
  public var commentText = ""
  /// Whether the comment hides the nickname ("Anonymous N", stable per post).
  public var isCommentAnonymous = true
  /// A comment is being sent.
  public private(set) var isSubmittingComment = false
  /// A pull-to-refresh is running.
  public private(set) var isRefreshing = false
  /// The last failure of an action (like, comment, paging, refresh), shown until
  /// ``failureDismissed()``.
  public private(set) var failure: DomainError?
  /// What is presented, if anything.
  public var destination: Destination?

  /// Called after the user deleted the post: the app pops the screen.
  @ObservationIgnored public var onDismiss: @MainActor () -> Void = {}
  /// Called with the post as the server confirmed it after it was loaded or changed here (a
  /// like, a comment written or deleted), so lists that show it can follow.
  @ObservationIgnored public var onPostChanged: @MainActor (BoardPost) -> Void = { _ in }
  /// Called when the screen finds the post gone (deleted elsewhere or hidden), on loading it or
  /// on any later action on it (refresh, paging, like, comment): lists that show it drop it.
  /// The screen stays, showing ``Phase/notFound``; a comment being written keeps its text.
  @ObservationIgnored public var onPostGone: @MainActor () -> Void = {}

  private let list = PagedList<Comment>()
  @ObservationIgnored private var isLoadingPost = false
  /// How many changes to the post landed here (a like, a comment written or deleted), and
  /// how many comment changes began: a post read before one must not put the old counts back.
  @ObservationIgnored private var changesHere = 0
  /// Comments being written or deleted here whose count change has not landed: a post read
  /// meanwhile may already count one, which then lands on top, so it is not shown.
  @ObservationIgnored private var commentChangesUnderWay = 0
  @ObservationIgnored private let postLikes = LikeRequests<BoardPost.ID>()
  @ObservationIgnored private let commentLikes = LikeRequests<Comment.ID>()

  @ObservationIgnored @Dependency(\.boardRepository) private var board
  @ObservationIgnored @Dependency(\.analyticsRepository) private var analytics
  @ObservationIgnored @Dependency(\.date) private var date

  /// Creates the screen of `postID`, scrolled to `focusedCommentID` once it is loaded.
  public init(postID: BoardPost.ID, focusedCommentID: Comment.ID? = nil) {
    self.postID = postID
    self.focusedCommentID = focusedCommentID
    self.commentFocus = focusedCommentID.map { .searching($0) }
  }

  // MARK: - What the screen shows

  /// The comments loaded so far, oldest first.
  public var comments: [Comment] { list.items }
  /// Whether older pages remain to load below the last comment.
  public var hasMoreComments: Bool { list.hasMore }
  /// Where the next page of comments starts (`nil` on the last page): for a client that
  /// shows or hands on the list's position, as `qapple open --json` does.
  public var commentsCursor: PageCursor? { list.nextCursor }
  /// A further page of comments is loading.
  public var isLoadingMoreComments: Bool { list.isLoadingMore }
  /// How many more characters the comment may have (negative past the limit).
  public var commentRemainingCount: Int { TextRule.comment.remaining(in: commentText) }
  /// Whether the send button is enabled.
  public var canSubmitComment: Bool {
    phase == .loaded && !isSubmittingComment
      && (try? CommentDraft(content: commentText).validated()) != nil
  }

  // MARK: - User actions

  /// The screen appeared: loads the post and its first comments the first time, then the
  /// focused comment's page.
  public func task() async {
    await analytics.screenViewed(
      "board_post", ["focused_comment": String(focusedCommentID != nil)], at: date.now)
    guard phase == .loading, !isLoadingPost else { return }
    await load()
  }

  /// The user tapped "retry" on the failed screen.
  public func retryButtonTapped() async {
    guard case .failed = phase else { return }
    phase = .loading
    await load()
  }

  /// The user pulled to refresh: the post and the comments from the first page; a failure
  /// keeps what was shown.
  public func refreshPulled() async {
    guard phase == .loaded, !isRefreshing else { return }
    isRefreshing = true
    defer { isRefreshing = false }
    let changes = changesHere
    do {
      let read = try await board.fetchPost(postID)
      // Read before a change here landed, or while a comment change was under way: that
      // change's answer is newer.
      if changes == changesHere, commentChangesUnderWay == 0 { postRead(read) }
    } catch is CancellationError {
      return  // Given up (the screen went away): nothing failed.
    } catch {
      failed(DomainError(error))
      return
    }
    do {
      try await list.reload { [board, postID] in try await board.fetchComments(postID, $0) }
      await revealFocusedComment()
    } catch {
      failed(error)
    }
  }

  /// The row of `comment` appeared; the last one loads the next page.
  public func commentAppeared(_ comment: Comment.ID) async {
    guard list.isLast(comment) else { return }
    do {
      try await loadMoreComments()
      await revealFocusedComment()
    } catch {
      failed(error)
    }
  }

  /// The user tapped like (or unlike) on the post.
  public func likeButtonTapped() async {
    do {
      let confirmed = try await postLikes.toggle(
        postID, read: { post?.likeState }, write: { post?.likeState = $0 },
        send: { [board, postID] isLiked in try await board.setPostLike(postID, isLiked) })
      if let confirmed {
        postChangedHere()
        await analytics.track(
          "post_liked", ["is_liked": String(confirmed.isLiked), "screen": "board_post"],
          at: date.now)
      }
    } catch {
      failed(error)
    }
  }

  /// The user tapped like (or unlike) on a comment.
  public func commentLikeButtonTapped(_ comment: Comment.ID) async {
    do {
      let confirmed = try await commentLikes.toggle(
        comment, read: { list.item(comment)?.likeState },
        write: { state in list.update(comment) { $0.likeState = state } },
        send: { [board] isLiked in try await board.setCommentLike(comment, isLiked) })
      if let confirmed {
        await analytics.track(
          "comment_liked", ["is_liked": String(confirmed.isLiked)], at: date.now)
      }
    } catch {
      failure = error
    }
  }

  /// The user tapped "send" under the comment field. A refused or failed comment keeps the
  /// text; a sent one clears it and shows at the end once the last page is loaded.
  public func commentSubmitButtonTapped() async {
    guard phase == .loaded, !isSubmittingComment else { return }
    let draft: CommentDraft
    do {
      draft = try CommentDraft(content: commentText, isAnonymous: isCommentAnonymous).validated()
    } catch {
      failure = .validation(error)
      return
    }
    let submitted = commentText
    isSubmittingComment = true
    failure = nil
    commentChangeBegan()
    defer {
      isSubmittingComment = false
      commentChangeEnded()
    }
    do {
      let comment = try await board.createComment(postID, draft)
      // Text typed while the comment was on its way is a new comment: keep it.
      if commentText == submitted { commentText = "" }
      post?.commentCount += 1
      postChangedHere()
      // Comments read oldest first: the new one belongs after the last page, shown now when
      // that page is loaded, put after it when it is on its way, else brought by it.
      list.append(comment)
      await analytics.track(
        "comment_created", ["is_anonymous": String(draft.isAnonymous)], at: date.now)
    } catch {
      failed(DomainError(error))
    }
  }

  /// The user tapped "..." on the post: delete (mine) or report (someone else's).
  public func seeMoreButtonTapped() {
    guard let post else { return }
    let board = self.board
    presentSeeMore(.post(post.id), isMine: post.isMine) {
      try await board.deletePost(post.id)
    } deleted: { [weak self] in
      self?.phase = .deleted
      self?.onDismiss()
    }
  }

  /// The user tapped "..." on a comment: delete (mine) or report (someone else's).
  public func commentSeeMoreButtonTapped(_ comment: Comment.ID) {
    guard let comment = list.item(comment) else { return }
    let board = self.board
    presentSeeMore(.comment(comment.id), isMine: comment.isMine) { [weak self] in
      await self?.commentChangeBegan()
      do {
        try await board.deleteComment(comment.id)
      } catch {
        await self?.commentChangeEnded()
        throw error
      }
    } deleted: { [weak self] in
      self?.list.remove(comment.id)
      self?.post?.commentCount -= 1
      self?.commentChangeEnded()
      self?.postChangedHere()
    }
  }

  /// The sheet was dismissed without finishing (swiped away).
  public func destinationDismissed() {
    destination = nil
  }

  /// The failure was read.
  public func failureDismissed() {
    failure = nil
  }

  // MARK: - Loading and presenting

  /// Presents the see-more sheet of `target`; `delete` is offered only for the user's own.
  private func presentSeeMore(
    _ target: ReportTarget, isMine: Bool, delete: @escaping @Sendable () async throws -> Void,
    deleted: @escaping @MainActor () -> Void
  ) {
    let sheet = withDependencies(from: self) {
      SeeMoreModel(target: target, isMine: isMine, delete: isMine ? delete : nil)
    }
    sheet.onFinish = { [weak self, weak sheet] outcome in
      // Closed only if it is still the sheet shown (it may have been swiped away and another
      // opened while its request ran); what it did still lands.
      if case .seeMore(let shown) = self?.destination, shown === sheet { self?.destination = nil }
      if outcome == .deleted { deleted() }
    }
    destination = .seeMore(sheet)
  }

  private func load() async {
    isLoadingPost = true
    defer { isLoadingPost = false }
    do {
      postRead(try await board.fetchPost(postID))
      // A comments load given up (cancelled) keeps the screen loading, for its next appearance.
      guard
        try await list.reload({ [board, postID] in try await board.fetchComments(postID, $0) })
      else { return }
      phase = .loaded
    } catch is CancellationError {
      return  // The screen went away; its next appearance loads again.
    } catch {
      let error = DomainError(error)
      if error == .notFound { postIsGone() } else { phase = .failed(error) }
      return
    }
    await revealFocusedComment()
  }

  /// A comment is being written or deleted here: until its count change lands (or it fails),
  /// no post read is shown.
  private func commentChangeBegan() {
    changesHere += 1
    commentChangesUnderWay += 1
  }

  private func commentChangeEnded() {
    changesHere += 1
    commentChangesUnderWay -= 1
  }

  /// The post changed here (a like, a comment written or deleted): the lists follow.
  private func postChangedHere() {
    changesHere += 1
    if let post { onPostChanged(post) }
  }

  /// The post as the server read it is shown, and the lists follow.
  private func postRead(_ read: BoardPost) {
    post = read
    onPostChanged(read)
  }

  private func postIsGone() {
    guard phase != .notFound else { return }  // Two actions that failed together: told once.
    phase = .notFound
    onPostGone()
  }

  /// A failed action on the loaded post: `notFound` means the post is gone (every call on it
  /// answers so once it is deleted or hidden), anything else is shown.
  private func failed(_ error: DomainError) {
    if error == .notFound { postIsGone() } else { failure = error }
  }

  private func loadMoreComments() async throws(DomainError) {
    try await list.loadMore { [board, postID] in try await board.fetchComments(postID, $0) }
  }

  /// Reads pages until the focused comment is loaded or the last page came; a failure or the
  /// task's cancellation (a page given up lands nothing) stops the search (scrolling down goes
  /// on with it).
  private func revealFocusedComment() async {
    while case .searching(let id) = commentFocus, !Task.isCancelled {
      if list.item(id) != nil {
        commentFocus = .found(id)
      } else if !list.hasMore {
        commentFocus = .missing(id)
      } else if list.isLoadingMore || list.isLoading {
        return  // The load running now looks again when its page arrived.
      } else {
        do {
          try await loadMoreComments()
        } catch {
          failed(error)
          return
        }
      }
    }
  }
}
