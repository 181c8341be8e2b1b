import Benchmark
import DTO
import Domain
import Foundation
import NetworkKit

// Goals (see README.md):
// - a NetworkProvider round trip costs at most 5 % more than the same request on its bare
//   transport, decoded the same way;
// - decoding a 1,000-post page and mapping it to Domain costs at most 15 % more than decoding it.
//
// Every pair is measured twice: as two benchmarks (A and B, each in its own process, one after
// the other) and as one "paired" benchmark that alternates A and B call by call in one process,
// so both halves see the same machine load. On a shared machine the paired ratio is the stable
// one. Benchmark and metric names are parsed by `run-benchmarks`; keep both in step.

let benchmarks: @Sendable () -> Void = {
  // Round trips take a few hundred microseconds: many samples, and a warmup that fills the
  // connection pool and the caches first.
  let roundTrip = Benchmark.Configuration(
    metrics: [.wallClock, .throughput, .mallocCountTotal],
    timeUnits: .microseconds,
    warmupIterations: 500,
    maxDuration: .seconds(5),
    maxIterations: 1_000_000
  )
  // Decoding 1,000 posts takes milliseconds: fewer samples are enough.
  let decoding = Benchmark.Configuration(
    metrics: [.wallClock, .throughput, .mallocCountTotal],
    timeUnits: .microseconds,
    warmupIterations: 20,
    maxDuration: .seconds(5),
    maxIterations: 100_000
  )

  // MARK: Round trips on loopback

  // The paired form is measured for the platform's default transport, the one the goal is about.
  #if canImport(AsyncHTTPClient)
  roundTripBenchmarks(
    transportName: "AsyncHTTPClient", configuration: roundTrip, paired: true,
    transport: { HTTPTransports.platformDefault })
  // For the record: on Linux URLSession runs on libcurl and is not the default.
  roundTripBenchmarks(
    transportName: "URLSession", configuration: roundTrip, paired: false,
    transport: { HTTPTransports.urlSession })
  #else
  roundTripBenchmarks(
    transportName: "URLSession", configuration: roundTrip, paired: true,
    transport: { HTTPTransports.platformDefault })
  #endif

  // MARK: Provider overhead without the network

  // The transport answers from memory, so the difference is the provider's own work per call.
  let inMemory: @Sendable () async throws -> RoundTrip = {
    try await RoundTrip.make(
      transport: InMemoryTransport(body: PostPageFixture.json(count: LoopbackServer.postsPerPage)),
      baseURL: URL(string: "http://127.0.0.1:9")!)
  }

  Benchmark("In memory - bare transport", configuration: roundTrip) {
    (benchmark: Benchmark, pair: RoundTrip) async throws in
    benchmark.startMeasurement()
    let page = try await pair.bare()
    benchmark.stopMeasurement()
    blackHole(page)
  } setup: {
    try await inMemory()
  }

  Benchmark("In memory - NetworkProvider", configuration: roundTrip) {
    (benchmark: Benchmark, pair: RoundTrip) async throws in
    benchmark.startMeasurement()
    let page = try await pair.viaProvider()
    benchmark.stopMeasurement()
    blackHole(page)
  } setup: {
    try await inMemory()
  }

  // MARK: Decoding and mapping a 1,000-post page

  Benchmark("1000 posts - decode", configuration: decoding) {
    (benchmark: Benchmark, page: PageOfPosts) throws in
    for _ in benchmark.scaledIterations {
      blackHole(try page.decode())
    }
  } setup: {
    try PageOfPosts.make()
  }

  Benchmark("1000 posts - decode + toDomain", configuration: decoding) {
    (benchmark: Benchmark, page: PageOfPosts) throws in
    for _ in benchmark.scaledIterations {
      blackHole(try page.decodeAndMap())
    }
  } setup: {
    try PageOfPosts.make()
  }

  Benchmark("1000 posts - toDomain only", configuration: decoding) {
    (benchmark: Benchmark, page: PageOfPosts) throws in
    for _ in benchmark.scaledIterations {
      blackHole(try page.decoded.toDomain())
    }
  } setup: {
    try PageOfPosts.make()
  }

  Benchmark(
    "1000 posts - paired",
    configuration: PairedMetrics.decoding.configuration(basedOn: decoding)
  ) { (benchmark: Benchmark, page: PageOfPosts) async throws in
    try await PairedMetrics.decoding.measure(
      benchmark, baseline: { blackHole(try page.decode()) },
      candidate: { blackHole(try page.decodeAndMap()) })
  } setup: {
    try PageOfPosts.make()
  }
}

