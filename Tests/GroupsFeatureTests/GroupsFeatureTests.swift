import ChatFeature
import Clocks
import Dependencies
import Domain
import Foundation
import GroupsFeature
import Repositories
import RepositoriesTesting
import TestSupport
import Testing

/// The Groups tab and a group's screen on the fakes: several members on shared groups, the
/// engine's rules (the owner cannot leave, only members invite, only the owner deletes), a
/// debounced search on the test clock.
@MainActor
@Suite("GroupsFeature")
struct GroupsFeatureTests {
  let backend = FakeBackend(now: { Fixtures.now })
  let clock = TestClock()
  let alice: FakeClient
  let bob: FakeClient

  init() throws {
    alice = try backend.signedUpClient(nickname: "alice")
    bob = try backend.signedUpClient(nickname: "bob")
  }

  /// Runs `body` in a task, as a view does, with a flag saying when it has returned.
  func started(
    _ body: @escaping @MainActor () async -> Void
  ) -> (task: Task<Void, Never>, hasReturned: LockIsolated<Bool>) {
    let hasReturned = LockIsolated(false)
    let task = Task {
      await body()
      hasReturned.setValue(true)
    }
    return (task, hasReturned)
  }

  /// bob's Groups tab whose group reads that `hold` picks answer what the server said when
  /// they were read, but only once `released` yields or ends: a page on its way while the test
  /// changes the groups. A held read whose task is cancelled fails at once, as a network call
  /// does, unless it `ignoresCancellation` (then it still answers late).
  func tabHoldingReads(
    until released: AsyncStream<Void>, ignoresCancellation: Bool = false,
    _ hold: @escaping @Sendable (_ query: String?, _ page: PageRequest) -> Bool
  ) -> GroupsModel {
    bob.model(clock: clock) {
      let fetch = $0.studyGroupRepository.fetchGroups
      $0.studyGroupRepository.fetchGroups = { query, page in
        let answer = try await fetch(query, page)
        guard hold(query, page) else { return answer }
        if ignoresCancellation {
          await Task { for await _ in released { break } }.value
        } else {
          for await _ in released { break }
          try Task.checkCancellation()
        }
        return answer
      }
    } _: {
      GroupsModel()
    }
  }

  func createGroup(_ name: String, by client: FakeClient) async throws -> StudyGroup {
    try await client.studyGroups.createGroup(StudyGroupDraft(name: name))
  }

  // MARK: The tab

  @Test func theListPagesAndATapOpensTheGroup() async throws {
    var created: [StudyGroup] = []
    for number in 1...25 { created.append(try await createGroup("Group \(number)", by: alice)) }
    let groups = bob.model(clock: clock) { GroupsModel() }
    var opened: [DeepLink] = []
    groups.onNavigate = { opened.append($0) }
    await groups.task()
    #expect(groups.groups.count == GroupsModel.pageSize)
    #expect(groups.hasMore)
    #expect(!groups.isLoading)
    await groups.loadMoreTapped()
    #expect(groups.groups.count == 25)
    #expect(Set(groups.groups.map(\.id)) == Set(created.map(\.id)))
    #expect(!groups.hasMore)
    await groups.loadMoreTapped()
    #expect(groups.groups.count == 25)

    groups.groupTapped(created[3].id)
    #expect(opened == [.group(created[3].id)])
    let events = try await bob.uploadedEvents()
    #expect(events.map(\.name) == ["screen_viewed"])
    #expect(events.first?.properties == ["screen": "groups"])
  }

