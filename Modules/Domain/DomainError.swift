import Foundation

/// An error a screen can show and act on. Repositories turn HTTP statuses, transport failures
/// and server error codes into these, so features never see raw status codes.
public enum DomainError: Error, Hashable, Sendable, CustomStringConvertible {
  /// Input was refused; says which field and why.
  case validation(ValidationError)
  /// The nickname belongs to someone else.
  case nicknameTaken
  /// The user already reported this target.
  case alreadyReported
  /// The account is banned from writing.
  case banned
  /// The thing no longer exists or is hidden.
  case notFound
  /// The user may not do this (not the author, not an admin).
  case forbidden
  /// Others' answers to a question stay hidden until the user answers that question.
  case answerRequired
  /// The request conflicts with the current state (e.g. already answered, date taken).
  case conflict(String)
  /// The session ended; sign in again.
  case signedOut
  /// No network connection or the server cannot be reached.
  case offline
  /// The server took too long.
  case timeout
  /// Too many writes; try again after the given time, if the server said.
  case rateLimited(retryAfter: Duration?)
  /// The server failed; the message is for logs and support.
  case server(String)

  /// A sentence for the user that says what happened and what to do.
  public var description: String {
    switch self {
    case .validation(let error): error.description
    case .nicknameTaken: "That nickname is taken. Try another one."
    case .alreadyReported: "You already reported this. Moderators will review it."
    case .banned: "Your account is banned from posting; you can still read. Contact the moderators."
    case .notFound: "This no longer exists or was hidden."
    case .forbidden: "You are not allowed to do that."
    case .answerRequired: "Answer this question first to see what others wrote."
    case .conflict(let message): message
    case .signedOut: "Your session ended. Please sign in again."
    case .offline: "You appear to be offline. Check your connection and try again."
    case .timeout: "The server took too long to answer. Try again."
    case .rateLimited(let retryAfter):
      if let retryAfter {
        "You are doing that too often. Try again in \(retryAfter.wholeSecondsRoundedUp) s."
      } else {
        "You are doing that too often. Try again in a moment."
      }
    case .server(let message): "Something went wrong on the server: \(message)"
    }
  }
}

extension DomainError {
  /// `true` for failures that may pass on a later try with nothing changed (offline, timeout,
  /// server error, rate limit, a session a sign-in renews); `false` for a refusal the user
  /// must act on. The chat outbox retries the first kind and fails the second.
  public var isWorthRetrying: Bool {
    switch self {
    case .offline, .timeout, .server, .rateLimited, .signedOut: true
    default: false
    }
  }

  /// `error` as a domain error, for code that calls a repository (whose endpoints throw
  /// ``DomainError``): a domain error stays itself, a ``ValidationError`` becomes
  /// ``validation(_:)``, anything else (a bug, an unimplemented test endpoint) becomes
  /// ``server(_:)`` with its description, so a screen still shows something true.
  public init(_ error: any Error) {
    switch error {
    case let error as DomainError: self = error
    case let error as ValidationError: self = .validation(error)
    default: self = .server(String(describing: error))
    }
  }
}
