import Domain
import Foundation
import GRDB
import TestSupport
import Testing

@testable import ServiceEngine

/// A movable clock for exact tests.
private final class TestClock: Sendable {
  private let date = Locked(Date(timeIntervalSince1970: 1_773_622_800))
  var now: Date { date.withLock { $0 } }
  func advance(_ seconds: TimeInterval) { date.withLock { $0 += seconds } }
}

@Suite("ServiceEngine: storage, clock, secrets, batches, seeds")
struct EngineTests {
  @Test("seeded secrets repeat: the same seed mints the same tokens")
  func seededSecrets() throws {
    func firstToken() throws -> String {
      let engine = try ServiceEngine(
        now: { Date(timeIntervalSince1970: 1_773_622_800) }, secrets: .seeded(7))
      let mina = try engine.createUser(nickname: "Mina")
      return try engine.startSession(for: mina).accessToken
    }
    #expect(try firstToken() == firstToken())
    #expect(try firstToken().hasPrefix("at_"))
  }

  @Test("the injected clock decides token expiry and today")
  func clock() throws {
    let clock = TestClock()
    let engine = try ServiceEngine(now: { clock.now })
    let mina = try engine.createUser(nickname: "Mina")
    let session = try engine.startSession(for: mina)
    let today = engine.today
    #expect(try engine.checkAccessToken(session.accessToken) == .valid(mina))
    clock.advance(engine.configuration.accessTokenLifetime + 1)
    #expect(try engine.checkAccessToken(session.accessToken) == .expired)
    #expect(throws: DomainError.signedOut) {
      try engine.authenticate(accessToken: session.accessToken)
    }
    let renewed = try engine.refresh(refreshToken: session.refreshToken)
    #expect(try engine.authenticate(accessToken: renewed.accessToken) == mina)
    clock.advance(86_400)
    #expect(engine.today == today.adding(days: 1))
  }

  @Test(
    "a spent refresh token asked again gets the same pair while that pair is unclaimed; a replay after it was used, or later, revokes the family"
  )
  func refreshRetry() throws {
    let clock = TestClock()
    let engine = try ServiceEngine(now: { clock.now })
    let mina = try engine.createUser(nickname: "Mina")

    // The answer to a refresh was lost: the same token asks again and gets the same pair.
    let first = try engine.startSession(for: mina)
    let second = try engine.refresh(refreshToken: first.refreshToken)
    clock.advance(30)
    #expect(try engine.refresh(refreshToken: first.refreshToken) == second)
    // Once the new access token was used, the old refresh token is a replay: the family ends.
    #expect(try engine.authenticate(accessToken: second.accessToken) == mina)
    #expect(throws: DomainError.signedOut) { try engine.refresh(refreshToken: first.refreshToken) }
    #expect(throws: DomainError.signedOut) {
      try engine.authenticate(accessToken: second.accessToken)
    }
    #expect(throws: DomainError.signedOut) { try engine.refresh(refreshToken: second.refreshToken) }

    // A retry is answered until the window closes, then it is a replay too.
    let late = try engine.startSession(for: mina)
    let lateNext = try engine.refresh(refreshToken: late.refreshToken)
    clock.advance(engine.configuration.refreshRetryWindow - 1)
    #expect(try engine.refresh(refreshToken: late.refreshToken) == lateNext)
    clock.advance(1)
    #expect(throws: DomainError.signedOut) { try engine.refresh(refreshToken: late.refreshToken) }
    #expect(throws: DomainError.signedOut) {
      try engine.refresh(refreshToken: lateNext.refreshToken)
    }

    // So is one whose successor was itself spent, and one after a sign-out.
    let chained = try engine.startSession(for: mina)
    let chainedNext = try engine.refresh(refreshToken: chained.refreshToken)
    let chainedLast = try engine.refresh(refreshToken: chainedNext.refreshToken)
    #expect(throws: DomainError.signedOut) {
      try engine.refresh(refreshToken: chained.refreshToken)
    }
    #expect(throws: DomainError.signedOut) {
      try engine.refresh(refreshToken: chainedLast.refreshToken)
    }
    let signedOut = try engine.startSession(for: mina)
    let signedOutNext = try engine.refresh(refreshToken: signedOut.refreshToken)
    try engine.signOut(refreshToken: signedOutNext.refreshToken, as: mina)
    #expect(throws: DomainError.signedOut) {
      try engine.refresh(refreshToken: signedOut.refreshToken)
    }
  }

  @Test(
    "after close every call throws .server: calls racing it finish first, none reaches the closed database",
    arguments: [false, true])
  func closedEngine(onFile: Bool) async throws {
    let folder = try TemporaryDirectory("engine")
    defer { folder.remove() }
    let storage: ServiceEngine.Configuration.Storage =
      onFile ? .file(path: folder.path("qapple.sqlite")) : .inMemory
    let engine = try ServiceEngine(configuration: .init(storage: storage))
    let mina = try engine.createUser(nickname: "Mina")
    let closed = DomainError.server("The service's database is closed.")
    let (progress, finished) = (Locked(0), Locked(0))
    let (stored, refused) = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
      for _ in 0..<4 {
        group.addTask {
          var (stored, refused) = (0, 0)
          // Calls until the close refuses one, however the pool runs the closing task (the cap
          // only ends a close that never comes).
          while refused == 0, stored < 100_000 {
            do {
              _ = try engine.createPost(PostDraft(content: "racing the close"), as: mina)
              _ = try engine.posts(.first, as: mina)
              stored += 1
              progress.withLock { $0 += 1 }
              await Task.yield()  // lets the closing task run on the two-thread pool
            } catch {
              #expect(error as? DomainError == closed)
              refused += 1
            }
          }
          finished.withLock { $0 += 1 }
          return (stored, refused)
        }
      }
      group.addTask {
        // Closes while the calls run, once a few have gone through.
        while progress.withLock({ $0 }) < 20, finished.withLock({ $0 }) < 4 {
          try await Task.sleep(for: .milliseconds(1))
        }
        try engine.close()
        return (0, 0)
      }
      return try await group.reduce((0, 0)) { ($0.0 + $1.0, $0.1 + $1.1) }
    }
    #expect(stored >= 20 && refused > 0)
    #expect(throws: closed) { try engine.posts(.first, as: mina) }
    #expect(throws: closed) { try engine.inOneTransaction(startingAt: engine.now) { _ in } }
    try engine.close()
  }

  @Test("a file database keeps its data across engines, in a file only its owner reads")
  func fileStorage() throws {
    let folder = try TemporaryDirectory("engine")
    defer { folder.remove() }
    let path = folder.path("nested/qapple.sqlite")
    let first = try ServiceEngine(configuration: .init(storage: .file(path: path)))
    let mina = try first.createUser(nickname: "Mina")
    _ = try first.createPost(PostDraft(content: "hello"), as: mina)
    // Sessions and e-mail addresses live in it: the owner's alone.
    #expect(try permissions(of: URL(fileURLWithPath: path)) == 0o600)
    try first.close()
    let second = try ServiceEngine(configuration: .init(storage: .file(path: path)))
    let again = try second.viewer(mina.id)
    #expect(try second.posts(.first, as: again).items.map(\.content) == ["hello"])
    try second.close()
  }

  @Test("one transaction: a failing body leaves nothing behind; times follow travel")
  func batch() throws {
    let engine = try ServiceEngine()
    struct Stop: Error {}
    let start = Date(timeIntervalSince1970: 1_700_000_000)
    #expect(throws: Stop.self) {
      try engine.inOneTransaction(startingAt: start) { _ in
        _ = try engine.createUser(nickname: "Ghost")
        throw Stop()
      }
    }
    #expect(try engine.user(named: "Ghost") == nil)
    try engine.inOneTransaction(startingAt: start) { travel in
      let mina = try engine.createUser(nickname: "Mina")
      travel(start.addingTimeInterval(60))
      _ = try engine.createPost(PostDraft(content: "then"), as: mina)
    }
    let mina = try engine.viewer(try #require(try engine.user(named: "Mina")).id)
    let post = try #require(try engine.posts(.first, as: mina).items.first)
    #expect(post.createdAt == start.addingTimeInterval(60))
  }

  @Test("a write reads the time once it holds the writer, so a row's time follows its order")
  func timeIsReadUnderTheWriter() async throws {
    let clock = TestClock()
    let engine = try ServiceEngine(now: { clock.now })
    let mina = try engine.createUser(nickname: "Mina")
    let start = clock.now
    let (held, release) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
    let holder = Thread {
      try? engine.write { _, _ in
        held.signal()
        release.wait()
      }
    }
    holder.start()
    held.wait()
    // A post is written while another write holds the writer, and the clock moves before that
    // write ends: the post takes the time it was stored at, not the time it started waiting.
    async let post = Task.detached {
      try engine.createPost(PostDraft(content: "after the wait"), as: mina)
    }.value
    // The post's call is let in beside the holder's: it waits for the writer.
    try await waitUntil("the post waits for the writer") { engine.callsUnderWay == 2 }
    clock.advance(60)
    release.signal()
    #expect(try await post.createdAt == start.addingTimeInterval(60))
  }

  @Test(
    "a stored report is read as filed: text kept with another reason (stored before it was refused) is left out"
  )
  func legacyReportText() throws {
    let engine = try ServiceEngine()
    let mina = try engine.createUser(nickname: "Mina")
    let jun = try engine.createUser(nickname: "Jun")
    let post = try engine.createPost(PostDraft(content: "Buy followers"), as: mina)
    _ = try engine.report(.post(post.id), reason: .spam, as: jun)
    try engine.write { db, _ in try db.execute(sql: "UPDATE report SET detail = 'buy now'") }
    let reports = try engine.myReports(.first, as: jun).items
    #expect(reports.map(\.reason) == [.spam])
  }

  @Test("a direct room whose other user withdrew takes no typing, as it takes no messages")
  func noTypingToAWithdrawnUser() throws {
    let engine = try ServiceEngine()
    let mina = try engine.createUser(nickname: "Mina")
    let jun = try engine.createUser(nickname: "Jun")
    let room = try engine.openDirectRoom(with: jun.id, as: mina)
    try engine.typing(in: room.id, as: mina)
    try engine.withdraw(as: jun)
    #expect {
      try engine.typing(in: room.id, as: mina)
    } throws: { error in
      if case DomainError.conflict = error { true } else { false }
    }
  }

  @Test("the system viewer schedules questions; members may not")
  func systemViewer() throws {
    let engine = try ServiceEngine()
    let member = try engine.createUser(nickname: "Mina")
    let draft = QuestionDraft(content: "What did you learn today?", publishDate: engine.today)
    #expect(throws: DomainError.forbidden) { try engine.createQuestion(draft, as: member) }
    let question = try engine.createQuestion(draft, as: .system)
    #expect(try engine.todaysQuestion(as: member).id == question.id)
    // Announced to every account.
    #expect(try engine.unreadNotificationCount(as: member) == 1)
  }

  @Test("an import stops at a failure of the service: rows before it stay, it is not a bad row")
  func importStopsAtAServiceFailure() throws {
    let engine = try ServiceEngine()
    let days = (1...3).map { engine.today.adding(days: $0).description }
    let csv = Data(
      ([
        "publish_date,content", "\(days[0]),First question of the file",
        "\(days[0]),The same day again", "\(days[1]),Written when the disk is full",
        "\(days[2]),Never reached",
      ]).joined(separator: "\n").utf8)
    try failInserts(
      into: "question", when: "NEW.content LIKE 'Written when%'", in: engine.writer)
    #expect(throws: DomainError.self) { try engine.importQuestions(csv, as: .system) }
    // The first row was imported; the second was a bad row; nothing after the failure ran.
    #expect(
      try engine.scheduledQuestions(status: nil, .first, as: .system).items.map(\.content)
        == ["First question of the file"])
    // Once the service works again, the same file imports the rest and names the day taken.
    try allowInserts(into: "question", in: engine.writer)
    let again = try engine.importQuestions(csv, as: .system)
    #expect(again.imported == 2)
    #expect(again.errors.map(\.line) == [2, 3])
  }

  @Test("a question dated in the past is never announced; moved into the past, it is withdrawn")
  func backdatedQuestionsAreNotAnnounced() throws {
    let engine = try ServiceEngine()
    let member = try engine.createUser(nickname: "Mina")
    let yesterday = engine.today.adding(days: -1)
    _ = try engine.createQuestion(
      QuestionDraft(content: "What did you learn last week?", publishDate: yesterday),
      as: .system)
    #expect(try engine.unreadNotificationCount(as: member) == 0)
    let today = try engine.createQuestion(
      QuestionDraft(content: "What did you learn today?", publishDate: engine.today), as: .system)
    #expect(try engine.unreadNotificationCount(as: member) == 1)
    _ = try engine.updateQuestion(
      today.id, content: nil, publishDate: yesterday.adding(days: -1), as: .system)
    #expect(try engine.unreadNotificationCount(as: member) == 0)
    #expect(throws: DomainError.notFound) { try engine.todaysQuestion(as: member) }
  }

  @Test("the demo seed loads once into an empty database")
  func demoSeed() throws {
    let engine = try ServiceEngine()
    #expect(try DemoSeed.loadIfEmpty(engine))
    #expect(try DemoSeed.loadIfEmpty(engine) == false)
    let admin = try engine.viewer(try #require(try engine.user(named: DemoSeed.adminNickname)).id)
    let stats = try engine.adminStats(as: admin)
    #expect(stats.users == 11 && stats.admins == 1)
    #expect(stats.posts >= 40 && stats.groups >= 3 && stats.openReports >= 1)
  }

  @Test("stored replies: the first answer per caller, operation and key; fingerprints differ")
  func idempotency() throws {
    let engine = try ServiceEngine()
    let reply = StoredReply(status: 201, body: Data("{}".utf8), fingerprint: "abc")
    try engine.storeReply(reply, scope: "u_1", operation: "BoardAPI.create", key: "k")
    try engine.storeReply(
      StoredReply(status: 500, body: Data(), fingerprint: "zzz"), scope: "u_1",
      operation: "BoardAPI.create", key: "k")
    #expect(try engine.storedReply(scope: "u_1", operation: "BoardAPI.create", key: "k") == reply)
    #expect(try engine.storedReply(scope: "u_2", operation: "BoardAPI.create", key: "k") == nil)
    #expect(
      ServiceEngine.fingerprint(Data("/posts".utf8), Data("a".utf8))
        != ServiceEngine.fingerprint(Data("/posts".utf8), Data("b".utf8)))
  }

  @Test(
    "an avatar URL is the configured public URL plus the stored path, read anew on every answer"
  )
  func avatarURLFollowsPublicURL() throws {
    let engine = try ServiceEngine(
      configuration: .init(publicURL: URL(string: "http://10.0.0.5:8080")),
      now: { Date(timeIntervalSince1970: 1_773_622_800) })
    let mina = try engine.createUser(nickname: "Mina")
    let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1])
    let uploaded = try engine.uploadAvatar(try AvatarImage(validating: png), as: mina)
    let path = "/avatars/\(mina.id.rawValue)?v=1773622800000"
    #expect(uploaded.avatarURL?.absoluteString == "http://10.0.0.5:8080" + path)
    // A proxy's prefix stays; a trailing slash does not double.
    engine.configuration.publicURL = URL(string: "https://campus.example/qapple/")
    #expect(
      try engine.me(as: mina).avatarURL?.absoluteString == "https://campus.example/qapple" + path)
    engine.configuration.publicURL = URL(string: "https://campus.example/qapple?lang=ko#top")
    #expect(
      try engine.me(as: mina).avatarURL?.absoluteString == "https://campus.example/qapple" + path)
    engine.configuration.publicURL = nil
    #expect(try engine.user(mina.id).avatarURL?.absoluteString == path)
  }

  /// The path of a database file in `folder` as migration `version` left it, holding what
  /// `fill` wrote; an engine opened on it migrates it the rest of the way.
  static func database(
    upTo version: String, in folder: TemporaryDirectory, _ fill: (Database) throws -> Void
  ) throws -> String {
    let path = folder.path("old.sqlite")
    let old = try DatabaseQueue(path: path)
    try Schema.migrator.migrate(old, upTo: version)
    try old.write(fill)
    try old.close()
    return path
  }

  @Test("v5 turns a stored avatar URL, made from an uploader's Host header, into its path")
  func avatarMigration() throws {
    let folder = try TemporaryDirectory("engine")
    defer { folder.remove() }
    // A database as v4 left it, with a picture uploaded under a forged Host header.
    let path = try Self.database(upTo: "v4: refresh retries", in: folder) { db in
      try db.execute(
        sql: """
          INSERT INTO "user" (nickname, nickname_key, role, joined_at, avatar_url)
          VALUES ('Mina', 'mina', 'member', 0, 'http://evil.example/avatars/u_1?v=5'),
                 ('Joon', 'joon', 'member', 0, NULL)
          """)
    }
    let engine = try ServiceEngine(
      configuration: .init(
        storage: .file(path: path), publicURL: URL(string: "http://127.0.0.1:8080")))
    defer { try? engine.close() }
    let users = try engine.read { db, moment in
      try UserRecord.fetchAll(db).map { try Users.user(db, $0, moment).avatarURL?.absoluteString }
    }
    #expect(users == ["http://127.0.0.1:8080/avatars/u_1?v=5", nil])
  }

  @Test("v6 orders the report cases of an older database by their first report")
  func openedAtMigration() throws {
    let folder = try TemporaryDirectory("engine")
    defer { folder.remove() }
    let path = try Self.database(upTo: "v5: avatar paths", in: folder) { db in
      try db.execute(
        sql: """
          INSERT INTO report_case
            (target_type, target_id, status, first_reported_at, last_reported_at)
          VALUES ('post', 'p_1', 'open', 1000, 9000), ('post', 'p_2', 'open', 2000, 2000)
          """)
    }
    let engine = try ServiceEngine(configuration: .init(storage: .file(path: path)))
    defer { try? engine.close() }
    let opened = try engine.read { db, _ in
      try ReportCaseRecord.order(Column("opened_at").desc).fetchAll(db).map {
        [$0.targetId: $0.openedAt]
      }
    }
    #expect(opened == [["p_2": 2000], ["p_1": 1000]])
  }
}
