import Foundation

/// A `multipart/form-data` body: named parts, each with optional file name and content type.
public struct MultipartFormData: Sendable, Hashable {
  /// One part of the form.
  public struct Part: Sendable, Hashable {
    /// The form field name.
    public var name: String
    /// The file name sent with file parts.
    public var fileName: String?
    /// The part's content type, e.g. `image/jpeg`.
    public var contentType: String?
    /// The part's bytes.
    public var data: Data

    /// Creates a part.
    public init(name: String, fileName: String? = nil, contentType: String? = nil, data: Data) {
      self.name = name
      self.fileName = fileName
      self.contentType = contentType
      self.data = data
    }
  }

  /// The parts, in order.
  public var parts: [Part]
  /// The boundary that separates parts; random by default.
  public var boundary: String

  /// Creates a form from parts.
  public init(parts: [Part], boundary: String = "qapple-" + UUID().uuidString) {
    self.parts = parts
    self.boundary = boundary
  }

  /// The `Content-Type` header value, boundary included.
  public var contentType: String { "multipart/form-data; boundary=\(boundary)" }

  /// The encoded body.
  public func encoded() -> Data {
    var body = Data()
    func append(_ string: String) { body.append(Data(string.utf8)) }
    for part in parts {
      append("--\(boundary)\r\n")
      var disposition = "Content-Disposition: form-data; name=\"\(Self.escape(part.name))\""
      if let fileName = part.fileName {
        disposition += "; filename=\"\(Self.escape(fileName))\""
      }
      append(disposition + "\r\n")
      if let contentType = part.contentType {
        append("Content-Type: \(contentType)\r\n")
      }
      append("\r\n")
      body.append(part.data)
      append("\r\n")
    }
    append("--\(boundary)--\r\n")
    return body
  }

  /// Quotes and line breaks would end the header value early, so they are escaped.
  private static func escape(_ value: String) -> String {
    value
      .replacingOccurrences(of: "\"", with: "%22")
      .replacingOccurrences(of: "\r", with: "%0D")
      .replacingOccurrences(of: "\n", with: "%0A")
  }
}
