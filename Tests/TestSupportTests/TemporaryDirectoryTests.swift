import Foundation
import TestSupport
import Testing

@Suite("TemporaryDirectory")
struct TemporaryDirectoryTests {
  @Test("each is a new, empty folder of its own; remove() deletes it with what it holds")
  func createsAndRemoves() throws {
    let first = try TemporaryDirectory("probe")
    let second = try TemporaryDirectory("probe")
    defer { second.remove() }
    #expect(first.url != second.url)
    #expect(first.url.lastPathComponent.hasPrefix("probe-"))
    #expect(try FileManager.default.contentsOfDirectory(atPath: first.url.path).isEmpty)
    #expect(first.path("a.sqlite") == first.url.appendingPathComponent("a.sqlite").path)
    try Data("x".utf8).write(to: URL(fileURLWithPath: first.path("a.sqlite")))
    first.remove()
    #expect(!FileManager.default.fileExists(atPath: first.url.path))
    first.remove()  // Gone already: nothing happens.
    #expect(FileManager.default.fileExists(atPath: second.url.path))
  }
}