  @Test func searchWaitsForTheTextToRestAndDropsStaleSearches() async throws {
    for name in ["Swift Study", "SwiftUI Club", "Algorithms"] {
      _ = try await createGroup(name, by: alice)
    }
    let groups = bob.model(clock: clock) { GroupsModel() }
    await groups.task()
    #expect(groups.groups.count == 3)

    let stale = started { await groups.searchTextChanged("Alg") }
    await eventually("the first search is armed") { groups.searchText == "Alg" }
    await clock.advance(by: .milliseconds(200))
    #expect(groups.groups.count == 3)
    let current = started { await groups.searchTextChanged("Swift") }
    await eventually("the second search is armed") { groups.searchText == "Swift" }
    await eventually("the stale search is cancelled") { stale.hasReturned.value }
    await clock.advance(by: .milliseconds(299))
    #expect(groups.groups.count == 3)
    // Just past the deadline: a timer that starts sleeping late, exactly at its deadline,
    // would wait for the next advance on a test clock.
    await clock.advance(by: .milliseconds(2))
    await eventually("the search answers") { current.hasReturned.value }
    #expect(Set(groups.groups.map(\.name)) == ["Swift Study", "SwiftUI Club"])
    #expect(!groups.isLoading)
    #expect(groups.failure == nil)
    // Refreshing the results, or the screen appearing again, is no new search.
    await groups.refreshPulled()
    await groups.task()
    #expect(Set(groups.groups.map(\.name)) == ["Swift Study", "SwiftUI Club"])

    let cleared = started { await groups.searchTextChanged("  ") }
    await eventually("the empty search is armed") { groups.searchText == "  " }
    await clock.advance(by: GroupsModel.searchDebounce + .milliseconds(1))
    await eventually("the full list is back") { cleared.hasReturned.value }
    #expect(groups.groups.count == 3)

    let events = try await bob.uploadedEvents()
    // One search reached the server: the stale one never did.
    #expect(events.map(\.name) == ["screen_viewed", "groups_searched", "screen_viewed"])
    #expect(events[1].properties == ["result_count": "2"])
  }

  @Test func aRefreshShowsTheRowsOfTheTextInTheFieldNeverAnOlderSearch() async throws {
    for name in ["Swift Study", "SwiftUI Club", "Algorithms"] {
      _ = try await createGroup(name, by: alice)
    }
    let groups = bob.model(clock: clock) { GroupsModel() }
    await groups.task()
    let first = started { await groups.searchTextChanged("Swift") }
    await eventually("the first search is armed") { groups.searchText == "Swift" }
    await clock.advance(by: GroupsModel.searchDebounce + .milliseconds(1))
    await eventually("Swift answers") { first.hasReturned.value }
    #expect(Set(groups.groups.map(\.name)) == ["Swift Study", "SwiftUI Club"])

    // A newer text waits for its pause; a refresh meanwhile shows that text's groups.
    let waiting = started { await groups.searchTextChanged("Alg") }
    await eventually("the Alg search is armed") { groups.searchText == "Alg" }
    await groups.refreshPulled()
    #expect(groups.groups.map(\.name) == ["Algorithms"])
    await clock.advance(by: GroupsModel.searchDebounce + .milliseconds(1))
    await eventually("Alg answers") { waiting.hasReturned.value }
    #expect(groups.groups.map(\.name) == ["Algorithms"])

    // A search that failed keeps the rows shown; a refresh then searches the field's text.
    backend.isOffline = true
    let failing = started { await groups.searchTextChanged("Club") }
    await eventually("the Club search is armed") { groups.searchText == "Club" }
    await clock.advance(by: GroupsModel.searchDebounce + .milliseconds(1))
    await eventually("Club fails") { failing.hasReturned.value }
    #expect(groups.failure == .offline)
    #expect(groups.groups.map(\.name) == ["Algorithms"])
    backend.isOffline = false
    await groups.refreshPulled()
    #expect(groups.groups.map(\.name) == ["SwiftUI Club"])
    #expect(groups.failure == nil && !groups.isLoading)
    // Each text's search answered once: Swift, Alg (run by the refresh instead of its pause),
    // Club (by the refresh after it failed).
    let searches = try await bob.uploadedEvents().filter { $0.name == "groups_searched" }
    #expect(searches.map { $0.properties["result_count"] } == ["2", "1", "1"])
  }

  @Test func aGroupDeletedWhileASearchLoadsStaysGoneWhenItLands() async throws {
    let deleted = try await createGroup("Swift Study", by: alice)
    _ = try await createGroup("SwiftUI Club", by: alice)
    // The search's page is read before the delete and arrives after it.
    let (released, release) = AsyncStream<Void>.makeStream()
    let groups = tabHoldingReads(until: released) { query, _ in query != nil }
    await groups.task()
    let search = started { await groups.searchTextChanged("Swift") }
    await eventually("the search is armed") { groups.searchText == "Swift" }
    await clock.advance(by: GroupsModel.searchDebounce + .milliseconds(1))
    await eventually("the search is loading") { groups.isLoading }
    groups.groupDeleted(deleted.id)
    release.finish()
    await eventually("the search answers") { search.hasReturned.value }
    #expect(groups.groups.map(\.name) == ["SwiftUI Club"])
  }

