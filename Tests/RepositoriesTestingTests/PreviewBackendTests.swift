import Domain
import Foundation
import RepositoriesTesting
import Testing

@Suite("FakeBackend.preview(): the demo community for rich previews")
struct PreviewBackendTests {
  @Test("seeded like the demo: members read posts and today's question, the admin sees cases")
  func demoCommunity() async throws {
    let backend = FakeBackend.preview()
    let member = try backend.client(forNickname: "사과나무")
    #expect(try await member.board.fetchPosts(page: PageRequest(limit: 100)).items.count >= 30)
    let today = try await member.questions.fetchToday()
    #expect(today.publishDate == backend.today)
    let admin = try backend.client(forNickname: "사과지기")
    let cases = try await admin.admin.fetchReportCases(status: .open, page: .first)
    #expect(cases.items.contains { $0.reportCount == 4 })
    // Interactive: a like sticks.
    let post = try #require(try await member.board.fetchPosts(page: .first).items.first)
    let liked = try await member.board.setPostLike(post.id, !post.isLiked)
    #expect(try await member.board.fetchPost(post.id).isLiked == liked.isLiked)
  }
}
