import Foundation

/// A value guarded by a lock, for small synchronous state shared across requests (`Mutex` needs
/// macOS 15, the package supports 14).
final class Locked<Value>: @unchecked Sendable {
  private var value: Value
  private let lock = NSLock()

  init(_ value: Value) { self.value = value }

  func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}

/// SplitMix64: a tiny seeded generator, so fault decisions repeat from run to run.
struct SeededRandom: RandomNumberGenerator, Sendable {
  private var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

/// Random secrets for tokens and codes (system generator: not predictable, unlike the faults).
enum Secrets {
  private static let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")

  /// `prefix` + 32 random characters (about 165 bits).
  static func token(prefix: String) -> String {
    var generator = SystemRandomNumberGenerator()
    let body = (0..<32).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] }
    return prefix + String(body)
  }

  /// Six random digits.
  static func sixDigits() -> String {
    var generator = SystemRandomNumberGenerator()
    let value = Int.random(in: 0..<1_000_000, using: &generator)
    let text = String(value)
    return String(repeating: "0", count: 6 - text.count) + text
  }
}