  /// The refresh cancels the search's task: a read that then fails is not a failure to show, and
  /// one that answers anyway, after the refresh's own search, does not replace it.
  @Test(arguments: [false, true])
  func aSearchThatARefreshReplacedNeverLandsOverItsReplacement(
    readIgnoresCancellation: Bool
  ) async throws {
    let kept = try await createGroup("Swift Study", by: alice)
    let deleted = try await createGroup("SwiftUI Club", by: alice)
    let (released, release) = AsyncStream<Void>.makeStream()
    let firstSearchRead = LockIsolated(false)
    let groups = tabHoldingReads(
      until: released, ignoresCancellation: readIgnoresCancellation
    ) { query, _ in
      guard query != nil, !firstSearchRead.value else { return false }
      firstSearchRead.setValue(true)
      return true
    }
    await groups.task()
    let search = started { await groups.searchTextChanged("Swift") }
    try await clock.waitForSleeper()
    await clock.advance(by: GroupsModel.searchDebounce + .milliseconds(1))
    try await waitUntil("the first search's page is read") { firstSearchRead.value }
    // The text has no results yet, so the refresh runs its search again; that one lands.
    await groups.refreshPulled()
    #expect(Set(groups.groups.map(\.id)) == [kept.id, deleted.id])
    try await alice.studyGroups.deleteGroup(deleted.id)
    groups.groupDeleted(deleted.id)
    release.finish()
    try await waitUntil("the first search returns") { search.hasReturned.value }
    #expect(groups.groups.map(\.id) == [kept.id])
    #expect(groups.failure == nil)
  }

  /// The field is cleared and, while the whole list loads, the list is pulled: the refresh
  /// loads the whole list again, and the load it cancelled must not take its place.
  @Test func aRefreshWhileTheClearedFieldLoadsTheListShowsTheList() async throws {
    for name in ["Swift Study", "Algorithms", "Design"] {
      _ = try await createGroup(name, by: alice)
    }
    let (released, release) = AsyncStream<Void>.makeStream()
    let holding = Locked(false)
    let groups = tabHoldingReads(until: released) { query, _ in
      query == nil && holding.withLock { $0 }
    }
    await groups.task()
    let search = started { await groups.searchTextChanged("Swift") }
    try await clock.waitForSleeper()
    await clock.advance(by: GroupsModel.searchDebounce + .milliseconds(1))
    try await waitUntil("Swift answers") { search.hasReturned.value }
    #expect(groups.groups.map(\.name) == ["Swift Study"])
    holding.withLock { $0 = true }
    let cleared = started { await groups.searchTextChanged("") }
    try await clock.waitForSleeper()
    await clock.advance(by: GroupsModel.searchDebounce + .milliseconds(1))
    try await waitUntil("the whole list is loading") { groups.isLoading }
    let refresh = started { await groups.refreshPulled() }
    release.finish()
    try await waitUntil("both returned") { cleared.hasReturned.value && refresh.hasReturned.value }
    #expect(groups.groups.count == 3)
    #expect(!groups.isLoading && groups.failure == nil)
  }

  @Test func aGroupJoinedWhileARefreshLoadsShowsJoinedWhenItLands() async throws {
    let group = try await createGroup("Swift Study", by: alice)
    // The refresh's page is read before the join and arrives after it.
    let (released, release) = AsyncStream<Void>.makeStream()
    let holding = Locked(false)
    let groups = tabHoldingReads(until: released) { _, _ in holding.withLock { $0 } }
    await groups.task()
    holding.withLock { $0 = true }
    let refresh = started { await groups.refreshPulled() }
    await eventually("the refresh is loading") { groups.isLoading }
    let joined = try await bob.studyGroups.joinGroup(group.id)
    groups.groupChanged(joined)
    release.finish()
    await eventually("the refresh answers") { refresh.hasReturned.value }
    #expect(groups.groups.map(\.isMember) == [true])
    #expect(groups.groups.map(\.memberCount) == [2])
  }

  @Test func aFailedLoadIsShownUntilDismissedAndRefreshRecovers() async throws {
    _ = try await createGroup("Swift Study", by: alice)
    let groups = bob.model(clock: clock) { GroupsModel() }
    backend.isOffline = true
    await groups.task()
    #expect(groups.failure == .offline)
    #expect(groups.groups.isEmpty)
    groups.failureDismissed()
    #expect(groups.failure == nil)
    backend.isOffline = false
    await groups.refreshPulled()
    #expect(groups.groups.map(\.name) == ["Swift Study"])
  }

