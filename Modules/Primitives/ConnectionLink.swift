/// One connection of a connection that reconnects (a WebSocket, a chat channel), numbered from
/// 1 in the order they opened.
///
/// Whoever learns of a new connection later than it was made (the chat engine hears of it from
/// its channel's events) names the connection it last heard of in every call, and the owner
/// refuses a call meant for one that is gone instead of making it on the next: a message sent
/// there could reach the server before the earlier messages the old connection lost.
public struct ConnectionLink: Sendable, Hashable, CustomStringConvertible {
  /// The connection's number, counted from 1 in the order they opened.
  public var number: Int

  /// The connection numbered `number` (a test's, or a copy of one its owner named).
  public init(_ number: Int) {
    self.number = number
  }

  /// "link N".
  public var description: String { "link \(number)" }
}
