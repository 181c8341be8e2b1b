import ChatCore
import Dependencies
import Domain
import Foundation
import HTTPTypes
import NetworkKit
import NetworkKitTesting
import Repositories
import Testing

@testable import RepositoriesLive

@Suite("Entry point")
struct EntryPointTests {
  @Test func useLiveInstallsEveryRepository() async throws {
    let transport = StubTransport()
    transport.stub(
      .get, "/nicknames/availability",
      with: .response(
        status: .ok,
        body: Data(#"{"nickname": "swiftie", "available": false, "reason": "taken"}"#.utf8)))
    let store = InMemoryCredentialStore()

    let availability = try await withDependencies {
      $0.useLive(baseURL: Harness.baseURL, credentialStore: store) {
        $0.transport = transport
        $0.retryPolicy = .never
      }
    } operation: {
      @Dependency(\.authRepository) var auth
      return try await auth.checkNickname(Nickname(validating: "swiftie"))
    }

    #expect(
      availability == NicknameAvailability(nickname: "swiftie", isAvailable: false, reason: "taken")
    )
    let request = try #require(transport.receivedRequests.first?.request)
    #expect(request.scheme == "https")
    #expect(request.authority == "api.qapple.test")
    #expect(request.path == "/nicknames/availability?nickname=swiftie")
  }

  @Test func eachServerHasADefaultSessionStoreOfItsOwn() throws {
    let staging = LiveConfiguration(baseURL: URL(string: "https://staging.qapple.test")!)
    let production = LiveConfiguration(baseURL: URL(string: "https://api.qapple.test")!)
    #if canImport(Security)
    let stagingStore = try #require(staging.credentialStore as? KeychainCredentialStore)
    let productionStore = try #require(production.credentialStore as? KeychainCredentialStore)
    #expect(stagingStore.account == "https-staging.qapple.test-443")
    #expect(productionStore.account == "https-api.qapple.test-443")
    #else
    let stagingStore = try #require(staging.credentialStore as? FileCredentialStore)
    let productionStore = try #require(production.credentialStore as? FileCredentialStore)
    #expect(stagingStore.fileURL.lastPathComponent == "https-staging.qapple.test-443.session.json")
    #expect(productionStore.fileURL.lastPathComponent == "https-api.qapple.test-443.session.json")
    #endif
  }

  @Test func theTokenLeewayIsNetworkKitsByDefault() {
    let configuration = LiveConfiguration(baseURL: URL(string: "https://api.qapple.test")!)
    #expect(configuration.tokenRefreshLeeway == Authenticator.defaultLeeway)
    #expect(Authenticator.defaultLeeway == .seconds(60))
  }

  @Test func repositorySetLiveSharesOneSession() async throws {
    let transport = StubTransport()
    let set = RepositorySet.live(
      configuration: LiveConfiguration(
        baseURL: Harness.baseURL, credentialStore: InMemoryCredentialStore(), transport: transport,
        retryPolicy: .never))
    transport.stub(
      .post, "/auth/sign-in",
      with: .response(
        status: .ok, body: Data(Fixtures.signedIn(Fixtures.session(accessToken: "shared")).utf8)))
    transport.stub(
      .get, "/notifications/unread-count",
      with: .response(status: .ok, body: Data(#"{"count": 0}"#.utf8)))

    _ = try await set.auth.signIn(.dev, "alice")
    _ = try await set.notifications.fetchUnreadCount()

    #expect(
      transport.receivedRequests.last?.request.headerFields[.authorization] == "Bearer shared")
  }

  @Test func useLiveKeepsEachUsersStoreInThePlatformsAppDataByDefault() throws {
    var backend: LiveBackend?
    withDependencies {
      backend = $0.useLive(baseURL: Harness.baseURL, credentialStore: InMemoryCredentialStore())
    } operation: {
    }
    let storage = try #require(backend?.configuration.chat.storage)
    #expect(storage == .platformDefault(server: Harness.baseURL))
    guard case .directory(let folder) = storage else {
      Issue.record("expected a directory, got \(storage)")
      return
    }
    #expect(folder.pathComponents.suffix(3) == ["qapple", "stores", "https-api.qapple.test-443"])
    #expect(folder.path.hasPrefix(PlatformDirectories.data().path))

    withDependencies {
      backend = $0.useLive(
        baseURL: Harness.baseURL, credentialStore: InMemoryCredentialStore(), storage: .inMemory)
    } operation: {
    }
    #expect(backend?.configuration.chat.storage == .inMemory)
  }

  @Test func platformDirectoriesFollowXDGOnLinux() {
    #if !canImport(Darwin)
    #expect(
      PlatformDirectories.data(environment: ["XDG_DATA_HOME": "/srv/data"]).path == "/srv/data")
    #expect(
      PlatformDirectories.config(environment: ["XDG_CONFIG_HOME": "relative"]).path
        == NSHomeDirectory() + "/.config")
    #expect(PlatformDirectories.data(environment: [:]).path == NSHomeDirectory() + "/.local/share")
    #endif
    #expect(
      PlatformDirectories.serverName(URL(string: "http://127.0.0.1:8080/api/v1")!)
        == "http-127.0.0.1-8080-api_v1")
  }

  @Test func thePlatformDefaultStoreIsAFileOnLinux() {
    #if !canImport(Security)
    let store: FileCredentialStore = .platformDefault(service: "qapple-tests", account: "probe")
    #expect(store.fileURL.lastPathComponent == "probe.session.json")
    #endif
  }
}