  @Test func aPageReadBeforeARefreshNeverLandsInTheRefreshedList() async throws {
    var created: [StudyGroup] = []
    for number in 1...25 { created.append(try await createGroup("Group \(number)", by: alice)) }
    let (released, release) = AsyncStream<Void>.makeStream()
    let nextPageRead = LockIsolated(false)
    // The first further page is read, then held while the list changes and is refreshed.
    // (One page loads at a time: nothing else reads the flag meanwhile.)
    let groups = tabHoldingReads(until: released) { _, page in
      guard page.cursor != nil, !nextPageRead.value else { return false }
      nextPageRead.setValue(true)
      return true
    }
    await groups.task()
    let more = started { await groups.loadMoreTapped() }
    await eventually("the next page is read") { nextPageRead.value }
    // The oldest group, on that page, is deleted; then the list is refreshed.
    try await alice.studyGroups.deleteGroup(created[0].id)
    await groups.refreshPulled()
    release.yield()
    await eventually("the held page has arrived") { more.hasReturned.value }
    #expect(groups.groups.count == GroupsModel.pageSize)
    #expect(!groups.groups.contains { $0.id == created[0].id })
    #expect(groups.hasMore)
    await groups.loadMoreTapped()
    #expect(Set(groups.groups.map(\.id)) == Set(created.dropFirst().map(\.id)))
    #expect(!groups.hasMore)
  }

  @Test func creatingAGroupChecksTheFieldsThenOpensIt() async throws {
    let groups = alice.model(clock: clock) { GroupsModel() }
    var opened: [DeepLink] = []
    groups.onNavigate = { opened.append($0) }
    groups.createGroupButtonTapped()
    guard case .createGroup(let sheet) = groups.destination else {
      Issue.record("no sheet")
      return
    }
    await sheet.task()
    #expect(!sheet.canSubmit)
    #expect(sheet.validationError == .empty(field: "name"))
    await sheet.createButtonTapped()
    #expect(sheet.failure == .validation(.empty(field: "name")))
    sheet.failureDismissed()
    sheet.name = String(repeating: "x", count: 31)
    #expect(!sheet.canSubmit)

    sheet.name = "  Swift Study  "
    sheet.description = "One screen a week"
    #expect(sheet.canSubmit)
    backend.isOffline = true
    await sheet.createButtonTapped()
    #expect(sheet.failure == .offline)
    #expect(!sheet.isSubmitting)
    backend.isOffline = false
    await sheet.createButtonTapped()
    #expect(groups.destination == nil)
    let group = try #require(groups.groups.first)
    #expect(group.name == "Swift Study")
    #expect(group.owner.nickname == "alice")
    #expect(opened == [.group(group.id)])
    #expect(try await bob.studyGroups.fetchGroup(group.id).description == "One screen a week")
    let names = try await alice.uploadedEvents().map(\.name)
    #expect(names == ["screen_viewed", "group_created"])
  }

  @Test func creatingTooOftenIsRefusedWithTheWait() async throws {
    backend.rateLimit = FakeRateLimit(maximumWrites: 1, per: .seconds(60))
    let groups = alice.model(clock: clock) { GroupsModel() }
    for name in ["First", "Second"] {
      groups.createGroupButtonTapped()
      guard case .createGroup(let sheet) = groups.destination else {
        Issue.record("no sheet")
        return
      }
      sheet.name = name
      await sheet.createButtonTapped()
    }
    guard case .createGroup(let refused) = groups.destination else {
      Issue.record("the refused sheet closed")
      return
    }
    guard case .rateLimited = refused.failure else {
      Issue.record("failure: \(String(describing: refused.failure))")
      return
    }
    #expect(refused.name == "Second")
    #expect(groups.groups.map(\.name) == ["First"])
  }

  @Test func theChatListIsAChildWhoseLinksGoThroughTheTab() async throws {
    let group = try await createGroup("Swift Study", by: alice)
    _ = try await bob.studyGroups.joinGroup(group.id)
    let groups = bob.model(clock: clock) { GroupsModel() }
    var opened: [DeepLink] = []
    groups.onNavigate = { opened.append($0) }
    let chats = Task { await groups.chats.task() }
    defer { chats.cancel() }
    // The child reads bob's rooms: it runs with the tab's dependencies.
    try await waitUntil("the child lists bob's room") { !groups.chats.rooms.isEmpty }
    let room = try #require(groups.chats.rooms.first)
    #expect(room.kind == .group(group.id))
    groups.chats.roomTapped(room.id)
    #expect(opened == [.chatRoom(room.id)])
  }

