import Foundation

#if canImport(Glibc)
import Glibc
private let streamSocket = Int32(SOCK_STREAM.rawValue)
#elseif canImport(Darwin)
import Darwin
private let streamSocket = SOCK_STREAM
#endif

/// Sends `request` as raw bytes over a new TCP connection to 127.0.0.1:`port` and returns what
/// the server answers until it closes the connection or is silent for `timeout` seconds: for
/// requests the test client cannot send (a chunked body without `Content-Length`). 45 s by
/// default: a passing test never waits that long, and the socket tests' megabytes beside it
/// kept a loaded two-core machine's server from answering within 5 s, and once within 15 s.
func rawHTTP(_ request: [UInt8], port: Int, timeout: Int = 45) async throws -> String {
  try await onOwnThread { try blockingRawHTTP(request, port: port, timeout: timeout) }
}

/// Runs `body` on a thread of its own and waits for it. The raw helpers here block while they
/// read; on one of the test's cooperative threads (two on a two-core machine) that can stall
/// the server under test, whose handshake checks run on the same pool: two blocked readers
/// starved it until their reads timed out.
private func onOwnThread<T: Sendable>(
  _ body: @escaping @Sendable () throws -> T
) async throws
  -> T
{
  try await withCheckedThrowingContinuation { continuation in
    Thread { continuation.resume(with: Result { try body() }) }.start()
  }
}

private func blockingRawHTTP(_ request: [UInt8], port: Int, timeout: Int) throws -> String {
  let descriptor = try rawConnection(port: port, timeout: timeout)
  defer { close(descriptor) }
  var sent = 0
  while sent < request.count {
    let count = request[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
    // The server may answer and close before it read everything (a 413): stop sending then.
    guard count > 0 else { break }
    sent += count
  }
  var answer: [UInt8] = []
  var buffer = [UInt8](repeating: 0, count: 4096)
  while true {
    let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
    guard count > 0 else { break }
    answer += buffer[..<count]
    // Stop once the head and the `Content-Length` bytes after it have arrived.
    let text = String(decoding: answer, as: UTF8.self)
    guard let headEnd = text.range(of: "\r\n\r\n") else { continue }
    let length = text[..<headEnd.lowerBound].split(separator: "\r\n")
      .first { $0.lowercased().hasPrefix("content-length:") }
      .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }
    if let length, text.utf8.count - text[..<headEnd.upperBound].utf8.count >= length { break }
  }
  return String(decoding: answer, as: UTF8.self)
}

/// Sends all of `bytes` over the connection `descriptor`.
func sendAll(_ bytes: [UInt8], to descriptor: Int32) throws {
  var sent = 0
  while sent < bytes.count {
    let count = bytes[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
    guard count > 0 else { throw SocketFailure(step: "send") }
    sent += count
  }
}

/// Reads the connection `descriptor` until what arrived ends with `marker` (one byte at a
/// time, so nothing after it is taken); throws when the server ends it or is silent first.
func readUntil(_ marker: [UInt8], from descriptor: Int32) async throws -> [UInt8] {
  try await onOwnThread { try blockingReadUntil(marker, from: descriptor) }
}

private func blockingReadUntil(_ marker: [UInt8], from descriptor: Int32) throws -> [UInt8] {
  var received: [UInt8] = []
  var byte: UInt8 = 0
  while !received.reversed().starts(with: marker.reversed()) {
    guard recv(descriptor, &byte, 1, 0) == 1 else { throw SocketFailure(step: "read") }
    received.append(byte)
  }
  return received
}

/// Reads the connection `descriptor` until the server ends it or is silent for its read
/// timeout: what arrived, and whether the server ended it (its end, or a reset).
func readUntilClosed(_ descriptor: Int32) async throws -> (bytes: [UInt8], ended: Bool) {
  try await onOwnThread { blockingReadUntilClosed(descriptor) }
}

private func blockingReadUntilClosed(_ descriptor: Int32) -> (bytes: [UInt8], ended: Bool) {
  var received: [UInt8] = []
  var buffer = [UInt8](repeating: 0, count: 4096)
  while true {
    let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
    if count > 0 {
      received += buffer[..<count]
    } else {
      return (received, count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
    }
  }
}

/// A failed step of a raw connection.
struct SocketFailure: Error { var step: String }

/// A new TCP connection to 127.0.0.1:`port` whose reads give up after `timeout` seconds of
/// silence; the caller closes the descriptor.
func rawConnection(port: Int, timeout: Int = 5) throws -> Int32 {
  let descriptor = socket(AF_INET, streamSocket, 0)
  guard descriptor >= 0 else { throw SocketFailure(step: "socket") }
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_port = in_port_t(UInt16(port).bigEndian)
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  let connected = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
      connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
    }
  }
  guard connected == 0 else {
    close(descriptor)
    throw SocketFailure(step: "connect")
  }
  var wait = timeval(tv_sec: timeout, tv_usec: 0)
  setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
  return descriptor
}

/// Whether the server closed the connection `descriptor` (a read finds its end, or a reset)
/// rather than leaving it silent until the read timeout.
func serverClosed(_ descriptor: Int32) async throws -> Bool {
  try await onOwnThread {
    var byte: UInt8 = 0
    let count = recv(descriptor, &byte, 1, 0)
    return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
  }
}
