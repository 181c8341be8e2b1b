import Dependencies
import Domain
import Foundation
import Observation
import Repositories

/// The question schedule: every daily question by status, page by page; add, edit and delete
/// one (one question per day, a published question with answers is history: the engine's
/// conflicts are shown as they come).
@MainActor @Observable
public final class QuestionScheduleModel {
  /// What the schedule presents on top of itself.
  public enum Destination {
    /// The editor, adding a question or editing one.
    case editor(QuestionEditorModel)
    /// "Delete this question?" with delete and cancel.
    case confirmDeletion(ScheduledQuestion)
  }

  /// Which questions are listed: `nil` for all, or only scheduled or published ones.
  public private(set) var statusFilter: QuestionStatus?
  /// What is presented on top, if anything.
  public var destination: Destination?
  /// The questions being deleted.
  public private(set) var deleting: Set<ScheduledQuestion.ID> = []
  /// A question is being deleted.
  public var isDeleting: Bool { !deleting.isEmpty }
  /// The last failure of an action (a deletion, the next page), shown until
  /// ``failureDismissed()``.
  public private(set) var failure: DomainError?

  private let pager: Pager<ScheduledQuestion>
  @ObservationIgnored @Dependency(\.adminRepository) private var admin
  @ObservationIgnored @Dependency(\.analyticsRepository) private var analytics
  @ObservationIgnored @Dependency(\.date) private var date

  /// Creates the schedule listing `status` (`nil`: all), `firstPage.limit` questions a page.
  public init(status: QuestionStatus? = nil, firstPage: PageRequest = .first) {
    statusFilter = status
    pager = Pager(firstPage: firstPage)
  }

  /// The questions loaded so far, latest publish date first.
  public var questions: [ScheduledQuestion] { pager.items }
  /// Where the next page starts, `nil` on the last page.
  public var nextCursor: PageCursor? { pager.nextCursor }
  /// Whether the list is loading, shown, failed or refused (members).
  public var state: ScreenState { pager.state }
  /// The next page is loading.
  public var isLoadingMore: Bool { pager.isLoadingMore }

  /// The screen appeared: loads the first page.
  public func task() async {
    await analytics.screenViewed("admin_questions", at: date.now)
    await reload()
  }

  /// Pull to refresh: the first page again.
  public func refreshPulled() async {
    await reload()
  }

  /// The status filter changed: the list starts over.
  public func statusFilterChanged(_ status: QuestionStatus?) async {
    guard status != statusFilter else { return }
    statusFilter = status
    await reload()
  }

  /// The end of the list came into view: loads the next page of the filter the list shows (not
  /// of one chosen since, whose first page has not landed).
  public func loadMoreReached() async {
    failure = await pager.loadMore()
  }

  /// "Add" was tapped: the editor opens for a new question, tomorrow by default.
  public func addButtonTapped() {
    let tomorrow = CalendarDay(containing: date.now).next
    present(withDependencies(from: self) { QuestionEditorModel(mode: .create(tomorrow)) })
  }

  /// A question was tapped: the editor opens on it.
  public func questionTapped(_ question: ScheduledQuestion) {
    present(withDependencies(from: self) { QuestionEditorModel(mode: .edit(question)) })
  }

  /// "Delete" was tapped on a question: asks for confirmation.
  public func deleteButtonTapped(_ question: ScheduledQuestion) {
    failure = nil
    destination = .confirmDeletion(question)
  }

  /// The deletion was confirmed: deletes, and the row goes (also while another question's
  /// deletion is on its way; a second confirmation for the same question while the first is on
  /// its way leaves it to that one).
  public func deletionConfirmed() async {
    guard case .confirmDeletion(let question) = destination else { return }
    destination = nil
    guard deleting.insert(question.id).inserted else { return }
    defer { deleting.remove(question.id) }
    do {
      try await admin.deleteQuestion(question.id)
      pager.list.remove(question.id)
      await analytics.track("admin_question_deleted", at: date.now)
    } catch {
      failure = pager.shown(error)
    }
  }

  /// The editor or the confirmation was dismissed without finishing.
  public func destinationDismissed() {
    destination = nil
  }

  /// The failure was read.
  public func failureDismissed() {
    failure = nil
  }

