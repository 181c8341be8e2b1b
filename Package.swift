// swift-tools-version: 6.1
// The Qapple SDK: one package, one product per library target, grouped by layer.
// Allowed edges between targets are listed in Docs/Architecture.md and checked by
// Scripts/check-layers; keep both in step with this file.
import PackageDescription

// MARK: - Layer 0: Primitives (no dependencies) and Domain

let domainTargets: [Target] = [
  // The lock and the value stream that both Domain and NetworkKit use.
  .target(name: "Primitives", path: "Modules/Primitives"),
  .target(name: "Domain", dependencies: ["Primitives"], path: "Modules/Domain"),
]

// MARK: - Layer 1: wire types and the generic network layer

let wireTargets: [Target] = [
  .target(name: "DTO", dependencies: ["Domain"], path: "Modules/DTO"),
  .target(
    name: "NetworkKit",
    dependencies: [
      "Primitives",
      .product(name: "HTTPTypes", package: "swift-http-types"),
      .product(name: "Logging", package: "swift-log"),
      .product(
        name: "AsyncHTTPClient", package: "async-http-client",
        condition: .when(platforms: [.linux])),
      .product(
        name: "HummingbirdWSClient", package: "hummingbird-websocket",
        condition: .when(platforms: [.linux])),
    ],
    path: "Modules/NetworkKit"
  ),
  // Test doubles of NetworkKit (house rule 2: never in the production module).
  .target(
    name: "NetworkKitTesting",
    dependencies: [
      "NetworkKit", "Primitives", .product(name: "HTTPTypes", package: "swift-http-types"),
    ],
    path: "Modules/NetworkKitTesting"
  ),
]

// MARK: - Layer 2: the API routers

let apiTargets: [Target] = [
  .target(
    name: "Endpoints",
    dependencies: ["NetworkKit", "DTO", "Domain"],
    path: "Modules/Endpoints"
  )
]

// MARK: - Layer 2b: the client's local store

let storageTargets: [Target] = [
  .target(
    name: "Persistence",
    dependencies: ["Domain", .product(name: "GRDB", package: "GRDB.swift")],
    path: "Modules/Persistence"
  )
]

// MARK: - Layer 3: repository interfaces (Domain + swift-dependencies only)

let repositoryTargets: [Target] = [
  .target(
    name: "Repositories",
    dependencies: [
      "Domain",
      .product(name: "Dependencies", package: "swift-dependencies"),
      .product(name: "DependenciesMacros", package: "swift-dependencies"),
    ],
    path: "Modules/Repositories"
  )
]

// MARK: - Layer 3b: the chat sync engine both implementations run

let chatTargets: [Target] = [
  .target(
    name: "ChatCore",
    dependencies: [
      "Repositories", "Persistence", "Domain",
      .product(name: "Logging", package: "swift-log"),
    ],
    path: "Modules/ChatCore"
  )
]

// MARK: - Layer 4: implementations (only executables and tests pick one)

let implementationTargets: [Target] = [
  .target(
    name: "RepositoriesTesting",
    dependencies: [
      "Repositories", "ServiceEngine", "ChatCore", "Persistence", "Domain",
      .product(name: "Dependencies", package: "swift-dependencies"),
      .product(name: "Logging", package: "swift-log"),
    ],
    path: "Modules/RepositoriesTesting"
  ),
  .target(
    name: "RepositoriesLive",
    dependencies: [
      "Repositories", "ChatCore", "Endpoints", "NetworkKit", "DTO", "Domain", "Persistence",
      .product(name: "Dependencies", package: "swift-dependencies"),
      .product(name: "HTTPTypes", package: "swift-http-types"),
      .product(name: "Logging", package: "swift-log"),
    ],
    path: "Modules/RepositoriesLive"
  ),
]

// MARK: - The service engine: every rule of the service, once (server, fakes, previews)

let engineTargets: [Target] = [
  .target(
    name: "ServiceEngine",
    dependencies: ["Domain", .product(name: "GRDB", package: "GRDB.swift")],
    path: "Modules/ServiceEngine"
  )
]

// MARK: - Local server (development, demos, integration tests)

let serverTargets: [Target] = [
  .target(
    name: "LocalServer",
    dependencies: [
      "ServiceEngine", "DTO", "Domain",
      .product(name: "Hummingbird", package: "hummingbird"),
      .product(name: "HummingbirdCore", package: "hummingbird"),
      .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
      .product(name: "NIOCore", package: "swift-nio"),
      .product(name: "NIOHTTP1", package: "swift-nio"),
      .product(name: "Logging", package: "swift-log"),
    ],
    path: "Modules/LocalServer"
  )
]

// MARK: - Tools: what the command-line tools share

let toolTargets: [Target] = [
  .target(
    name: "ToolSupport",
    dependencies: [
      "Repositories", "RepositoriesLive", "LocalServer", "ServiceEngine", "Domain", "Persistence",
      .product(name: "ArgumentParser", package: "swift-argument-parser"),
      .product(name: "Logging", package: "swift-log"),
    ],
    path: "Modules/ToolSupport"
  )
]

// MARK: - Layer 5: feature modules (screen models over Repositories; no Live, no Testing)

