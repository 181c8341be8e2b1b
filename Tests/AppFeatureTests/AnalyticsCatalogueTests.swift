import Foundation
import Testing

/// `Docs/Analytics.md` and the feature modules agree: every event and screen name a model
/// sends is in the catalogue, and every name in the catalogue is sent by some model.
@Suite("Analytics catalogue")
struct AnalyticsCatalogueTests {
  /// The repository's root (this file is `Tests/AppFeatureTests/...`).
  static let root = URL(filePath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  /// The first column of each row of the table under `heading` in the catalogue.
  static func names(under heading: String, in catalogue: String) -> Set<String> {
    guard let start = catalogue.range(of: "\n## \(heading)\n") else { return [] }
    let section = catalogue[start.upperBound...].split(separator: "\n## ", maxSplits: 1)[0]
    var names = Set<String>()
    // Rows only: not the header (`| `screen` | model | ...`).
    for line in section.split(separator: "\n")
    where line.hasPrefix("| `") && !line.contains("| model |") {
      if let match = line.firstMatch(of: /^\| `([a-z0-9_]+)`/) { names.insert(String(match.1)) }
    }
    return names
  }

  /// The Swift sources of the feature modules.
  static func featureSources() throws -> [String] {
    let modules = root.appending(path: "Modules")
    let features = try FileManager.default.contentsOfDirectory(atPath: modules.path)
      .filter { $0.hasSuffix("Feature") }
    #expect(features.count >= 10, "found \(features)")
    return try features.flatMap { feature in
      let directory = modules.appending(path: feature)
      let files =
        FileManager.default.enumerator(atPath: directory.path)?
        .compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
      return try files.map {
        try String(contentsOf: directory.appending(path: $0), encoding: .utf8)
      }
    }
  }

  /// The names passed as a literal straight to `call` (`track` or `screenViewed`).
  static func sentNames(_ call: String, in sources: [String]) throws -> Set<String> {
    let pattern = try Regex("\\.\(call)\\(\\s*\"([a-z0-9_]+)\"")
    var names = Set<String>()
    for source in sources {
      for match in source.matches(of: pattern) {
        if let name = match.output[1].substring { names.insert(String(name)) }
      }
    }
    return names
  }

  @Test func everySentEventIsCataloguedAndEveryCataloguedEventIsSent() throws {
    let catalogue = try String(
      contentsOf: Self.root.appending(path: "Docs/Analytics.md"), encoding: .utf8)
    let screens = Self.names(under: "Screens (`screen_viewed`)", in: catalogue)
    let actions = Self.names(under: "Actions", in: catalogue)
    #expect(screens.count >= 20 && actions.count >= 20, "\(screens) \(actions)")

    let sources = try Self.featureSources()
    let sentScreens = try Self.sentNames("screenViewed", in: sources)
    let sentActions = try Self.sentNames("track", in: sources)
    #expect(sentScreens.subtracting(screens).isEmpty, "screens missing from the catalogue")
    #expect(sentActions.subtracting(actions).isEmpty, "events missing from the catalogue")
    // Some names reach `track` through a helper (`updateMembership(event: "group_joined")`):
    // every catalogued name must at least be a string literal of some feature model.
    let literals = sources.joined()
    let unsent = screens.union(actions).filter { !literals.contains("\"\($0)\"") }
    #expect(unsent.isEmpty, "catalogued but no model sends them")
  }
}
