import Domain
import Testing

/// Runs `body` and returns the validation error it threw, or `nil` when it succeeded.
/// Any other error is recorded as a test issue.
func validationError<T>(_ body: () throws -> T) -> ValidationError? {
  do {
    _ = try body()
    return nil
  } catch let error as ValidationError {
    return error
  } catch {
    Issue.record("Expected a ValidationError, got \(error)")
    return nil
  }
}

extension ValidationError {
  /// The name of the case, to check the kind of error without repeating its message text.
  var caseName: String {
    switch self {
    case .empty: "empty"
    case .tooShort: "tooShort"
    case .tooLong: "tooLong"
    case .invalidCharacters: "invalidCharacters"
    case .invalidFormat: "invalidFormat"
    case .reserved: "reserved"
    case .outOfRange: "outOfRange"
    }
  }
}

/// `count` copies of `piece` joined together.
func repeated(_ piece: String, _ count: Int) -> String {
  String(repeating: piece, count: count)
}
