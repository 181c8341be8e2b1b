import BoardFeature
import Dependencies
import Domain
import Foundation
import ReportFeature
import Repositories
import RepositoriesTesting
import TestSupport
import Testing

/// A post's screen on the fakes: comments, the focused comment of a link, optimistic likes,
/// writing comments, and deleting or reporting through the see-more sheet.
@MainActor
@Suite("PostDetailModel")
struct PostDetailModelTests {
  let backend = FakeBackend(now: { Fixtures.now })
  let alice: FakeClient
  let bob: FakeClient
  let post: BoardPost

  init() async throws {
    alice = try backend.signedUpClient(nickname: "alice")
    bob = try backend.signedUpClient(nickname: "bob")
    post = try await alice.board.createPost(PostDraft(content: "Where do you study?"))
  }

  /// The screen of `postID` as `client`; `override` replaces repository endpoints.
  func detail(
    as client: FakeClient, postID: BoardPost.ID? = nil, focusing comment: Domain.Comment.ID? = nil,
    _ override: (inout DependencyValues) -> Void = { _ in }
  ) -> PostDetailModel {
    client.model(override) {
      PostDetailModel(postID: postID ?? post.id, focusedCommentID: comment)
    }
  }

  /// Files a report for `reason` through the see-more `sheet` of someone else's item.
  func report(through sheet: SeeMoreModel, _ reason: ReportReason.Code) async throws {
    #expect(sheet.options == [.report])
    sheet.reportButtonTapped()
    guard case .report(let report) = sheet.destination else {
      Issue.record("no report flow")
      return
    }
    report.reasonTapped(reason)
    await report.confirmButtonTapped()
    #expect(report.failure == nil)
    report.closeButtonTapped()
  }

  @Test func showsThePostAndItsCommentsOldestFirst() async throws {
    let written = try await bob.comment(3, on: post.id)
    let detail = detail(as: alice)
    #expect(detail.phase == .loading)
    await detail.task()
    #expect(detail.phase == .loaded)
    #expect(detail.post?.content == "Where do you study?")
    #expect(detail.post?.commentCount == 3)
    #expect(detail.comments.map(\.id) == written.map(\.id))
    #expect(!detail.hasMoreComments)
    #expect(detail.commentFocus == nil)
    let events = try await alice.uploadedEvents()
    #expect(events.map(\.name) == ["screen_viewed"])
    #expect(events[0].properties == ["screen": "board_post", "focused_comment": "false"])
  }

  @Test func commentsLoadPageByPage() async throws {
    let written = try await bob.comment(25, on: post.id)
    let detail = detail(as: alice)
    await detail.task()
    #expect(detail.comments.count == 20)
    #expect(detail.hasMoreComments)
    // The cursor is the service's: it reads the rest of the comments.
    let cursor = try #require(detail.commentsCursor)
    let rest = try await alice.board.fetchComments(post.id, PageRequest(cursor: cursor))
    #expect(rest.items.map(\.id) == written.suffix(5).map(\.id))
    await detail.commentAppeared(detail.comments[5].id)
    #expect(detail.comments.count == 20)
    await detail.commentAppeared(detail.comments[19].id)
    #expect(detail.comments.map(\.id) == written.map(\.id))
    #expect(!detail.isLoadingMoreComments)
    #expect(detail.commentsCursor == nil)
  }

  @Test func bobsCommentNotifiesAliceWhoseLinkOpensTheFocusedComment() async throws {
    let written = try await bob.comment(45, on: post.id)
    // Alice's newest notification is bob's last comment; its link is what the app opens.
    let notification = try #require(
      try await alice.notifications.fetchNotifications(.first).items.first)
    guard case .comment(let postID, let commentID) = notification.deepLink else {
      Issue.record("unexpected link \(String(describing: notification.deepLink))")
      return
    }
    #expect(postID == post.id)
    #expect(commentID == written.last?.id)

