import Dependencies
import Domain
import Foundation
import Observation
import Repositories

/// Importing questions from a CSV file: pick a file, see a preview with every refused line
/// before anything is written, import, see what was added.
///
/// The preview reads the file with ``Domain/QuestionImportFile``, the same rule the service
/// applies when it imports, then reads the stored questions to name the lines whose day is
/// already taken (``takenDays``). A line the preview accepts is refused later only if its day
/// was taken after the preview read them; such refusals come back in the result.
@MainActor @Observable
public final class QuestionImportModel {
  /// Where the import stands; a view shows one screen per step.
  public enum Step: Hashable, Sendable {
    /// No file yet.
    case chooseFile
    /// The file cannot be read at all (not UTF-8, empty, unclosed quote, wrong header):
    /// nothing can be imported from it.
    case refused(fileName: String, ValidationError)
    /// The file's lines, good and refused; ``QuestionImportModel/importButtonTapped()``
    /// imports the good ones.
    case preview(fileName: String, QuestionImportFile)
    /// The import ran: how many were added and which lines were refused.
    case imported(fileName: String, QuestionImportResult)
    /// The account is not an admin: nothing was imported.
    case forbidden
  }

  /// The current step.
  public private(set) var step: Step = .chooseFile
  /// The import is running: the button shows progress and ignores taps.
  public private(set) var isImporting = false
  /// The last failure of the import (offline, ...), shown until ``failureDismissed()``; the
  /// preview stays and the import can be tried again. A failure to read the stored questions
  /// for the preview shows here too (the import can still run; the service checks the days).
  public private(set) var failure: DomainError?
  /// The good lines of the preview the import will refuse because their day already has a
  /// question (a stored one, or an earlier line of the file), in the service's words; known once
  /// ``isCheckingDays`` is over.
  public private(set) var takenDays: [QuestionImportResult.LineError] = []
  /// The preview is reading the stored questions' days.
  public private(set) var isCheckingDays = false

  @ObservationIgnored private var file: Data?
  /// Counts chosen files, so a day check that ends after another file was chosen is dropped.
  @ObservationIgnored private var choice = 0
  @ObservationIgnored @Dependency(\.adminRepository) private var admin
  @ObservationIgnored @Dependency(\.analyticsRepository) private var analytics
  @ObservationIgnored @Dependency(\.date) private var date

  /// Creates the import screen.
  public init() {}

  /// Whether a readable file is previewed and nothing is running. A file whose every line is
  /// refused may still be sent: the result then lists the same refusals as the preview.
  public var canImport: Bool {
    guard case .preview = step, !isImporting else { return false }
    return true
  }

  /// The screen appeared.
  public func task() async {
    await analytics.screenViewed("admin_question_import", at: date.now)
  }

  /// The admin picked a file: its contents and its name. Shows the preview at once (nothing
  /// is sent), then reads the stored questions and names the lines whose day is taken.
  public func fileChosen(_ data: Data, named fileName: String) async {
    guard !isImporting else { return }
    failure = nil
    takenDays = []
    choice += 1
    isCheckingDays = false
    let preview: QuestionImportFile
    do {
      preview = try QuestionImportFile(parsing: data)
      step = .preview(fileName: fileName, preview)
      file = data
    } catch {
      step = .refused(fileName: fileName, error)
      file = nil
      return
    }
    let current = choice
    isCheckingDays = true
    defer { if current == choice { isCheckingDays = false } }
    do {
      let stored = try await Page.all { try await admin.fetchQuestions(nil, $0) }
      guard current == choice else { return }
      takenDays = preview.dayConflicts(taken: Set(stored.map(\.publishDate)))
    } catch DomainError.forbidden {
      if current == choice { step = .forbidden }
    } catch {
      if current == choice { failure = DomainError(error) }
    }
  }

  /// "Import" was tapped on the preview: sends the file; the good lines are added.
  public func importButtonTapped() async {
    guard canImport, case .preview(let fileName, _) = step, let file else { return }
    // A day check still running is dropped: the import's result names the taken days.
    choice += 1
    isCheckingDays = false
    isImporting = true
    failure = nil
    defer { isImporting = false }
    do {
      let result = try await admin.importQuestions(file)
      step = .imported(fileName: fileName, result)
      await analytics.track(
        "questions_imported",
        ["imported": "\(result.imported)", "refused": "\(result.errors.count)"], at: date.now)
    } catch DomainError.forbidden {
      step = .forbidden
    } catch {
      failure = DomainError(error)
    }
  }

  /// "Choose another file" was tapped: back to the start.
  public func chooseAnotherFileTapped() {
    guard !isImporting else { return }
    failure = nil
    file = nil
    takenDays = []
    choice += 1
    isCheckingDays = false
    step = .chooseFile
  }

  /// The failure was read.
  public func failureDismissed() {
    failure = nil
  }
}
