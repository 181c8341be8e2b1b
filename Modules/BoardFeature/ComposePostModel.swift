import Dependencies
import Domain
import Foundation
import Observation
import Repositories

/// The "new post" sheet: write, choose anonymity, publish.
///
/// The text is checked before anything is sent (1-1000 characters once trimmed) and a refused
/// or failed post keeps the text, so nothing the user wrote is lost.
@MainActor @Observable
public final class ComposePostModel {
  /// How the sheet ended, for the presenting model.
  public enum Outcome: Hashable, Sendable {
    /// The post was published.
    case posted(BoardPost)
    /// The user closed the sheet without posting.
    case cancelled
  }

  /// The text being written.
  public var content = ""
  /// Whether the nickname is hidden (the board's default).
  public var isAnonymous = true
  /// The post is being sent: the button shows progress and ignores taps.
  public private(set) var isSubmitting = false
  /// The last failure (validation included), shown until ``failureDismissed()``.
  public private(set) var failure: DomainError?

  /// Called once when the sheet ends.
  @ObservationIgnored public var onFinish: @MainActor (Outcome) -> Void = { _ in }

  @ObservationIgnored @Dependency(\.boardRepository) private var board
  @ObservationIgnored @Dependency(\.analyticsRepository) private var analytics
  @ObservationIgnored @Dependency(\.date) private var date

  /// Creates an empty sheet.
  public init() {}

  /// How many more characters fit (negative past the limit), for a live counter.
  public var remainingCount: Int {
    TextRule.post.remaining(in: content)
  }

  /// Whether the post button is enabled.
  public var canSubmit: Bool {
    !isSubmitting && (try? PostDraft(content: content).validated()) != nil
  }

  /// The sheet appeared.
  public func task() async {
    await analytics.screenViewed("board_compose", at: date.now)
  }

  /// The user tapped "post".
  public func submitButtonTapped() async {
    guard !isSubmitting else { return }
    let draft: PostDraft
    do {
      draft = try PostDraft(content: content, isAnonymous: isAnonymous).validated()
    } catch {
      failure = .validation(error)
      return
    }
    isSubmitting = true
    failure = nil
    defer { isSubmitting = false }
    do {
      let post = try await board.createPost(draft)
      await analytics.track(
        "post_created", ["is_anonymous": String(draft.isAnonymous)], at: date.now)
      onFinish(.posted(post))
    } catch {
      failure = DomainError(error)
    }
  }

  /// The user closed the sheet; what they wrote is dropped with it.
  public func cancelButtonTapped() {
    guard !isSubmitting else { return }
    onFinish(.cancelled)
  }

  /// The failure was read.
  public func failureDismissed() {
    failure = nil
  }
}
