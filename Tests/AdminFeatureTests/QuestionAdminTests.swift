import AdminFeature
import Dependencies
import Domain
import Foundation
import Repositories
import RepositoriesTesting
import TestSupport
import Testing

/// The question schedule, the editor and the CSV import on the fakes, as an admin and as a
/// member (the engine's rules: one question per day, published questions with answers are
/// history, admins only).
@MainActor
@Suite("AdminFeature: questions")
struct QuestionAdminTests {
  let cast: AdminCast

  init() throws {
    cast = try AdminCast()
  }

  @Test func theScheduleListsByStatusPageByPage() async throws {
    for day in 1...3 { try await cast.schedule("Question for day \(day)?", inDays: day) }
    let today = try await cast.schedule("Today's question?", inDays: 0)
    let schedule = cast.admin.model {
      QuestionScheduleModel(firstPage: PageRequest(limit: 2))
    }
    #expect(schedule.state == .idle)
    await schedule.task()
    #expect(schedule.state == .loaded)
    #expect(schedule.questions.map(\.content) == ["Question for day 3?", "Question for day 2?"])
    #expect(schedule.nextCursor != nil)
    await schedule.loadMoreReached()
    #expect(schedule.questions.count == 4)
    #expect(schedule.questions.last == today)
    #expect(schedule.nextCursor == nil)

    await schedule.statusFilterChanged(.published)
    #expect(schedule.statusFilter == .published)
    #expect(schedule.questions.map(\.id) == [today.id])
    await schedule.statusFilterChanged(.scheduled)
    #expect(schedule.questions.count == 2)
    #expect(schedule.questions.allSatisfy { $0.status == .scheduled })

    let events = try await cast.admin.uploadedEvents()
    #expect(events.map(\.name) == ["screen_viewed"])
    #expect(events[0].properties == ["screen": "admin_questions"])
  }

  @Test func addingAQuestionAndTheOneDayConflict() async throws {
    try await cast.schedule("Already on day two?", inDays: 2)
    let schedule = cast.admin.model { QuestionScheduleModel() }
    await schedule.task()
    schedule.addButtonTapped()
    guard case .editor(let editor) = schedule.destination else {
      Issue.record("no editor")
      return
    }
    await editor.task()
    #expect(editor.mode == .create(cast.backend.today.next))
    #expect(!editor.canSave)
    editor.content = "Hi?"
    await editor.saveButtonTapped()
    #expect(editor.failure == .validation(.tooShort(field: "content", minimum: 5, actual: 3)))

    editor.content = "  What made you smile today?  "
    editor.publishDate = cast.backend.today.adding(days: 2)
    #expect(editor.canSave)
    await editor.saveButtonTapped()
    #expect(
      editor.failure == .conflict("\(cast.backend.today.adding(days: 2)) already has a question."))
    #expect(!editor.isSaving)
    guard case .editor = schedule.destination else {
      Issue.record("the editor closed on a conflict")
      return
    }

