import Foundation

/// A fresh folder under the system's temporary directory for one test's files (databases,
/// credential files, stores), removed by ``remove()``.
///
/// Written once here for every test target that needs a place on disk (`defer {
/// directory.remove() }` right after creating it).
public struct TemporaryDirectory: Sendable {
  /// The folder.
  public let url: URL

  /// Creates the folder, named `prefix` and a UUID.
  public init(_ prefix: String = "qapple-test") throws {
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  /// The path of `name` inside the folder (not created): a database file, say.
  public func path(_ name: String) -> String {
    url.appendingPathComponent(name).path
  }

  /// Deletes the folder and everything in it (nothing if it is gone already).
  public func remove() {
    try? FileManager.default.removeItem(at: url)
  }
}

/// The POSIX permission bits (`0o600`, ...) of the file or folder at `url`.
public func permissions(of url: URL) throws -> Int {
  let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
  guard let mode = attributes[.posixPermissions] as? Int else {
    throw CocoaError(.fileReadUnknown, userInfo: [NSFilePathErrorKey: url.path])
  }
  return mode & 0o777
}
