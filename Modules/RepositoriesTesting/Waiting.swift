/// Lets other tasks run (yielding, never sleeping) until `condition` holds or `turns` yields have
/// passed: how a feature test waits for a model's own tasks (a session stream, a timer woken by
/// a test clock) without spending real time. The test checks the outcome itself afterwards.
@MainActor
public func yieldUntil(turns: Int = 2_000, _ condition: () -> Bool) async {
  for _ in 0..<turns where !condition() { await Task.yield() }
}