  // MARK: A group

  @Test func aRefreshThatReadTheGroupBeforeAJoinDoesNotUndoIt() async throws {
    let group = try await createGroup("Swift Study", by: alice)
    // The refresh's members page waits; its group was read before the join.
    let (gate, opener) = AsyncStream.makeStream(of: Void.self)
    let memberReads = LockIsolated(0)
    let changes = LockIsolated<[Bool]>([])
    let detail = bob.model(clock: clock) { values in
      let fetch = values.studyGroupRepository.fetchMembers
      values.studyGroupRepository.fetchMembers = { id, page in
        let read = memberReads.withValue {
          $0 += 1
          return $0
        }
        if read == 2 { for await _ in gate { break } }
        return try await fetch(id, page)
      }
    } _: {
      GroupDetailModel(groupID: group.id)
    }
    detail.onGroupChanged = { changed in changes.withValue { $0.append(changed.isMember) } }
    await detail.task()
    #expect(detail.canJoin)
    let refresh = Task { await detail.refreshPulled() }
    guard await eventually("the refresh waits for its members", { memberReads.value == 2 }) else {
      return
    }
    await detail.joinButtonTapped()
    #expect(detail.isMember)
    opener.yield()
    await refresh.value
    #expect(detail.isMember && !detail.canJoin)
    #expect(!detail.isLoading)
    // The groups list heard of the join last, not of the old group after it.
    #expect(changes.value.last == true)
  }

  @Test("a load overtaken by a newer one does not put its older group back when it lands")
  func anOvertakenLoadDoesNotLand() async throws {
    let group = try await createGroup("Swift Study", by: alice)
    // The screen's first read of the group answers when the gate opens.
    let gate = Gate(holding: 1)
    let changes = LockIsolated<[Int]>([])
    let detail = bob.model(clock: clock) { values in
      let fetch = values.studyGroupRepository.fetchGroup
      values.studyGroupRepository.fetchGroup = { id in
        let read = try await fetch(id)
        await gate.wait()
        return read
      }
    } _: {
      GroupDetailModel(groupID: group.id)
    }
    detail.onGroupChanged = { changed in changes.withValue { $0.append(changed.memberCount) } }
    let carol = try backend.signedUpClient(nickname: "carol")
    try await gate.whileHeld(detail.task) {
      _ = try await carol.studyGroups.joinGroup(group.id)
      await detail.refreshPulled()
      #expect(detail.group?.memberCount == 2)
    }
    #expect(detail.group?.memberCount == 2)
    #expect(detail.members.count == 2)
    #expect(changes.value == [2])
    #expect(!detail.isLoading)
  }

  @Test func aCancelledLoadIsNoFailure() async throws {
    let group = try await createGroup("Swift Study", by: alice)
    let cancels = LockIsolated(true)
    let detail = bob.model(clock: clock) { values in
      let fetch = values.studyGroupRepository.fetchGroup
      values.studyGroupRepository.fetchGroup = { id in
        if cancels.value { throw CancellationError() }
        return try await fetch(id)
      }
    } _: {
      GroupDetailModel(groupID: group.id)
    }
    await detail.task()
    #expect(detail.group == nil && detail.failure == nil)
    cancels.setValue(false)
    await detail.task()
    #expect(detail.group?.name == "Swift Study")
  }

  @Test func joiningAndLeavingUpdateTheGroupAndItsMembers() async throws {
    let group = try await createGroup("Swift Study", by: alice)
    let detail = bob.model(clock: clock) { GroupDetailModel(groupID: group.id) }
    await detail.task()
    #expect(detail.group?.name == "Swift Study")
    #expect(detail.canJoin && !detail.canLeave && !detail.canDelete && !detail.canInvite)
    #expect(detail.members.map(\.user.nickname) == ["alice"])
    #expect(detail.members.first?.role == .owner)

    await detail.joinButtonTapped()
    #expect(detail.failure == nil)
    #expect(detail.isMember && detail.canLeave && !detail.canJoin)
    #expect(detail.group?.memberCount == 2)
    #expect(detail.members.map(\.user.nickname) == ["alice", "bob"])

    await detail.leaveButtonTapped()
    #expect(detail.failure == nil)
    #expect(!detail.isMember && detail.canJoin)
    #expect(detail.group?.memberCount == 1)
    #expect(detail.members.map(\.user.nickname) == ["alice"])
    let events = try await bob.uploadedEvents()
    #expect(events.map(\.name) == ["screen_viewed", "group_joined", "group_left"])
    #expect(events.first?.properties == ["screen": "group_detail"])
  }

