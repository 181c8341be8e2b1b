import AuthFeature
import Dependencies
import Domain
import Foundation
import Observation
import Repositories

/// The root of the member app: which phase it is in follows `AuthRepository`'s session stream
/// (no `isSignedIn` flag of its own), and every way into the app (an app-scheme or universal
/// link, a push, a notification tapped inside the app) ends in ``MainModel/open(_:)``.
///
/// A link that arrives while nobody is signed in waits in ``pendingLink`` and opens once the
/// user is; a link that cannot be read opens nothing and ``linkFailure`` says why.
@MainActor @Observable
public final class AppModel {
  /// Where the app stands.
  public enum Phase {
    /// Before the session stream said anything (a splash screen).
    case launching
    /// Nobody is signed in.
    case signedOut(SignInModel)
    /// A provider account has no Qapple account yet.
    case signingUp(SignUpModel)
    /// Signed in: the tabs.
    case signedIn(MainModel)
  }

  /// What the app was built with.
  public struct Configuration: Sendable {
    /// The version of the terms sign-up agrees to.
    public var termsVersion: String
    /// Hosts whose `https` links are universal links of the app (e.g. `qapple.app`).
    public var universalLinkHosts: Set<String>

    /// Creates a configuration.
    public init(termsVersion: String, universalLinkHosts: Set<String> = []) {
      self.termsVersion = termsVersion
      self.universalLinkHosts = Set(universalLinkHosts.map { $0.lowercased() })
    }
  }

  /// The configuration.
  public let configuration: Configuration
  /// The phase on screen.
  public private(set) var phase: Phase = .launching
  /// A link that arrived while nobody was signed in; it opens after sign-in.
  public private(set) var pendingLink: DeepLink?
  /// The notification of the push whose link is ``pendingLink``: marked read when it opens.
  private var pendingNotification: AppNotification.ID?
  /// Why the last link opened nothing, until ``linkFailureDismissed()``.
  public private(set) var linkFailure: LinkFailure?

  @ObservationIgnored @Dependency(\.authRepository) private var auth
  @ObservationIgnored @Dependency(\.notificationRepository) private var notificationRepository
  @ObservationIgnored @Dependency(\.analyticsRepository) private var analytics
  @ObservationIgnored @Dependency(\.date) private var date

  /// Creates the root.
  public init(configuration: Configuration) {
    self.configuration = configuration
  }

  /// The signed-in tabs, if the app is signed in.
  public var main: MainModel? {
    guard case .signedIn(let main) = phase else { return nil }
    return main
  }

  /// The app launched: follows the session stream until the task is cancelled.
  public func task() async {
    for await state in auth.sessionStates() {
      sessionChanged(state)
    }
  }

  /// Opens an app-scheme (`qapple://...`) or universal link (`https://<host>/...`). Returns the
  /// link it opens (or keeps for after sign-in), `nil` when it was refused (see
  /// ``linkFailure``).
  @discardableResult
  public func open(_ url: URL) async -> DeepLink? {
    do {
      let link = try DeepLink(url: url, universalLinkHosts: configuration.universalLinkHosts)
      await open(link, source: "url")
      return link
    } catch {
      linkFailure = .link(error)
      return nil
    }
  }

  /// Opens the link of a tapped push notification and marks its notification read; before
  /// anyone is signed in (the app launched by the tap, or signed out) both wait for the
  /// sign-in, the link in ``pendingLink``. The payload is what the service sends: `link` (a
  /// `qapple://` URL) and, optionally, `notification_id`.
  @discardableResult
  public func open(push userInfo: [AnyHashable: Any]) async -> DeepLink? {
    let payload: PushPayload
    do {
      payload = try PushPayload(userInfo: userInfo)
    } catch {
      linkFailure = .push(error)
      return nil
    }
    do {
      let link = try DeepLink(url: payload.link)
      await open(link, source: "push", notification: payload.notificationID)
      return link
    } catch {
      linkFailure = .link(error)
      return nil
    }
  }

