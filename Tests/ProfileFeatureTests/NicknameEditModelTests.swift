import Clocks
import Dependencies
import Domain
import Foundation
import ProfileFeature
import Repositories
import RepositoriesTesting
import TestSupport
import Testing

/// The live nickname check on an exact clock, with two members competing for names.
@MainActor
@Suite("NicknameEditModel", .timeLimit(.minutes(1)))
struct NicknameEditModelTests {
  let backend = FakeBackend(now: { Fixtures.now })
  let alice: FakeClient
  let bob: FakeClient
  let clock = TestClock()
  /// Every nickname the editor asked the service about, in order.
  let checked = LockIsolated<[String]>([])

  init() throws {
    alice = try backend.signedUpClient(nickname: "alice")
    bob = try backend.signedUpClient(nickname: "bob")
  }

  /// Alice's editor, on the test clock, counting availability requests.
  func editor() -> NicknameEditModel {
    let checked = checked
    return alice.model(clock: clock) {
      let check = $0.authRepository.checkNickname
      $0.authRepository.checkNickname = { nickname in
        checked.withValue { $0.append(nickname.rawValue) }
        return try await check(nickname)
      }
    } _: {
      NicknameEditModel(current: Nickname(trusted: "alice"))
    }
  }

  /// Types `text` into `editor`, lets the typing pause pass on the test clock and waits until
  /// the availability check answered.
  func type(_ text: String, into editor: NicknameEditModel) async throws {
    editor.nicknameChanged(text)
    await clock.advance(by: NicknameEditModel.debounce)
    try await waitUntil(step: clock.turning) { editor.availability != .checking }
  }

  /// Alice's editor on the test clock, whose saves wait at `gate` before they reach the service.
  func editor(savingAt gate: Gate) -> NicknameEditModel {
    alice.model(clock: clock) { values in
      let update = values.profileRepository.updateProfile
      values.profileRepository.updateProfile = { change in
        await gate.wait()
        return try await update(change)
      }
    } _: {
      NicknameEditModel(current: Nickname(trusted: "alice"))
    }
  }

  @Test func theServiceIsAskedOnlyOnceTypingPauses() async throws {
    let editor = editor()
    #expect(editor.text == "alice")
    #expect(editor.availability == .unchanged)
    #expect(!editor.canSave)

    editor.nicknameChanged("bob")
    #expect(editor.availability == .checking)
    await clock.advance(by: NicknameEditModel.debounce - .milliseconds(1))
    #expect(editor.availability == .checking)
    #expect(checked.value == [])
    await clock.advance(by: .milliseconds(1))
    try await waitUntil(step: clock.turning) { editor.availability != .checking }
    #expect(editor.availability == .taken)
    #expect(!editor.canSave)
    #expect(checked.value == ["bob"])

    try await type("bobby", into: editor)
    #expect(editor.availability == .available)
    #expect(editor.canSave)
    #expect(checked.value == ["bob", "bobby"])
  }

  @Test func typingOnCancelsTheCheckOfTheOlderText() async throws {
    let editor = editor()
    for text in ["c", "ca", "car", "caro", "carol"] {
      editor.nicknameChanged(text)
      await clock.advance(by: .milliseconds(100))
    }
    #expect(checked.value == [])
    await clock.advance(by: NicknameEditModel.debounce)
    try await waitUntil(step: clock.turning) { editor.availability != .checking }
    #expect(checked.value == ["carol"])
    #expect(editor.availability == .available)
  }

  @Test func anAnswerToAStaleCheckNeverShows() async throws {
    // The service is slow to answer about "carol", and its answer ignores cancellation.
    let held = LockIsolated<CheckedContinuation<Void, Never>?>(nil)
    let answered = LockIsolated(false)
    let editor = alice.model(clock: clock) {
      let check = $0.authRepository.checkNickname
      $0.authRepository.checkNickname = { nickname in
        guard nickname.rawValue == "carol" else { return try await check(nickname) }
        await withCheckedContinuation { continuation in held.setValue(continuation) }
        defer { answered.setValue(true) }
        return try await check(nickname)
      }
    } _: {
      NicknameEditModel(current: Nickname(trusted: "alice"))
    }
    editor.nicknameChanged("carol")
    await clock.advance(by: NicknameEditModel.debounce)
    try await waitUntil(step: clock.turning) { held.value != nil }
    #expect(held.value != nil)
    // The user types on while "carol" is being asked about.
    try await type("bob", into: editor)
    #expect(editor.availability == .taken)
    // Now "carol" is free, says the late answer; it is about a text no longer there.
    held.value?.resume()
    try await waitUntil(step: clock.turning) { answered.value }
    #expect(answered.value)
    await settleBriefly(clock)
    #expect(editor.availability == .taken)
    #expect(editor.text == "bob")
  }

  @Test func invalidNicknamesAreShownWithoutAskingTheService() async throws {
    let editor = editor()
    let cases: [(String, ValidationError)] = [
      ("", .empty(field: "nickname")),
      ("a", .tooShort(field: "nickname", minimum: 2, actual: 1)),
      ("abcdefghijklm", .tooLong(field: "nickname", maximum: 12, actual: 13)),
      ("al ice!", .invalidCharacters(field: "nickname", characters: " !")),
      ("Admin", .reserved(field: "nickname", value: "Admin")),
    ]
    for (text, error) in cases {
      editor.nicknameChanged(text)
      #expect(editor.availability == .invalid(error), "\(text)")
      #expect(!editor.canSave)
    }
    // Real time for the cancelled checks to leave the clock: the full suite keeps the cores busy.
    await clock.run(timeout: .seconds(30))
    #expect(checked.value == [])
    await editor.saveButtonTapped()
    #expect(try await alice.profile.fetchMe().nickname.rawValue == "alice")
  }