  @Test func joiningAndLeavingReachTheListThroughTheCallback() async throws {
    let group = try await createGroup("Swift Study", by: alice)
    let other = try await createGroup("Algorithms", by: alice)
    let groups = bob.model(clock: clock) { GroupsModel() }
    await groups.task()
    let detail = bob.model(clock: clock) { GroupDetailModel(groupID: group.id) }
    var changed: [StudyGroup] = []
    detail.onGroupChanged = {
      changed.append($0)
      groups.groupChanged($0)
    }
    await detail.task()
    // Loading hands the group over too (a change made elsewhere reaches the list).
    #expect(changed.map(\.isMember) == [false])
    changed = []
    func row(_ id: StudyGroup.ID) -> StudyGroup? { groups.groups.first { $0.id == id } }

    await detail.joinButtonTapped()
    #expect(changed.map(\.isMember) == [true])
    #expect(row(group.id)?.isMember == true)
    #expect(row(group.id)?.memberCount == 2)
    #expect(row(other.id)?.isMember == false)
    // The list is what a fresh load shows.
    #expect(groups.groups == (try await bob.studyGroups.fetchGroups(nil, .first).items))

    await detail.leaveButtonTapped()
    #expect(changed.map(\.isMember) == [true, false])
    #expect(row(group.id)?.isMember == false)
    #expect(row(group.id)?.memberCount == 1)
    #expect(groups.groups == (try await bob.studyGroups.fetchGroups(nil, .first).items))

    // A refused change tells nobody.
    backend.isOffline = true
    await detail.joinButtonTapped()
    #expect(detail.failure == .offline)
    #expect(changed.count == 2)
    backend.isOffline = false
    // A group the list does not show stays out of it.
    groups.groupChanged(try await createGroup("Not listed", by: alice))
    #expect(Set(groups.groups.map(\.id)) == [group.id, other.id])
  }

  @Test func deletingTheGroupRemovesItsRowThroughTheDismissCallback() async throws {
    let group = try await createGroup("Swift Study", by: alice)
    let other = try await createGroup("Algorithms", by: alice)
    let groups = alice.model(clock: clock) { GroupsModel() }
    await groups.task()
    let detail = alice.model(clock: clock) { GroupDetailModel(groupID: group.id) }
    detail.onDismiss = { groups.groupDeleted(group.id) }
    await detail.task()
    detail.deleteButtonTapped()
    await detail.deletionConfirmed()
    #expect(detail.failure == nil)
    #expect(groups.groups.map(\.id) == [other.id])
    #expect(groups.groups == (try await alice.studyGroups.fetchGroups(nil, .first).items))
    // A group the list does not show changes nothing.
    groups.groupDeleted("g_404")
    #expect(groups.groups.map(\.id) == [other.id])
  }

  @Test func aLeaveWhoseFollowUpReadsFailStillShowsAndReachesTheList() async throws {
    let group = try await createGroup("Swift Study", by: alice)
    _ = try await bob.studyGroups.joinGroup(group.id)
    let groups = bob.model(clock: clock) { GroupsModel() }
    await groups.task()
    let readsFail = Locked(false)
    let detail = bob.model(clock: clock) {
      let repository = $0.studyGroupRepository
      $0.studyGroupRepository.fetchGroup = { id in
        if readsFail.withLock({ $0 }) { throw DomainError.offline }
        return try await repository.fetchGroup(id)
      }
      $0.studyGroupRepository.fetchMembers = { id, page in
        if readsFail.withLock({ $0 }) { throw DomainError.offline }
        return try await repository.fetchMembers(id, page)
      }
    } _: {
      GroupDetailModel(groupID: group.id)
    }
    detail.onGroupChanged = { groups.groupChanged($0) }
    await detail.task()
    #expect(detail.group?.isMember == true)

    readsFail.withLock { $0 = true }
    await detail.leaveButtonTapped()
    // The leave happened: the screen and the list show it; the failed read is said.
    #expect(detail.group?.isMember == false)
    #expect(detail.group?.memberCount == 1)
    #expect(detail.failure == .offline)
    let row = groups.groups.first { $0.id == group.id }
    #expect(row?.isMember == false)
    #expect(row?.memberCount == 1)
    #expect(row == (try await bob.studyGroups.fetchGroup(group.id)))
    #expect(try await bob.uploadedEvents().map(\.name).contains("group_left"))
  }

