import Foundation

/// Why the local store could not do what was asked. The cache is never the source of truth: an
/// app that gets ``corrupt(path:reason:)`` starts over with an empty store
/// (``ChatStore/openOrStartOver(at:owner:)`` when opening, ``ChatStore/startOver(at:owner:)``
/// for damage a read or write found) and syncs again.
public enum PersistenceError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The file is not a database (or is damaged).
  case corrupt(path: String, reason: String)
  /// The file or its folder cannot be opened (permissions, a missing volume, a full disk).
  case unreadable(path: String, reason: String)
  /// The file was written by a newer version of the app, whose migrations this one lacks.
  case newerSchema(path: String, migration: String)
  /// A read or write failed.
  case database(String)

  /// What happened and what to do.
  public var description: String {
    switch self {
    case .corrupt(let path, let reason):
      "The local cache at \(path) is damaged (\(reason)); start over with an empty cache."
    case .unreadable(let path, let reason):
      "The local cache at \(path) cannot be opened (\(reason)); check the folder and free space."
    case .newerSchema(let path, let migration):
      "The local cache at \(path) comes from a newer app version (migration \"\(migration)\"); "
        + "update the app or start over with an empty cache."
    case .database(let reason):
      "The local cache failed: \(reason)."
    }
  }
}
