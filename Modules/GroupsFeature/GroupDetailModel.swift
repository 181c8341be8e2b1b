import Dependencies
import Domain
import Foundation
import Observation
import Repositories

/// One study group (`qapple://groups/ID`): the group and its members (paged), join, leave (the
/// owner cannot: the service's refusal is shown), delete (owner, after a confirmation), invite
/// someone by nickname, and open the group's chat room.
@MainActor @Observable
public final class GroupDetailModel: Identifiable {
  /// What the screen presents on top of itself.
  public enum Destination: Hashable, Sendable {
    /// "Delete this group?" with delete and cancel.
    case confirmDeletion
  }

  /// Members per page.
  public static let pageSize = PageRequest.defaultLimit

  /// The group.
  public let groupID: StudyGroup.ID
  /// The group, once loaded.
  public private(set) var group: StudyGroup?
  /// The group and its first members are loading.
  public private(set) var isLoading = false
  /// Joining, leaving or deleting is under way: those buttons ignore taps.
  public private(set) var isUpdatingMembership = false
  /// The nickname field of "invite".
  public var inviteNickname = ""
  /// An invitation is being sent.
  public private(set) var isInviting = false
  /// Who was invited last ("Invitation sent to ...").
  public private(set) var invited: UserSummary?
  /// The group's room is being looked up.
  public private(set) var isOpeningChat = false
  /// The last failure, shown until ``failureDismissed()``.
  public private(set) var failure: DomainError?
  /// What is presented on top, if anything.
  public var destination: Destination?
  /// The signed-in user, once known.
  public private(set) var me: User.ID?

  /// Asks the app to open a place outside this feature (the group's room: `.chatRoom(id)`).
  @ObservationIgnored public var onNavigate: @MainActor (DeepLink) -> Void = { _ in }
  /// Asks the presenter to close the screen (the group was deleted).
  @ObservationIgnored public var onDismiss: @MainActor () -> Void = {}
  /// Hands the presenter the group as it is now whenever this screen learns it: the user
  /// joined or left it, or the screen loaded it (a change made elsewhere, e.g. another member
  /// joining), so the lists that show it can follow.
  @ObservationIgnored public var onGroupChanged: @MainActor (StudyGroup) -> Void = { _ in }
  /// Called when the screen finds the group gone (deleted by its owner) on loading it, paging
  /// its members, joining or leaving: lists that show it drop it. The screen shows the failure
  /// (``DomainError/notFound``).
  @ObservationIgnored public var onGroupGone: @MainActor () -> Void = {}

  /// The former name of ``onGroupChanged``.
  @available(*, deprecated, renamed: "onGroupChanged")
  public var onMembershipChanged: @MainActor (StudyGroup) -> Void {
    get { onGroupChanged }
    set { onGroupChanged = newValue }
  }

  @ObservationIgnored @Dependency(\.studyGroupRepository) private var groups
  @ObservationIgnored @Dependency(\.profileRepository) private var profiles
  @ObservationIgnored @Dependency(\.chatRepository) private var chat
  @ObservationIgnored @Dependency(\.authRepository) private var auth
  @ObservationIgnored @Dependency(\.analyticsRepository) private var analytics
  @ObservationIgnored @Dependency(\.date) private var date

  /// The members, in joining order, page by page.
  private let memberList: PagedList<GroupMember>
  /// Counts the membership changes begun and ended: a load that saw it change read the group
  /// before (or during) a join or leave, and must not put the old group back.
  @ObservationIgnored private var membershipChanges = 0
  /// Numbers the loads, so only the newest lands (an older one's group, or failure, is stale)
  /// and ends ``isLoading``.
  @ObservationIgnored private var loads = LatestLoad()

  /// Creates the screen of `groupID`.
  public init(groupID: StudyGroup.ID) {
    self.groupID = groupID
    @Dependency(\.studyGroupRepository) var groups
    memberList = PagedList(pageSize: Self.pageSize) { [groups] in
      try await groups.fetchMembers(groupID, $0)
    }
  }

  /// The identity of the screen: its group.
  public nonisolated var id: StudyGroup.ID { groupID }

  /// Whether the user owns the group.
  public var isOwner: Bool {
    guard let group, let me else { return false }
    return group.isOwned(by: me)
  }
  /// Whether the user belongs to the group.
  public var isMember: Bool { group?.isMember ?? false }
  /// Whether "join" is offered.
  public var canJoin: Bool { group != nil && !isMember }
  /// Whether "leave" is offered (members other than the owner).
  public var canLeave: Bool { isMember && !isOwner }
  /// Whether "delete" is offered (the owner).
  public var canDelete: Bool { isOwner }
  /// Whether "invite" and "open chat" are offered (members).
  public var canInvite: Bool { isMember }
  /// The members shown, in joining order.
  public var members: [GroupMember] { memberList.items }
  /// Whether another page of members follows.
  public var hasMoreMembers: Bool { memberList.hasMore }
  /// The next page of members is loading.
  public var isLoadingMoreMembers: Bool { memberList.isLoadingMore }

