import Domain
import Foundation
import Hummingbird
import ServiceEngine

/// One fault to inject in dev mode: added latency, a share of requests that fail with a status,
/// and a share whose connection is dropped without an answer, for the requests it matches.
///
/// The wire form (used by `/_dev/faults`) is
/// `{"path_prefix": "/posts" | null, "operation": "BoardAPI.like" | null, "latency_ms": 200,
///   "error_rate": 0.5, "error_status": 503, "drop_rate": 0}`; with neither `path_prefix` nor
/// `operation` the rule matches every route except `/_dev/*`.
public struct FaultRule: Codable, Sendable, Hashable {
  /// Which requests a rule applies to.
  public enum Target: Sendable, Hashable {
    /// Every API request.
    case all
    /// Requests whose path starts with this prefix, e.g. `/posts`.
    case pathPrefix(String)
    /// Requests of one contract operation, e.g. `BoardAPI.like`.
    case operation(String)
  }

  /// The requests it applies to.
  public var target: Target
  /// Extra time before the request is handled.
  public var latency: Duration
  /// The share of matching requests (0...1) that fail with ``errorStatus``.
  public var errorRate: Double
  /// The status of an injected failure (400...599), 503 by default.
  public var errorStatus: Int
  /// The share of matching requests (0...1) whose connection is closed without an answer.
  public var dropRate: Double

  /// Creates a rule; it is checked by ``validated()`` before it is used.
  public init(
    target: Target = .all, latency: Duration = .zero, errorRate: Double = 0,
    errorStatus: Int = 503, dropRate: Double = 0
  ) {
    self.target = target
    self.latency = latency
    self.errorRate = errorRate
    self.errorStatus = errorStatus
    self.dropRate = dropRate
  }

  /// Why a rule was refused.
  public struct Invalid: Error, Sendable, CustomStringConvertible {
    /// The wire name of the field at fault.
    public var field: String
    /// What is wrong and what is allowed.
    public var description: String
  }

  /// The rule if its numbers are in range, else the field that is not.
  public func validated() throws(Invalid) -> FaultRule {
    guard (0...1).contains(errorRate) else {
      throw Invalid(field: "error_rate", description: "error_rate must be between 0 and 1.")
    }
    guard (0...1).contains(dropRate) else {
      throw Invalid(field: "drop_rate", description: "drop_rate must be between 0 and 1.")
    }
    guard (400...599).contains(errorStatus) else {
      throw Invalid(field: "error_status", description: "error_status must be 400...599.")
    }
    guard latency >= .zero, latency <= .seconds(60) else {
      throw Invalid(field: "latency_ms", description: "latency_ms must be 0...60000.")
    }
    switch target {
    case .all: break
    case .pathPrefix(let prefix):
      guard prefix.hasPrefix("/") else {
        throw Invalid(field: "path_prefix", description: "path_prefix must start with \"/\".")
      }
    case .operation(let operation):
      guard !operation.isEmpty else {
        throw Invalid(field: "operation", description: "operation must not be empty.")
      }
    }
    return self
  }

  /// Parses the command-line form: comma-separated `key=value` pairs with the keys `path`,
  /// `op`, `latency` (milliseconds), `error-rate`, `status` and `drop-rate`, e.g.
  /// `path=/posts,latency=300,error-rate=0.2,status=503`.
  public init(parsing spec: String) throws(Invalid) {
    var rule = FaultRule()
    for piece in spec.split(separator: ",") {
      let (key, value) = try Self.pair(piece)
      switch key {
      case "path": rule.target = .pathPrefix(value)
      case "op", "operation": rule.target = .operation(value)
      case "latency": rule.latency = try Self.milliseconds(value, of: key)
      case "error-rate", "error_rate": rule.errorRate = try Self.number(value, of: key, "0...1")
      case "status", "error-status":
        rule.errorStatus = try Self.number(value, of: key, "an HTTP status")
      case "drop-rate", "drop_rate": rule.dropRate = try Self.number(value, of: key, "0...1")
      default:
        throw Invalid(
          field: key,
          description:
            "Unknown fault key \"\(key)\"; use path, op, latency, error-rate, status, drop-rate.")
      }
    }
    self = try rule.validated()
  }

  /// The number `value` of a command-line fault spec's `key` (this form and ``SocketFaults``'),
  /// an `Int` or a `Double`, with `unit` after it or not; refused, naming what the key takes,
  /// when it is not one.
  static func number<Number: LosslessStringConvertible>(
    _ value: String, of key: String, _ takes: String, unit: String = ""
  ) throws(Invalid) -> Number {
    let digits = !unit.isEmpty && value.hasSuffix(unit) ? String(value.dropLast(unit.count)) : value
    guard let number = Number(digits) else {
      throw Invalid(field: key, description: "\(key) takes \(takes), got \"\(value)\".")
    }
    return number
  }

