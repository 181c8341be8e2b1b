import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Folders and files only their owner may read, written once for the SDK: the credential file's
/// folder, the tools' data folder and sign-up file, and a private database (a user's chat
/// cache, the local server's sessions), made here before SQLite opens it so that its journal
/// files, which SQLite gives the database file's mode, are private too.
public enum PrivateFile {
  /// A file-system call that failed: what it tried, on which path, and the `errno` it set.
  public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was tried ("create the directory", ...).
    public let operation: String
    /// The path it was tried on.
    public let path: String
    /// The `errno` the call set.
    public let errno: Int32

    /// "cannot <operation> <path>: <reason> (errno N)".
    public var description: String {
      "cannot \(operation) \(path): \(String(cString: strerror(errno))) (errno \(errno))"
    }
  }

  /// Creates `folder` and its missing parents, each new one exactly 0700 (whatever the umask).
  /// An existing folder is left as it is (it may be shared, like `/tmp`).
  ///
  /// - Throws: ``Failure`` when a folder cannot be made, or a file is where one should be.
  public static func makeFolder(at folder: URL) throws(Failure) {
    let path = folder.path
    var status = stat()
    if stat(path, &status) == 0 {
      if (status.st_mode & S_IFMT) == S_IFDIR { return }
      throw Failure(operation: "use as a directory", path: path, errno: ENOTDIR)
    }
    let parent = folder.deletingLastPathComponent()
    if parent.path != path { try makeFolder(at: parent) }
    if mkdir(path, 0o700) != 0, errno != EEXIST {
      throw Failure(operation: "create the directory", path: path, errno: errno)
    }
    // The umask may have removed bits; a new directory of ours is exactly 0700.
    guard chmod(path, 0o700) == 0 else {
      throw Failure(operation: "set the permissions of", path: path, errno: errno)
    }
  }

  /// Creates the missing folders above `path` (``makeFolder(at:)``) and an empty file at `path`
  /// (mode 0600) when none is there. An existing file keeps its mode and content.
  ///
  /// - Throws: ``Failure`` when a folder or the file cannot be made.
  public static func prepare(at path: String) throws(Failure) {
    try makeFolder(at: URL(fileURLWithPath: path).deletingLastPathComponent())
    let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      throw Failure(operation: "create", path: path, errno: errno)
    }
    close(descriptor)
  }
}
