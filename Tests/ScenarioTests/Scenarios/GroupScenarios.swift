import Domain
import Foundation
import Repositories
import Testing

/// Study groups: owner, members, joining and leaving.
enum GroupScenarios {
  /// Invitations: a member invites an outsider, who gets one `group_invite` notification
  /// (inviting again adds none, an invitation to another group does); inviting a member is a conflict, oneself a validation error,
  /// and an outsider cannot invite. Messages in the room notify the other members once.
  static func invitations(_ backend: any ScenarioBackend) async throws {
    let alice = try await backend.makeMember(nickname: "alice")
    let bob = try await backend.makeMember(nickname: "bob")
    let carol = try await backend.makeMember(nickname: "carol")
    let aliceID = try await alice.profile.fetchMe().id
    let bobID = try await bob.profile.fetchMe().id
    let carolID = try await carol.profile.fetchMe().id
    let group = try await alice.studyGroups.createGroup(StudyGroupDraft(name: "Invites"))

    try await alice.studyGroups.invite(bobID, group.id)
    try await alice.studyGroups.invite(bobID, group.id)
    let inbox = try await bob.notifications.fetchNotifications(.first)
    #expect(inbox.items.map(\.kind) == [.groupInvite(group.id)])
    #expect(inbox.items.first?.message == "You were invited to the study group Invites.")
    // An invitation to another group is news again, even from the same member.
    let second = try await alice.studyGroups.createGroup(StudyGroupDraft(name: "Second"))
    try await alice.studyGroups.invite(bobID, second.id)
    #expect(
      try await bob.notifications.fetchNotifications(.first).items.map(\.kind) == [
        .groupInvite(second.id), .groupInvite(group.id),
      ])

    await #expect(throws: DomainError.forbidden) {
      try await carol.studyGroups.invite(bobID, group.id)
    }
    await expectValidation(field: "user_id") {
      try await alice.studyGroups.invite(aliceID, group.id)
    }
    _ = try await bob.studyGroups.joinGroup(group.id)
    await #expect(throws: DomainError.self) {
      try await alice.studyGroups.invite(bobID, group.id)
    }
    try await bob.studyGroups.invite(carolID, group.id)
    #expect(try await carol.notifications.fetchNotifications(.first).items.count == 1)

    // Two messages in the group room: one group_message for bob, none for alice (the sender).
    let room = try #require(
      try await alice.chat.fetchRooms(.first).items.first { $0.kind == .group(group.id) })
    for text in ["first", "second"] {
      _ = try await alice.chat.sendMessage(text, room.id, UUID())
    }
    let bobInbox = try await bob.notifications.fetchNotifications(.first).items
    #expect(
      bobInbox.map(\.kind) == [
        .groupMessage(room.id), .groupInvite(second.id), .groupInvite(group.id),
      ])
    #expect(try await alice.notifications.fetchNotifications(.first).items.isEmpty)

    // Deleting a group takes back its unread invitations: nobody can follow them any more.
    try await alice.studyGroups.deleteGroup(second.id)
    #expect(
      try await bob.notifications.fetchNotifications(.first).items.map(\.kind) == [
        .groupMessage(room.id), .groupInvite(group.id),
      ])
    #expect(try await bob.notifications.fetchUnreadCount() == 2)
  }

  /// Create, join (idempotent), member count and roster, the owner cannot leave, a member
  /// leaves (idempotently), only the owner edits.
  static func groups(_ backend: any ScenarioBackend) async throws {
    let alice = try await backend.makeMember(nickname: "alice")
    let bob = try await backend.makeMember(nickname: "bob")
    let aliceID = try await alice.profile.fetchMe().id
    let bobID = try await bob.profile.fetchMe().id

    let group = try await alice.studyGroups.createGroup(
      StudyGroupDraft(name: "  Algorithms  ", description: "Graph problems on Tuesdays"))
    #expect(group.name == "Algorithms")
    #expect(group.owner == UserSummary(id: aliceID, nickname: "alice"))
    #expect(group.memberCount == 1)
    #expect(group.isMember)
    await expectValidation(field: "name") {
      try await alice.studyGroups.createGroup(
        StudyGroupDraft(name: String(repeating: "g", count: 31)))
    }

    let seenByBob = try await bob.studyGroups.fetchGroup(group.id)
    #expect(!seenByBob.isMember)
    #expect(seenByBob.memberCount == 1)
    let joined = try await bob.studyGroups.joinGroup(group.id)
    #expect(joined.isMember)
    #expect(joined.memberCount == 2)
    let joinedAgain = try await bob.studyGroups.joinGroup(group.id)
    #expect(joinedAgain.memberCount == 2)
    #expect(try await alice.studyGroups.fetchGroup(group.id).memberCount == 2)

    let members = try await bob.studyGroups.fetchMembers(group.id, .first)
    #expect(members.items.map(\.user.id) == [aliceID, bobID])
    #expect(members.items.map(\.role) == [.owner, .member])

    let search = try await bob.studyGroups.fetchGroups("algo", .first)
    #expect(search.items.map(\.id) == [group.id])
    #expect(try await bob.studyGroups.fetchGroups("chemistry", .first).items.isEmpty)

    await expectConflict("the owner leaving") { try await alice.studyGroups.leaveGroup(group.id) }
    await #expect(throws: DomainError.forbidden) {
      try await bob.studyGroups.updateGroup(group.id, StudyGroupDraft(name: "Bob's group"))
    }
    await #expect(throws: DomainError.forbidden) {
      try await bob.studyGroups.deleteGroup(group.id)
    }
    let renamed = try await alice.studyGroups.updateGroup(
      group.id, StudyGroupDraft(name: "Algorithms II", description: "Now on Thursdays"))
    #expect(renamed.name == "Algorithms II")
    #expect(renamed.memberCount == 2)

    try await bob.studyGroups.leaveGroup(group.id)
    let afterLeaving = try await bob.studyGroups.fetchGroup(group.id)
    #expect(!afterLeaving.isMember)
    #expect(afterLeaving.memberCount == 1)
    try await bob.studyGroups.leaveGroup(group.id)
    #expect(
      try await alice.studyGroups.fetchMembers(group.id, .first).items.map(\.user.id) == [aliceID])

    try await alice.studyGroups.deleteGroup(group.id)
    await #expect(throws: DomainError.notFound) { try await bob.studyGroups.fetchGroup(group.id) }
  }
}