    editor.failureDismissed()
    editor.publishDate = cast.backend.today.adding(days: 3)
    await editor.saveButtonTapped()
    #expect(editor.failure == nil)
    #expect(schedule.destination == nil)
    #expect(
      schedule.questions.map(\.content) == ["What made you smile today?", "Already on day two?"])
    let stored = try await cast.admin.admin.fetchQuestions(nil, .first).items.map(\.content)
    #expect(stored == schedule.questions.map(\.content))

    let events = try await cast.admin.uploadedEvents()
    #expect(events.map(\.name) == ["screen_viewed", "screen_viewed", "admin_question_saved"])
    #expect(events[1].properties == ["screen": "admin_question_editor", "mode": "create"])
    #expect(events[2].properties == ["mode": "create", "status": "scheduled"])
  }

  @Test("cancelling while the question is saved is ignored: the editor ends once, saved")
  func cancellingWhileSavingEndsOnceSaved() async throws {
    let gate = Gate()
    let editor = cast.admin.model { values in
      let create = values.adminRepository.createQuestion
      values.adminRepository.createQuestion = { draft in
        await gate.wait()
        return try await create(draft)
      }
    } _: {
      QuestionEditorModel(mode: .create(cast.backend.today.next))
    }
    var outcomes: [QuestionEditorModel.Outcome] = []
    editor.onFinish = { outcomes.append($0) }
    editor.content = "What made you smile today?"
    try await gate.whileHeld(editor.saveButtonTapped) {
      editor.cancelButtonTapped()
      #expect(outcomes.isEmpty)
    }
    guard case .saved(let saved) = outcomes.first, outcomes.count == 1 else {
      Issue.record("ended \(outcomes), not once saved")
      return
    }
    #expect(saved.content == "What made you smile today?")
  }

  @Test func editingMovesTheQuestionAndHistoryCannotChange() async throws {
    let later = try await cast.schedule("Later question?", inDays: 5)
    let today = try await cast.schedule("Today's question?", inDays: 0)
    _ = try await cast.alice.questions.submitAnswer(to: today.id, content: "An answer")
    let schedule = cast.admin.model { QuestionScheduleModel(status: .scheduled) }
    await schedule.task()
    #expect(schedule.questions.map(\.id) == [later.id])

    schedule.questionTapped(later)
    guard case .editor(let editor) = schedule.destination else {
      Issue.record("no editor")
      return
    }
    #expect(editor.id == later.id)
    #expect(editor.content == "Later question?")
    editor.content = "Later question, reworded?"
    editor.publishDate = cast.backend.today.adding(days: 6)
    await editor.saveButtonTapped()
    #expect(schedule.questions.map(\.content) == ["Later question, reworded?"])
    #expect(schedule.questions.first?.publishDate == cast.backend.today.adding(days: 6))

    // Today's question has an answer: the engine refuses to change or delete it.
    await schedule.statusFilterChanged(.published)
    schedule.questionTapped(today)
    guard case .editor(let historyEditor) = schedule.destination else {
      Issue.record("no editor")
      return
    }
    historyEditor.content = "Rewrite history?"
    await historyEditor.saveButtonTapped()
    #expect(isConflict(historyEditor.failure))
    historyEditor.cancelButtonTapped()
    #expect(schedule.destination == nil)

    schedule.deleteButtonTapped(today)
    await schedule.deletionConfirmed()
    #expect(isConflict(schedule.failure))
    #expect(schedule.questions.map(\.id) == [today.id])
    schedule.failureDismissed()
    #expect(schedule.failure == nil)
  }

  @Test func aDeletionConfirmedWhileAnotherRunsIsMadeToo() async throws {
    let first = try await cast.schedule("First to go?", inDays: 1)
    let second = try await cast.schedule("Second to go?", inDays: 2)
    let gate = Gate(holding: 1)
    let schedule = cast.admin.model { values in
      let delete = values.adminRepository.deleteQuestion
      values.adminRepository.deleteQuestion = { id in
        await gate.wait()
        try await delete(id)
      }
    } _: {
      QuestionScheduleModel()
    }
    await schedule.task()
    schedule.deleteButtonTapped(first)
    let deletingFirst = Task { await schedule.deletionConfirmed() }
    try await gate.waitForArrivals()
    #expect(schedule.deleting == [first.id])
    // The second deletion, confirmed while the first is on its way, is made as well.
    schedule.deleteButtonTapped(second)
    await schedule.deletionConfirmed()
    #expect(schedule.destination == nil)
    #expect(schedule.questions.map(\.id) == [first.id])
    await gate.open()
    await deletingFirst.value
    #expect(schedule.questions.isEmpty)
    #expect(try await cast.admin.admin.fetchQuestions(nil, .first).items.isEmpty)
    #expect(!schedule.isDeleting)
  }

  @Test func deletingAfterConfirming() async throws {
    let question = try await cast.schedule("Soon to go?", inDays: 1)
    let schedule = cast.admin.model { QuestionScheduleModel() }
    await schedule.task()
    await schedule.deletionConfirmed()
    #expect(schedule.questions.count == 1, "nothing happens without a confirmation")
    schedule.deleteButtonTapped(question)
    guard case .confirmDeletion(let shown) = schedule.destination else {
      Issue.record("no confirmation")
      return
    }
    #expect(shown == question)
    await schedule.deletionConfirmed()
    #expect(schedule.questions.isEmpty)
    #expect(try await cast.admin.admin.fetchQuestions(nil, .first).items.isEmpty)
    let events = try await cast.admin.uploadedEvents()
    #expect(events.map(\.name) == ["screen_viewed", "admin_question_deleted"])

    // Deleted meanwhile on another device: not found.
    let other = try await cast.schedule("Another one?", inDays: 2)
    await schedule.refreshPulled()
    try await cast.admin.admin.deleteQuestion(other.id)
    schedule.deleteButtonTapped(other)
    await schedule.deletionConfirmed()
    #expect(schedule.failure == .notFound)
  }

  @Test func theImportPreviewsEveryLineBeforeWritingAndAgreesWithTheImport() async throws {
    let importer = cast.admin.model { QuestionImportModel() }
    await importer.task()
    #expect(importer.step == .chooseFile)
    #expect(!importer.canImport)
    await importer.fileChosen(Fixtures.questionImportCSV, named: "april.csv")
    guard case .preview(let name, let preview) = importer.step else {
      Issue.record("no preview: \(importer.step)")
      return
    }
    #expect(name == "april.csv")
    #expect(preview.drafts.count == 3)
    #expect(preview.errors.map(\.line) == [6, 7])
    #expect(preview.errors[0].message.contains("publish_date"))
    #expect(preview.errors[1].message.contains("content"))
    #expect(importer.canImport)
    #expect(try await cast.admin.admin.fetchQuestions(nil, .first).items.isEmpty)

    await importer.importButtonTapped()
    guard case .imported(_, let result) = importer.step else {
      Issue.record("not imported: \(importer.step) \(String(describing: importer.failure))")
      return
    }
    #expect(result.imported == 3)
    #expect(result.errors == preview.errors, "the preview applies the import's own rule")
    #expect(try await cast.admin.admin.fetchQuestions(nil, .first).items.count == 3)
    #expect(!importer.canImport)

    let events = try await cast.admin.uploadedEvents()
    #expect(events.map(\.name) == ["screen_viewed", "questions_imported"])
    #expect(events[0].properties == ["screen": "admin_question_import"])
    #expect(events[1].properties == ["imported": "3", "refused": "2"])
  }

  @Test func thePreviewNamesTakenDaysAndTheImportRefusesThemInTheSameWords() async throws {
    try await cast.schedule("Already there?", inDays: 1)
    let day = cast.backend.today.next
    let csv = """
      publish_date,content
      \(day),Taken day question?
      \(day.next),Free day question?
      \(day.next),Same day again?
      \(day.adding(days: 2)),Another free day?

      """
    let importer = cast.admin.model { QuestionImportModel() }
    await importer.fileChosen(Data(csv.utf8), named: "days.csv")
    guard case .preview(_, let preview) = importer.step else {
      Issue.record("no preview")
      return
    }
    #expect(preview.errors.isEmpty)
    #expect(!importer.isCheckingDays)
    let taken: [QuestionImportResult.LineError] = [
      .init(line: 2, message: "\(day) already has a question."),
      .init(line: 4, message: "\(day.next) already has a question."),
    ]
    #expect(importer.takenDays == taken)
    await importer.importButtonTapped()
    guard case .imported(_, let result) = importer.step else {
      Issue.record("not imported")
      return
    }
    #expect(result.imported == 2)
    #expect(result.errors == taken, "the preview applies the import's own rule")
    importer.chooseAnotherFileTapped()
    #expect(importer.takenDays.isEmpty)
  }

  @Test func offlineThePreviewShowsWithoutTakenDaysAndTheImportCanRunLater() async throws {
    try await cast.schedule("Already there?", inDays: 1)
    let day = cast.backend.today.next
    let importer = cast.admin.model { QuestionImportModel() }
    cast.backend.isOffline = true
    await importer.fileChosen(Data("publish_date,content\n\(day),Taken?\n".utf8), named: "a.csv")
    guard case .preview = importer.step else {
      Issue.record("no preview offline: \(importer.step)")
      return
    }
    #expect(importer.failure == .offline)
    #expect(importer.takenDays.isEmpty && !importer.isCheckingDays)
    #expect(importer.canImport)
    cast.backend.isOffline = false
    await importer.importButtonTapped()
    #expect(
      importer.step
        == .imported(
          fileName: "a.csv",
          .init(imported: 0, errors: [.init(line: 2, message: "\(day) already has a question.")])))
  }

  /// An import screen whose reads of the stored questions wait until `release` finishes.
  func importerWithHeldDayCheck() -> (QuestionImportModel, release: AsyncStream<Void>.Continuation)
  {
    let (released, release) = AsyncStream<Void>.makeStream()
    let importer = cast.admin.model({ values in
      let fetch = values.adminRepository.fetchQuestions
      values.adminRepository.fetchQuestions = { status, page in
        for await _ in released {}
        return try await fetch(status, page)
      }
    }) { QuestionImportModel() }
    return (importer, release)
  }

  @Test func aDayCheckOverrunByAnotherFileOrTheImportChangesNothing() async throws {
    try await cast.schedule("Already there?", inDays: 1)
    let csv = Data("publish_date,content\n\(cast.backend.today.next),Taken day question?\n".utf8)

    // Another file, refused whole, is chosen while the first file's days are read.
    var (importer, release) = importerWithHeldDayCheck()
    var checking = Task { await importer.fileChosen(csv, named: "first.csv") }
    await yieldUntil { importer.isCheckingDays }
    await importer.fileChosen(Data(), named: "empty.csv")
    release.finish()
    await checking.value
    guard case .refused(let name, _) = importer.step else {
      Issue.record("not refused: \(importer.step)")
      return
    }
    #expect(name == "empty.csv")
    #expect(!importer.isCheckingDays && importer.takenDays.isEmpty)

    // The import runs while the days are read: its result stays, and the check adds nothing.
    (importer, release) = importerWithHeldDayCheck()
    checking = Task { await importer.fileChosen(csv, named: "first.csv") }
    await yieldUntil { importer.isCheckingDays }
    await importer.importButtonTapped()
    release.finish()
    await checking.value
    #expect(
      importer.step
        == .imported(
          fileName: "first.csv",
          .init(
            imported: 0,
            errors: [.init(line: 2, message: "\(cast.backend.today.next) already has a question.")])
        ))
    #expect(importer.failure == nil && !importer.isCheckingDays && importer.takenDays.isEmpty)
  }

  @Test func unreadableFilesAreRefusedWholeAndNothingIsSent() async throws {
    let importer = cast.admin.model { QuestionImportModel() }
    await importer.fileChosen(Data(), named: "empty.csv")
    guard case .refused(let name, let error) = importer.step else {
      Issue.record("not refused: \(importer.step)")
      return
    }
    #expect(name == "empty.csv")
    #expect(error.field == "request")
    #expect(!importer.canImport)
    await importer.importButtonTapped()
    #expect(importer.step == .refused(fileName: "empty.csv", error))

    await importer.fileChosen(Data("date,text\n2026-05-01,Question?\n".utf8), named: "wrong.csv")
    guard case .refused(_, let header) = importer.step else {
      Issue.record("a wrong header was not refused")
      return
    }
    #expect(header.description.contains("publish_date,content"))

    #expect(try await cast.admin.admin.fetchQuestions(nil, .first).items.isEmpty)
    importer.chooseAnotherFileTapped()
    #expect(importer.step == .chooseFile)
    #expect(!importer.canImport)
    let events = try await cast.admin.uploadedEvents()
    #expect(events.isEmpty)
  }

  @Test func aFileOfRefusedLinesImportsNothingWithTheSameRefusals() async throws {
    let importer = cast.admin.model { QuestionImportModel() }
    await importer.fileChosen(Data("publish_date,content\n2026-05-01,Hi\n".utf8), named: "bad.csv")
    guard case .preview(_, let preview) = importer.step else {
      Issue.record("no preview")
      return
    }
    #expect(preview.drafts.isEmpty)
    #expect(preview.errors.map(\.line) == [2])
    await importer.importButtonTapped()
    #expect(
      importer.step == .imported(fileName: "bad.csv", .init(imported: 0, errors: preview.errors)))
  }

  @Test func aFailedImportKeepsThePreviewAndCanBeRetried() async throws {
    let importer = cast.admin.model { QuestionImportModel() }
    await importer.fileChosen(Fixtures.questionImportCSV, named: "april.csv")
    cast.backend.isOffline = true
    await importer.importButtonTapped()
    #expect(importer.failure == .offline)
    #expect(!importer.isImporting)
    guard case .preview = importer.step else {
      Issue.record("the preview was lost: \(importer.step)")
      return
    }
    cast.backend.isOffline = false
    #expect(try await cast.admin.admin.fetchQuestions(nil, .first).items.isEmpty)
    importer.failureDismissed()
    await importer.importButtonTapped()
    #expect(importer.failure == nil)
    guard case .imported(_, let result) = importer.step else {
      Issue.record("not imported after retrying")
      return
    }
    #expect(result.imported == 3)
  }

  @Test func membersSeeForbiddenOnEveryQuestionScreen() async throws {
    try await cast.schedule("Admins only?", inDays: 1)
    let schedule = cast.alice.model { QuestionScheduleModel() }
    await schedule.task()
    #expect(schedule.state == .forbidden)
    #expect(schedule.questions.isEmpty)

    let editor = cast.alice.model {
      QuestionEditorModel(mode: .create(cast.backend.today.adding(days: 9)))
    }
    editor.content = "Sneaky question?"
    await editor.saveButtonTapped()
    #expect(editor.failure == .forbidden)

    let importer = cast.alice.model { QuestionImportModel() }
    await importer.fileChosen(Fixtures.questionImportCSV, named: "april.csv")
    await importer.importButtonTapped()
    #expect(importer.step == .forbidden)
    #expect(try await cast.admin.admin.fetchQuestions(nil, .first).items.count == 1)
  }

  @Test func aFailedLoadIsShownAndARefreshRecovers() async throws {
    try await cast.schedule("Back online?", inDays: 1)
    let schedule = cast.admin.model { QuestionScheduleModel() }
    cast.backend.isOffline = true
    await schedule.task()
    #expect(schedule.state == .failed(.offline))
    cast.backend.isOffline = false
    await schedule.refreshPulled()
    #expect(schedule.state == .loaded)
    #expect(schedule.questions.count == 1)
  }
}
