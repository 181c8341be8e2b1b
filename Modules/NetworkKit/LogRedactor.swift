import Foundation
import HTTPTypes

/// Removes secrets from requests and responses before they are logged.
///
/// It hides credential header fields, the values of sensitive JSON keys at any depth, sensitive
/// query and form parameters, and `Bearer` tokens in free text. A key is sensitive when its
/// lowercased name contains one of ``sensitiveKeyFragments`` (`access_token`, `refresh_token`,
/// `sign_up_token`, `password`, `verification_code`, ...), unless its dotted path is listed in
/// ``allowedKeyPaths`` (by default only `error.code`, the server's non-secret error code).
public struct LogRedactor: Sendable {
  /// The text that replaces every hidden value.
  public static let placeholder = "<redacted>"

  /// Header fields whose values are never logged.
  public var sensitiveHeaderFields: Set<HTTPField.Name>
  /// Lowercased fragments that make a JSON key, query or form parameter sensitive.
  public var sensitiveKeyFragments: [String]
  /// Dotted key paths (array indices omitted) that stay visible although they match a fragment.
  public var allowedKeyPaths: Set<String>

  /// Creates a redactor; the defaults cover credentials, cookies, tokens, passwords and codes.
  public init(
    sensitiveHeaderFields: Set<HTTPField.Name> = [
      .authorization, .proxyAuthorization, .cookie, .setCookie,
    ],
    sensitiveKeyFragments: [String] = ["token", "password", "secret", "code", "otp"],
    allowedKeyPaths: Set<String> = ["error.code"]
  ) {
    self.sensitiveHeaderFields = sensitiveHeaderFields
    self.sensitiveKeyFragments = sensitiveKeyFragments.map { $0.lowercased() }
    self.allowedKeyPaths = allowedKeyPaths
  }

  /// Whether the value under `key` at `path` must be hidden.
  public func isSensitive(key: String, path: String? = nil) -> Bool {
    if let path, allowedKeyPaths.contains(path) { return false }
    let lowered = key.lowercased()
    return sensitiveKeyFragments.contains { lowered.contains($0) }
  }

  /// The header fields with sensitive values replaced.
  public func redact(_ fields: HTTPFields) -> HTTPFields {
    var redacted = HTTPFields()
    for field in fields {
      if sensitiveHeaderFields.contains(field.name) {
        redacted.append(HTTPField(name: field.name, value: Self.placeholder))
      } else {
        redacted.append(HTTPField(name: field.name, value: redact(text: field.value)))
      }
    }
    return redacted
  }

  /// A path with query (`/a?b=c`) whose sensitive parameter values are replaced.
  public func redact(pathAndQuery: String) -> String {
    guard let questionMark = pathAndQuery.firstIndex(of: "?") else { return pathAndQuery }
    let path = pathAndQuery[..<questionMark]
    let query = pathAndQuery[pathAndQuery.index(after: questionMark)...]
    return path + "?" + redact(formEncoded: String(query))
  }

  /// `name=value&...` text whose sensitive values are replaced.
  public func redact(formEncoded: String) -> String {
    formEncoded.split(separator: "&", omittingEmptySubsequences: false).map { pair in
      guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
      let name = String(pair[..<equals])
      let decodedName = name.removingPercentEncoding ?? name
      return isSensitive(key: decodedName) ? name + "=" + Self.placeholder : String(pair)
    }
    .joined(separator: "&")
  }

  /// A loggable rendering of a body: JSON with sensitive values hidden, redacted form or text,
  /// a byte count for binary and multipart data; cut to `limit` characters after redaction.
  public func render(body: Data?, contentType: String?, limit: Int) -> String {
    guard let body, !body.isEmpty else { return "" }
    let type = contentType?.lowercased() ?? ""
    let text: String
    if type.hasPrefix("multipart/") {
      return "<\(body.count) bytes of \(type.split(separator: ";").first ?? "multipart")>"
    } else if let json = redact(json: body) {
      text = json
    } else if let string = String(data: body, encoding: .utf8) {
      text =
        type.contains("x-www-form-urlencoded")
        ? redact(formEncoded: string) : redact(text: string)
    } else {
      return "<\(body.count) bytes>"
    }
    guard text.count > limit else { return text }
    return String(text.prefix(limit)) + "... (\(text.count) characters)"
  }

  /// The JSON document with sensitive values hidden at any depth, or `nil` if `data` is not JSON.
  public func redact(json data: Data) -> String? {
    guard
      let object = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
    else { return nil }
    let redacted = redact(jsonValue: object, path: "", isSensitive: false)
    guard
      let output = try? JSONSerialization.data(
        withJSONObject: redacted,
        options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes])
    else { return nil }
    return String(decoding: output, as: UTF8.self)
  }

  /// Under a sensitive key every leaf is hidden, however deep, but the structure stays visible.
  private func redact(jsonValue: Any, path: String, isSensitive sensitive: Bool) -> Any {
    if let dictionary = jsonValue as? [String: Any] {
      var result: [String: Any] = [:]
      for (key, value) in dictionary {
        let childPath = path.isEmpty ? key : path + "." + key
        result[key] = redact(
          jsonValue: value, path: childPath,
          isSensitive: sensitive || isSensitive(key: key, path: childPath))
      }
      return result
    }
    if let array = jsonValue as? [Any] {
      return array.map { redact(jsonValue: $0, path: path, isSensitive: sensitive) }
    }
    if jsonValue is NSNull { return jsonValue }
    if sensitive { return Self.placeholder }
    if let string = jsonValue as? String { return redact(text: string) }
    return jsonValue
  }

  /// Free text with `Bearer` credentials and `"secret_key": "value"` pairs hidden; used for bodies
  /// that do not parse as JSON, such as truncated or malformed documents.
  public func redact(text: String) -> String {
    var result = text
    let whole = { (string: String) in NSRange(string.startIndex..., in: string) }
    result = Self.bearerPattern.regex.stringByReplacingMatches(
      in: result, range: whole(result), withTemplate: "$1 " + Self.placeholder)
    for match in Self.jsonPairPattern.regex.matches(in: result, range: whole(result)).reversed() {
      guard let keyRange = Range(match.range(at: 1), in: result),
        let valueRange = Range(match.range(at: 2), in: result),
        isSensitive(key: String(result[keyRange]))
      else { continue }
      result.replaceSubrange(valueRange, with: "\"\(Self.placeholder)\"")
    }
    return result
  }

  // Both patterns are constant and valid, so `try!` cannot fail.
  private static let bearerPattern = Pattern(
    try! NSRegularExpression(
      pattern: #"\b(Bearer|Basic)\s+[A-Za-z0-9\-._~+/=]+"#, options: [.caseInsensitive]))
  private static let jsonPairPattern = Pattern(
    try! NSRegularExpression(
      pattern: #""((?:[^"\\]|\\.)*)"\s*:\s*("(?:[^"\\]|\\.)*"?|[^,}\]\s]+)"#, options: []))
}

/// Not every SDK marks `NSRegularExpression` as `Sendable`; it is immutable and documented as
/// safe to share between threads.
private struct Pattern: @unchecked Sendable {
  let regex: NSRegularExpression
  init(_ regex: NSRegularExpression) { self.regex = regex }
}
