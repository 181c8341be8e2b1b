import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An exclusive lock that processes take on a lock file (`flock`), written once for the SDK:
/// the tools' first start of their shared database, and a token refresh of a session file that
/// several processes share. The system releases it when its holder ends, a crash included.
///
/// Two locks of one file exclude each other within one process too (each opens the file anew).
public final class FileLock: Sendable {
  private let descriptor: Locked<Int32?>

  private init(descriptor: Int32) {
    self.descriptor = Locked(descriptor)
  }

  deinit { unlock() }

  /// Opens the lock file at `path` (made with mode 0600 when missing; its folder must exist)
  /// and waits until the lock is this one's, without blocking a thread: tries again every
  /// `interval` until `limit` has passed. `nil` when another holder kept the lock that long, or
  /// the waiting task was cancelled.
  ///
  /// - Throws: ``PrivateFile/Failure`` when the file cannot be opened or locked.
  public static func acquire(
    at path: String, waitingAtMost limit: Duration, interval: Duration = .milliseconds(10)
  ) async throws(PrivateFile.Failure) -> FileLock? {
    let descriptor = try openLockFile(path)
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: limit)
    while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
      let code = errno
      guard code == EWOULDBLOCK || code == EINTR else {
        close(descriptor)
        throw PrivateFile.Failure(operation: "lock", path: path, errno: code)
      }
      guard clock.now < deadline, (try? await Task.sleep(for: interval)) != nil else {
        close(descriptor)
        return nil
      }
    }
    return FileLock(descriptor: descriptor)
  }

  /// Releases the lock; later calls do nothing.
  public func unlock() {
    descriptor.withLock { descriptor in
      // Closing the file releases its lock.
      if let open = descriptor { close(open) }
      descriptor = nil
    }
  }

  private static func openLockFile(_ path: String) throws(PrivateFile.Failure) -> Int32 {
    let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard descriptor >= 0 else {
      throw PrivateFile.Failure(operation: "open the lock file", path: path, errno: errno)
    }
    return descriptor
  }
}