  /// A duration in whole milliseconds (`250` or `250ms`) of a command-line fault spec's `key`.
  static func milliseconds(_ value: String, of key: String) throws(Invalid) -> Duration {
    .milliseconds(try number(value, of: key, "milliseconds", unit: "ms") as Int)
  }

  /// One `key=value` piece of a command-line fault spec (this form and ``SocketFaults``'),
  /// trimmed; refused when it is not one.
  static func pair(_ piece: Substring) throws(Invalid) -> (key: String, value: String) {
    let parts = piece.split(separator: "=", maxSplits: 1).map {
      $0.trimmingCharacters(in: .whitespaces)
    }
    guard parts.count == 2, !parts[1].isEmpty else {
      throw Invalid(field: String(piece), description: "Expected key=value, got \"\(piece)\".")
    }
    return (parts[0], parts[1])
  }

  // MARK: Codable (the `/_dev/faults` wire form)

  enum CodingKeys: String, CodingKey {
    case pathPrefix = "path_prefix"
    case operation
    case latencyMs = "latency_ms"
    case errorRate = "error_rate"
    case errorStatus = "error_status"
    case dropRate = "drop_rate"
  }

  /// Reads the wire form; missing numbers default to "no fault".
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let prefix = try container.decodeIfPresent(String.self, forKey: .pathPrefix)
    let operation = try container.decodeIfPresent(String.self, forKey: .operation)
    if prefix != nil, operation != nil {
      throw DecodingError.dataCorruptedError(
        forKey: .operation, in: container,
        debugDescription: "Set path_prefix or operation, not both.")
    }
    target = prefix.map(Target.pathPrefix) ?? operation.map(Target.operation) ?? .all
    latency = .milliseconds(try container.decodeIfPresent(Int.self, forKey: .latencyMs) ?? 0)
    errorRate = try container.decodeIfPresent(Double.self, forKey: .errorRate) ?? 0
    errorStatus = try container.decodeIfPresent(Int.self, forKey: .errorStatus) ?? 503
    dropRate = try container.decodeIfPresent(Double.self, forKey: .dropRate) ?? 0
  }

  /// Writes the wire form with every key (`null` for the unused target key).
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    var prefix: String?
    var operation: String?
    switch target {
    case .all: break
    case .pathPrefix(let value): prefix = value
    case .operation(let value): operation = value
    }
    try container.encode(prefix, forKey: .pathPrefix)
    try container.encode(operation, forKey: .operation)
    let millis = (latency.timeInterval * 1000).rounded()
    try container.encode(Int64(max(min(millis, 9e15), -9e15)), forKey: .latencyMs)
    try container.encode(errorRate, forKey: .errorRate)
    try container.encode(errorStatus, forKey: .errorStatus)
    try container.encode(dropRate, forKey: .dropRate)
  }

  func matches(path: String, operation: String?) -> Bool {
    switch target {
    case .all: true
    case .pathPrefix(let prefix): path.hasPrefix(prefix)
    case .operation(let id): id == operation
    }
  }
}

/// The fault settings as `/_dev/faults` shows and takes them.
struct FaultSettings: Codable, Sendable {
  var rules: [FaultRule]
  /// Reseeds the random source when set (PUT only; GET shows the current seed).
  var seed: UInt64?
}

/// Decides, per request, which fault (if any) to inject. The first rule that matches applies;
/// its rates are drawn from a seeded generator, so the same seed gives the same sequence.
final class FaultInjector: Sendable {
  enum Decision: Equatable {
    case proceed
    case fail(status: Int)
    case drop
  }

  private let state: Locked<(rules: [FaultRule], seed: UInt64, random: SeededRandom)>

  init(rules: [FaultRule], seed: UInt64) {
    state = Locked((rules: rules, seed: seed, random: SeededRandom(seed: seed)))
  }

  var settings: FaultSettings {
    state.withLock { FaultSettings(rules: $0.rules, seed: $0.seed) }
  }

  func replace(with settings: FaultSettings) {
    state.withLock {
      $0.rules = settings.rules
      if let seed = settings.seed {
        $0.seed = seed
        $0.random = SeededRandom(seed: seed)
      }
    }
  }

  func clear() {
    state.withLock { $0.rules = [] }
  }

  /// The latency to add and what to do with the request.
  func decide(path: String, operation: String?) -> (latency: Duration, decision: Decision) {
    state.withLock { state in
      guard let rule = state.rules.first(where: { $0.matches(path: path, operation: operation) })
      else { return (.zero, .proceed) }
      // Always draw both numbers so one rule's outcome does not shift the next request's.
      let dropDraw = Double.random(in: 0..<1, using: &state.random)
      let errorDraw = Double.random(in: 0..<1, using: &state.random)
      if dropDraw < rule.dropRate { return (rule.latency, .drop) }
      if errorDraw < rule.errorRate { return (rule.latency, .fail(status: rule.errorStatus)) }
      return (rule.latency, .proceed)
    }
  }
}
