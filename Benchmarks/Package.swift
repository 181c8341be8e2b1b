// swift-tools-version: 6.1
// Benchmarks for the Qapple SDK, kept in their own package so the SDK itself never depends on
// the benchmark harness. Run from this folder: `swift package benchmark`.
import PackageDescription

let package = Package(
  name: "QappleBenchmarks",
  platforms: [.macOS(.v14)],
  dependencies: [
    .package(name: "Qapple", path: ".."),
    .package(
      url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
  ],
  targets: [
    // Issue 7's goals (P4-P7): a plain release executable, see run-chat-benchmarks.
    .executableTarget(
      name: "ChatBenchmarks",
      dependencies: [
        .product(name: "Persistence", package: "Qapple"),
        .product(name: "Domain", package: "Qapple"),
        .product(name: "ChatCore", package: "Qapple"),
        .product(name: "Repositories", package: "Qapple"),
        .product(name: "RepositoriesLive", package: "Qapple"),
        .product(name: "NetworkKit", package: "Qapple"),
        .product(name: "DTO", package: "Qapple"),
        .product(name: "LocalServer", package: "Qapple"),
        .product(name: "GRDBSQLite", package: "GRDB.swift"),
        .product(name: "Logging", package: "swift-log"),
      ],
      path: "Benchmarks/ChatBenchmarks"
    ),
    .executableTarget(
      name: "QappleBenchmarks",
      dependencies: [
        .product(name: "Benchmark", package: "benchmark"),
        .product(name: "NetworkKit", package: "Qapple"),
        .product(name: "DTO", package: "Qapple"),
        .product(name: "Domain", package: "Qapple"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HTTPTypes", package: "swift-http-types"),
        .product(name: "Logging", package: "swift-log"),
        .product(
          name: "AsyncHTTPClient", package: "async-http-client",
          condition: .when(platforms: [.linux])),
      ],
      path: "Benchmarks/QappleBenchmarks",
      plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ),
  ],
  swiftLanguageModes: [.v6]
)
