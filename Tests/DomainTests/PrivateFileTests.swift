import Domain
import Foundation
import TestSupport
import Testing

@Suite("PrivateFile")
struct PrivateFileTests {
  func mode(_ path: String) throws -> Int { try permissions(of: URL(fileURLWithPath: path)) }

  @Test("makes the missing folders 0700 and the file 0600; what exists keeps its mode")
  func preparesPrivately() throws {
    let folder = try TemporaryDirectory("private")
    defer { folder.remove() }
    let path = folder.path("chat/server/u_1.sqlite")
    try PrivateFile.prepare(at: path)
    #expect(try mode(path) == 0o600)
    #expect(try mode(folder.path("chat/server")) == 0o700)
    #expect(try mode(folder.path("chat")) == 0o700)
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)).isEmpty)
    // An existing file is neither emptied nor changed.
    try Data("kept".utf8).write(to: URL(fileURLWithPath: path))
    try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)
    try PrivateFile.prepare(at: path)
    #expect(try mode(path) == 0o640)
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("kept".utf8))
  }
}
