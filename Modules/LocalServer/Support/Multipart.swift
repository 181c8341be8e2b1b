import Foundation
import Hummingbird

/// A small `multipart/form-data` reader (RFC 7578), enough for the avatar upload.
enum Multipart {
  struct Part: Sendable {
    var name: String?
    var filename: String?
    var contentType: String?
    var data: Data
  }

  /// The `boundary` parameter of a multipart Content-Type, unquoted.
  static func boundary(of contentType: String) -> String? {
    guard let value = parameter("boundary", in: contentType), !value.isEmpty, value.count <= 200
    else { return nil }
    return value
  }

  /// The parts of `body`; malformed parts are skipped (the caller checks for what it needs).
  static func parts(of body: Data, boundary: String) -> [Part] {
    let delimiter = Data("--\(boundary)".utf8)
    let headerEnd = Data("\r\n\r\n".utf8)
    var parts: [Part] = []
    var searchStart = body.startIndex
    guard var current = body.range(of: delimiter, in: searchStart..<body.endIndex) else {
      return []
    }
    while true {
      searchStart = current.upperBound
      // "--" right after a delimiter closes the body.
      if body[searchStart...].starts(with: Data("--".utf8)) { break }
      guard let next = body.range(of: delimiter, in: searchStart..<body.endIndex) else { break }
      var content = body[searchStart..<next.lowerBound]
      if content.starts(with: Data("\r\n".utf8)) { content = content.dropFirst(2) }
      if content.suffix(2) == Data("\r\n".utf8) { content = content.dropLast(2) }
      if let split = content.range(of: headerEnd) {
        let headerText = String(
          decoding: content[content.startIndex..<split.lowerBound], as: UTF8.self)
        var part = Part(data: Data(content[split.upperBound...]))
        for line in headerText.components(separatedBy: "\r\n") {
          let pair = line.split(separator: ":", maxSplits: 1)
          guard pair.count == 2 else { continue }
          let name = pair[0].trimmingCharacters(in: .whitespaces).lowercased()
          let value = pair[1].trimmingCharacters(in: .whitespaces)
          if name == "content-disposition" {
            part.name = parameter("name", in: value)
            part.filename = parameter("filename", in: value)
          } else if name == "content-type" {
            part.contentType = value
          }
        }
        parts.append(part)
      }
      current = next
    }
    return parts
  }

  private static func parameter(_ key: String, in header: String) -> String? {
    for item in header.split(separator: ";").dropFirst() {
      let pair = item.split(separator: "=", maxSplits: 1)
      guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == key
      else { continue }
      var value = pair[1].trimmingCharacters(in: .whitespaces)
      if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 {
        value = String(value.dropFirst().dropLast())
      }
      return value
    }
    return nil
  }
}

extension Multipart {
  /// The bytes of the `image` part of a `multipart/form-data` request (`PUT /me/avatar`); the
  /// engine decides whether they are a picture it accepts.
  static func image(from call: Call) throws(APIError) -> Data {
    guard let contentType = call.request.headers[.contentType],
      contentType.lowercased().hasPrefix("multipart/form-data")
    else {
      throw APIError.malformed("Send the picture as multipart/form-data with a part named image.")
    }
    guard let boundary = boundary(of: contentType) else {
      throw APIError.malformed("The multipart Content-Type has no boundary.")
    }
    let parts = parts(of: Data(buffer: call.body), boundary: boundary)
    guard let part = parts.first(where: { $0.name == "image" }), !part.data.isEmpty else {
      throw APIError.validation(field: "image", "Add a part named image with the picture.")
    }
    return part.data
  }
}