  @Test func aFailedJoinIsShownAndChangesNothing() async throws {
    let group = try await createGroup("Swift Study", by: alice)
    let detail = bob.model(clock: clock) { GroupDetailModel(groupID: group.id) }
    await detail.task()
    backend.isOffline = true
    await detail.joinButtonTapped()
    #expect(detail.failure == .offline)
    #expect(!detail.isMember && !detail.isUpdatingMembership)
    #expect(detail.group?.memberCount == 1)
    backend.isOffline = false
    detail.failureDismissed()
    await detail.refreshPulled()
    #expect(detail.failure == nil)
    #expect(try await alice.studyGroups.fetchMembers(group.id, .first).items.count == 1)
  }

  @Test func theOwnerCannotLeaveButDeletesAfterConfirming() async throws {
    let group = try await createGroup("Swift Study", by: alice)
    _ = try await bob.studyGroups.joinGroup(group.id)
    let detail = alice.model(clock: clock) { GroupDetailModel(groupID: group.id) }
    var dismissed = 0
    detail.onDismiss = { dismissed += 1 }
    await detail.task()
    #expect(detail.isOwner && detail.canDelete && !detail.canLeave)

    await detail.leaveButtonTapped()
    #expect(detail.failure == .conflict("The owner cannot leave the group; delete it instead."))
    #expect(detail.isMember)
    detail.failureDismissed()

    detail.deleteButtonTapped()
    #expect(detail.destination == .confirmDeletion)
    detail.destinationDismissed()
    #expect(detail.destination == nil)
    await detail.deletionConfirmed()
    #expect(dismissed == 0)
    #expect(try await bob.studyGroups.fetchGroup(group.id).id == group.id)

    detail.deleteButtonTapped()
    await detail.deletionConfirmed()
    #expect(dismissed == 1)
    #expect(detail.failure == nil)
    await #expect(throws: DomainError.notFound) {
      try await bob.studyGroups.fetchGroup(group.id)
    }
    // A screen opened on the deleted group says it is gone.
    let stale = bob.model(clock: clock) { GroupDetailModel(groupID: group.id) }
    await stale.task()
    #expect(stale.failure == .notFound)
    #expect(stale.group == nil)
    let names = try await alice.uploadedEvents().map(\.name)
    #expect(names == ["screen_viewed", "group_deleted"])
  }

  @Test("deleting a group already deleted on another device drops it from the list")
  func deletingAGroupDeletedElsewhereDropsIt() async throws {
    let group = try await createGroup("Swift Study", by: alice)
    let detail = alice.model(clock: clock) { GroupDetailModel(groupID: group.id) }
    let gone = LockIsolated(0)
    detail.onGroupGone = { gone.withValue { $0 += 1 } }
    await detail.task()
    let elsewhere = try backend.client(forNickname: "alice")
    try await elsewhere.studyGroups.deleteGroup(group.id)
    detail.deleteButtonTapped()
    await detail.deletionConfirmed()
    #expect(detail.failure == .notFound)
    #expect(gone.value == 1)
  }

  @Test func aGroupDeletedWhileItsScreenIsOpenLeavesTheListOnTheNextAction() async throws {
    let group = try await createGroup("Big Group", by: alice)
    for number in 1...24 {
      let member = try backend.signedUpClient(nickname: "member\(number)")
      _ = try await member.studyGroups.joinGroup(group.id)
    }
    // Paging the members, joining (again) and leaving each find out the group is gone.
    _ = try await bob.studyGroups.joinGroup(group.id)
    let actions: [(String, @MainActor (GroupDetailModel) async -> Void)] = [
      ("paging", { await $0.loadMoreMembersTapped() }),
      ("joining", { await $0.joinButtonTapped() }),
      ("leaving", { await $0.leaveButtonTapped() }),
    ]
    var screens: [(String, GroupDetailModel, LockIsolated<Int>)] = []
    for (name, _) in actions {
      let gone = LockIsolated(0)
      let detail = bob.model(clock: clock) { GroupDetailModel(groupID: group.id) }
      detail.onGroupGone = { gone.withValue { $0 += 1 } }
      await detail.task()
      #expect(detail.failure == nil && detail.hasMoreMembers, "\(name)")
      screens.append((name, detail, gone))
    }
    try await alice.studyGroups.deleteGroup(group.id)
    for ((name, detail, gone), (_, action)) in zip(screens, actions) {
      await action(detail)
      #expect(detail.failure == .notFound, "\(name)")
      #expect(gone.value == 1, "\(name) tells the list the group is gone")
    }
  }

  @Test func aMemberIsNotOfferedDeletion() async throws {
    let group = try await createGroup("Swift Study", by: alice)
    _ = try await bob.studyGroups.joinGroup(group.id)
    let detail = bob.model(clock: clock) { GroupDetailModel(groupID: group.id) }
    await detail.task()
    #expect(!detail.canDelete && !detail.isOwner)
    detail.deleteButtonTapped()
    #expect(detail.destination == nil)
  }

  @Test func membersArePaged() async throws {
    let group = try await createGroup("Big Group", by: alice)
    for number in 1...24 {
      let member = try backend.signedUpClient(nickname: "member\(number)")
      _ = try await member.studyGroups.joinGroup(group.id)
    }
    let detail = bob.model(clock: clock) { GroupDetailModel(groupID: group.id) }
    await detail.task()
    #expect(detail.members.count == GroupDetailModel.pageSize)
    #expect(detail.hasMoreMembers)
    await detail.loadMoreMembersTapped()
    #expect(detail.members.count == 25)
    #expect(Set(detail.members.map(\.id)).count == 25)
    #expect(!detail.hasMoreMembers)
  }

  @Test func invitingByNicknameNotifiesThemAndRefusalsAreShown() async throws {
    let carol = try backend.signedUpClient(nickname: "carol")
    let group = try await createGroup("Swift Study", by: alice)
    _ = try await bob.studyGroups.joinGroup(group.id)
    let detail = alice.model(clock: clock) { GroupDetailModel(groupID: group.id) }
    await detail.task()
    #expect(detail.canInvite)

    detail.inviteNickname = "carol"
    await detail.inviteButtonTapped()
    #expect(detail.failure == nil)
    #expect(detail.invited?.nickname == "carol")
    #expect(detail.inviteNickname == "")
    let notifications = try await carol.notifications.fetchNotifications(.first).items
    #expect(notifications.map(\.deepLink) == [.group(group.id)])

    detail.inviteNickname = "nobody"
    await detail.inviteButtonTapped()
    #expect(detail.failure == .notFound)
    #expect(detail.invited == nil)
    detail.inviteNickname = "bob"
    await detail.inviteButtonTapped()
    #expect(detail.failure == .conflict("That user is already a member of the group."))
    detail.inviteNickname = "  "
    await detail.inviteButtonTapped()
    #expect(detail.failure == .validation(.empty(field: "nickname")))

    // Someone outside the group cannot invite.
    let outsider = carol.model(clock: clock) { GroupDetailModel(groupID: group.id) }
    await outsider.task()
    outsider.inviteNickname = "bob"
    await outsider.inviteButtonTapped()
    #expect(outsider.failure == .forbidden)
    #expect(
      try await alice.uploadedEvents().map(\.name) == ["screen_viewed", "group_member_invited"])
  }

  @Test func openChatOpensTheGroupsRoomForMembersOnly() async throws {
    let carol = try backend.signedUpClient(nickname: "carol")
    let group = try await createGroup("Swift Study", by: alice)
    _ = try await createGroup("Another", by: alice)
    _ = try await bob.studyGroups.joinGroup(group.id)
    let roomID = try #require(
      try await bob.chat.fetchRooms(.first).items.first { $0.kind == .group(group.id) }?.id)

    let detail = bob.model(clock: clock) { GroupDetailModel(groupID: group.id) }
    var opened: [DeepLink] = []
    detail.onNavigate = { opened.append($0) }
    await detail.task()
    await detail.openChatButtonTapped()
    #expect(opened == [.chatRoom(roomID)])
    #expect(detail.failure == nil)

    let outsider = carol.model(clock: clock) { GroupDetailModel(groupID: group.id) }
    var outsiderOpened: [DeepLink] = []
    outsider.onNavigate = { outsiderOpened.append($0) }
    await outsider.task()
    await outsider.openChatButtonTapped()
    #expect(outsiderOpened.isEmpty)
    #expect(outsider.failure == .forbidden)

    backend.isOffline = true
    await detail.openChatButtonTapped()
    #expect(detail.failure == .offline)
    #expect(opened.count == 1)
  }
}
