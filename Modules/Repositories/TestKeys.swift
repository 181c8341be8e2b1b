import Dependencies

// There is no `liveValue` here: only executables and tests pick Live.

/// A repository interface whose `testValue` is the macro's unimplemented client: any endpoint
/// a test did not override fails the test (and throws).
public protocol UnimplementedTestKey: TestDependencyKey {
  /// The client whose every endpoint is unimplemented (the `@DependencyClient` macro's `init()`).
  init()
}

extension UnimplementedTestKey {
  /// Fails any test that calls an endpoint it did not override.
  public static var testValue: Self { Self() }
}

extension AuthRepository: UnimplementedTestKey {}
extension ProfileRepository: UnimplementedTestKey {}
extension QuestionRepository: UnimplementedTestKey {}
extension BoardRepository: UnimplementedTestKey {}
extension ReportRepository: UnimplementedTestKey {}
extension NotificationRepository: UnimplementedTestKey {}
extension StudyGroupRepository: UnimplementedTestKey {}
extension ChatRepository: UnimplementedTestKey {}
extension AnalyticsRepository: UnimplementedTestKey {}
extension AdminRepository: UnimplementedTestKey {}