/// A feature module `Modules/<name>` (a library product of its own) and its tests
/// `Tests/<name>Tests`, which run the screen models on the `RepositoriesTesting` fakes.
/// `features` are the feature modules whose models this one presents (its children).
func feature(_ name: String, presenting features: [String] = []) -> (Target, Target) {
  let own: [Target.Dependency] = features.map { .target(name: $0) }
  return (
    .target(
      name: name,
      dependencies: own + [
        "Repositories", "Domain",
        .product(name: "Dependencies", package: "swift-dependencies"),
      ],
      path: "Modules/\(name)"
    ),
    .testTarget(
      name: "\(name)Tests",
      dependencies: own + [
        .target(name: name), "Repositories", "RepositoriesTesting", "Domain", "TestSupport",
        .product(name: "Dependencies", package: "swift-dependencies"),
        // Linked, not imported: makes an unimplemented dependency fail the test.
        .product(name: "DependenciesTestSupport", package: "swift-dependencies"),
        // TestClock: debounce, typing and resend timers advanced exactly.
        .product(name: "Clocks", package: "swift-clocks"),
      ],
      path: "Tests/\(name)Tests"
    )
  )
}

// One line per feature module, children first.
let features = [
  feature("ReportFeature"),
  feature("AuthFeature"),
  feature("QuestionFeature", presenting: ["ReportFeature"]),
  feature("ProfileFeature"),
  feature("BoardFeature", presenting: ["ReportFeature"]),
  feature("NotificationsFeature"),
  feature("ChatFeature", presenting: ["ReportFeature"]),
  feature("GroupsFeature", presenting: ["ChatFeature"]),
  feature("AdminFeature"),
  // The member app's root: presents every member screen.
  feature(
    "AppFeature",
    presenting: [
      "AuthFeature", "QuestionFeature", "ProfileFeature", "BoardFeature", "NotificationsFeature",
      "ChatFeature", "GroupsFeature",
    ]),
]
let featureTargets = features.map(\.0)
let featureTestTargets = features.map(\.1)

// MARK: - Executables (composition roots; no library product)

let executableTargets: [Target] = [
  .executableTarget(
    name: "qapple-server",
    dependencies: [
      "LocalServer", "ServiceEngine",
      .product(name: "ArgumentParser", package: "swift-argument-parser"),
      .product(name: "Logging", package: "swift-log"),
    ],
    path: "Modules/qapple-server"
  )
]

// The member and admin command-line tools (`swift run qapple demo`).
let toolExecutableTargets: [Target] = [
  .executableTarget(
    name: "qapple",
    dependencies: [
      "ToolSupport", "Repositories", "RepositoriesLive", "ChatCore", "Domain", "Persistence",
      // `qapple open`: the app's root model and the screens it lands on.
      "AppFeature", "QuestionFeature", "BoardFeature", "NotificationsFeature", "GroupsFeature",
      "ChatFeature",
      .product(name: "Dependencies", package: "swift-dependencies"),
      .product(name: "ArgumentParser", package: "swift-argument-parser"),
    ],
    path: "Modules/qapple"
  ),
  .executableTarget(
    name: "qapple-admin",
    dependencies: [
      "ToolSupport", "AdminFeature", "Repositories", "RepositoriesLive", "Domain",
      .product(name: "ArgumentParser", package: "swift-argument-parser"),
      .product(name: "Dependencies", package: "swift-dependencies"),
    ],
    path: "Modules/qapple-admin"
  ),
]

// MARK: - Tests

