import Domain
import Foundation
import Logging
import NetworkKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A ``SessionStore`` that keeps the session in one JSON file readable by the owner only: for
/// Linux, command-line tools and anywhere without a Keychain.
///
/// - The file is created with permissions `0600`, its directory (when this store creates it)
///   with `0700`.
/// - Writes are atomic: a temporary file (`0600`) in the same directory is written, flushed to
///   disk and renamed over the old one, so a crash leaves either the old or the new session.
///   A temporary file a crash left behind (`.<name>.<uuid>.tmp`, holding tokens) is removed by
///   `clear()`, and by the next write once it is a minute old (a younger one may be another
///   process's write under way).
/// - A file that others can read (e.g. `0644` after a copy) is tightened to `0600` when it is
///   read, and a warning is logged: the tokens may have been exposed, so consider signing out.
/// - The file is never read through a symbolic link.
/// - Processes sharing the file refresh its tokens one at a time (``holdRefreshes()``, a lock
///   on `.<name>.lock` beside it), and every write takes the same lock (unless this store
///   holds it for a refresh already): a check and the write it decides
///   (``swapCredentials(_:ifStored:)``, ``saveUser(_:onto:)``) are one step no other process
///   comes between, and no write lands in the middle of another process's refresh.
/// - A corrupt file throws ``CredentialStoreError/corrupted(location:reason:)`` and is left as it
///   is, never deleted behind the user's back; signing in again replaces it, `clear()` deletes it.
public actor FileCredentialStore: SessionStore {
  /// Where the session lives.
  public nonisolated let fileURL: URL
  /// How long a refresh, or a write, waits for another process's refresh or write of the same
  /// file (``holdRefreshes()``) before it gives up for now.
  public nonisolated let refreshLockWait: Duration
  private let logger: Logger?
  /// The lock of the open hold of ``holdRefreshes()``, if any, and how many of this store's
  /// writes run under it now (taking the lock again would wait for itself): the hold's release
  /// unlocks once the last of them is done, never in the middle of one.
  private let hold = Locked(Hold())

  private struct Hold {
    var lock: FileLock?
    var borrowers = 0
    var isReleased = false
  }

  /// Creates a store for the file at `fileURL` (it need not exist yet).
  ///
  /// - Parameter refreshLockWait: How long a refresh waits for another process's refresh of
  ///   the same file; 30 s by default (a refresh is one request, bounded by its timeout).
  public init(fileURL: URL, logger: Logger? = nil, refreshLockWait: Duration = .seconds(30)) {
    self.fileURL = fileURL
    self.logger = logger
    self.refreshLockWait = refreshLockWait
  }

  /// Creates a store at ``defaultFileURL(service:account:)``.
  public init(service: String = "qapple", account: String = "default", logger: Logger? = nil) {
    self.init(fileURL: Self.defaultFileURL(service: service, account: account), logger: logger)
  }

  /// `$XDG_CONFIG_HOME/<service>/<account>.session.json`, falling back to `~/.config` (Linux),
  /// or `~/Library/Application Support/<service>/...` on Apple platforms.
  public static func defaultFileURL(
    service: String = "qapple", account: String = "default"
  )
    -> URL
  {
    let base = PlatformDirectories.config()
    return base.appendingPathComponent(safeName(service), isDirectory: true)
      .appendingPathComponent("\(safeName(account)).session.json")
  }

  // MARK: - SessionStore

  /// The stored session, or `nil` when the file does not exist.
  public func storedSession() throws(CredentialStoreError) -> StoredSession? {
    guard let data = try readFile() else { return nil }
    return try StoredSession.decoded(from: data, location: fileURL.path)
  }

  /// Replaces the file with `session` (also replaces a corrupt file).
  public func saveSession(_ session: StoredSession) async throws(CredentialStoreError) {
    try await exclusively { () throws(CredentialStoreError) in try writeFile(session.encoded()) }
  }

  /// Replaces the user snapshot while the stored tokens are those of `refreshToken`; returns
  /// whether it did.
  public func saveUser(
    _ user: User, onto refreshToken: String
  ) async throws(CredentialStoreError) -> Bool {
    try await exclusively { () throws(CredentialStoreError) -> Bool in
      guard var session = try storedSession(), session.credentials.refreshToken == refreshToken
      else { return false }
      session.user = user
      try writeFile(session.encoded())
      return true
    }
  }

  // MARK: - CredentialStore

  /// The stored tokens.
  public func credentials() throws(CredentialStoreError) -> Credentials? {
    try storedSession()?.credentials
  }

  /// Replaces the tokens and keeps the user snapshot; without a stored session the tokens are
  /// stored alone.
  public func save(_ credentials: Credentials) async throws(CredentialStoreError) {
    try await exclusively { () throws(CredentialStoreError) in
      let user = try storedSession()?.user
      try writeFile(StoredSession(credentials: credentials, user: user).encoded())
    }
  }

  /// Replaces the tokens (keeping the user snapshot) or, given `nil`, deletes the file, while
  /// `isExpected` holds for the stored tokens. A file that cannot be read is deleted by `nil`,
  /// and its read error thrown for tokens (a corrupt file is left for a sign-in to replace).
  /// One step under the lock that the other processes' writes take too.
  public func swapCredentials(
    _ credentials: Credentials?, ifStored isExpected: @Sendable (Credentials?) -> Bool
  ) async throws(CredentialStoreError) -> Bool {
    try await exclusively(makingFolder: credentials != nil) {
      () throws(CredentialStoreError) -> Bool in
      var user: User?
      do throws(CredentialStoreError) {
        let stored = try storedSession()
        guard isExpected(stored?.credentials) else { return false }
        user = stored?.user
      } catch {
        // Unreadable: a removal deletes it; a write leaves a corrupt file for a sign-in to
        // replace (never behind the user's back), as ``save(_:)`` does.
        if credentials != nil { throw error }
      }
      if let credentials {
        try writeFile(StoredSession(credentials: credentials, user: user).encoded())
      } else {
        try removeFiles()
      }
      return true
    }
  }

  /// Holds off the refreshes and writes of other processes on this file until the returned
  /// function is called (this store's own writes go on meanwhile): an exclusive lock on
  /// `.<name>.lock` beside it (``Domain/FileLock``), waited for up to ``refreshLockWait``; the
  /// folder is made when missing. `nil` (refresh without it) when the lock file cannot be
  /// opened, e.g. where the folder cannot be made.
  ///
  /// - Throws: ``CredentialStoreError/fileSystem(operation:path:errno:)`` (`EWOULDBLOCK`) when
  ///   another process held the lock for the whole wait: its refresh is still under way, and
  ///   this one must not spend the token it may be spending; `ECANCELED` when the calling task
  ///   was cancelled while it waited.
  public func holdRefreshes() async throws(CredentialStoreError) -> (@Sendable () -> Void)? {
    // A first sign-in holds it across both writes too: the folder is made for it.
    try? ensureDirectory(fileURL.deletingLastPathComponent())
    guard let lock = try await lock() else { return nil }
    hold.withLock { $0 = Hold(lock: lock) }
    let hold = hold
    return {
      // This hold's lock only: a call after it ended does nothing to a later hold.
      hold.withLock { hold in
        guard hold.lock === lock else { return }
        hold.isReleased = true
        Self.unlockIfDone(&hold)
      }
    }
  }

  /// Unlocks a released hold that no write runs under any more.
  private static func unlockIfDone(_ hold: inout Hold) {
    guard hold.isReleased, hold.borrowers == 0 else { return }
    hold.lock?.unlock()
    hold = Hold()
  }

  /// Deletes the file and any temporary file an interrupted write left next to it.
  public func clear() async throws(CredentialStoreError) {
    try await exclusively(makingFolder: false) { () throws(CredentialStoreError) in
      try removeFiles()
    }
  }

  // MARK: - The lock

  /// Runs `body` under the lock on `.<name>.lock` (``holdRefreshes()``'s), unless this store
  /// holds it already, or it cannot be made (a folder that cannot be created: `body`'s write
  /// then fails on its own; a deletion `makingFolder: false` does not make a missing folder,
  /// which holds nothing to delete).
  private func exclusively<T>(
    makingFolder: Bool = true, _ body: () throws(CredentialStoreError) -> T
  ) async throws(CredentialStoreError) -> T {
    let borrows = hold.withLock { hold in
      guard hold.lock != nil, !hold.isReleased else { return false }
      hold.borrowers += 1
      return true
    }
    if borrows {
      defer {
        hold.withLock { hold in
          hold.borrowers -= 1
          Self.unlockIfDone(&hold)
        }
      }
      return try body()
    }
    if makingFolder { try? ensureDirectory(fileURL.deletingLastPathComponent()) }
    let lock = try await lock()
    defer { lock?.unlock() }
    return try body()
  }

  /// Takes the lock on `.<name>.lock`, waiting up to ``refreshLockWait`` for another holder;
  /// `nil` when the lock file cannot be opened (e.g. before the folder exists).
  ///
  /// - Throws: ``CredentialStoreError/fileSystem(operation:path:errno:)``: `EWOULDBLOCK` when
  ///   another holder kept it for the whole wait, `ECANCELED` when the calling task was
  ///   cancelled while it waited.
  private func lock() async throws(CredentialStoreError) -> FileLock? {
    let path = fileURL.deletingLastPathComponent()
      .appendingPathComponent(".\(fileURL.lastPathComponent).lock").path
    let lock: FileLock?
    do {
      lock = try await FileLock.acquire(at: path, waitingAtMost: refreshLockWait)
    } catch {
      logger?.debug("No session lock: \(error)")
      return nil
    }
    guard let lock else {
      // A caller that gave up is not told that another process kept the lock.
      if Task.isCancelled {
        throw .fileSystem(operation: "wait for the lock on", path: path, errno: ECANCELED)
      }
      logger?.warning(
        "Another process kept the session's lock for \(refreshLockWait); not going on now",
        metadata: ["path": "\(path)"])
      throw .fileSystem(
        operation: "wait \(refreshLockWait) for another process's lock on", path: path,
        errno: EWOULDBLOCK)
    }
    return lock
  }

  // MARK: - Files

  /// Deletes the file and every temporary file of a write next to it.
  private func removeFiles() throws(CredentialStoreError) {
    if unlink(fileURL.path) != 0, errno != ENOENT {
      throw .fileSystem(operation: "delete", path: fileURL.path, errno: errno)
    }
    try removeLeftoverTemporaryFiles(olderThan: 0)
  }

  /// The file's bytes, or `nil` when it does not exist; tightens loose permissions first.
  private func readFile() throws(CredentialStoreError) -> Data? {
    let path = fileURL.path
    let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
    if descriptor < 0 {
      let code = errno
      if code == ENOENT { return nil }
      if code == ELOOP { throw .notARegularFile(path: path) }
      throw .fileSystem(operation: "open", path: path, errno: code)
    }
    defer { close(descriptor) }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      throw .fileSystem(operation: "inspect", path: path, errno: errno)
    }
    guard (status.st_mode & S_IFMT) == S_IFREG else { throw .notARegularFile(path: path) }
    let permissions = status.st_mode & 0o777
    if permissions & 0o077 != 0 {
      guard fchmod(descriptor, 0o600) == 0 else {
        throw .fileSystem(operation: "restrict the permissions of", path: path, errno: errno)
      }
      logger?.warning(
        """
        The session file was readable by other users; its permissions were set to 0600. \
        Sign out and in again if others may have read the tokens.
        """,
        metadata: ["path": "\(path)", "previous_mode": "\(String(permissions, radix: 8))"])
    }
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 16_384)
    while true {
      let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
      if count < 0 {
        if errno == EINTR { continue }
        throw .fileSystem(operation: "read", path: path, errno: errno)
      }
      if count == 0 { break }
      data.append(contentsOf: buffer[0..<count])
    }
    return data
  }

  /// The name of a temporary file of a write: `.<name>.<uuid>.tmp`.
  private func temporaryName(_ id: UUID) -> String {
    ".\(fileURL.lastPathComponent).\(id.uuidString).tmp"
  }

  /// How old a temporary file must be to count as left behind: a younger one may be another
  /// process's write still under way (removing it would fail that write's rename).
  static let leftoverAge: TimeInterval = 60

  /// Removes the temporary files (they hold tokens) that writes interrupted by a crash left in
  /// the file's directory: only names of the form ``temporaryName(_:)``, last changed more than
  /// `age` seconds ago (a write passes over younger ones, ``leftoverAge``; a sign-out takes
  /// them all).
  private func removeLeftoverTemporaryFiles(
    olderThan age: TimeInterval = leftoverAge
  ) throws(CredentialStoreError) {
    let directory = fileURL.deletingLastPathComponent()
    let names: [String]
    do {
      names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
    } catch {
      // No directory, no leftovers.
      if !FileManager.default.fileExists(atPath: directory.path) { return }
      let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
      throw .fileSystem(
        operation: "list", path: directory.path, errno: Int32(underlying?.code ?? Int(EIO)))
    }
    let prefix = ".\(fileURL.lastPathComponent)."
    for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
      let id = name.dropFirst(prefix.count).dropLast(".tmp".count)
      guard let uuid = UUID(uuidString: String(id)), temporaryName(uuid) == name else { continue }
      let path = directory.appendingPathComponent(name).path
      guard
        let changed = try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate]
          as? Date, -changed.timeIntervalSinceNow >= age
      else { continue }
      if unlink(path) != 0, errno != ENOENT {
        throw .fileSystem(operation: "delete", path: path, errno: errno)
      }
    }
  }

  /// Writes `data` atomically: temporary file (0600) in the same directory, fsync, rename.
  private func writeFile(_ data: Data) throws(CredentialStoreError) {
    let directory = fileURL.deletingLastPathComponent()
    try ensureDirectory(directory)
    try removeLeftoverTemporaryFiles()
    let temporary = directory.appendingPathComponent(temporaryName(UUID())).path
    let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      throw .fileSystem(operation: "create", path: temporary, errno: errno)
    }
    var succeeded = false
    defer {
      if !succeeded { unlink(temporary) }
    }
    do {
      defer { close(descriptor) }
      // The umask can only remove bits; set the mode explicitly so it is exactly 0600.
      guard fchmod(descriptor, 0o600) == 0 else {
        throw CredentialStoreError.fileSystem(
          operation: "set the permissions of", path: temporary, errno: errno)
      }
      // The closure reports errno instead of throwing: `withUnsafeBytes` erases error types.
      let writeError: Int32? = data.withUnsafeBytes { bytes in
        var offset = 0
        while offset < bytes.count {
          let written = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
          if written < 0 {
            if errno == EINTR { continue }
            return errno
          }
          offset += written
        }
        return nil
      }
      if let writeError {
        throw CredentialStoreError.fileSystem(
          operation: "write", path: temporary, errno: writeError)
      }
      guard fsync(descriptor) == 0 else {
        throw CredentialStoreError.fileSystem(
          operation: "flush", path: temporary, errno: errno)
      }
    }
    guard rename(temporary, fileURL.path) == 0 else {
      throw .fileSystem(operation: "replace", path: fileURL.path, errno: errno)
    }
    succeeded = true
  }

  /// Creates the directory (and missing parents) with 0700 when it is missing; an existing one
  /// is left as it is (it may be shared, like `/tmp`).
  private func ensureDirectory(_ directory: URL) throws(CredentialStoreError) {
    do {
      try PrivateFile.makeFolder(at: directory)
    } catch {
      throw .fileSystem(operation: error.operation, path: error.path, errno: error.errno)
    }
  }

  /// Keeps a service or account name usable as one path component.
  private static func safeName(_ name: String) -> String {
    let cleaned = PlatformDirectories.pathComponent(name)
    return cleaned.isEmpty || cleaned.allSatisfy({ $0 == "." }) ? "default" : cleaned
  }
}
