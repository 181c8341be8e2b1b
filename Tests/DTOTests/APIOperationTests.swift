import DTO
import Testing

@Suite("APIOperation: the one route table")
struct APIOperationTests {
  @Test("every operation has a unique method and template")
  func methodAndTemplateAreUnique() {
    var seen = Set<String>()
    for operation in APIOperation.allCases {
      let key = "\(operation.method.rawValue) \(operation.pathTemplate)"
      #expect(seen.insert(key).inserted, "\(key) is declared twice")
      #expect(operation.pathTemplate.hasPrefix("/"))
    }
    #expect(APIOperation.allCases.count == 66)
  }

  @Test("path parameters are read from the template in order")
  func pathParameters() {
    #expect(APIOperation.boardLike.pathParameters == ["post_id"])
    #expect(APIOperation.boardPosts.pathParameters == [])
    #expect(APIOperation.boardLike.id == "BoardAPI.like")
    #expect(APIOperation.boardLike.method == .put)
  }

  @Test("access follows the contract: public auth, admin area")
  func access() {
    #expect(APIOperation.authSignIn.access == .anyone)
    #expect(APIOperation.authSignOut.access == .member)
    #expect(APIOperation.adminStats.access == .admin)
    #expect(APIOperation.meNicknameAvailability.access == .anyone)
  }
}