/// Registers benchmark A (bare transport) and B (a provider on the same transport instance) for
/// one transport, and optionally their paired form. The loopback server is started by the first
/// setup that runs in the process.
private func roundTripBenchmarks(
  transportName: String, configuration: Benchmark.Configuration, paired: Bool,
  transport: @escaping @Sendable () -> any HTTPTransport
) {
  let setup: @Sendable () async throws -> RoundTrip = {
    try await RoundTrip.make(
      transport: transport(), baseURL: try await LoopbackServer.shared().baseURL)
  }

  Benchmark("Round trip \(transportName) - bare transport", configuration: configuration) {
    (benchmark: Benchmark, pair: RoundTrip) async throws in
    // Measured from here: the harness's own task start is not part of the round trip.
    benchmark.startMeasurement()
    let page = try await pair.bare()
    benchmark.stopMeasurement()
    blackHole(page)
  } setup: {
    try await setup()
  }

  Benchmark("Round trip \(transportName) - NetworkProvider", configuration: configuration) {
    (benchmark: Benchmark, pair: RoundTrip) async throws in
    benchmark.startMeasurement()
    let page = try await pair.viaProvider()
    benchmark.stopMeasurement()
    blackHole(page)
  } setup: {
    try await setup()
  }

  guard paired else { return }
  Benchmark(
    "Round trip \(transportName) - paired",
    configuration: PairedMetrics.roundTrip.configuration(basedOn: configuration)
  ) { (benchmark: Benchmark, pair: RoundTrip) async throws in
    try await PairedMetrics.roundTrip.measure(
      benchmark, baseline: { blackHole(try await pair.bare()) },
      candidate: { blackHole(try await pair.viaProvider()) })
  } setup: {
    try await setup()
  }
}

/// The custom metrics of one paired benchmark: each half's wall-clock time in nanoseconds, and
/// each pair's candidate / baseline ratio in ten-thousandths (10_430 means 4.3 % slower).
///
/// The median of the per-pair ratios is the robust figure on a shared machine: when another
/// process takes a core for a while, both halves of the pairs it overlaps slow down alike, while
/// the p50 of each half on its own may fall between a fast and a slow mode.
struct PairedMetrics: Sendable {
  /// The time of the baseline half (A or C).
  let baseline: BenchmarkMetric
  /// The time of the candidate half (B or D).
  let candidate: BenchmarkMetric
  /// Candidate / baseline per pair, times 10,000.
  let ratio = BenchmarkMetric.custom("ratio x10000")

  /// Benchmark A against benchmark B.
  static let roundTrip = PairedMetrics(
    baseline: .custom("bare transport (ns)"), candidate: .custom("NetworkProvider (ns)"))
  /// Benchmark C against benchmark D.
  static let decoding = PairedMetrics(
    baseline: .custom("decode (ns)"), candidate: .custom("decode + toDomain (ns)"))

  /// `base` measuring only these metrics, shown as plain counts.
  func configuration(basedOn base: Benchmark.Configuration) -> Benchmark.Configuration {
    var configuration = base
    configuration.metrics = [baseline, candidate, ratio]
    configuration.units = [baseline: .count, candidate: .count, ratio: .count]
    return configuration
  }

  /// Runs both halves once, alternating which goes first so neither always gets warm caches,
  /// and records both times and their ratio.
  func measure(
    _ benchmark: Benchmark,
    baseline runBaseline: () async throws -> Void,
    candidate runCandidate: () async throws -> Void
  ) async throws {
    let clock = ContinuousClock()
    func timed(_ run: () async throws -> Void) async throws -> Int {
      let start = clock.now
      try await run()
      let elapsed = start.duration(to: clock.now).components
      return Int(elapsed.seconds) * 1_000_000_000 + Int(elapsed.attoseconds / 1_000_000_000)
    }
    let baselineTime: Int
    let candidateTime: Int
    if benchmark.currentIteration.isMultiple(of: 2) {
      baselineTime = try await timed(runBaseline)
      candidateTime = try await timed(runCandidate)
    } else {
      candidateTime = try await timed(runCandidate)
      baselineTime = try await timed(runBaseline)
    }
    benchmark.measurement(baseline, baselineTime)
    benchmark.measurement(candidate, candidateTime)
    benchmark.measurement(
      ratio, Int((Double(candidateTime) / Double(max(baselineTime, 1)) * 10_000).rounded()))
  }
}

/// The 1,000-post page, its bytes and its decoded form, built once per benchmark process.
struct PageOfPosts: @unchecked Sendable {
  // `@unchecked`: JSONDecoder is thread-safe once configured but not `Sendable` on every SDK.
  /// The number of posts on the page.
  static let count = 1_000

  /// The page as the server sends it.
  let json: Data
  /// The DTO module's configured decoder.
  let decoder: JSONDecoder
  /// The page decoded once, for the mapping-only benchmark.
  let decoded: PostPage

  /// Benchmark C: decoding alone.
  func decode() throws -> PostPage {
    try decoder.decode(PostPage.self, from: json)
  }

  /// Benchmark D: decoding, then mapping to Domain.
  func decodeAndMap() throws -> Page<BoardPost> {
    try decoder.decode(PostPage.self, from: json).toDomain()
  }

  /// Builds the page and checks that it decodes and maps to all of its posts.
  static func make() throws -> PageOfPosts {
    let json = PostPageFixture.json(count: count)
    let decoder = QappleCoding.makeDecoder()
    let decoded = try decoder.decode(PostPage.self, from: json)
    let mapped = try decoded.toDomain()
    guard decoded.items.count == count, mapped.items.count == count else {
      throw FixtureMismatch(decoded: decoded.items.count, mapped: mapped.items.count)
    }
    return PageOfPosts(json: json, decoder: decoder, decoded: decoded)
  }

  /// The fixture did not decode or map to the expected number of posts.
  struct FixtureMismatch: Error, CustomStringConvertible {
    let decoded: Int
    let mapped: Int
    var description: String {
      "The 1,000-post fixture decoded to \(decoded) posts and mapped to \(mapped)."
    }
  }
}
