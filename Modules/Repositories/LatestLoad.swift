/// The loads of a screen's content: each new one supersedes those before it, and only the
/// newest may show what it read (an older one that lands last would put stale content, or a
/// stale failure, back). A screen model keeps one, numbers each load with ``start()`` and asks
/// ``isLatest(_:)`` before it shows what the load read.
public struct LatestLoad: Sendable {
  private var latest = 0

  /// No load yet.
  public init() {}

  /// A new load: its number. Every load before it is superseded.
  public mutating func start() -> Int {
    latest += 1
    return latest
  }

  /// Whether `load` (a number ``start()`` gave) is still the newest.
  public func isLatest(_ load: Int) -> Bool { load == latest }
}
