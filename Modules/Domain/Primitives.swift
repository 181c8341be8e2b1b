import Primitives

/// A value guarded by a lock (`Primitives.Locked`): every module that imports Domain uses it as
/// `Locked`, without importing `Primitives` itself.
public typealias Locked<Value> = Primitives.Locked<Value>

/// Files only their owner may read (`Primitives.PrivateFile`): a private database is made with
/// it before SQLite opens it.
public typealias PrivateFile = Primitives.PrivateFile

/// An exclusive lock between processes on a lock file (`Primitives.FileLock`).
public typealias FileLock = Primitives.FileLock

/// One value stream, any number of readers (`Primitives.Broadcaster`): every module that imports
/// Domain uses it as `Broadcaster`, without importing `Primitives` itself.
public typealias Broadcaster<Element: Sendable> = Primitives.Broadcaster<Element>

/// One connection of a connection that reconnects (`Primitives.ConnectionLink`): the chat
/// engine's link and a WebSocket's socket are this one type.
public typealias ConnectionLink = Primitives.ConnectionLink
