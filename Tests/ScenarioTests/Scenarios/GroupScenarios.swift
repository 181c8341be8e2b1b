import Domain
import Foundation
import Repositories
import Testing

/// Study groups: owner, members, joining and leaving.
enum GroupScenarios {
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