  /// The link failure was read.
  public func linkFailureDismissed() {
    linkFailure = nil
  }

  private func open(
    _ link: DeepLink, source: String, notification: AppNotification.ID? = nil
  ) async {
    linkFailure = nil
    guard let main else {
      pendingLink = link
      pendingNotification = notification
      return
    }
    main.open(link)
    await analytics.track(
      "link_opened", ["source": source, "tab": MainModel.tab(of: link).rawValue], at: date.now)
    if let notification { await markRead(notification, openedIn: main) }
  }

  /// Marks read the notification of a push whose link `main` opened. The link opened either
  /// way; a failed mark-read leaves the item unread in the inbox. Nothing is asked or changed
  /// once other tabs replaced `main` (a sign-out, another account). A push that waited for a
  /// sign-in is marked read as whoever signed in: the payload does not name its user, and the
  /// service refuses another user's notification (the badge is then read again).
  private func markRead(_ id: AppNotification.ID, openedIn main: MainModel) async {
    guard self.main === main else { return }
    let marked = (try? await notificationRepository.markRead(id)) != nil
    guard self.main === main else { return }
    if marked {
      await main.notifications.notificationReadElsewhere(id)
    } else {
      await main.notifications.refreshUnreadCount()
    }
  }

  private func sessionChanged(_ state: SessionState) {
    switch (state, phase) {
    case (.signedOut, .signedOut):
      return
    case (.signedOut, _):
      phase = .signedOut(withDependencies(from: self) { SignInModel() })
    case (.needsSignUp(let token), .signingUp(let signUp)) where signUp.signUpToken == token:
      return
    case (.needsSignUp(let token), _):
      phase = .signingUp(
        withDependencies(from: self) {
          SignUpModel(signUpToken: token, termsVersion: configuration.termsVersion)
        })
    case (.signedIn(let user), .signedIn(let main)) where main.user.id == user.id:
      main.userChanged(user)
    case (.signedIn(let user), _):
      let main = withDependencies(from: self) { MainModel(user: user) }
      phase = .signedIn(main)
      if let link = pendingLink {
        pendingLink = nil
        main.open(link)
      }
      if let notification = pendingNotification {
        pendingNotification = nil
        Task { await markRead(notification, openedIn: main) }
      }
    }
  }
}

/// Why a link opened nothing.
public enum LinkFailure: Error, Hashable, Sendable, CustomStringConvertible {
  /// The URL is not a link of the app (see ``Domain/DeepLinkError``).
  case link(DeepLinkError)
  /// The push payload carries no usable link.
  case push(PushPayload.Error)

  /// A sentence for the user.
  public var description: String {
    switch self {
    case .link(let error): error.description
    case .push(let error): error.description
    }
  }
}

/// The part of a push notification's payload the app reads.
public struct PushPayload: Hashable, Sendable {
  /// Why a payload is unusable.
  public enum Error: Swift.Error, Hashable, Sendable, CustomStringConvertible {
    /// There is no `link` string.
    case missingLink
    /// `link` is not a URL.
    case invalidLink(String)

    /// A sentence for logs and the user.
    public var description: String {
      switch self {
      case .missingLink: "The notification carries no link."
      case .invalidLink(let text): "The notification's link is not a URL: \(text.prefix(100))"
      }
    }
  }

  /// The link to open.
  public var link: URL
  /// The notification the push stands for, to mark read.
  public var notificationID: AppNotification.ID?

  /// Reads `link` and `notification_id` from a push's user info.
  public init(userInfo: [AnyHashable: Any]) throws(Error) {
    guard let text = userInfo["link"] as? String else { throw .missingLink }
    guard let url = URL(string: text) else { throw .invalidLink(text) }
    link = url
    notificationID = (userInfo["notification_id"] as? String).map { AppNotification.ID($0) }
  }
}