  @Test func goingBackToTheCurrentNameOrChangingItsCaseNeedsNoCheck() async throws {
    let editor = editor()
    editor.nicknameChanged("bob")
    editor.nicknameChanged("alice")
    #expect(editor.availability == .unchanged)
    editor.nicknameChanged("Alice")
    #expect(editor.availability == .available)
    // Real time for the cancelled checks to leave the clock: the full suite keeps the cores busy.
    await clock.run(timeout: .seconds(30))
    #expect(checked.value == [])
    var outcome: NicknameEditModel.Outcome?
    editor.onFinish = { outcome = $0 }
    await editor.saveButtonTapped()
    guard case .saved(let user) = outcome else {
      Issue.record("not saved: \(String(describing: editor.failure))")
      return
    }
    #expect(user.nickname.rawValue == "Alice")
  }

  @Test func savingANameTakenMeanwhileShowsItAsTaken() async throws {
    let editor = editor()
    var outcome: NicknameEditModel.Outcome?
    editor.onFinish = { outcome = $0 }
    try await type("carol", into: editor)
    #expect(editor.availability == .available)
    // Bob takes it before Alice saves.
    _ = try await bob.profile.updateProfile(ProfileUpdate(nickname: Nickname(trusted: "carol")))
    await editor.saveButtonTapped()
    #expect(editor.availability == .taken)
    #expect(editor.failure == nil)
    #expect(outcome == nil)
    #expect(!editor.isSaving)
    #expect(try await alice.profile.fetchMe().nickname.rawValue == "alice")
  }

  @Test func typingOnWhileASaveIsRefusedKeepsTheStateOfTheNewText() async throws {
    let gate = Gate()
    let editor = editor(savingAt: gate)
    var outcome: NicknameEditModel.Outcome?
    editor.onFinish = { outcome = $0 }
    try await type("carol", into: editor)
    #expect(editor.availability == .available)
    // Bob takes it; Alice's save of it is on its way while she types on.
    _ = try await bob.profile.updateProfile(ProfileUpdate(nickname: Nickname(trusted: "carol")))
    let save = Task { await editor.saveButtonTapped() }
    try await gate.waitForArrivals()
    try await type("carol2", into: editor)
    #expect(editor.availability == .available)
    // The refusal is about "carol", no longer in the field.
    await gate.open()
    await save.value
    #expect(outcome == nil)
    #expect(editor.text == "carol2")
    #expect(editor.availability == .available)
    #expect(editor.canSave)
  }

  @Test("cancelling while the nickname is saved is ignored: the editor ends once, saved")
  func cancellingWhileSavingEndsOnceSaved() async throws {
    let gate = Gate()
    let editor = editor(savingAt: gate)
    var outcomes: [NicknameEditModel.Outcome] = []
    editor.onFinish = { outcomes.append($0) }
    // Only the case changes: no availability check to wait for.
    editor.nicknameChanged("Alice")
    try await gate.whileHeld(editor.saveButtonTapped) {
      editor.cancelButtonTapped()
      #expect(outcomes.isEmpty)
    }
    guard case .saved(let user) = outcomes.first, outcomes.count == 1 else {
      Issue.record("ended \(outcomes), not once saved")
      return
    }
    #expect(user.nickname.rawValue == "Alice")
  }

  @Test func offlineChecksAndSavesAreShown() async throws {
    let editor = editor()
    backend.isOffline = true
    try await type("carol", into: editor)
    #expect(editor.availability == .checkFailed(.offline))
    #expect(editor.canSave)
    await editor.saveButtonTapped()
    #expect(editor.failure == .offline)
    #expect(!editor.isSaving)
    editor.failureDismissed()
    #expect(editor.failure == nil)
    backend.isOffline = false
    var outcome: NicknameEditModel.Outcome?
    editor.onFinish = { outcome = $0 }
    await editor.saveButtonTapped()
    guard case .saved(let user) = outcome else {
      Issue.record("not saved: \(String(describing: editor.failure))")
      return
    }
    #expect(user.nickname.rawValue == "carol")
    #expect(backend.user(named: "carol")?.id == (try alice.userID))
  }

  @Test func aSaveThatFailsBeforeTheCheckRanDoesNotLeaveTheCheckSpinning() async throws {
    let editor = editor()
    editor.nicknameChanged("carol")
    #expect(editor.availability == .checking)
    // Save during the pause (it cancels the check), and the save fails.
    backend.isOffline = true
    await editor.saveButtonTapped()
    #expect(editor.failure == .offline)
    // Real time for the cancelled check to leave the clock: the full suite keeps the cores busy.
    await clock.run(timeout: .seconds(30))
    #expect(checked.value == [])
    #expect(editor.availability == .checkFailed(.offline))
    #expect(editor.canSave)
  }

  @Test func cancellingStopsThePendingCheck() async throws {
    let editor = editor()
    var outcome: NicknameEditModel.Outcome?
    editor.onFinish = { outcome = $0 }
    editor.nicknameChanged("carol")
    editor.cancelButtonTapped()
    #expect(outcome == .cancelled)
    // Real time for the cancelled checks to leave the clock: the full suite keeps the cores busy.
    await clock.run(timeout: .seconds(30))
    #expect(checked.value == [])
  }
}
