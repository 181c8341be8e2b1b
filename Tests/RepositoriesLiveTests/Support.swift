import Testing

@testable import RepositoriesLive
