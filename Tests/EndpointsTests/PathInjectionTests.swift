import Domain
import Endpoints
import Foundation
import HTTPTypes
import NetworkKit
import Testing

/// Identifiers come from the server, links and users; none may change where a request goes.
@Suite("Identifiers and search text cannot change the request target")
struct PathInjectionTests {
  static let hostileIDs = [
    "../admin", "..", ".", "a/b", "x?y=1", "#frag", "%2F", "한글 id", "a;b", "..%2F..", "/",
    "?", "a b+c&d=e", "\\..\\admin",
  ]

  /// Every case that puts an identifier in its path, with `raw` as that identifier.
  static func routes(withID raw: String) -> [any APITarget] {
    [
      MeAPI.user(User.ID(raw)),
      QuestionAPI.question(Question.ID(raw)),
      AnswerAPI.answers(questionID: Question.ID(raw)),
      AnswerAPI.create(questionID: Question.ID(raw), body: FixtureBody.answer),
      AnswerAPI.delete(Answer.ID(raw)),
      BoardAPI.post(BoardPost.ID(raw)), BoardAPI.delete(BoardPost.ID(raw)),
      BoardAPI.like(BoardPost.ID(raw)), BoardAPI.unlike(BoardPost.ID(raw)),
      CommentAPI.comments(postID: BoardPost.ID(raw)),
      CommentAPI.create(postID: BoardPost.ID(raw), body: FixtureBody.comment),
      CommentAPI.delete(Comment.ID(raw)), CommentAPI.like(Comment.ID(raw)),
      CommentAPI.unlike(Comment.ID(raw)),
      NotificationAPI.markRead(AppNotification.ID(raw)),
      StudyGroupAPI.group(StudyGroup.ID(raw)),
      StudyGroupAPI.update(groupID: StudyGroup.ID(raw), body: FixtureBody.updateGroup),
      StudyGroupAPI.delete(StudyGroup.ID(raw)), StudyGroupAPI.join(StudyGroup.ID(raw)),
      StudyGroupAPI.leave(StudyGroup.ID(raw)), StudyGroupAPI.members(groupID: StudyGroup.ID(raw)),
      StudyGroupAPI.invite(StudyGroup.ID(raw), FixtureBody.openDirect),
      ChatAPI.messages(roomID: ChatRoom.ID(raw), afterSeq: 7),
      ChatAPI.send(roomID: ChatRoom.ID(raw), body: FixtureBody.send),
      ChatAPI.markRead(roomID: ChatRoom.ID(raw), body: FixtureBody.markRead),
      AdminAPI.updateQuestion(questionID: Question.ID(raw), body: FixtureBody.updateQuestion),
      AdminAPI.deleteQuestion(Question.ID(raw)), AdminAPI.report(ReportCase.ID(raw)),
      AdminAPI.resolveReport(caseID: ReportCase.ID(raw), body: FixtureBody.resolve),
      AdminAPI.banUser(userID: User.ID(raw), body: FixtureBody.ban),
      AdminAPI.unbanUser(User.ID(raw)),
    ]
  }

  @Test("every case with a path parameter is covered here")
  func coversEveryParameterizedOperation() {
    let covered = Set(Self.routes(withID: "x").map(\.operation.id))
    let withParameters = Set(
      RouteExamples.all.map(\.route).filter { $0.operation.pathTemplate.contains("{") }.map(
        \.operation.id))
    #expect(covered == withParameters)
  }

  @Test("a hostile identifier stays one path segment and decodes back", arguments: hostileIDs)
  func hostileIdentifier(raw: String) throws {
    for route in Self.routes(withID: raw) {
      let request = try route.encodedRequest(baseURL: RouteExamples.baseURL, using: .qapple())
        .request
      let target = try #require(request.path)
      let (path, query) = split(target)

      // The base URL's `/v1` plus the template's segments, nothing more or less.
      let template = route.operation.pathTemplate.split(
        separator: "/", omittingEmptySubsequences: false
      )
      .dropFirst().map(String.init)
      let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        .map(String.init)
      try #require(segments.count == template.count + 1, "\(route.operation.id): \(path)")
      #expect(segments.first == "v1")
      for (segment, expected) in zip(segments.dropFirst(), template) {
        if expected.hasPrefix("{") {
          #expect(segment.removingPercentEncoding == raw, "\(route.operation.id): \(segment)")
          #expect(segment != "." && segment != "..", "\(route.operation.id): dot segment")
          #expect(!segment.contains(where: { "/?#;\\ ".contains($0) }), "\(segment)")
        } else {
          #expect(segment == expected, "\(route.operation.id): \(path)")
        }
      }

      // The query is exactly what the route's task asked for.
      let expectedQuery = QueryEncoding.encode(queryItems(of: route.task))
      #expect((query ?? "") == expectedQuery, "\(route.operation.id): \(target)")

      // A URL parser agrees: same path, no fragment, no query taken from the identifier.
      let url = try #require(URL(string: "https://api.qapple.example" + target), "\(target)")
      let components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
      #expect(components.percentEncodedPath == path)
      #expect(components.fragment == nil)
      #expect(
        (components.queryItems ?? []).map(\.name) == queryItems(of: route.task).map(\.name),
        "\(route.operation.id): \(target)")
    }
  }

  @Test("an empty identifier is refused, never sent to a neighbouring route")
  func emptyIdentifier() {
    for route in Self.routes(withID: "") {
      #expect(route.path.contains("//") || route.path.hasSuffix("/"), "\(route.path)")
      #expect("\(route.operation.id)") {
        try route.encodedRequest(baseURL: RouteExamples.baseURL, using: .qapple())
      } throws: { error in
        guard case .invalidRequest(let reason) = error as? NetworkError else { return false }
        return reason.contains("empty segment")
      }
    }
  }

  static let hostileTexts = [
    "a&b=c", "=", "+", "c++ & swift", "#태그", "한글 검색어", "100%", "a b", "?q=x&limit=1",
    "🍎 apple",
  ]

  @Test("search and filter text survives as one query item", arguments: hostileTexts)
  func hostileQueryText(text: String) throws {
    let routes: [(route: any APITarget, name: String)] = [
      (BoardAPI.search(query: text), "q"),
      (StudyGroupAPI.groups(query: text), "q"),
      (AdminAPI.users(query: text), "q"),
      (MeAPI.nicknameAvailability(nickname: text), "nickname"),
    ]
    for (route, name) in routes {
      let target = try #require(
        try route.encodedRequest(baseURL: RouteExamples.baseURL).request.path)
      let url = try #require(URL(string: "https://api.qapple.example" + target), "\(target)")
      let components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
      let items = components.queryItems ?? []
      #expect(items.filter { $0.name == name }.map(\.value) == [text], "\(target)")
      #expect(Set(items.map(\.name)) == Set(queryItems(of: route.task).map(\.name)))
      #expect(components.fragment == nil)
      #expect(components.percentEncodedPath == "/v1" + route.path)
    }
  }

  private func split(_ target: String) -> (path: String, query: String?) {
    guard let mark = target.firstIndex(of: "?") else { return (target, nil) }
    return (String(target[..<mark]), String(target[target.index(after: mark)...]))
  }
}
