import Foundation

/// Files only their owner may read: a database of private data (a user's chat cache, the local
/// server's sessions) is made here before SQLite opens it, so that its journal files, which
/// SQLite gives the database file's mode, are private too.
public enum PrivateFile {
  /// Creates the missing folders above `path` (mode 0700) and an empty file at `path` (mode
  /// 0600) when none is there. An existing file or folder keeps its mode.
  ///
  /// - Throws: what the file system threw when a folder or the file could not be made.
  public static func prepare(at path: String) throws {
    let url = URL(fileURLWithPath: path)
    let manager = FileManager.default
    // Made one by one from the top, so each new folder gets the mode (not only the last).
    var missing: [URL] = []
    var folder = url.deletingLastPathComponent()
    while !manager.fileExists(atPath: folder.path), folder.path != "/" {
      missing.append(folder)
      folder = folder.deletingLastPathComponent()
    }
    for folder in missing.reversed() {
      do {
        try manager.createDirectory(
          at: folder, withIntermediateDirectories: false,
          attributes: [.posixPermissions: 0o700])
      } catch  where manager.fileExists(atPath: folder.path) {
        // Made meanwhile by another process: it keeps its mode.
      }
    }
    guard !manager.fileExists(atPath: path) else { return }
    let descriptor = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else {
      throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: path])
    }
    close(descriptor)
  }
}
