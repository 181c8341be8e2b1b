import AdminFeature
import Dependencies
import Domain
import Repositories
import ToolSupport

/// The AdminFeature screen models the commands drive, over the connection's live repositories.
enum AdminScreens {
  /// `make()` with `connection`'s repositories as its dependencies. The tools send no
  /// analytics: the screens' events go nowhere.
  @MainActor
  static func model<Model>(_ connection: ToolConnection, _ make: () -> Model) -> Model {
    withDependencies {
      $0.install(connection.repositories)
      $0.analyticsRepository = AnalyticsRepository(track: { _ in }, flush: { 0 })
    } operation: {
      make()
    }
  }

  /// Throws what kept a screen from loading (the tool maps it to its message and exit code).
  static func requireLoaded(_ state: ScreenState) throws(DomainError) {
    switch state {
    case .loaded: return
    case .forbidden: throw .forbidden
    case .failed(let error): throw error
    case .idle, .loading: throw .server("the screen did not load")
    }
  }
}