  private func present(_ editor: QuestionEditorModel) {
    failure = nil
    editor.onFinish = { [weak self, weak editor] outcome in
      guard let self else { return }
      // Closed only if it is still the sheet shown (it may have been swiped away and another
      // opened while its request ran); what it did still lands.
      if case .editor(let shown) = destination, shown === editor { destination = nil }
      if case .saved(let question) = outcome { show(question) }
    }
    destination = .editor(editor)
  }

  /// Puts a saved question where the list's order (latest day first) and filter want it; one
  /// that sorts past the loaded pages is left for them.
  private func show(_ question: ScheduledQuestion) {
    let filter = statusFilter
    // Also applied to a page on its way when it lands (`PagedList`); the list's end is read
    // then, from `pager`.
    pager.list.edit { [weak pager] questions in
      questions.removeAll { $0.id == question.id }
      guard filter == nil || filter == question.status else { return }
      let index = questions.firstIndex { $0.publishDate < question.publishDate }
      if let index {
        questions.insert(question, at: index)
      } else if pager?.nextCursor == nil {
        questions.append(question)
      }
    }
  }

  private func reload() async {
    let status = statusFilter
    await pager.reload { [admin] in try await admin.fetchQuestions(status, $0) }
  }
}

/// Adding or editing one scheduled question: its text (5-200 characters) and its day.
@MainActor @Observable
public final class QuestionEditorModel: Identifiable {
  /// What the editor does.
  public enum Mode: Hashable, Sendable {
    /// Schedules a new question, on the given day unless the admin picks another.
    case create(CalendarDay)
    /// Changes an existing question.
    case edit(ScheduledQuestion)
  }

  /// How the editor ended, for the presenting model.
  public enum Outcome: Hashable, Sendable {
    /// The question was saved as shown.
    case saved(ScheduledQuestion)
    /// The admin left without saving.
    case cancelled
  }

  /// Adding or editing.
  public let mode: Mode
  /// The question text.
  public var content: String
  /// The day it is published.
  public var publishDate: CalendarDay
  /// The question is being saved: the button shows progress and ignores taps.
  public private(set) var isSaving = false
  /// The last failure (a taken day is `.conflict`, bad text `.validation`), shown until
  /// ``failureDismissed()``.
  public private(set) var failure: DomainError?

  /// Called once when the editor ends.
  @ObservationIgnored public var onFinish: @MainActor (Outcome) -> Void = { _ in }
  @ObservationIgnored @Dependency(\.adminRepository) private var admin
  @ObservationIgnored @Dependency(\.analyticsRepository) private var analytics
  @ObservationIgnored @Dependency(\.date) private var date

  /// Creates the editor.
  public init(mode: Mode) {
    self.mode = mode
    switch mode {
    case .create(let day):
      content = ""
      publishDate = day
    case .edit(let question):
      content = question.content
      publishDate = question.publishDate
    }
  }

  /// The identity of the sheet: the edited question, or none for a new one.
  public nonisolated var id: Question.ID? {
    if case .edit(let question) = mode { question.id } else { nil }
  }

  /// Whether the text passes the question rule and nothing is being saved.
  public var canSave: Bool {
    !isSaving && (try? draft.validated()) != nil
  }

  /// The editor appeared.
  public func task() async {
    await analytics.screenViewed("admin_question_editor", ["mode": modeName], at: date.now)
  }

  /// "Save" was tapped: checks the text, then creates or updates the question.
  public func saveButtonTapped() async {
    guard !isSaving else { return }
    let draft: QuestionDraft
    do {
      draft = try self.draft.validated()
    } catch {
      failure = .validation(error)
      return
    }
    isSaving = true
    failure = nil
    defer { isSaving = false }
    do {
      let saved =
        switch mode {
        case .create: try await admin.createQuestion(draft)
        case .edit(let question): try await admin.updateQuestion(question.id, draft)
        }
      await analytics.track(
        "admin_question_saved", ["mode": modeName, "status": saved.status.rawValue], at: date.now)
      onFinish(.saved(saved))
    } catch {
      failure = DomainError(error)
    }
  }

  /// "Cancel" was tapped. Ignored while the question is being saved (it may be saved).
  public func cancelButtonTapped() {
    guard !isSaving else { return }
    onFinish(.cancelled)
  }

  /// The failure was read.
  public func failureDismissed() {
    failure = nil
  }

  private var draft: QuestionDraft {
    QuestionDraft(content: content, publishDate: publishDate)
  }

  private var modeName: String {
    if case .create = mode { "create" } else { "edit" }
  }
}