  /// The screen appeared: loads the group and its first members.
  public func task() async {
    await analytics.screenViewed("group_detail", at: date.now)
    if case .signedIn(let user) = await auth.currentState() { me = user.id }
    await load()
  }

  /// The screen was pulled down: loads again.
  public func refreshPulled() async {
    await load()
  }

  /// The last member row appeared: loads the next page of members.
  public func loadMoreMembersTapped() async {
    do {
      try await memberList.loadMore()
    } catch {
      failed(error)
    }
  }

  /// "Join" was tapped.
  public func joinButtonTapped() async {
    await updateMembership(event: "group_joined") {
      self.group = try await self.groups.joinGroup(self.groupID)
    }
  }

  /// "Leave" was tapped; the owner is refused (``failure`` says to delete the group instead).
  public func leaveButtonTapped() async {
    await updateMembership(event: "group_left") {
      try await self.groups.leaveGroup(self.groupID)
      // Left: shown at once, then as the service has it when that can be read (a failed read
      // must not hide a leave that happened).
      if var left = self.group {
        left.isMember = false
        left.memberCount = max(0, left.memberCount - 1)
        self.group = left
      }
      if let fresh = try? await self.groups.fetchGroup(self.groupID) { self.group = fresh }
    }
  }

  /// "Delete" was tapped: asks for confirmation.
  public func deleteButtonTapped() {
    guard canDelete else { return }
    failure = nil
    destination = .confirmDeletion
  }

  /// The deletion was confirmed: deletes the group and closes the screen (``onDismiss``).
  public func deletionConfirmed() async {
    guard destination == .confirmDeletion, !isUpdatingMembership else { return }
    destination = nil
    isUpdatingMembership = true
    defer { isUpdatingMembership = false }
    do {
      try await groups.deleteGroup(groupID)
      await analytics.track("group_deleted", at: date.now)
      onDismiss()
    } catch {
      // Already gone (deleted on another device): the list drops it, as after any action.
      failed(DomainError(error))
    }
  }

  /// The confirmation was dismissed.
  public func destinationDismissed() {
    destination = nil
  }

  /// "Invite" was tapped: finds the user by ``inviteNickname`` and invites them (they get a
  /// notification); unknown nicknames, members and non-members' invitations are refused.
  public func inviteButtonTapped() async {
    guard !isInviting else { return }
    isInviting = true
    failure = nil
    // The banner names the last invitation only while nothing was tried since.
    invited = nil
    defer { isInviting = false }
    do {
      let user = try await profiles.findUser(inviteNickname)
      try await groups.invite(user.id, groupID)
      invited = user.summary
      inviteNickname = ""
      await analytics.track("group_member_invited", at: date.now)
    } catch {
      failure = DomainError(error)
    }
  }

  /// "Open chat" was tapped: the app opens the group's room (members only).
  public func openChatButtonTapped() async {
    guard !isOpeningChat else { return }
    isOpeningChat = true
    failure = nil
    defer { isOpeningChat = false }
    do {
      if let room = try await Page.first(
        in: { try await chat.fetchRooms($0) }, where: { $0.kind == .group(groupID) })
      {
        onNavigate(.chatRoom(room.id))
        return
      }
      // Only members have the group's room among theirs.
      failure = isMember ? .notFound : .forbidden
    } catch {
      failure = DomainError(error)
    }
  }

  /// The failure was read.
  public func failureDismissed() {
    failure = nil
  }

  // MARK: Loading

  private func load() async {
    let (number, changes) = (loads.start(), membershipChanges)
    isLoading = true
    defer { if loads.isLatest(number) { isLoading = false } }
    do {
      let (repository, id, members) = (groups, groupID, memberList)
      async let group = repository.fetchGroup(id)
      async let membersLoaded = members.reload()
      let (loaded, _) = try await (group, membersLoaded)
      // A newer load, or a join or leave since the group was read: what it showed is newer.
      guard loads.isLatest(number), membershipChanges == changes else { return }
      self.group = loaded
      failure = nil
      onGroupChanged(loaded)
    } catch is CancellationError {
      // The screen went away; its next appearance loads again.
    } catch {
      if loads.isLatest(number) { failed(DomainError(error)) }
    }
  }

  /// Shows `error`; `notFound` from the group's own calls means the group is gone.
  private func failed(_ error: DomainError) {
    failure = error
    if error == .notFound { onGroupGone() }
  }

  private func updateMembership(
    event: String, _ change: @MainActor () async throws -> Void
  ) async {
    guard !isUpdatingMembership else { return }
    isUpdatingMembership = true
    failure = nil
    membershipChanges += 1
    defer {
      membershipChanges += 1
      isUpdatingMembership = false
    }
    do {
      try await change()
    } catch {
      failed(DomainError(error))
      return
    }
    // The change happened: the list and the analytics hear of it even if the members list
    // cannot be read again just now.
    if let group { onGroupChanged(group) }
    await analytics.track(event, at: date.now)
    do {
      try await memberList.reload()
    } catch {
      failed(error)
    }
  }
}
