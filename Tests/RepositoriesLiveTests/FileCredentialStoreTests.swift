import Domain
import Foundation
import NetworkKit
import TestSupport
import Testing

@testable import RepositoriesLive

@Suite("FileCredentialStore")
struct FileCredentialStoreTests {
  static let credentials = Credentials(
    accessToken: "a-1", refreshToken: "r-1", expiresAt: Date(timeIntervalSince1970: 1_784_000_000))

  @Test func roundTripsASession() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let store = FileCredentialStore(fileURL: directory.url.appendingPathComponent("s.json"))
    #expect(try await store.storedSession() == nil)
    #expect(try await store.credentials() == nil)

    let session = StoredSession(credentials: Self.credentials, user: Fixtures.domainUser())
    try await store.saveSession(session)

    #expect(try await store.storedSession() == session)
    #expect(try await store.credentials() == Self.credentials)
    // A second store on the same file (a relaunch) reads the same.
    let relaunched = FileCredentialStore(fileURL: store.fileURL)
    #expect(try await relaunched.storedSession() == session)
  }

  @Test("two stores on one file refresh one at a time: the second waits for the first's release")
  func refreshesOneAtATime() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let file = directory.url.appendingPathComponent("s.json")
    let first = FileCredentialStore(fileURL: file)
    let second = FileCredentialStore(fileURL: file)
    let release = try #require(try await first.holdRefreshes())
    let order = Locked<[String]>([])
    let waiter = Task {
      let released = try await second.holdRefreshes()
      order.withLock { $0.append("second holds") }
      return released
    }
    try await Task.sleep(for: .milliseconds(100))
    order.withLock { $0.append("first releases") }
    release()
    let releaseSecond = try #require(try await waiter.value)
    #expect(order.withLock { $0 } == ["first releases", "second holds"])
    // One that waits no longer than it is held gives up for now, rather than go ahead.
    let impatient = FileCredentialStore(fileURL: file, refreshLockWait: .milliseconds(50))
    await #expect(throws: CredentialStoreError.self) { try await impatient.holdRefreshes() }
    releaseSecond()
    // Deleting a session does not make a missing folder (to take the lock in)...
    let fresh = FileCredentialStore(fileURL: directory.url.appendingPathComponent("new/s.json"))
    try await fresh.clear()
    #expect(try await fresh.swapCredentials(nil) { _ in true })
    let folder = directory.url.appendingPathComponent("new").path
    #expect(!FileManager.default.fileExists(atPath: folder))
    // ...a hold does (a first sign-in holds it across both its writes).
    let hold = try #require(try await fresh.holdRefreshes())
    #expect(FileManager.default.fileExists(atPath: folder))
    hold()
    // Where the folder cannot be made, there is no lock to take: the refresh goes ahead.
    let blocker = directory.url.appendingPathComponent("a-file")
    try Data().write(to: blocker)
    let nowhere = FileCredentialStore(fileURL: blocker.appendingPathComponent("no/s.json"))
    #expect(try await nowhere.holdRefreshes() == nil)
  }

  @Test("a write cancelled while another process holds the lock says it was cancelled")
  func aCancelledLockWaitIsNotContention() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let file = directory.url.appendingPathComponent("s.json")
    let holder = FileCredentialStore(fileURL: file)
    let release = try #require(try await holder.holdRefreshes())
    defer { release() }
    let waiting = FileCredentialStore(fileURL: file, refreshLockWait: .seconds(30))
    let write = Task { try await waiting.save(Self.credentials) }
    try await Task.sleep(for: .milliseconds(50))
    write.cancel()
    let lockPath = directory.url.appendingPathComponent(".s.json.lock").path
    await #expect(
      throws: CredentialStoreError.fileSystem(
        operation: "wait for the lock on", path: lockPath, errno: ECANCELED)
    ) { try await write.value }
    #expect(try await holder.credentials() == nil)
  }

  @Test func refreshedTokensKeepTheUserSnapshot() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let store = FileCredentialStore(fileURL: directory.url.appendingPathComponent("s.json"))
    try await store.saveSession(
      StoredSession(credentials: Self.credentials, user: Fixtures.domainUser()))

    let rotated = Credentials(accessToken: "a-2", refreshToken: "r-2")
    try await store.save(rotated)
    var renamed = Fixtures.domainUser()
    renamed.nickname = Nickname(trusted: "새이름")
    #expect(try await store.saveUser(renamed, onto: "r-2"))

    #expect(try await store.storedSession() == StoredSession(credentials: rotated, user: renamed))
  }

  @Test("a snapshot goes only onto the tokens it names; a swap only over what it expects")
  func conditionalWritesLeaveAnotherSessionAlone() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let store = FileCredentialStore(fileURL: directory.url.appendingPathComponent("s.json"))
    let theirs = StoredSession(
      credentials: Credentials(accessToken: "b-1", refreshToken: "s-1"),
      user: Fixtures.domainUser(id: "u_b"))
    try await store.saveSession(theirs)

    #expect(try await !store.saveUser(Fixtures.domainUser(), onto: "r-1"))
    let mine = Credentials(accessToken: "a-2", refreshToken: "r-2")
    #expect(try await !store.swapCredentials(mine) { $0?.refreshToken == "r-1" })
    #expect(try await !store.swapCredentials(nil) { $0?.refreshToken == "r-1" })
    #expect(try await store.storedSession() == theirs)

    // Over what it expects, a swap keeps the snapshot; `nil` deletes the file.
    let rotated = Credentials(accessToken: "b-2", refreshToken: "s-2")
    #expect(try await store.swapCredentials(rotated) { $0?.refreshToken == "s-1" })
    #expect(
      try await store.storedSession() == StoredSession(credentials: rotated, user: theirs.user))
    #expect(try await store.swapCredentials(nil) { $0 == rotated })
    #expect(try await store.storedSession() == nil)
    // An empty store is what the condition says of `nil`.
    #expect(try await !store.swapCredentials(mine) { $0 != nil })
    #expect(try await store.swapCredentials(mine) { $0 == nil })
    #expect(try await store.credentials() == mine)

    // A file that cannot be read is left for a sign-in to replace: a swap to tokens throws
    // its read error; a removal deletes it, whatever the condition.
    try Data("{".utf8).write(to: store.fileURL)
    await #expect(throws: CredentialStoreError.self) {
      try await store.swapCredentials(rotated) { _ in true }
    }
    #expect(try Data(contentsOf: store.fileURL) == Data("{".utf8))
    #expect(try await store.swapCredentials(nil) { _ in false })
    #expect(try await store.storedSession() == nil)
  }

  @Test(
    "every write waits for another store's hold on the file; the holder's own writes go on under it"
  )
  func writesWaitForAnotherProcesssHold() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let file = directory.url.appendingPathComponent("s.json")
    // Its writes would wait for themselves if they took the lock again: they would time out.
    let refreshing = FileCredentialStore(fileURL: file, refreshLockWait: .milliseconds(200))
    try await refreshing.save(Self.credentials)
    let release = try #require(try await refreshing.holdRefreshes())
    let theirs = StoredSession(
      credentials: Credentials(accessToken: "b-1", refreshToken: "s-1"),
      user: Fixtures.domainUser(id: "u_b"))
    let other = FileCredentialStore(fileURL: file, refreshLockWait: .milliseconds(50))
    let writes: [(String, @Sendable () async throws -> Void)] = [
      ("saveSession", { try await other.saveSession(theirs) }),
      ("save", { try await other.save(theirs.credentials) }),
      ("swapCredentials", { _ = try await other.swapCredentials(nil) { _ in true } }),
      ("saveUser", { _ = try await other.saveUser(Fixtures.domainUser(), onto: "r-1") }),
      ("clear", { try await other.clear() }),
    ]
    for (name, write) in writes {
      await #expect(throws: CredentialStoreError.self, "\(name) went ahead") { try await write() }
    }
    #expect(try await refreshing.credentials() == Self.credentials)

    let rotated = Credentials(accessToken: "a-2", refreshToken: "r-2")
    #expect(try await refreshing.swapCredentials(rotated) { $0 == Self.credentials })
    release()
    release()  // a second call does nothing
    try await other.saveSession(theirs)
    #expect(try await refreshing.storedSession() == theirs)
    // Released: its writes take the lock again, and find it free.
    try await refreshing.save(rotated)
    #expect(try await other.credentials() == rotated)
  }

  @Test func tokensAloneAreStoredWithoutAUser() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let store = FileCredentialStore(fileURL: directory.url.appendingPathComponent("s.json"))
    #expect(try await !store.saveUser(Fixtures.domainUser(), onto: "r-1"))
    #expect(try await store.storedSession() == nil, "a user without a session is not stored")

    try await store.save(Self.credentials)
    #expect(
      try await store.storedSession() == StoredSession(credentials: Self.credentials, user: nil))
  }

  @Test func clearDeletesTheFile() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let file = directory.url.appendingPathComponent("s.json")
    let store = FileCredentialStore(fileURL: file)
    try await store.save(Self.credentials)
    try await store.clear()
    #expect(!FileManager.default.fileExists(atPath: file.path))
    try await store.clear()  // clearing twice is fine
  }

  @Test func temporaryFilesLeftByACrashedWriteAreRemovedByClearAndTheNextWrite() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let file = directory.url.appendingPathComponent("s.json")
    let store = FileCredentialStore(fileURL: file)
    try await store.save(Self.credentials)
    // What a write that crashed before its rename left behind (two minutes ago), and files that
    // are not ours.
    func leftover() throws -> String {
      let name = ".s.json.\(UUID().uuidString).tmp"
      let url = directory.url.appendingPathComponent(name)
      try Data("tokens".utf8).write(to: url)
      try FileManager.default.setAttributes(
        [.modificationDate: Date().addingTimeInterval(-120)], ofItemAtPath: url.path)
      return name
    }
    // (The lock file every write takes is no temporary file.)
    let unrelated = [
      ".s.json.notes.tmp", "other.json", ".t.json.\(UUID().uuidString).tmp", ".s.json.lock",
    ]
    for name in unrelated {
      try Data().write(to: directory.url.appendingPathComponent(name))
    }
    func contents() throws -> Set<String> {
      Set(try FileManager.default.contentsOfDirectory(atPath: directory.url.path))
    }

    // Another process's write still under way: younger than a minute.
    func underWay() throws -> String {
      let name = ".s.json.\(UUID().uuidString).tmp"
      try Data("tokens".utf8).write(to: directory.url.appendingPathComponent(name))
      return name
    }

    // A sign-out takes every one of ours.
    _ = try leftover()
    _ = try underWay()
    try await store.clear()
    #expect(try contents() == Set(unrelated))

    // A write passes over the one under way.
    _ = try leftover()
    let writing = try underWay()
    try await store.save(Self.credentials)
    #expect(try contents() == Set(unrelated + ["s.json", writing]))
    #expect(try await store.credentials() == Self.credentials)
  }

  @Test func fileIs0600AndNewDirectoriesAre0700() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let nested = directory.url.appendingPathComponent("config/qapple", isDirectory: true)
    let file = nested.appendingPathComponent("default.session.json")
    let store = FileCredentialStore(fileURL: file)

    try await store.save(Self.credentials)
    #expect(try permissions(of: file) == 0o600)
    #expect(try permissions(of: nested) == 0o700)
    #expect(try permissions(of: nested.deletingLastPathComponent()) == 0o700)

    // Replacing keeps 0600 and leaves no temporary files behind, only the writes' lock file
    // (0600 too).
    try await store.save(Credentials(accessToken: "a-2", refreshToken: "r-2"))
    #expect(try permissions(of: file) == 0o600)
    let lockFile = ".\(file.lastPathComponent).lock"
    #expect(
      Set(try FileManager.default.contentsOfDirectory(atPath: nested.path))
        == [file.lastPathComponent, lockFile])
    #expect(try permissions(of: nested.appendingPathComponent(lockFile)) == 0o600)
  }

  @Test func aFileOthersCanReadIsTightenedTo0600() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let file = directory.url.appendingPathComponent("s.json")
    let store = FileCredentialStore(fileURL: file)
    try await store.save(Self.credentials)
    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)

    #expect(try await store.credentials() == Self.credentials)
    #expect(try permissions(of: file) == 0o600)
  }

  @Test func aCorruptFileThrowsATypedErrorAndIsKept() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let file = directory.url.appendingPathComponent("s.json")
    let garbage = Data(#"{"version": 1, "credentials": 42}"#.utf8)
    try garbage.write(to: file)
    let store = FileCredentialStore(fileURL: file)

    await #expect {
      _ = try await store.storedSession()
    } throws: { error in
      guard case .corrupted(let location, let reason) = error as? CredentialStoreError else {
        return false
      }
      return location == file.path && reason.contains("credentials")
    }
    // A refresh must not write over data it could not read.
    await #expect(throws: CredentialStoreError.self) { try await store.save(Self.credentials) }
    #expect(try Data(contentsOf: file) == garbage)

    // An explicit sign-in replaces it.
    let session = StoredSession(credentials: Self.credentials, user: Fixtures.domainUser())
    try await store.saveSession(session)
    #expect(try await store.storedSession() == session)
  }

  @Test func anUnknownFormatVersionIsCorruptNotMisread() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let file = directory.url.appendingPathComponent("s.json")
    try Data(#"{"version": 9, "credentials": {}, "user": null}"#.utf8).write(to: file)
    await #expect(throws: CredentialStoreError.self) {
      _ = try await FileCredentialStore(fileURL: file).storedSession()
    }
  }

  @Test func anEmptyFileIsCorrupt() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let file = directory.url.appendingPathComponent("s.json")
    try Data().write(to: file)
    await #expect(throws: CredentialStoreError.self) {
      _ = try await FileCredentialStore(fileURL: file).credentials()
    }
  }

  @Test func symbolicLinksAreNotFollowed() async throws {
    let directory = try TemporaryDirectory()
    defer { directory.remove() }
    let target = directory.url.appendingPathComponent("elsewhere.json")
    let store = FileCredentialStore(fileURL: target)
    try await store.save(Self.credentials)
    let link = directory.url.appendingPathComponent("s.json")
    try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)

    await #expect(throws: CredentialStoreError.notARegularFile(path: link.path)) {
      _ = try await FileCredentialStore(fileURL: link).credentials()
    }
  }

  @Test func theDefaultLocationIsPerServiceAndAccount() {
    let url = FileCredentialStore.defaultFileURL(service: "qapple-admin", account: "ops/../x")
    #expect(url.lastPathComponent == "ops_.._x.session.json")
    #expect(url.deletingLastPathComponent().lastPathComponent == "qapple-admin")
  }
}
