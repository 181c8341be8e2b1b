import Dependencies

// `testValue` is the macro's unimplemented client: any endpoint a test did not override fails
// the test (and throws). There is no `liveValue` here: only executables and tests pick Live.

extension AuthRepository: TestDependencyKey {
  /// Fails any test that calls an endpoint it did not override.
  public static let testValue = AuthRepository()
}
extension ProfileRepository: TestDependencyKey {
  /// Fails any test that calls an endpoint it did not override.
  public static let testValue = ProfileRepository()
}
extension QuestionRepository: TestDependencyKey {
  /// Fails any test that calls an endpoint it did not override.
  public static let testValue = QuestionRepository()
}
extension BoardRepository: TestDependencyKey {
  /// Fails any test that calls an endpoint it did not override.
  public static let testValue = BoardRepository()
}
extension ReportRepository: TestDependencyKey {
  /// Fails any test that calls an endpoint it did not override.
  public static let testValue = ReportRepository()
}
extension NotificationRepository: TestDependencyKey {
  /// Fails any test that calls an endpoint it did not override.
  public static let testValue = NotificationRepository()
}
extension StudyGroupRepository: TestDependencyKey {
  /// Fails any test that calls an endpoint it did not override.
  public static let testValue = StudyGroupRepository()
}
extension ChatRepository: TestDependencyKey {
  /// Fails any test that calls an endpoint it did not override.
  public static let testValue = ChatRepository()
}
extension AnalyticsRepository: TestDependencyKey {
  /// Fails any test that calls an endpoint it did not override.
  public static let testValue = AnalyticsRepository()
}
extension AdminRepository: TestDependencyKey {
  /// Fails any test that calls an endpoint it did not override.
  public static let testValue = AdminRepository()
}