let testTargets: [Target] = [
  // Test support for every test target: bounded waits for other tasks (not a product).
  .target(
    name: "TestSupport",
    dependencies: [
      .product(name: "Clocks", package: "swift-clocks"),
      .product(name: "Logging", package: "swift-log"),
      .product(name: "Yams", package: "Yams"),
      .product(name: "GRDB", package: "GRDB.swift"),
    ],
    path: "Tests/TestSupport"
  ),
  .testTarget(
    name: "TestSupportTests",
    dependencies: ["TestSupport", .product(name: "Clocks", package: "swift-clocks")],
    path: "Tests/TestSupportTests"
  ),
  .testTarget(
    name: "DomainTests", dependencies: ["Domain", "TestSupport"], path: "Tests/DomainTests"),
  .testTarget(
    name: "DTOTests",
    dependencies: ["DTO", "Domain"],
    path: "Tests/DTOTests",
    resources: [.copy("Fixtures")]
  ),
  .testTarget(
    name: "NetworkKitTests",
    dependencies: [
      "NetworkKit", "NetworkKitTesting", "Primitives", "TestSupport",
      .product(name: "HTTPTypes", package: "swift-http-types"),
      .product(name: "Logging", package: "swift-log"),
      .product(name: "Hummingbird", package: "hummingbird"),
      .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
      .product(name: "Clocks", package: "swift-clocks"),
    ],
    path: "Tests/NetworkKitTests"
  ),
  .testTarget(
    name: "EndpointsTests",
    dependencies: [
      "Endpoints", "NetworkKit", "DTO", "Domain", "TestSupport",
      .product(name: "HTTPTypes", package: "swift-http-types"),
      .product(name: "Yams", package: "Yams"),
    ],
    path: "Tests/EndpointsTests"
  ),
  .testTarget(
    name: "RepositoriesTests",
    dependencies: [
      "Repositories", "Domain", "TestSupport",
      .product(name: "Dependencies", package: "swift-dependencies"),
      // Linked, not imported: it carries IssueReportingTestSupport, without which an
      // unimplemented `testValue` endpoint only prints a warning instead of failing the test.
      .product(name: "DependenciesTestSupport", package: "swift-dependencies"),
      .product(name: "Clocks", package: "swift-clocks"),
    ],
    path: "Tests/RepositoriesTests"
  ),
  .testTarget(
    name: "RepositoriesTestingTests",
    dependencies: [
      "RepositoriesTesting", "Repositories", "ServiceEngine", "Domain", "TestSupport",
      .product(name: "Dependencies", package: "swift-dependencies"),
      .product(name: "Clocks", package: "swift-clocks"),
    ],
    path: "Tests/RepositoriesTestingTests"
  ),
  .testTarget(
    name: "ChatCoreTests",
    dependencies: [
      "ChatCore", "Repositories", "Persistence", "Domain", "TestSupport",
      .product(name: "Clocks", package: "swift-clocks"),
      .product(name: "GRDB", package: "GRDB.swift"),
      .product(name: "Logging", package: "swift-log"),
    ],
    path: "Tests/ChatCoreTests"
  ),
  .testTarget(
    name: "PersistenceTests",
    dependencies: [
      "Persistence", "Domain", "TestSupport", .product(name: "GRDB", package: "GRDB.swift"),
    ],
    path: "Tests/PersistenceTests",
    resources: [.copy("Fixtures")]
  ),
  .testTarget(
    name: "ServiceEngineTests",
    dependencies: [
      "ServiceEngine", "Domain", "TestSupport", .product(name: "GRDB", package: "GRDB.swift"),
    ],
    path: "Tests/ServiceEngineTests"
  ),
  .testTarget(
    name: "LocalServerTests",
    dependencies: [
      "LocalServer", "ServiceEngine", "DTO", "Domain", "TestSupport",
      .product(name: "Hummingbird", package: "hummingbird"),
      .product(name: "HummingbirdTesting", package: "hummingbird"),
      .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
      .product(name: "Logging", package: "swift-log"),
      .product(name: "NIOWebSocket", package: "swift-nio"),
    ],
    path: "Tests/LocalServerTests"
  ),
  .testTarget(
    name: "RepositoriesLiveTests",
    dependencies: [
      "RepositoriesLive", "Repositories", "ChatCore", "Persistence", "NetworkKit",
      "NetworkKitTesting", "Endpoints", "DTO", "Domain", "TestSupport",
      .product(name: "Dependencies", package: "swift-dependencies"),
      .product(name: "HTTPTypes", package: "swift-http-types"),
      .product(name: "GRDB", package: "GRDB.swift"),
      .product(name: "Logging", package: "swift-log"),
    ],
    path: "Tests/RepositoriesLiveTests"
  ),
  // Runs the built `qapple` and `qapple-admin` executables (`swift build --build-tests` builds
  // them) and decodes their `--json` output.
  .testTarget(
    name: "ToolsTests",
    dependencies: [
      "ToolSupport", "Domain", "LocalServer", "ServiceEngine", "Persistence", "Repositories",
      "RepositoriesLive", "ChatCore", "NetworkKit", "NetworkKitTesting",
      .product(name: "HTTPTypes", package: "swift-http-types"),
    ],
    path: "Tests/ToolsTests"
  ),
  // One scenario suite, two backends: the RepositoriesTesting fakes, and RepositoriesLive over
  // real HTTP against an in-process LocalServer on 127.0.0.1 (fakes and server cannot drift).
  .testTarget(
    name: "ScenarioTests",
    dependencies: [
      "Repositories", "RepositoriesLive", "RepositoriesTesting", "LocalServer", "Domain",
      "NetworkKit", "Persistence", "ChatCore", "TestSupport",
      .product(name: "Dependencies", package: "swift-dependencies"),
      .product(name: "HTTPTypes", package: "swift-http-types"),
    ],
    path: "Tests/ScenarioTests"
  ),
]

let library =
  domainTargets + wireTargets + apiTargets + storageTargets + repositoryTargets + chatTargets
  + engineTargets + implementationTargets + serverTargets + toolTargets + featureTargets

let package = Package(
  name: "Qapple",
  platforms: [.iOS(.v17), .macOS(.v14)],
  // Every library target is a product of the same name (house rule 1: no umbrella product).
  products: library.map { .library(name: $0.name, targets: [$0.name]) }
    + toolExecutableTargets.map { .executable(name: $0.name, targets: [$0.name]) },
  dependencies: [
    .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
    .package(url: "https://github.com/pointfreeco/swift-dependencies", from: "1.17.1"),
    .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.1.1"),
    .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
  ],
  targets: library + executableTargets + toolExecutableTargets + testTargets + featureTestTargets,
  swiftLanguageModes: [.v6]
)