    let detail = detail(as: alice, postID: postID, focusing: commentID)
    #expect(detail.commentFocus == .searching(commentID))
    await detail.task()
    // The comment is on the third page: the screen read until it was there.
    #expect(detail.commentFocus == .found(commentID))
    #expect(detail.comments.count == 45)
    #expect(detail.comments.last?.id == commentID)
    let events = try await alice.uploadedEvents()
    #expect(events[0].properties == ["screen": "board_post", "focused_comment": "true"])
  }

  @Test func aFocusedCommentThatIsGoneIsMissing() async throws {
    let written = try await bob.comment(2, on: post.id)
    try await bob.board.deleteComment(written[1].id)
    let detail = detail(as: alice, focusing: written[1].id)
    await detail.task()
    #expect(detail.phase == .loaded)
    #expect(detail.commentFocus == .missing(written[1].id))
    #expect(detail.comments.map(\.id) == [written[0].id])
  }

  @Test func aFailureWhileLookingForTheFocusedCommentIsShownAndScrollingGoesOn() async throws {
    let written = try await bob.comment(25, on: post.id)
    let calls = CallLog<Int>()
    let detail = detail(as: alice, focusing: written[24].id) {
      let fetch = $0.boardRepository.fetchComments
      $0.boardRepository.fetchComments = { id, page in
        await calls.record(0)
        // The second page fails once.
        if page.cursor != nil, await calls.calls.count == 2 { throw DomainError.timeout }
        return try await fetch(id, page)
      }
    }
    await detail.task()
    #expect(detail.failure == .timeout)
    #expect(detail.commentFocus == .searching(written[24].id))
    detail.failureDismissed()
    await detail.commentAppeared(detail.comments[19].id)
    #expect(detail.commentFocus == .found(written[24].id))
    #expect(detail.failure == nil)
  }

  @Test func aCancelledLoadIsNoFailureAndLoadsOnTheNextAppearance() async throws {
    _ = try await alice.comment(2, on: post.id)
    // The loads given up (the screen went away), in order: first the comments, then the post.
    let givenUp = LockIsolated(["comments", "post"])
    let giveUp: @Sendable (String) throws -> Void = { load in
      try givenUp.withValue {
        guard $0.first == load else { return }
        $0.removeFirst()
        throw CancellationError()
      }
    }
    let detail = detail(as: bob) { values in
      let board = values.boardRepository
      values.boardRepository.fetchPost = { id in
        try giveUp("post")
        return try await board.fetchPost(id)
      }
      values.boardRepository.fetchComments = { id, request in
        try giveUp("comments")
        return try await board.fetchComments(id, request)
      }
    }
    await detail.task()
    #expect(detail.phase == .loading && detail.failure == nil)
    await detail.task()
    #expect(detail.phase == .loading && detail.failure == nil)
    await detail.task()
    #expect(detail.phase == .loaded && detail.comments.count == 2)
    // A refresh given up keeps what is shown, without a failure.
    givenUp.setValue(["post"])
    await detail.refreshPulled()
    #expect(detail.phase == .loaded && detail.failure == nil && detail.comments.count == 2)
  }

  @Test(.timeLimit(.minutes(1)))
  func leavingWhileLookingForTheFocusedCommentStopsTheSearch() async throws {
    let written = try await alice.comment(25, on: post.id)
    let pagesAsked = CallLog<PageCursor>()
    let detail = detail(as: bob, focusing: written[24].id) { values in
      // Further pages never come: each waits until its task is cancelled. (The fourth ends
      // the list, so a search that does not stop fails this test instead of hanging it.)
      let fetch = values.boardRepository.fetchComments
      values.boardRepository.fetchComments = { id, request in
        guard let cursor = request.cursor else { return try await fetch(id, request) }
        await pagesAsked.record(cursor)
        if await pagesAsked.calls.count > 3 { return Page(items: []) }
        try await Task.sleep(for: .seconds(3600))
        return try await fetch(id, request)
      }
    }
    let screen = Task { await detail.task() }
    try await pagesAsked.waitForCalls(1)
    screen.cancel()
    await screen.value
    #expect(await pagesAsked.calls.count == 1, "a page given up is not asked for again and again")
    #expect(detail.failure == nil)
  }

  @Test func aDeletedPostIsNotFound() async throws {
    try await alice.board.deletePost(post.id)
    let detail = detail(as: bob)
    await detail.task()
    #expect(detail.phase == .notFound)
    #expect(detail.post == nil)
  }

  @Test func aHiddenPostIsNotFoundEvenForItsAuthor() async throws {
    // Reports from several members hide a post automatically.
    for name in ["r1", "r2", "r3", "r4", "r5"] {
      let member = try backend.signedUpClient(nickname: name)
      _ = try? await member.reports.report(.post(post.id), .spam)
    }
    try #require(backend.isHidden(.post(post.id)))
    let detail = detail(as: alice)
    await detail.task()
    #expect(detail.phase == .notFound)
  }

  @Test func aFailedLoadCanBeRetried() async throws {
    backend.isOffline = true
    let detail = detail(as: bob)
    await detail.task()
    #expect(detail.phase == .failed(.offline))
    backend.isOffline = false
    await detail.retryButtonTapped()
    #expect(detail.phase == .loaded)
    #expect(detail.post?.id == post.id)
  }

  @Test func aFailedRefreshKeepsWhatWasShown() async throws {
    _ = try await bob.comment(2, on: post.id)
    let detail = detail(as: alice)
    await detail.task()
    backend.isOffline = true
    await detail.refreshPulled()
    #expect(detail.failure == .offline)
    #expect(!detail.isRefreshing)
    #expect(detail.comments.count == 2)
    #expect(detail.phase == .loaded)
    backend.isOffline = false
    _ = try await bob.comment(1, on: post.id)
    await detail.refreshPulled()
    #expect(detail.comments.count == 3)
    #expect(detail.post?.commentCount == 3)
  }

  @Test("a post read before a comment and a like landed does not put the old counts back")
  func aStaleRefreshKeepsTheChangesMadeHere() async throws {
    // The first read (the screen's load) passes; the refresh's is made at once and answers
    // when the gate opens.
    let gate = Gate(letThrough: 1)
    var changed: [BoardPost] = []
    let detail = detail(as: bob) { values in
      let fetch = values.boardRepository.fetchPost
      values.boardRepository.fetchPost = { id in
        let read = try await fetch(id)
        await gate.wait()
        return read
      }
    }
    detail.onPostChanged = { changed.append($0) }
    await detail.task()
    try await gate.whileHeld(detail.refreshPulled) {
      detail.commentText = "written while the post was read"
      await detail.commentSubmitButtonTapped()
      await detail.likeButtonTapped()
      #expect(detail.post?.commentCount == 1)
      #expect(detail.post?.likeState == LikeState(isLiked: true, likeCount: 1))
    }
    #expect(detail.post?.commentCount == 1)
    #expect(detail.post?.likeState == LikeState(isLiked: true, likeCount: 1))
    #expect(changed.last?.commentCount == 1)
    #expect(changed.last?.likeState.isLiked == true)
    #expect(detail.comments.map(\.content) == ["written while the post was read"])
  }

  @Test(
    "a post read after a comment was written or deleted there, before the answer came, does not count it twice"
  )
  func aRefreshDuringACommentChangeCountsItOnce() async throws {
    // Each answer comes when its gate opens, after the server made the change.
    let (created, deleted) = (Gate(), Gate())
    let detail = detail(as: bob) { values in
      values.boardRepository.createComment = created.answering(values.boardRepository.createComment)
      values.boardRepository.deleteComment = deleted.answering(values.boardRepository.deleteComment)
    }
    await detail.task()
    detail.commentText = "counted once"
    try await created.whileHeld(detail.commentSubmitButtonTapped) {
      await detail.refreshPulled()
    }
    #expect(detail.post?.commentCount == 1)

    let written = try #require(detail.comments.first)
    detail.commentSeeMoreButtonTapped(written.id)
    let sheet = try #require(detail.seeMoreSheet)
    sheet.deleteButtonTapped()
    try await deleted.whileHeld(sheet.deletionConfirmed) {
      await detail.refreshPulled()
    }
    #expect(detail.post?.commentCount == 0)
    #expect(detail.comments.isEmpty)
    // Nothing under way: a refresh shows the post as read again.
    try await alice.comment(1, on: post.id)
    await detail.refreshPulled()
    #expect(detail.post?.commentCount == 1)
  }

  @Test func refreshingAPostThatWasDeletedMeanwhileSaysItIsGone() async throws {
    let detail = detail(as: bob)
    await detail.task()
    try await alice.board.deletePost(post.id)
    await detail.refreshPulled()
    #expect(detail.phase == .notFound)
  }

  // MARK: - Likes

  @Test func likesFromOneMemberAreSeenByAnother() async throws {
    let written = try await alice.comment(1, on: post.id)
    let bobs = detail(as: bob)
    await bobs.task()
    await bobs.likeButtonTapped()
    await bobs.commentLikeButtonTapped(written[0].id)
    #expect(bobs.post?.likeState == LikeState(isLiked: true, likeCount: 1))
    #expect(bobs.comments[0].likeState == LikeState(isLiked: true, likeCount: 1))
    #expect(bobs.failure == nil)

    let alices = detail(as: alice)
    await alices.task()
    #expect(alices.post?.likeState == LikeState(isLiked: false, likeCount: 1))
    #expect(alices.comments[0].likeState == LikeState(isLiked: false, likeCount: 1))
    let kinds = try await alice.notifications.fetchNotifications(.first).items.map(\.kind)
    #expect(kinds.contains(.likeOnMyPost(post: post.id)))
    #expect(kinds.contains(.likeOnMyComment(post: post.id, comment: written[0].id)))

    // Unliking goes back for both.
    await bobs.likeButtonTapped()
    #expect(bobs.post?.likeState == LikeState(isLiked: false, likeCount: 0))
    let events = try await bob.uploadedEvents()
    #expect(events.map(\.name) == ["screen_viewed", "post_liked", "comment_liked", "post_liked"])
    #expect(events[2].properties == ["is_liked": "true"])
    #expect(events[3].properties == ["is_liked": "false", "screen": "board_post"])
  }

  @Test func aFailedCommentLikeRollsBackAndIsShown() async throws {
    let written = try await alice.comment(1, on: post.id)
    _ = try await alice.board.setCommentLike(written[0].id, true)
    let detail = detail(as: bob)
    await detail.task()
    backend.isOffline = true
    await detail.commentLikeButtonTapped(written[0].id)
    #expect(detail.comments[0].likeState == LikeState(isLiked: false, likeCount: 1))
    #expect(detail.failure == .offline)
    await detail.likeButtonTapped()
    #expect(detail.post?.likeState == LikeState(isLiked: false, likeCount: 0))
  }

  @Test func aCommentLikeInFlightIsShownAtOnceAndTheServerWins() async throws {
    let written = try await alice.comment(1, on: post.id)
    let carol = try backend.signedUpClient(nickname: "carol")
    let gate = Gate()
    let sent = CallLog<Bool>()
    let detail = detail(as: bob) { $0.holdCommentLikes(at: gate, loggingIn: sent) }
    await detail.task()
    _ = try await carol.board.setCommentLike(written[0].id, true)
    let tap = Task { await detail.commentLikeButtonTapped(written[0].id) }
    try await sent.waitForCalls(1)
    #expect(detail.comments[0].likeState == LikeState(isLiked: true, likeCount: 1))
    // Two more taps while it runs: unlike, like again. One request, the last tap wins.
    await detail.commentLikeButtonTapped(written[0].id)
    await detail.commentLikeButtonTapped(written[0].id)
    await gate.open()
    await tap.value
    #expect(await sent.calls == [true])
    #expect(detail.comments[0].likeState == LikeState(isLiked: true, likeCount: 2))
  }

  // MARK: - Writing comments

  @Test func aCommentIsCheckedSentAndShownAtTheEnd() async throws {
    _ = try await alice.comment(1, on: post.id)
    let detail = detail(as: bob)
    await detail.task()
    #expect(!detail.canSubmitComment)
    await detail.commentSubmitButtonTapped()
    #expect(detail.failure == .validation(.empty(field: "content")))

    detail.commentText = String(repeating: "a", count: 301)
    #expect(detail.commentRemainingCount == -1)
    await detail.commentSubmitButtonTapped()
    #expect(
      detail.failure == .validation(.tooLong(field: "content", maximum: 300, actual: 301)))
    #expect(detail.commentText.count == 301)

    detail.commentText = "The library on the 3rd floor"
    #expect(detail.canSubmitComment)
    await detail.commentSubmitButtonTapped()
    #expect(detail.failure == nil)
    #expect(detail.commentText.isEmpty)
    #expect(detail.comments.count == 2)
    #expect(detail.comments.last?.content == "The library on the 3rd floor")
    // Alice's earlier anonymous comment is "Anonymous 1".
    #expect(detail.comments.last?.authorName == "Anonymous 2")
    #expect(detail.post?.commentCount == 2)
    // Alice hears of it.
    let newest = try await alice.notifications.fetchNotifications(.first).items.first
    #expect(newest?.deepLink == .comment(post: post.id, comment: detail.comments[1].id))
    let events = try await bob.uploadedEvents()
    #expect(events.map(\.name) == ["screen_viewed", "comment_created"])
    #expect(events[1].properties == ["is_anonymous": "true"])
  }

  @Test func aCommentBeforeTheLastPageArrivesWithIt() async throws {
    _ = try await alice.comment(21, on: post.id)
    let detail = detail(as: bob)
    await detail.task()
    detail.commentText = "late to the party"
    await detail.commentSubmitButtonTapped()
    #expect(detail.comments.count == 20)
    #expect(detail.post?.commentCount == 22)
    await detail.commentAppeared(detail.comments[19].id)
    #expect(detail.comments.count == 22)
    #expect(detail.comments.last?.content == "late to the party")
  }

  @Test func aCommentSentWhileTheLastPageLoadsShowsAfterIt() async throws {
    _ = try await alice.comment(21, on: post.id)
    let gate = Gate()
    let pagesRead = CallLog<PageCursor>()
    let detail = detail(as: bob) { values in
      // A further page is read from the server at once and answers when the gate opens.
      let fetch = values.boardRepository.fetchComments
      values.boardRepository.fetchComments = { id, request in
        let page = try await fetch(id, request)
        guard let cursor = request.cursor else { return page }
        await pagesRead.record(cursor)
        await gate.wait()
        return page
      }
    }
    await detail.task()
    #expect(detail.comments.count == 20)
    let more = Task { await detail.commentAppeared(detail.comments[19].id) }
    try await pagesRead.waitForCalls(1)
    detail.commentText = "sent while the last page loads"
    await detail.commentSubmitButtonTapped()
    await gate.open()
    await more.value
    #expect(detail.comments.count == 22)
    #expect(detail.comments.last?.content == "sent while the last page loads")
  }

  @Test func aFailedCommentKeepsTheText() async throws {
    let detail = detail(as: bob)
    await detail.task()
    detail.commentText = "keep me"
    detail.isCommentAnonymous = false
    backend.isOffline = true
    await detail.commentSubmitButtonTapped()
    #expect(detail.failure == .offline)
    #expect(detail.commentText == "keep me")
    #expect(!detail.isSubmittingComment)
    #expect(detail.comments.isEmpty)
    backend.isOffline = false
    await detail.commentSubmitButtonTapped()
    #expect(detail.comments.map(\.authorName) == ["bob"])
  }

  @Test func aBannedMemberIsToldWhyTheirCommentAndLikeFailed() async throws {
    let admin = try backend.signedUpClient(nickname: "minji", role: .admin)
    let detail = detail(as: bob)
    await detail.task()
    _ = try await admin.admin.banUser(try bob.userID, "Spamming the board", nil)
    detail.commentText = "one more"
    await detail.commentSubmitButtonTapped()
    #expect(detail.failure == .banned)
    #expect(detail.commentText == "one more")
    detail.failureDismissed()
    await detail.likeButtonTapped()
    #expect(detail.failure == .banned)
    #expect(detail.post?.likeState == LikeState(isLiked: false, likeCount: 0))
  }

  @Test func commentingOnAPostDeletedMeanwhileSaysItIsGone() async throws {
    let detail = detail(as: bob)
    var gone = 0
    detail.onPostGone = { gone += 1 }
    await detail.task()
    try await alice.board.deletePost(post.id)
    detail.commentText = "hello?"
    await detail.commentSubmitButtonTapped()
    #expect(detail.phase == .notFound)
    #expect(gone == 1, "the lists drop the post")
    #expect(detail.commentText == "hello?", "the text written is kept")
  }

  @Test func anyActionOnAPostDeletedMeanwhileTellsTheListsItIsGone() async throws {
    _ = try await bob.comment(25, on: post.id)
    // Paging the comments, liking, and a refresh whose comments read finds it gone.
    let actions: [(String, @MainActor (PostDetailModel) async -> Void)] = [
      ("paging", { await $0.commentAppeared($0.comments[19].id) }),
      ("liking", { await $0.likeButtonTapped() }),
      ("refreshing", { await $0.refreshPulled() }),
    ]
    var screens: [(String, PostDetailModel, LockIsolated<Int>)] = []
    for (name, _) in actions {
      let gone = LockIsolated(0)
      // The refresh's post read answered just before the deletion; its comments read after.
      let detail = detail(as: bob) { [post] in
        guard name == "refreshing" else { return }
        let fetch = $0.boardRepository.fetchPost
        let reads = LockIsolated(0)
        $0.boardRepository.fetchPost = { id in
          reads.withValue { $0 += 1 }
          return reads.value == 1 ? try await fetch(id) : post
        }
      }
      detail.onPostGone = { gone.withValue { $0 += 1 } }
      await detail.task()
      #expect(detail.phase == .loaded && detail.hasMoreComments, "\(name)")
      screens.append((name, detail, gone))
    }
    try await alice.board.deletePost(post.id)
    for ((name, detail, gone), (_, action)) in zip(screens, actions) {
      await action(detail)
      #expect(detail.phase == .notFound, "\(name)")
      #expect(gone.value == 1, "\(name) tells the lists the post is gone")
      #expect(detail.failure == nil, "\(name)")
    }
  }

  // MARK: - See more: delete mine, report others'

  @Test func deletingMyPostAsksFirstAndDismissesTheScreen() async throws {
    let detail = detail(as: alice)
    var dismissed = 0
    detail.onDismiss = { dismissed += 1 }
    await detail.task()
    detail.seeMoreButtonTapped()
    let sheet = try #require(detail.seeMoreSheet)
    #expect(sheet.options == [.delete])
    sheet.deleteButtonTapped()
    await sheet.deletionConfirmed()
    #expect(dismissed == 1)
    #expect(detail.phase == .deleted)
    #expect(detail.destination == nil)
    await #expect(throws: DomainError.notFound) {
      try await bob.board.fetchPost(post.id)
    }
  }

  @Test func deletingMyCommentRemovesIt() async throws {
    let bobs = try await bob.comment(2, on: post.id)
    let detail = detail(as: bob)
    await detail.task()
    detail.commentSeeMoreButtonTapped(bobs[0].id)
    let sheet = try #require(detail.seeMoreSheet)
    #expect(sheet.target == .comment(bobs[0].id))
    sheet.deleteButtonTapped()
    await sheet.deletionConfirmed()
    #expect(detail.destination == nil)
    #expect(detail.comments.map(\.id) == [bobs[1].id])
    #expect(detail.post?.commentCount == 1)
    #expect(try await alice.board.fetchComments(post.id, .first).items.map(\.id) == [bobs[1].id])
  }

  @Test("a deletion that ends after its sheet was swiped away leaves the next sheet open")
  func aLateDeletionClosesOnlyItsOwnSheet() async throws {
    let bobs = try await bob.comment(2, on: post.id)
    let gate = Gate()
    let detail = detail(as: bob) { values in
      let delete = values.boardRepository.deleteComment
      values.boardRepository.deleteComment = { id in
        await gate.wait()
        try await delete(id)
      }
    }
    await detail.task()
    detail.commentSeeMoreButtonTapped(bobs[0].id)
    let first = try #require(detail.seeMoreSheet)
    first.deleteButtonTapped()
    let deletion = Task { await first.deletionConfirmed() }
    try await waitUntil("the deletion runs") { first.isDeleting }
    // The close button waits for the deletion; a swipe closes the sheet at once.
    first.closeButtonTapped()
    #expect(detail.seeMoreSheet === first)
    detail.destinationDismissed()
    detail.commentSeeMoreButtonTapped(bobs[1].id)
    let second = try #require(detail.seeMoreSheet)
    await gate.open()
    await deletion.value
    #expect(detail.seeMoreSheet === second)
    #expect(detail.comments.map(\.id) == [bobs[1].id])
  }

  @Test func aFailedDeletionStaysOnTheSheet() async throws {
    let detail = detail(as: alice)
    await detail.task()
    detail.seeMoreButtonTapped()
    let sheet = try #require(detail.seeMoreSheet)
    backend.isOffline = true
    sheet.deleteButtonTapped()
    await sheet.deletionConfirmed()
    #expect(sheet.failure == .offline)
    #expect(detail.phase == .loaded)
    #expect(detail.destination != nil)
  }

  @Test func someoneElsesPostAndCommentAreReportedThroughTheSheet() async throws {
    let alices = try await alice.comment(1, on: post.id)
    let detail = detail(as: bob)
    await detail.task()
    detail.seeMoreButtonTapped()
    let sheet = try #require(detail.seeMoreSheet)
    try await report(through: sheet, .spam)
    #expect(detail.destination == nil)
    #expect(detail.phase == .loaded)

    detail.commentSeeMoreButtonTapped(alices[0].id)
    try await report(through: try #require(detail.seeMoreSheet), .abuse)
    #expect(detail.destination == nil)
    let filed = try await bob.reports.fetchMyReports(.first).items.map(\.target)
    #expect(Set(filed) == [.post(post.id), .comment(alices[0].id)])
  }
}

extension PostDetailModel {
  /// The see-more sheet presented, if any.
  var seeMoreSheet: SeeMoreModel? {
    guard case .seeMore(let sheet) = destination else { return nil }
    return sheet
  }
}
