import Domain
import Foundation
import ServiceEngine

/// Faults the dev server injects into its WebSocket frames (server to client), next to the REST
/// faults of ``FaultRule``: drop the connection after N frames or at random, send frames twice,
/// swap neighbouring frames, delay frames. Decisions come from a seeded generator, so a seed
/// repeats a run.
///
/// The command-line form (`qapple-server --dev --socket-fault ...`) is comma-separated
/// `key=value` pairs: `drop-after`, `drop-rate`, `duplicate-rate`, `reorder-rate`, `delay`
/// (milliseconds), e.g. `drop-rate=0.01,duplicate-rate=0.05,reorder-rate=0.05`.
public struct SocketFaults: Sendable, Hashable {
  /// Drop every connection after it has sent this many frames (`nil`: never).
  public var dropAfterFrames: Int?
  /// The share of frames (0...1) before which the connection is dropped without a close frame.
  public var dropRate: Double
  /// The share of frames (0...1) sent twice.
  public var duplicateRate: Double
  /// The share of frames (0...1) held back and sent after the next one (or alone after
  /// ``longestHold`` when no other frame comes first).
  public var reorderRate: Double
  /// Extra time before each frame.
  public var delay: Duration

  /// Creates a fault set; the defaults inject nothing.
  public init(
    dropAfterFrames: Int? = nil, dropRate: Double = 0, duplicateRate: Double = 0,
    reorderRate: Double = 0, delay: Duration = .zero
  ) {
    self.dropAfterFrames = dropAfterFrames
    self.dropRate = dropRate
    self.duplicateRate = duplicateRate
    self.reorderRate = reorderRate
    self.delay = delay
  }

  /// The longest a frame held back by ``reorderRate`` waits for the next one: after it, it goes
  /// out alone (late, not out of order), so a held answer on an idle socket is not kept until
  /// the connection's own timeouts give up on it.
  public static let longestHold: Duration = .milliseconds(100)

  /// `true` when the set injects nothing.
  public var isEmpty: Bool { self == SocketFaults() }

  /// The set if its numbers are in range, else the field that is not.
  public func validated() throws(FaultRule.Invalid) -> SocketFaults {
    for (name, rate) in [
      ("drop-rate", dropRate), ("duplicate-rate", duplicateRate), ("reorder-rate", reorderRate),
    ] where !(0...1).contains(rate) {
      throw FaultRule.Invalid(field: name, description: "\(name) must be between 0 and 1.")
    }
    if let dropAfterFrames, dropAfterFrames < 1 {
      throw FaultRule.Invalid(field: "drop-after", description: "drop-after must be at least 1.")
    }
    guard delay >= .zero, delay <= .seconds(10) else {
      throw FaultRule.Invalid(field: "delay", description: "delay must be 0...10000 ms.")
    }
    return self
  }

  /// Parses the command-line form (see the type's documentation).
  public init(parsing spec: String) throws(FaultRule.Invalid) {
    var faults = SocketFaults()
    for piece in spec.split(separator: ",") {
      let (key, value) = try FaultRule.pair(piece)
      func rate() throws(FaultRule.Invalid) -> Double {
        try FaultRule.number(value, of: key, "0...1")
      }
      switch key {
      case "drop-after": faults.dropAfterFrames = try FaultRule.number(value, of: key, "a count")
      case "drop-rate": faults.dropRate = try rate()
      case "duplicate-rate": faults.duplicateRate = try rate()
      case "reorder-rate": faults.reorderRate = try rate()
      case "delay": faults.delay = try FaultRule.milliseconds(value, of: key)
      default:
        throw FaultRule.Invalid(
          field: key,
          description:
            "Unknown socket fault \"\(key)\"; use drop-after, drop-rate, duplicate-rate, "
            + "reorder-rate, delay.")
      }
    }
    self = try faults.validated()
  }
}

/// Decides, frame by frame, what the socket faults do; one per server, seeded.
final class SocketFaultInjector: Sendable {
  /// What happens to one outgoing frame.
  struct Decision: Equatable {
    var drop = false
    var duplicate = false
    var holdBack = false
    var delay: Duration = .zero
  }

  private let state: Locked<(faults: SocketFaults, random: SeededRandom)>

  init(faults: SocketFaults, seed: UInt64) {
    state = Locked((faults, SeededRandom(seed: seed ^ 0x50CE7)))
  }

  /// The decision for the `sent`-th frame of a connection (counting from 1).
  func decide(sent: Int) -> Decision {
    state.withLock { state in
      let faults = state.faults
      guard !faults.isEmpty else { return Decision() }
      // Draw every number every time, so one fault's outcome does not shift the next.
      let draws = (0..<3).map { _ in Double.random(in: 0..<1, using: &state.random) }
      var decision = Decision(delay: faults.delay)
      decision.drop =
        draws[0] < faults.dropRate || faults.dropAfterFrames.map { sent > $0 } == true
      decision.duplicate = draws[1] < faults.duplicateRate
      decision.holdBack = draws[2] < faults.reorderRate
      return decision
    }
  }
}
