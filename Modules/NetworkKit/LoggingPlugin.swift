import Foundation
import HTTPTypes
import Logging

/// A ``NetworkPlugin`` that logs each exchange on swift-log with secrets redacted.
///
/// Before sending it logs the method, URL, header fields and body; after the exchange the
/// status (or error), the duration and the response body. Bodies are cut to ``bodyLimit``
/// characters and every header, query parameter and JSON value goes through ``redactor``, so
/// access tokens, refresh tokens, passwords, verification codes and cookies never reach the log.
public struct LoggingPlugin: NetworkPlugin {
  /// The logger that receives the entries.
  public var logger: Logger
  /// The level of successful exchanges; 4xx answers log at `.warning` or above, 5xx answers and
  /// failures other than cancellation at `.error`.
  public var level: Logger.Level
  /// How many characters of a body are logged; `0` logs no bodies.
  public var bodyLimit: Int
  /// What gets hidden.
  public var redactor: LogRedactor

  /// Creates a logging plugin.
  public init(
    logger: Logger = Logger(label: "NetworkKit"),
    level: Logger.Level = .debug,
    bodyLimit: Int = 2_048,
    redactor: LogRedactor = LogRedactor()
  ) {
    self.logger = logger
    self.level = level
    self.bodyLimit = bodyLimit
    self.redactor = redactor
  }

  /// Logs the outgoing request.
  public func willSend(_ request: HTTPRequest, body: Data?, target: any TargetType) async {
    var metadata: Logger.Metadata = [
      "http.method": "\(request.method.rawValue)",
      "http.url": "\(url(of: request))",
      "http.request.headers": "\(render(redactor.redact(request.headerFields)))",
    ]
    if bodyLimit > 0, let body, !body.isEmpty {
      let rendered = redactor.render(
        body: body, contentType: request.headerFields[.contentType], limit: bodyLimit)
      metadata["http.request.body"] = "\(rendered)"
    }
    logger.log(
      level: level, "-> \(request.method.rawValue) \(url(of: request))", metadata: metadata)
  }

  /// Logs the status or failure, the duration and the response body.
  public func didReceive(
    _ result: Result<NetworkResponse, NetworkError>,
    for request: HTTPRequest,
    target: any TargetType,
    duration: Duration
  ) async {
    let milliseconds = duration.timeInterval * 1000
    let elapsed = String(format: "%.1f ms", milliseconds)
    var metadata: Logger.Metadata = [
      "http.method": "\(request.method.rawValue)",
      "http.url": "\(url(of: request))",
      "http.duration_ms": "\(String(format: "%.1f", milliseconds))",
    ]
    switch result {
    case .success(let response):
      let code = response.status.code
      metadata["http.status"] = "\(code)"
      metadata["http.response.headers"] = "\(render(redactor.redact(response.headerFields)))"
      if bodyLimit > 0, !response.body.isEmpty {
        let rendered = redactor.render(
          body: response.body, contentType: response.headerFields[.contentType], limit: bodyLimit)
        metadata["http.response.body"] = "\(rendered)"
      }
      let entryLevel: Logger.Level =
        code >= 500 ? .error : code >= 400 ? max(level, .warning) : level
      logger.log(
        level: entryLevel,
        "<- \(code) \(request.method.rawValue) \(url(of: request)) (\(elapsed))",
        metadata: metadata)
    case .failure(let error):
      let description = redactor.redact(text: error.description)
      metadata["error"] = "\(description)"
      let entryLevel: Logger.Level = error == .cancelled ? level : .error
      logger.log(
        level: entryLevel,
        "<- failed \(request.method.rawValue) \(url(of: request)) (\(elapsed)): \(description)",
        metadata: metadata)
    }
  }

  private func url(of request: HTTPRequest) -> String {
    let path = redactor.redact(pathAndQuery: request.path ?? "/")
    guard let scheme = request.scheme, let authority = request.authority else { return path }
    return "\(scheme)://\(authority)\(path)"
  }

  private func render(_ fields: HTTPFields) -> String {
    fields.map { "\($0.name.rawName): \($0.value)" }.joined(separator: ", ")
  }
}
